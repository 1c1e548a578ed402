//! `--offline-demo`: one full offline round trip through the real runtime, journal, engine and
//! tools, in a throwaway home and workspace, so it works on a fresh machine with no key.

use std::io::{self, Write};
use std::path::Path;

use ansa_sessions::{JournalOptions, Mode, Profile, Session};

use super::{Args, Exit, Failure, start};
use crate::config::Env;
use crate::home::{AnsaHome, ensure_private_dir};
use crate::instructions;
use crate::runtime;

/// The task the demo runs.
pub const DEMO_TASK: &str = "Fetch the test value for this demo and report it.";

/// Runs the demo; the temporary directory is removed afterwards, whatever happened.
pub fn run(args: &Args, env: &Env) -> Result<Exit, Failure> {
    let root = start::scratch_dir("demo")?;
    let result = run_in(&root, args, env);
    let _ = std::fs::remove_dir_all(&root);
    result
}

fn run_in(root: &Path, args: &Args, env: &Env) -> Result<Exit, Failure> {
    let home = AnsaHome::at(root.join("home"));
    home.ensure().map_err(Failure::config)?;
    let cwd = root.join("workspace");
    ensure_private_dir(&cwd).map_err(Failure::config)?;
    let cwd = start::workspace(Some(&cwd), None)?;
    let config = start::load_config(&home, &cwd, env, args)?;
    let set = instructions::discover(&home, &cwd).map_err(Failure::config)?;
    let session = Session::create_in_home(
        &home.sessions(),
        &cwd,
        Profile::Offline,
        JournalOptions::default(),
    )
    .map_err(start::session_failure)?;
    let mut out = io::stdout();
    let _ = writeln!(
        out,
        "ansa offline demo — the real loop, journal and tools, no network\ntask: {DEMO_TASK}"
    );
    let mut demo_args = args.clone();
    demo_args.script = None;
    let setup = start::build_setup(&home, &cwd, &config, &set, session, &demo_args)?;
    let (link, handle) = runtime::start(setup).map_err(|e| Failure::session(e.to_string()))?;
    // The demo's only tool reads a value, which no access mode asks about.
    let outcome = ansa_ui::run_one_shot(
        link,
        DEMO_TASK,
        Mode::Basic,
        io::stdout(),
        io::stdout(),
        None,
        None,
    )
    .map_err(Failure::io)?;
    handle.join();
    let code = outcome.exit_code();
    let _ = writeln!(
        out,
        "{}",
        if code == 0 {
            "demo finished: the answer above was built from the tool's real result and saved in the journal before it was shown"
        } else {
            "demo did not finish"
        }
    );
    Ok(Exit::from_code(code))
}
