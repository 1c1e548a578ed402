//! What an ignored test needs, read from its `#[ignore = "…"]` reason. The reasons follow one
//! grammar so that `cargo xtask test` can run exactly the tests it can provide for, and
//! nothing that is ignored for another reason:
//!
//! - `needs R[, R…][ and R]: TEXT` — a test that needs components (`chromium-headless-shell`,
//!   `oidc-provider`, `the llama.cpp wheels`, `the MCP npm packages`, `fish`; TEXT says
//!   `run cargo xtask test`), root
//!   (`root`) or the reference ASH/1 build (`the reference ash`);
//! - `the child process of TEST` — not a test of its own: TEST runs it.

use crate::components::Component;

/// One thing an ignored test needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Requirement {
    /// A component `cargo xtask test` installs.
    Component(Component),
    /// The effective user is root (to mount a tmpfs, set file attributes, act as another user).
    Root,
    /// The public reference ASH/1 build, named by `ASH_REFERENCE`.
    Reference,
}

impl Requirement {
    /// The name used in ignore reasons.
    pub fn name(self) -> &'static str {
        match self {
            Requirement::Component(c) => c.name(),
            Requirement::Root => "root",
            Requirement::Reference => "the reference ash",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        match name {
            "root" => Some(Requirement::Root),
            "the reference ash" => Some(Requirement::Reference),
            _ => Component::ALL
                .into_iter()
                .find(|c| c.name() == name && c.named_in_reasons())
                .map(Requirement::Component),
        }
    }
}

/// Why a test is ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// It needs these; `cargo xtask test` runs it when it can provide all of them.
    Needs(Vec<Requirement>),
    /// A child process another test starts (`--ignored --exact` from within).
    ChildOf(String),
}

/// What is wrong with an ignore reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReasonError {
    /// It follows neither form.
    #[error(
        "the reason follows neither `needs X: run cargo xtask test` nor `the child process of TEST`"
    )]
    Form,
    /// It names something `cargo xtask test` does not know.
    #[error("`{0}` is not something cargo xtask test provides (root, the reference ash, {list})", list = known_components())]
    Unknown(String),
    /// A component's reason does not say how to run it.
    #[error("a reason naming a component must say `run cargo xtask test`")]
    NoCommand,
}

fn known_components() -> String {
    Component::ALL
        .into_iter()
        .filter(|c| c.named_in_reasons())
        .map(Component::name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses an `#[ignore]` reason.
pub fn parse(reason: &str) -> Result<Reason, ReasonError> {
    if let Some(test) = reason.strip_prefix("the child process of ") {
        return Ok(Reason::ChildOf(test.trim().to_owned()));
    }
    let Some(rest) = reason.strip_prefix("needs ") else {
        return Err(ReasonError::Form);
    };
    let Some((names, text)) = rest.split_once(':') else {
        return Err(ReasonError::Form);
    };
    let mut needs = Vec::new();
    for name in names.split(", ").flat_map(|part| part.split(" and ")) {
        let name = name.trim();
        needs.push(Requirement::parse(name).ok_or_else(|| ReasonError::Unknown(name.into()))?);
    }
    let installable = needs.iter().any(|r| matches!(r, Requirement::Component(_)));
    if installable && !text.contains("run cargo xtask test") {
        return Err(ReasonError::NoCommand);
    }
    needs.sort();
    needs.dedup();
    Ok(Reason::Needs(needs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_root_and_child_reasons_parse() {
        assert_eq!(
            parse("needs chromium-headless-shell and oidc-provider: run cargo xtask test"),
            Ok(Reason::Needs(vec![
                Requirement::Component(Component::Chromium),
                Requirement::Component(Component::OidcProvider),
            ]))
        );
        assert_eq!(
            parse("needs root: mounts a tmpfs in the workspace (cargo xtask test runs it as root)"),
            Ok(Reason::Needs(vec![Requirement::Root]))
        );
        assert_eq!(
            parse("needs the reference ash: set ASH_REFERENCE to its build"),
            Ok(Reason::Needs(vec![Requirement::Reference]))
        );
        assert_eq!(
            parse("needs the MCP npm packages: run cargo xtask test"),
            Ok(Reason::Needs(vec![Requirement::Component(
                Component::McpPackages
            )]))
        );
        assert_eq!(
            parse("the child process of a_test"),
            Ok(Reason::ChildOf("a_test".into()))
        );
    }

    #[test]
    fn unknown_names_and_reasons_without_the_command_are_refused() {
        assert_eq!(parse("slow"), Err(ReasonError::Form));
        assert_eq!(parse("needs a GPU"), Err(ReasonError::Form));
        assert_eq!(
            parse("needs a GPU: run cargo xtask test"),
            Err(ReasonError::Unknown("a GPU".into()))
        );
        assert_eq!(parse("needs fish: install it"), Err(ReasonError::NoCommand));
        // Debian tools every test run needs are not opted out of: their tests fail instead.
        assert_eq!(
            parse("needs tmux: run cargo xtask test"),
            Err(ReasonError::Unknown("tmux".into()))
        );
    }
}
