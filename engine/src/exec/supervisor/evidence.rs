//! The evidence file: how a supervised command ended, written once, atomically, by its
//! supervisor after the whole process tree is gone; read by the embedder to reconcile after a
//! crash. A missing file means the supervisor never finished: the command's effect is unknown.

use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The evidence format version this build writes and reads.
pub const EVIDENCE_VERSION: u32 = 1;

/// How a supervised command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Termination {
    /// The command exited by itself with `code`.
    Exited {
        /// The exit code.
        code: i32,
    },
    /// The command was killed by `signal` (not sent by the supervisor).
    Signaled {
        /// The signal number.
        signal: i32,
    },
    /// The engine asked the supervisor to stop (cancel or deadline); the tree was killed.
    KilledOnRequest,
    /// The engine died; the tree was killed (or, when `pid` is absent, never started).
    KilledRuntimeGone,
}

/// What a supervisor records about one command. Serialized as one JSON object per file:
///
/// ```json
/// {"version":1,"termination":{"kind":"exited","code":3},"elapsed_ms":12,
///  "program":"/usr/bin/sh","argv":["sh","-c","exit 3"],"pid":4242,"supervisor_pid":4241,
///  "descendants_reaped":0,"finished_unix_ms":1767225600000}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// [`EVIDENCE_VERSION`].
    pub version: u32,
    /// How the command ended.
    pub termination: Termination,
    /// Milliseconds from starting the command until its whole tree was reaped.
    pub elapsed_ms: u64,
    /// The absolute executable path (lossily UTF-8).
    pub program: String,
    /// `argv[0]` and the arguments (lossily UTF-8).
    pub argv: Vec<String>,
    /// The command's pid (also its process group id); absent if it was never started.
    pub pid: Option<u32>,
    /// The supervisor's pid.
    pub supervisor_pid: u32,
    /// Other processes (adopted descendants) the supervisor reaped.
    pub descendants_reaped: u32,
    /// When the evidence was written, in milliseconds since the Unix epoch.
    pub finished_unix_ms: u64,
}

/// Why an evidence file could not be read.
#[derive(Debug, Error)]
pub enum EvidenceError {
    /// The file exists but could not be read.
    #[error("cannot read exec evidence {}: {source}", path.display())]
    Io {
        /// The evidence path.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The file is not a complete evidence document (torn or corrupted).
    #[error(
        "exec evidence {} is torn or garbled ({source}); treat the command's effect as unknown",
        path.display()
    )]
    Garbled {
        /// The evidence path.
        path: PathBuf,
        /// What the parser found.
        source: serde_json::Error,
    },
    /// The file was written by a different evidence format version.
    #[error(
        "exec evidence {} has format version {found}; this build reads version {EVIDENCE_VERSION}",
        path.display()
    )]
    Version {
        /// The evidence path.
        path: PathBuf,
        /// The version in the file.
        found: u64,
    },
}

#[derive(Deserialize)]
struct VersionProbe {
    version: u64,
}

/// Reads the evidence at `path`: `Ok(None)` when there is none (the supervisor never finished,
/// or never ran), an error when the file is unreadable, garbled or of another version.
pub fn read_evidence(path: &Path) -> Result<Option<Evidence>, EvidenceError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(EvidenceError::Io {
                path: path.to_owned(),
                source,
            });
        }
    };
    let garbled = |source| EvidenceError::Garbled {
        path: path.to_owned(),
        source,
    };
    let probe: VersionProbe = serde_json::from_slice(&bytes).map_err(garbled)?;
    if probe.version != u64::from(EVIDENCE_VERSION) {
        return Err(EvidenceError::Version {
            path: path.to_owned(),
            found: probe.version,
        });
    }
    serde_json::from_slice(&bytes).map(Some).map_err(garbled)
}

/// An evidence file being prepared: a private temporary file beside the target, created before
/// the command starts (so an unwritable location fails before anything runs) and renamed over
/// the target by [`PendingEvidence::commit`]. Dropped uncommitted, it removes itself.
pub(super) struct PendingEvidence {
    file: Option<File>,
    temp: PathBuf,
    target: PathBuf,
}

impl PendingEvidence {
    /// Creates the temporary file (mode 0600) in the target's directory.
    pub(super) fn create(target: &Path) -> io::Result<PendingEvidence> {
        let Some(name) = target.file_name() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("evidence path {} names no file", target.display()),
            ));
        };
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{}.tmp", std::process::id()));
        let temp = target.with_file_name(temp_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("creating evidence file {}: {e}", temp.display()),
                )
            })?;
        Ok(PendingEvidence {
            file: Some(file),
            temp,
            target: target.to_owned(),
        })
    }

    /// Writes `evidence`, syncs it, renames it over the target and syncs the directory.
    pub(super) fn commit(mut self, evidence: &Evidence) -> io::Result<()> {
        let Some(mut file) = self.file.take() else {
            return Err(io::Error::other("evidence already committed"));
        };
        let mut bytes = serde_json::to_vec(evidence).map_err(io::Error::other)?;
        bytes.push(b'\n');
        file.write_all(&bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&self.temp, &self.target)?;
        // From here the temp name is gone; Drop must not remove anything.
        self.temp = PathBuf::new();
        let dir = match self.target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        File::open(dir)?.sync_all()
    }
}

impl Drop for PendingEvidence {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn sample() -> Evidence {
        Evidence {
            version: EVIDENCE_VERSION,
            termination: Termination::Exited { code: 3 },
            elapsed_ms: 12,
            program: "/usr/bin/sh".into(),
            argv: vec!["sh".into(), "-c".into(), "exit 3".into()],
            pid: Some(4242),
            supervisor_pid: 4241,
            descendants_reaped: 0,
            finished_unix_ms: 1_767_225_600_000,
        }
    }

    #[test]
    fn evidence_is_committed_atomically_private_and_reads_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("call.json");
        let pending = PendingEvidence::create(&path).expect("create");
        assert_eq!(
            read_evidence(&path).expect("read"),
            None,
            "nothing before commit"
        );
        pending.commit(&sample()).expect("commit");
        assert_eq!(read_evidence(&path).expect("read"), Some(sample()));
        let mode = fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("call.json")]);
    }

    #[test]
    fn an_uncommitted_evidence_file_leaves_nothing_behind() {
        let dir = tempfile::tempdir().expect("temp dir");
        drop(PendingEvidence::create(&dir.path().join("call.json")).expect("create"));
        assert_eq!(fs::read_dir(dir.path()).expect("list").count(), 0);
    }

    #[test]
    fn the_json_format_is_stable() {
        let json = serde_json::to_string(&sample()).expect("json");
        assert_eq!(
            json,
            r#"{"version":1,"termination":{"kind":"exited","code":3},"elapsed_ms":12,"program":"/usr/bin/sh","argv":["sh","-c","exit 3"],"pid":4242,"supervisor_pid":4241,"descendants_reaped":0,"finished_unix_ms":1767225600000}"#
        );
        let killed = serde_json::to_string(&Termination::KilledRuntimeGone).expect("json");
        assert_eq!(killed, r#"{"kind":"killed_runtime_gone"}"#);
    }

    #[test]
    fn another_version_is_refused_by_number() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("call.json");
        fs::write(&path, r#"{"version":2,"anything":true}"#).expect("write");
        let err = read_evidence(&path).expect_err("version 2");
        assert!(
            matches!(err, EvidenceError::Version { found: 2, .. }),
            "{err}"
        );
    }
}
