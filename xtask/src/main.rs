//! Repository tasks (`cargo xtask …`, an alias in `.cargo/config.toml`):
//!
//! - `man [--check]`: the man pages from the binaries' clap definitions (`man.rs`);
//! - `test`: every test, with the real components installed into a cache (`suite.rs`);
//! - `audit-tests`: tests that cannot fail, skips that pass, ignore reasons nobody can act
//!   on (`audit.rs`).

mod audit;
mod components;
mod inventory;
mod man;
mod requirement;
mod suite;

use std::process::ExitCode;

/// A component that could not be provided, and how to provide it by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The component's name.
    pub component: &'static str,
    /// What went wrong.
    pub why: String,
    /// The command that installs it.
    pub install: String,
}

/// Why a task failed.
#[derive(Debug, thiserror::Error)]
pub enum XtaskError {
    /// A file could not be read or written.
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    /// A program could not be started.
    #[error("could not run `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    /// A command of the run failed.
    #[error("`{command}` failed ({status})")]
    Failed {
        command: String,
        status: std::process::ExitStatus,
    },
    /// `cargo metadata` failed or said something unexpected.
    #[error("cargo metadata: {0}")]
    Metadata(String),
    /// A source file did not parse.
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
    /// Components the tests need could not be provided.
    #[error("{}", missing_text(.0))]
    Missing(Vec<Missing>),
    /// Neither `ANSA_CI_CACHE` nor `HOME` is set.
    #[error("no cache directory: set ANSA_CI_CACHE (or HOME)")]
    NoCache,
}

fn missing_text(missing: &[Missing]) -> String {
    let mut text = String::from("the tests need components that are not here:");
    for m in missing {
        text.push_str(&format!(
            "\n  {}: {}; install it with: {}",
            m.component, m.why, m.install
        ));
    }
    text
}

const USAGE: &str = "usage: cargo xtask man [--check] | test | audit-tests";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = inventory::repo_root();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["man"] => man::write(&man::man_dir())
            .map(|()| true)
            .map_err(|e| e.to_string()),
        ["man", "--check"] => man::stale(&man::man_dir())
            .map(|stale| {
                for name in &stale {
                    eprintln!("man/{name} is not current: run `cargo xtask man`");
                }
                stale.is_empty()
            })
            .map_err(|e| e.to_string()),
        ["test"] => suite::run(&root).map(|()| true).map_err(|e| e.to_string()),
        ["audit-tests"] => audit::run(&root)
            .map(|left| {
                for f in &left {
                    println!("{}: {}", f.key, f.what);
                }
                if !left.is_empty() {
                    eprintln!(
                        "{} findings: fix each test, or give its reason in {}",
                        left.len(),
                        audit::ALLOWLIST
                    );
                }
                left.is_empty()
            })
            .map_err(|e| e.to_string()),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
