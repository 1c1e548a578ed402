//! The environment message: what the model is told about where it works, once at the start of
//! a session (journaled with the context, never regenerated on resume).
//!
//! Collected on the worker thread before the first generation, from local facts only: the cwd,
//! the OS and architecture ansa was built for, `$SHELL`, today's date (UTC), and, inside a Git
//! repository, its branch and whether tracked files have uncommitted changes (read from
//! `.git` directly, see [`git`]).

mod git;

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

pub use git::{Changes, GitState, Head};

/// Facts of one session start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// The session's working directory.
    pub cwd: String,
    /// `std::env::consts::OS`.
    pub os: &'static str,
    /// `std::env::consts::ARCH`.
    pub arch: &'static str,
    /// The user's login shell (`$SHELL`), if set.
    pub shell: Option<String>,
    /// Today's date, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// The repository containing the cwd, if any.
    pub git: Option<GitState>,
    /// The OS sandbox commands run under, described (mode, writable roots, network, how to
    /// ask for more); `None` when there is none, which leaves the message as it always was.
    pub sandbox: Option<String>,
}

impl Environment {
    /// The facts for a session in `cwd`, now, with `sandbox` as the executor describes it.
    pub fn collect(cwd: &Path, sandbox: Option<String>) -> Environment {
        let days = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() / 86_400);
        Environment {
            cwd: cwd.display().to_string(),
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
            shell: std::env::var("SHELL").ok().filter(|s| !s.is_empty()),
            date: civil_date(days),
            git: git::state(cwd),
            sandbox,
        }
    }

    /// The message the model receives.
    pub fn render(&self) -> String {
        let mut lines = vec![
            "<environment>".to_owned(),
            format!("cwd: {}", self.cwd),
            format!("os: {} {}", self.os, self.arch),
        ];
        if let Some(shell) = &self.shell {
            lines.push(format!("shell: {shell}"));
        }
        lines.push(format!("date: {} (UTC)", self.date));
        if let Some(git) = &self.git {
            let head = match &git.head {
                Head::Branch(name) => format!("on branch {name}"),
                Head::Detached(commit) => format!("detached at {commit}"),
                Head::Unknown => "HEAD unreadable".to_owned(),
            };
            let changes = match git.changes {
                Changes::None => "no uncommitted changes to tracked files",
                Changes::Some => "tracked files have uncommitted changes",
                Changes::Unknown => "uncommitted changes unknown",
            };
            lines.push(format!("git: {head}; {changes}"));
        }
        if let Some(sandbox) = &self.sandbox {
            lines.push(format!("sandbox: {sandbox}"));
        }
        lines.push("</environment>".to_owned());
        lines.join("\n") + "\n"
    }
}

/// An environment message being collected on its own thread (the Git index of a large work
/// tree takes tens of milliseconds to check), so a new session's first task does not wait.
#[derive(Debug)]
pub struct PendingEnvironment {
    cwd: PathBuf,
    sandbox: Option<String>,
    thread: Option<std::thread::JoinHandle<String>>,
}

impl PendingEnvironment {
    /// Starts collecting the message for `cwd`; `sandbox` as in [`Environment::sandbox`].
    pub fn collect(cwd: PathBuf, sandbox: Option<String>) -> PendingEnvironment {
        let (for_thread, sandbox_for_thread) = (cwd.clone(), sandbox.clone());
        let thread = std::thread::Builder::new()
            .name("ansa-environment".into())
            .spawn(move || Environment::collect(&for_thread, sandbox_for_thread).render())
            .ok();
        PendingEnvironment {
            cwd,
            sandbox,
            thread,
        }
    }

    /// The message (collected here if the thread could not be started or died).
    pub fn wait(self) -> String {
        match self.thread.map(std::thread::JoinHandle::join) {
            Some(Ok(text)) => text,
            _ => Environment::collect(&self.cwd, self.sandbox).render(),
        }
    }
}

/// `YYYY-MM-DD` of a count of days since 1970-01-01 (proleptic Gregorian).
fn civil_date(days: u64) -> String {
    // Howard Hinnant's days-to-civil, shifted so eras start on March 1st.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_are_right_across_leap_years() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(11_016), "2000-02-29");
        assert_eq!(civil_date(20_788), "2026-12-01");
        assert_eq!(civil_date(20_513), "2026-03-01");
    }

    #[test]
    fn a_sandbox_is_stated_after_the_other_facts() {
        let env = Environment {
            cwd: "/w".into(),
            os: "linux",
            arch: "x86_64",
            shell: None,
            date: "2026-12-01".into(),
            git: None,
            sandbox: Some("read-only: commands write nothing".into()),
        };
        assert_eq!(
            env.render(),
            "<environment>\ncwd: /w\nos: linux x86_64\ndate: 2026-12-01 (UTC)\nsandbox: read-only: commands write nothing\n</environment>\n"
        );
    }

    #[test]
    fn the_message_names_every_fact() {
        let env = Environment {
            cwd: "/w".into(),
            os: "linux",
            arch: "x86_64",
            shell: Some("/bin/zsh".into()),
            date: "2026-12-01".into(),
            git: Some(GitState {
                head: Head::Branch("main".into()),
                changes: Changes::Some,
            }),
            sandbox: None,
        };
        assert_eq!(
            env.render(),
            "<environment>\ncwd: /w\nos: linux x86_64\nshell: /bin/zsh\ndate: 2026-12-01 (UTC)\ngit: on branch main; tracked files have uncommitted changes\n</environment>\n"
        );
    }
}
