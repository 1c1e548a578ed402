//! The parent shell, watched through a `/proc/PID/stat` descriptor opened once at start: each
//! check reads it again with `pread`, which needs no new descriptor, so a broker that has run
//! out of descriptors still sees its parent (and does not mistake `EMFILE` for its death).
//! The descriptor stays bound to the process it was opened for: once that process is reaped
//! the read fails with `ESRCH`, even if its PID is reused.

use std::fs::File;
use std::os::unix::fs::FileExt;

use super::BrokerError;

/// Longest `/proc/PID/stat` read: 52 numeric fields and a command name of at most 64 bytes
/// fit with room to spare.
const STAT_MAX: usize = 4096;

/// A process identified by PID, start time and an open `stat` descriptor.
pub(super) struct Parent {
    stat: File,
    started: u64,
}

impl Parent {
    /// The running process `pid`.
    pub(super) fn find(pid: u32) -> Result<Parent, BrokerError> {
        let stat = File::open(format!("/proc/{pid}/stat")).map_err(|_| BrokerError::Parent(pid))?;
        let started = start_time(&stat).ok_or(BrokerError::Parent(pid))?;
        Ok(Parent { stat, started })
    }

    /// Whether the same process still runs (not a zombie). A read error other than the
    /// process being gone counts as alive: the idle expiry still ends the broker.
    pub(super) fn alive(&self) -> bool {
        match read(&self.stat) {
            Ok(Some(stat)) => fields(&stat) == Some(Some(self.started)),
            Ok(None) => false,
            Err(e) => e.raw_os_error() != Some(nix::libc::ESRCH),
        }
    }
}

fn start_time(stat: &File) -> Option<u64> {
    fields(&read(stat).ok()??)?
}

/// The whole `stat` text; `None` when empty.
fn read(stat: &File) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = vec![0u8; STAT_MAX];
    let mut len = 0;
    while len < buf.len() {
        match stat.read_at(&mut buf[len..], len as u64) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(len);
    Ok((len > 0).then_some(buf))
}

/// Field 22 (the start time) of a `stat` text, after the parenthesised command name, which
/// may contain anything: `Some(None)` for a zombie, `None` when unreadable.
fn fields(stat: &[u8]) -> Option<Option<u64>> {
    let text = std::str::from_utf8(&stat[stat.iter().rposition(|&b| b == b')')? + 1..]).ok()?;
    let mut fields = text.split_whitespace();
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return Some(None);
    }
    // `text` starts at field 3 (the state); the start time is field 22.
    Some(Some(fields.nth(18)?.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    #[test]
    fn this_process_is_found_by_its_start_time_and_a_missing_one_is_not() {
        let me = Parent::find(std::process::id()).unwrap_or_else(|e| panic!("{e}"));
        assert!(me.alive());
        let moved = Parent {
            stat: me.stat.try_clone().unwrap_or_else(|e| panic!("{e}")),
            started: me.started + 1,
        };
        assert!(!moved.alive(), "a reused PID has another start time");
        assert!(Parent::find(u32::MAX).is_err());
    }

    #[test]
    fn a_child_is_alive_until_it_exits_and_is_gone_as_a_zombie_and_once_reaped() {
        let mut child = Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let parent = Parent::find(child.id()).unwrap_or_else(|e| panic!("{e}"));
        assert!(parent.alive());
        child.kill().unwrap_or_else(|e| panic!("{e}"));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while parent.alive() {
            assert!(
                std::time::Instant::now() < deadline,
                "still alive as a zombie"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        child.wait().unwrap_or_else(|e| panic!("{e}"));
        assert!(!parent.alive(), "reaped: the descriptor answers ESRCH");
    }
}
