//! Why the broker could not start or had to stop.

use std::path::PathBuf;

use thiserror::Error;

/// A broker start-up or run failure; each says what to fix.
#[derive(Debug, Error)]
pub enum BrokerError {
    /// The provider URL is missing or not usable.
    #[error(
        "--upstream {given}: {reason}; pass the provider's https:// base URL (`ansa --broker-upstream` prints it)"
    )]
    Upstream {
        /// What was given.
        given: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// No token arrived on stdin.
    #[error("no capability token on stdin: the shell integration passes 64 hex digits on one line")]
    Token,
    /// The socket's directory is not private.
    #[error(
        "{dir}: {reason}; the broker's socket must live in a directory only you can open (mode 0700)"
    )]
    Directory {
        /// The directory.
        dir: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Another broker already serves this socket.
    #[error("another broker already serves {0}")]
    Running(PathBuf),
    /// The socket could not be bound or set up.
    #[error("cannot listen on {path}: {source}")]
    Socket {
        /// The socket path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The listener could not be handed to the runtime.
    #[error("cannot listen: {0}")]
    Listen(std::io::Error),
    /// `AI_CA_FILE` could not be read.
    #[error("AI_CA_FILE {path}: {reason}")]
    CaFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot set up the HTTPS client: {0}")]
    Client(String),
    /// The async runtime could not start.
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// The parent shell is not running.
    #[error(
        "--parent-pid {0}: no such process; pass the PID of the interactive shell the broker serves"
    )]
    Parent(u32),
    /// `--socket`, `--parent-pid`, `--lease` and `--upstream` were not all given.
    #[error("--socket, --parent-pid, --lease and --upstream are all needed (or --probe alone)")]
    Arguments,
    /// The lease path is not a regular file of ours in a private directory.
    #[error(
        "--lease {path}: {reason}; the lease must be a regular file of yours (not a symlink) in a directory only you can open"
    )]
    LeaseFile {
        /// The lease path.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The lease file could not be written.
    #[error("cannot write the lease {path}: {source}")]
    Lease {
        /// The lease path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
