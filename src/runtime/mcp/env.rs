//! The environment a stdio MCP server starts from: an allowlist of what programs need to
//! run (PATH, HOME, locale, terminal, temp dir), never a variable ansa withholds (API keys,
//! tokens, the broker token, `exec_env_deny`), then the server's own `env` on top.

use std::ffi::OsString;

use ansa_mcp::ChildEnv;

use crate::config::WithheldEnv;

/// Variables passed through when set.
const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "TMPDIR",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
];

/// The scrubbed base environment of every stdio server, from this process's environment.
pub fn child_env(withheld: &WithheldEnv) -> ChildEnv {
    base_from(std::env::vars_os(), withheld)
}

fn base_from(vars: impl Iterator<Item = (OsString, OsString)>, withheld: &WithheldEnv) -> ChildEnv {
    let base = vars
        .filter(|(name, _)| {
            let Some(name) = name.to_str() else {
                return false;
            };
            let passed = PASSED.contains(&name) || name.starts_with("LC_");
            passed && !withheld.names().iter().any(|w| w == name)
        })
        .collect();
    ChildEnv { base }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_allowlist_reaches_a_server_and_never_a_withheld_name() {
        let vars = [
            ("PATH", "/bin"),
            ("LC_ALL", "C"),
            ("AI_API_KEY", "k"),
            ("ASH_BROKER_TOKEN", "t"),
            ("RANDOM_SECRET", "s"),
            ("HOME", "/h"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let names = |env: &ChildEnv| -> Vec<String> {
            env.base
                .iter()
                .map(|(k, _)| k.to_string_lossy().into_owned())
                .collect()
        };
        let mut withheld = WithheldEnv::default();
        let env = base_from(vars.clone().into_iter(), &withheld);
        assert_eq!(names(&env), ["PATH", "LC_ALL", "HOME"]);
        // A variable the user withholds (`exec_env_deny`) is withheld from servers too.
        withheld.add("HOME");
        let env = base_from(vars.into_iter(), &withheld);
        assert_eq!(names(&env), ["PATH", "LC_ALL"]);
    }
}
