//! `--self-check`: verifies the home directory's modes, the config, a journal round trip and
//! the engine with real tools, printing one line per check; exit 0 when all pass.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use ansa_sessions::{AcceptedAction, CommandId, JournalOptions, Mode, Profile, Session};
use ash_engine::cancel::CancelToken;
use ash_engine::compute::ComputePlane;

use ansa_ui::sanitize::exact;

use super::{Args, Exit, Failure, start};
use crate::config::{DEFAULT_RESPONSES_BASE_URL, Env};
use crate::home::{AnsaHome, ensure_private_dir};
use crate::instructions::FileExclusion;
use crate::provider::http::{ClientOptions, HttpClient};
use crate::tools::{self, ToolExecutor, ToolFiles, ToolPolicy, ToolRegistry};

/// Runs every check and reports each on stdout.
pub fn run(home: &AnsaHome, args: &Args, env: &Env) -> Result<Exit, Failure> {
    let mut out = std::io::stdout();
    let mut ok = true;
    let mut report = |name: &str, result: Result<String, String>| {
        let line = match result {
            Ok(detail) => format!("ok    {name}: {detail}"),
            Err(detail) => {
                ok = false;
                format!("FAIL  {name}: {detail}")
            }
        };
        // A detail may quote a server's answer or a path.
        let _ = writeln!(out, "{}", exact(&line));
    };
    report("home", check_home(home));
    let cwd = start::workspace(args.cwd.as_deref(), None)?;
    let config = start::load_config(home, &cwd, env, args);
    report(
        "config",
        config
            .as_ref()
            .map(|c| {
                format!(
                    "valid ({} file(s) read), digest {}",
                    c.sources.len(),
                    &c.digest()[..12]
                )
            })
            .map_err(|f| f.message.clone()),
    );
    if let Ok(c) = &config {
        report("tls", check_tls(c));
    }
    let scratch = start::scratch_dir("self-check")?;
    report("journal", check_journal(&scratch.join("session"), &scratch));
    report("engine", check_engine(home, &scratch));
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(if ok { Exit::Success } else { Exit::TaskFailed })
}

fn check_tls(config: &crate::config::Config) -> Result<String, String> {
    let options = ClientOptions {
        ca_file: config.ca_file.clone(),
        ..ClientOptions::default()
    };
    HttpClient::new(DEFAULT_RESPONSES_BASE_URL, &options).map_err(|e| e.to_string())?;
    Ok(match &config.ca_file {
        Some(ca) => format!("system roots and {} loaded", ca.display()),
        None => "system roots loaded".into(),
    })
}

fn check_home(home: &AnsaHome) -> Result<String, String> {
    match home.verify_if_exists() {
        Ok(true) => {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(home.root())
                .map_err(|e| format!("cannot inspect {}: {e}", home.root().display()))?
                .permissions()
                .mode();
            Ok(describe_home(&home.root().display().to_string(), mode))
        }
        Ok(false) => Ok(format!(
            "{} does not exist yet (created private on first use)",
            home.root().display()
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// What a home that passed the check is: private (only its owner can enter it), or writable
/// only by its owner but readable by others, which is allowed (what ansa writes inside is
/// made private itself) and said plainly with how to close it.
fn describe_home(path: &str, mode: u32) -> String {
    let mode = mode & 0o777;
    if mode & 0o077 == 0 {
        format!("{path} is private (mode {mode:04o})")
    } else {
        format!(
            "{path} is writable only by you but others may read it (mode {mode:04o}); ansa's own files inside stay private, and `chmod 700 {path}` closes the directory too"
        )
    }
}

fn check_journal(dir: &Path, cwd: &Path) -> Result<String, String> {
    let id = CommandId::new("self-check").map_err(|e| e.to_string())?;
    let action = AcceptedAction::Submit {
        text: "self-check".into(),
        mode: Mode::Basic,
        mentions: Vec::new(),
    };
    {
        let mut s =
            Session::open_or_create_at(dir, None, cwd, Profile::Offline, JournalOptions::default())
                .map_err(|e| e.to_string())?;
        s.accept(id.clone(), action.clone())
            .map_err(|e| e.to_string())?;
    }
    let s = Session::open(dir, JournalOptions::default()).map_err(|e| e.to_string())?;
    match s.state().command(&id) {
        Some((_, a)) if *a == action => Ok("append, fsync and reopen verified".into()),
        _ => Err("an accepted command was missing after reopening the journal".into()),
    }
}

fn check_engine(home: &AnsaHome, dir: &Path) -> Result<String, String> {
    let ws = dir.join("workspace");
    ensure_private_dir(&ws).map_err(|e| e.to_string())?;
    std::fs::write(ws.join("probe.txt"), "ansa self-check\n").map_err(|e| e.to_string())?;
    let plane = ComputePlane::new(1).map_err(|e| e.to_string())?;
    let exclusion = FileExclusion::new(home, None, &ws, &[]).map_err(|e| e.to_string())?;
    let policy = ToolPolicy {
        withheld_env: Vec::new(),
        access_mode: crate::config::AccessMode::FullAccess,
        allow_sudo: false,
        allow_git_writes: false,
        process_timeout_ms: 10_000,
        process_output_bytes: 4096,
        sandbox: ash_engine::exec::sandbox::SandboxPolicy::off(),
    };
    let files = ToolFiles {
        exclusion,
        instructions_digest: String::new(),
        session: "self-check".to_owned(),
        spool_base: None,
    };
    let mut tools =
        ToolExecutor::open(&ws, policy, Arc::new(plane), files).map_err(|e| e.to_string())?;
    let registry = ToolRegistry::standard().map_err(|e| e.to_string())?;
    let read = registry
        .admit(
            tools::Mode::Basic,
            "read",
            r#"{"paths":["probe.txt"],"mode":"lines","offset":1,"length":10}"#,
        )
        .map_err(|e| e.to_string())?;
    let out = tools
        .execute(&read.args, &CancelToken::new())
        .map_err(|e| e.to_string())?;
    if !out.text.contains("ansa self-check") {
        return Err(format!("read returned an unexpected answer: {}", out.text));
    }
    Ok("read through the in-process ASH/1 engine".into())
}

#[cfg(test)]
mod tests {
    use super::describe_home;

    #[test]
    fn only_a_home_others_cannot_enter_is_called_private() {
        assert_eq!(
            describe_home("/h/.ansa", 0o40700),
            "/h/.ansa is private (mode 0700)"
        );
        let open = describe_home("/h/.ansa", 0o40755);
        assert!(!open.contains("is private"), "{open}");
        assert!(
            open.contains("mode 0755") && open.contains("chmod 700 /h/.ansa"),
            "{open}"
        );
        assert!(!describe_home("/h/.ansa", 0o750).contains("is private"));
    }
}
