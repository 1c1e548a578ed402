//! The `ash-broker` command line as a clap definition, shared by the binary and the man page
//! generator. The capability token never appears here: it arrives on stdin.

use std::path::PathBuf;

use clap::Parser;

/// Provider connections shared by the short ansa processes of one shell (started by the
/// shell integration that `ansa --install-shell` writes).
#[derive(Debug, Clone, Parser)]
#[command(name = "ash-broker", version)]
pub struct BrokerArgs {
    /// Only say whether a broker answers on this socket, for the shell integration: exit 0
    /// when one does, 1 when the socket is stale or missing, 2 when it is not a socket of
    /// yours in a private directory.
    #[arg(long, value_name = "SOCKET", exclusive = true)]
    pub probe: Option<PathBuf>,
    /// The socket to listen on, inside a directory only you can open (mode 0700).
    #[arg(long, value_name = "PATH", required_unless_present = "probe")]
    pub socket: Option<PathBuf>,
    /// The interactive shell served; the broker exits when it is gone.
    #[arg(long, value_name = "PID", required_unless_present = "probe")]
    pub parent_pid: Option<u32>,
    /// The lease file, refreshed by every routed request and removed on exit; a regular file
    /// of yours in a directory only you can open.
    #[arg(long, value_name = "PATH", required_unless_present = "probe")]
    pub lease: Option<PathBuf>,
    /// The provider's https:// base URL; requests to any other origin are refused.
    #[arg(long, value_name = "URL", required_unless_present = "probe")]
    pub upstream: Option<String>,
    /// Exit after this many seconds without a request.
    #[arg(long, value_name = "SECS", default_value_t = 1800)]
    pub idle_secs: u64,
    /// How often the parent shell is looked for, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub check_ms: u64,
    /// Most idle provider connections kept per host.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub pool: usize,
}
