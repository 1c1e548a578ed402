//! Reaping and ending the command's tree. As a child subreaper the supervisor inherits every
//! orphaned descendant, so "the tree" is: the command's process group, plus whatever is (or
//! becomes) a child of the supervisor. Killing the direct children makes their own children
//! orphans, which come to the supervisor in turn; repeating until no child is left ends all.

use super::signals::{Signals, Wake};
use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use std::fs;
use std::time::Duration;

/// How long the kill loop sleeps waiting for `SIGCHLD` before sweeping again.
const SWEEP_PAUSE: Duration = Duration::from_millis(20);

/// The supervisor's children bookkeeping.
pub(super) struct Tree {
    /// The command's pid, which is also its process group id.
    command: Pid,
    /// The command's wait status once reaped.
    pub(super) status: Option<WaitStatus>,
    /// Other processes reaped so far.
    pub(super) others: u32,
}

/// Whether any child is left after reaping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Left {
    /// Some child may still be running.
    Some,
    /// No child at all (`ECHILD`).
    None,
}

impl Tree {
    pub(super) fn new(command: Pid) -> Tree {
        Tree {
            command,
            status: None,
            others: 0,
        }
    }

    /// Reaps every child that has ended, without blocking.
    pub(super) fn reap(&mut self) -> Left {
        loop {
            match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => return Left::Some,
                Ok(status) => {
                    if status.pid() == Some(self.command) {
                        self.status = Some(status);
                    } else {
                        self.others = self.others.saturating_add(1);
                    }
                }
                Err(Errno::EINTR) => {}
                Err(_) => return Left::None,
            }
        }
    }

    /// SIGKILLs the command's group and every adopted descendant, repeatedly, until nothing is
    /// left to reap. Blocks as long as some process refuses to die (uninterruptible sleep).
    pub(super) fn end(&mut self, signals: &Signals) {
        let me = Pid::this();
        let mut group = true;
        loop {
            // ESRCH: the group is empty, and stays so (nobody can join an empty group).
            if group && killpg(self.command, Signal::SIGKILL) == Err(Errno::ESRCH) {
                group = false;
            }
            for child in children(me) {
                let _ = kill(child, Signal::SIGKILL);
            }
            if self.reap() == Left::None {
                return;
            }
            // Stop requests no longer matter: the tree is being ended anyway.
            let _: Wake = signals.wait(SWEEP_PAUSE);
        }
    }
}

/// The current children of process `me`: from `/proc/<me>/task/*/children` where the kernel
/// has it, else by scanning every `/proc/<pid>/stat` for the parent pid. The list may miss a
/// child created meanwhile; callers repeat until `waitpid` says there is none.
fn children(me: Pid) -> Vec<Pid> {
    match from_task_lists(me) {
        Some(list) => list,
        None => from_stat_scan(me),
    }
}

fn from_task_lists(me: Pid) -> Option<Vec<Pid>> {
    let mut out = Vec::new();
    for task in fs::read_dir(format!("/proc/{me}/task")).ok()? {
        let path = task.ok()?.path().join("children");
        let text = fs::read_to_string(path).ok()?;
        out.extend(text.split_whitespace().filter_map(parse_pid));
    }
    Some(out)
}

fn from_stat_scan(me: Pid) -> Vec<Pid> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| parse_pid(e.file_name().to_str()?))
        .filter(|pid| {
            fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| parent_of(&stat))
                == Some(me)
        })
        .collect()
}

fn parse_pid(text: &str) -> Option<Pid> {
    text.parse::<i32>()
        .ok()
        .filter(|p| *p > 0)
        .map(Pid::from_raw)
}

/// The parent pid field of a `/proc/<pid>/stat` line: `pid (comm) state ppid ...`, where `comm`
/// may itself contain spaces and parentheses.
fn parent_of(stat: &str) -> Option<Pid> {
    let after = &stat[stat.rfind(')')? + 1..];
    parse_pid(after.split_whitespace().nth(1)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_after_the_last_parenthesis() {
        let stat = "123 (a) b) (c) S 77 123 123 0 -1";
        assert_eq!(parent_of(stat), Some(Pid::from_raw(77)));
        assert_eq!(parent_of("garbage"), None);
    }

    #[test]
    fn both_child_listings_find_a_running_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep");
        let pid = Pid::from_raw(i32::try_from(child.id()).expect("pid"));
        let me = Pid::this();
        assert!(from_stat_scan(me).contains(&pid));
        if let Some(list) = from_task_lists(me) {
            assert!(list.contains(&pid));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}
