//! The `ansa` command line: parses arguments, picks a frontend and a profile, and wires the
//! session, the runtime and the frontend together. Errors leave as one line and an exit code.
//!
//! Everything this module and its children print that did not come from ansa itself (a
//! provider's error body, a file name, a server's answer) goes through `ansa_ui::sanitize`
//! first, like every frontend's output (docs/security.md, "Terminal output").

mod args;
mod auth;
mod demo;
mod exit;
mod interrupt;
mod models;
mod resume_access;
mod self_check;
mod sessions;
mod shell;
mod start;

use std::io::{self, IsTerminal, Write};

pub use args::{Args, Command, OnConflictArg, RewindScopeArg, SessionsAction, SessionsArgs};
pub use exit::{Exit, Failure};

use ansa_sessions::{Mode, OnConflict, RewindScope};
use ansa_ui::sanitize::{exact, json_line};

use crate::config::Env;
use crate::home::AnsaHome;

/// Runs the command line; returns the process exit code.
pub fn run(args: Args) -> Exit {
    match dispatch(&args) {
        Ok(code) => code,
        Err(f) => {
            // A failure may carry a provider's error body, a path or a server's text.
            let _ = writeln!(io::stderr(), "ansa: {}", exact(&f.message));
            f.exit
        }
    }
}

fn dispatch(args: &Args) -> Result<Exit, Failure> {
    // Needs nothing of the home directory, so it works before one exists.
    if let Some(shell) = args.completions {
        let mut script = Vec::new();
        clap_complete::generate(
            shell,
            &mut <Args as clap::CommandFactory>::command(),
            "ansa",
            &mut script,
        );
        return io::stdout()
            .write_all(&script)
            .map(|()| Exit::Success)
            .map_err(|e| Failure::io(format!("writing the completion script failed: {e}")));
    }
    let home = AnsaHome::from_env().map_err(Failure::config)?;
    let env = Env::process();
    if let Some(Command::Sessions(sessions)) = &args.command {
        return sessions::run(&home, args, sessions);
    }
    if auth::wanted(args) {
        return auth::run(&home, &env, args);
    }
    if let Some(shell) = args.install_shell {
        return shell::install(&home, shell, args.overwrite);
    }
    if args.broker_upstream {
        return shell::broker_upstream(&home, &env, args);
    }
    if args.print_config {
        let cwd = start::workspace(args.cwd.as_deref(), None)?;
        let config = start::load_config(&home, &cwd, &env, args)?;
        println!("{}", json_line(&config.to_print_json()));
        return Ok(Exit::Success);
    }
    if args.self_check {
        return self_check::run(&home, args, &env);
    }
    if args.offline_demo {
        return demo::run(args, &env);
    }
    if args.script.is_some() && !args.offline && !args.offline_jsonl {
        return Err(Failure::usage(
            "--script replays a scripted model and needs an offline mode: add --offline (or use --offline-jsonl)",
        ));
    }
    if args.jsonl() && args.task.is_some() {
        return Err(Failure::usage(
            "the JSONL driver reads commands on stdin; do not pass a TASK as well",
        ));
    }
    if args.models {
        return models::run(&home, &env, args);
    }
    if let Some(pick) = args.rewind {
        return rewind(&home, &env, args, pick);
    }
    let Some(resumed) = sessions::resume_args(&home, &env, args)? else {
        return Ok(Exit::Success);
    };
    let args = &resumed;
    let tui = !args.jsonl()
        && args.task.is_none()
        && io::stdin().is_terminal()
        && io::stdout().is_terminal();
    let can_ask = args.jsonl() || io::stdin().is_terminal();
    let started = start::start(&home, &env, args, tui, can_ask)?;
    if tui {
        // `/new` re-enters the start-up path through the renewer, which then owns the
        // running runtime.
        let (mut renewer, link, info) = start::Renewer::new(&home, &env, args, can_ask, started);
        let exit = ansa_ui::tui::run_tui_renewing(link, info, &mut renewer).map_err(Failure::io)?;
        if exit.code == Exit::Interrupted.code() {
            // Interrupted: the TUI already asked the runtime to cancel; the journal keeps the
            // turn consistent, so leave at once rather than wait for the work to wind down.
            return Ok(Exit::Interrupted);
        }
        renewer.join();
        return Ok(Exit::from_code(exit.code));
    }
    let session_hint = started.session_hint.clone();
    let link = started.link;
    let stdout = io::stdout();
    let stderr = io::stderr();
    let exit = if args.jsonl() {
        let stdin = io::BufReader::new(io::stdin());
        ansa_ui::run_jsonl(link, stdin, stdout.lock(), stderr).map_err(Failure::io)?;
        Exit::Success
    } else if let Some(task) = &args.task {
        let interrupted = interrupt::watch(link.commands.clone());
        let mut stdin = io::stdin().lock();
        let answers: Option<&mut dyn io::BufRead> = started.ask.then_some(&mut stdin);
        let outcome = ansa_ui::run_one_shot(
            link,
            task,
            Mode::Basic,
            stdout.lock(),
            stderr.lock(),
            answers,
            Some(&session_hint),
        )
        .map_err(Failure::io)?;
        interrupted_or(&interrupted, outcome.exit_code())
    } else {
        let interrupted = interrupt::watch(link.commands.clone());
        let stdin = io::stdin().lock();
        let outcome = ansa_ui::run_lines(
            link,
            stdin,
            stdout.lock(),
            stderr.lock(),
            Mode::Basic,
            Some(session_hint),
        )
        .map_err(Failure::io)?;
        interrupted_or(&interrupted, outcome.exit_code())
    };
    started.handle.join();
    Ok(exit)
}

/// `ansa --rewind [N]`: the checkpoints of a session, or a rewind to before turn N.
fn rewind(
    home: &AnsaHome,
    env: &Env,
    args: &Args,
    pick: Option<ansa_ui::RewindPick>,
) -> Result<Exit, Failure> {
    // No tool runs, so nothing is asked: ask mode needs no terminal here.
    let started = start::start(home, env, args, false, true)?;
    let request = ansa_ui::RewindRequest {
        pick,
        scope: match args.rewind_scope {
            RewindScopeArg::Code => RewindScope::Code,
            RewindScopeArg::Conversation => RewindScope::Conversation,
            RewindScopeArg::Both => RewindScope::Both,
        },
        on_conflict: match args.on_conflict {
            OnConflictArg::Keep => OnConflict::Keep,
            OnConflictArg::Take => OnConflict::Take,
            OnConflictArg::Refuse => OnConflict::Refuse,
        },
        yes: args.yes,
    };
    let mut stdin = io::stdin().lock();
    let terminal = io::stdin().is_terminal();
    let answers: Option<&mut dyn io::BufRead> = terminal.then_some(&mut stdin);
    let code = ansa_ui::run_rewind(
        started.link,
        request,
        answers,
        io::stdout().lock(),
        io::stderr().lock(),
    )
    .map_err(Failure::io)?;
    started.handle.join();
    Ok(Exit::from_code(code))
}

/// 130 when the user interrupted a run that did not succeed, else the frontend's code.
fn interrupted_or(interrupted: &interrupt::Interrupted, code: u8) -> Exit {
    if code != 0 && interrupted.happened() {
        Exit::Interrupted
    } else {
        Exit::from_code(code)
    }
}

/// What `@` completion walks: the workspace, without what the file tools never expose.
fn mention_source(
    cwd: &std::path::Path,
    exclusion: crate::instructions::FileExclusion,
) -> ansa_ui::tui::MentionSource {
    let hidden: ansa_ui::tui::PathFilter = std::sync::Arc::new(move |p| exclusion.is_excluded(p));
    ansa_ui::tui::MentionSource::new(cwd.to_path_buf(), hidden)
}
