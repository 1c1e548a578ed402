//! The initial instruction set as the text the model receives.

use super::{InstructionSet, Scope};

/// Renders loaded instructions in delivery order, each under a header naming its file, and
/// lists refused files so the model knows they exist but were not read.
pub fn render(set: &InstructionSet) -> String {
    let mut out = String::new();
    for i in &set.instructions {
        let scope = match i.scope {
            Scope::Home => "user",
            Scope::Ancestor => "project",
            Scope::Nested => "nested",
        };
        out.push_str(&format!("# {scope} instructions: {}\n", i.path.display()));
        out.push_str(&i.text);
        if !i.text.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    for s in &set.skipped {
        out.push_str(&format!("# not loaded: {s}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::instructions::{Instruction, Skipped};

    #[test]
    fn renders_in_order_with_headers() {
        let set = InstructionSet {
            instructions: vec![
                Instruction {
                    path: PathBuf::from("/h/.ansa/AGENTS.md"),
                    scope: Scope::Home,
                    text: "be brief".into(),
                },
                Instruction {
                    path: PathBuf::from("/w/AGENTS.md"),
                    scope: Scope::Ancestor,
                    text: "use cargo\n".into(),
                },
            ],
            skipped: vec![Skipped {
                path: PathBuf::from("/w/x/AGENTS.md"),
                reason: "it is a symlink".into(),
            }],
        };
        assert_eq!(
            render(&set),
            "# user instructions: /h/.ansa/AGENTS.md\nbe brief\n\n# project instructions: /w/AGENTS.md\nuse cargo\n\n# not loaded: /w/x/AGENTS.md skipped: it is a symlink\n"
        );
    }
}
