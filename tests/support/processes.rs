//! The process table for tests that check which server processes live: every process read
//! from `/proc` (no `ps` needed), and the live ones whose command line carries a marker.
//! Shared by the `ansa-mcp` crate's tests and the end-to-end tests of the binary.

#![allow(dead_code, reason = "each test binary uses a different part")]

/// One process of `/proc`.
#[derive(Debug, Clone)]
pub struct Process {
    /// Its id.
    pub pid: i32,
    /// Its parent's id.
    pub ppid: i32,
    /// Its process group.
    pub pgid: i32,
    /// The state letter of `/proc/PID/stat` (`Z` for a zombie).
    pub state: char,
    /// The command line, arguments joined by spaces.
    pub args: String,
}

/// Every process on the machine, read from `/proc`.
pub fn processes() -> Vec<Process> {
    let entries = std::fs::read_dir("/proc").unwrap_or_else(|e| panic!("/proc: {e}"));
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            // A process can exit between the listing and these reads: it is then skipped.
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            // `PID (COMM) S PPID PGRP …`; COMM may hold spaces and parentheses.
            let rest = &stat[stat.rfind(')')? + 1..];
            let mut fields = rest.split_whitespace();
            let state = fields.next()?.chars().next()?;
            let ppid = fields.next()?.parse().ok()?;
            let pgid = fields.next()?.parse().ok()?;
            let args = cmdline
                .split(|&b| b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect::<Vec<_>>()
                .join(" ");
            Some(Process {
                pid,
                ppid,
                pgid,
                state,
                args,
            })
        })
        .collect()
}

/// Live (not zombie) processes whose command line contains `marker`.
pub fn alive_with(marker: &str) -> Vec<Process> {
    processes()
        .into_iter()
        .filter(|p| p.args.contains(marker) && p.state != 'Z')
        .collect()
}
