//! The supervisor's command line, written by the engine and read by the supervisor:
//!
//! ```text
//! __ash-supervise --evidence PATH --parent PID [--report-fd FD]
//!     [--no-new-privs] [--clear-ambient-caps] [--clear-inheritable-caps]
//!     [--sandbox [--sandbox-network] [--sandbox-write DEV:INO:DIR]...]
//!     [--cwd DIR] [--clear-env] [--set NAME=VALUE | --unset NAME]...
//!     -- PROGRAM ARGV0 [ARG...]
//! ```
//!
//! A writable root carries the device and inode it was pinned to: the supervisor refuses the
//! command when the directory at DIR is no longer that one.
//!
//! Environment changes apply in order to the supervisor's own environment (the engine's), like
//! the engine applies them to a command it spawns directly.

use crate::exec::ExecHardening;
use crate::exec::sandbox::{DirId, Restrictions, WritableRoot};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use thiserror::Error;

/// One change to the command's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum EnvEdit {
    /// Set `NAME` to `VALUE`.
    Set(OsString, OsString),
    /// Remove `NAME`.
    Unset(OsString),
}

/// Everything the supervisor needs to run one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Plan {
    /// Where the evidence goes.
    pub evidence: PathBuf,
    /// The pid the supervisor's parent must have; anything else means the engine is gone.
    pub parent: i32,
    /// The inherited descriptor the start report is written to, if any.
    pub report_fd: Option<i32>,
    /// Restrictions the supervisor applies to itself before starting the command.
    pub hardening: ExecHardening,
    /// The OS sandbox the supervisor applies to the command (not to itself, so it can still
    /// write the evidence).
    pub sandbox: Option<Restrictions>,
    /// The command's working directory (the supervisor's own when absent).
    pub cwd: Option<PathBuf>,
    /// Start the command from an empty environment.
    pub clear_env: bool,
    /// Environment changes, in order.
    pub env: Vec<EnvEdit>,
    /// The absolute executable path.
    pub program: PathBuf,
    /// The command's `argv[0]`.
    pub argv0: OsString,
    /// The command's arguments.
    pub args: Vec<OsString>,
}

/// A supervisor command line that cannot be understood.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(super) enum UsageError {
    /// An option this version does not know.
    #[error("unknown option {0:?}")]
    UnknownOption(String),
    /// An option without its value.
    #[error("option {0} needs a value")]
    MissingValue(&'static str),
    /// A required option is absent.
    #[error("option {0} is required")]
    Required(&'static str),
    /// A numeric value that is not a positive decimal number.
    #[error("option {option} needs a number, got {value:?}")]
    NotANumber {
        /// The option.
        option: &'static str,
        /// The value given.
        value: String,
    },
    /// `--sandbox-write` whose value is not `DEV:INO:DIR`.
    #[error("--sandbox-write needs DEV:INO:DIR, got {0:?}")]
    BadWritableRoot(String),
    /// `--set` without `=` or with an empty name.
    #[error("--set needs NAME=VALUE, got {0:?}")]
    BadAssignment(String),
    /// No `--` followed by a program and its `argv[0]`.
    #[error("expected `-- PROGRAM ARGV0 [ARG...]` after the options")]
    MissingCommand,
}

impl Plan {
    /// The arguments after [`super::SUPERVISE_ARG`].
    pub(super) fn encode(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![
            "--evidence".into(),
            self.evidence.clone().into(),
            "--parent".into(),
            self.parent.to_string().into(),
        ];
        if let Some(fd) = self.report_fd {
            out.extend(["--report-fd".into(), fd.to_string().into()]);
        }
        let flags = [
            (self.hardening.no_new_privs, "--no-new-privs"),
            (self.hardening.clear_ambient_caps, "--clear-ambient-caps"),
            (
                self.hardening.clear_inheritable_caps,
                "--clear-inheritable-caps",
            ),
            (self.clear_env, "--clear-env"),
        ];
        out.extend(flags.iter().filter(|(on, _)| *on).map(|(_, f)| f.into()));
        if let Some(sandbox) = &self.sandbox {
            out.push("--sandbox".into());
            if sandbox.network {
                out.push("--sandbox-network".into());
            }
            for root in &sandbox.writable {
                let mut value = OsString::from(format!("{}:", root.id));
                value.push(&root.path);
                out.extend(["--sandbox-write".into(), value]);
            }
        }
        if let Some(cwd) = &self.cwd {
            out.extend(["--cwd".into(), cwd.clone().into()]);
        }
        for edit in &self.env {
            match edit {
                EnvEdit::Set(name, value) => {
                    let mut pair = name.clone();
                    pair.push("=");
                    pair.push(value);
                    out.extend(["--set".into(), pair]);
                }
                EnvEdit::Unset(name) => out.extend(["--unset".into(), name.clone()]),
            }
        }
        out.push("--".into());
        out.push(self.program.clone().into());
        out.push(self.argv0.clone());
        out.extend(self.args.iter().cloned());
        out
    }

    /// Reads the arguments after [`super::SUPERVISE_ARG`].
    pub(super) fn parse(args: &[OsString]) -> Result<Plan, UsageError> {
        let mut evidence = None;
        let mut parent = None;
        let mut report_fd = None;
        let mut hardening = ExecHardening::default();
        let mut cwd = None;
        let mut clear_env = false;
        let mut env = Vec::new();
        let mut sandboxed = false;
        let mut sandbox = Restrictions {
            writable: Vec::new(),
            network: false,
        };
        let mut rest = args.iter();
        loop {
            let Some(arg) = rest.next() else {
                return Err(UsageError::MissingCommand);
            };
            let mut value =
                |option: &'static str| rest.next().cloned().ok_or(UsageError::MissingValue(option));
            match arg.to_str() {
                Some("--") => break,
                Some("--evidence") => evidence = Some(PathBuf::from(value("--evidence")?)),
                Some("--parent") => parent = Some(number("--parent", &value("--parent")?)?),
                Some("--report-fd") => {
                    report_fd = Some(number("--report-fd", &value("--report-fd")?)?);
                }
                Some("--cwd") => cwd = Some(PathBuf::from(value("--cwd")?)),
                Some("--set") => env.push(assignment(value("--set")?)?),
                Some("--unset") => env.push(EnvEdit::Unset(value("--unset")?)),
                Some("--no-new-privs") => hardening.no_new_privs = true,
                Some("--clear-ambient-caps") => hardening.clear_ambient_caps = true,
                Some("--clear-inheritable-caps") => hardening.clear_inheritable_caps = true,
                Some("--clear-env") => clear_env = true,
                Some("--sandbox") => sandboxed = true,
                Some("--sandbox-network") => sandbox.network = true,
                Some("--sandbox-write") => {
                    sandbox
                        .writable
                        .push(writable_root(&value("--sandbox-write")?)?);
                }
                _ => {
                    return Err(UsageError::UnknownOption(
                        arg.to_string_lossy().into_owned(),
                    ));
                }
            }
        }
        if !sandboxed && (sandbox.network || !sandbox.writable.is_empty()) {
            return Err(UsageError::Required("--sandbox"));
        }
        let (Some(program), Some(argv0)) = (rest.next(), rest.next()) else {
            return Err(UsageError::MissingCommand);
        };
        Ok(Plan {
            evidence: evidence.ok_or(UsageError::Required("--evidence"))?,
            parent: parent.ok_or(UsageError::Required("--parent"))?,
            report_fd,
            hardening,
            sandbox: sandboxed.then_some(sandbox),
            cwd,
            clear_env,
            env,
            program: PathBuf::from(program),
            argv0: argv0.clone(),
            args: rest.cloned().collect(),
        })
    }
}

fn number(option: &'static str, value: &OsStr) -> Result<i32, UsageError> {
    value
        .to_str()
        .and_then(|v| v.parse::<i32>().ok())
        .filter(|n| *n >= 0)
        .ok_or_else(|| UsageError::NotANumber {
            option,
            value: value.to_string_lossy().into_owned(),
        })
}

fn writable_root(value: &OsStr) -> Result<WritableRoot, UsageError> {
    let bad = || UsageError::BadWritableRoot(value.to_string_lossy().into_owned());
    let bytes = value.as_bytes();
    let mut colons = bytes.iter().enumerate().filter(|(_, b)| **b == b':');
    let (Some((_, _)), Some((second, _))) = (colons.next(), colons.next()) else {
        return Err(bad());
    };
    let id = std::str::from_utf8(&bytes[..second])
        .ok()
        .and_then(|t| t.parse::<DirId>().ok())
        .ok_or_else(bad)?;
    Ok(WritableRoot {
        path: PathBuf::from(OsStr::from_bytes(&bytes[second + 1..])),
        id,
    })
}

fn assignment(pair: OsString) -> Result<EnvEdit, UsageError> {
    let bytes = pair.as_bytes();
    match bytes.iter().position(|b| *b == b'=') {
        Some(at) if at > 0 => Ok(EnvEdit::Set(
            OsStr::from_bytes(&bytes[..at]).to_owned(),
            OsStr::from_bytes(&bytes[at + 1..]).to_owned(),
        )),
        _ => Err(UsageError::BadAssignment(
            pair.to_string_lossy().into_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            evidence: "/tmp/e.json".into(),
            parent: 42,
            report_fd: Some(7),
            hardening: ExecHardening::strict(),
            sandbox: Some(Restrictions {
                writable: vec![
                    WritableRoot {
                        path: "/work dir:x".into(),
                        id: DirId { dev: 2049, ino: 7 },
                    },
                    WritableRoot {
                        path: "/tmp".into(),
                        id: DirId { dev: 1, ino: 2 },
                    },
                ],
                network: true,
            }),
            cwd: Some("/work dir".into()),
            clear_env: true,
            env: vec![
                EnvEdit::Set("A".into(), "x=y".into()),
                EnvEdit::Unset("B".into()),
                EnvEdit::Set("C".into(), "".into()),
            ],
            program: "/bin/sh".into(),
            argv0: "sh".into(),
            args: vec!["-c".into(), "--".into(), "--evidence".into()],
        }
    }

    #[test]
    fn a_plan_round_trips_through_its_command_line() {
        let p = plan();
        assert_eq!(Plan::parse(&p.encode()), Ok(p));
        let bare = Plan {
            report_fd: None,
            hardening: ExecHardening::default(),
            sandbox: None,
            cwd: None,
            clear_env: false,
            env: Vec::new(),
            args: Vec::new(),
            ..plan()
        };
        assert_eq!(Plan::parse(&bare.encode()), Ok(bare));
    }

    #[test]
    fn malformed_command_lines_say_what_is_wrong() {
        let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        let cases = [
            (
                vec!["--parent", "1", "--", "/bin/true", "true"],
                "option --evidence is required",
            ),
            (
                vec!["--evidence", "e", "--parent", "x", "--", "p", "a"],
                "needs a number",
            ),
            (
                vec!["--evidence", "e", "--parent", "1"],
                "expected `-- PROGRAM",
            ),
            (
                vec!["--evidence", "e", "--parent", "1", "--", "p"],
                "expected `-- PROGRAM",
            ),
            (vec!["--bogus"], "unknown option"),
            (vec!["--set", "=v"], "--set needs NAME=VALUE"),
            (
                vec![
                    "--evidence",
                    "e",
                    "--parent",
                    "1",
                    "--sandbox-network",
                    "--",
                    "p",
                    "a",
                ],
                "option --sandbox is required",
            ),
            (vec!["--evidence"], "needs a value"),
            (vec!["--sandbox-write", "/tmp"], "needs DEV:INO:DIR"),
            (vec!["--sandbox-write", "1:x:/tmp"], "needs DEV:INO:DIR"),
        ];
        for (args, message) in cases {
            let err = Plan::parse(&os(&args)).expect_err("malformed");
            assert!(err.to_string().contains(message), "{args:?}: {err}");
        }
    }
}
