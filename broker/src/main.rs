//! `ash-broker --socket PATH --parent-pid PID --lease PATH --upstream URL`: the capability
//! token arrives on stdin (one line), never on the command line.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use ash_broker::client::is_token;
use ash_broker::server::{self, BrokerError, Options, Upstream};
use clap::Parser;

/// ash-broker: provider connections shared by the short ansa processes of one shell.
#[derive(Debug, Parser)]
#[command(name = "ash-broker", version, about)]
struct Args {
    /// The socket to listen on, inside a directory only you can open (mode 0700).
    #[arg(long, value_name = "PATH")]
    socket: PathBuf,
    /// The interactive shell served; the broker exits when it is gone.
    #[arg(long, value_name = "PID")]
    parent_pid: u32,
    /// The lease file, refreshed by every routed request and removed on exit.
    #[arg(long, value_name = "PATH")]
    lease: PathBuf,
    /// The provider's https:// base URL; requests to any other origin are refused.
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// Exit after this many seconds without a request.
    #[arg(long, value_name = "SECS", default_value_t = 1800)]
    idle_secs: u64,
    /// How often the parent shell is looked for, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    check_ms: u64,
    /// Most idle provider connections kept per host.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pool: usize,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match start(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "ash-broker: {e}");
            ExitCode::from(1)
        }
    }
}

fn start(args: Args) -> Result<(), BrokerError> {
    let options = Options {
        upstream: Upstream::parse(&args.upstream)?,
        socket: args.socket,
        parent_pid: args.parent_pid,
        lease: args.lease,
        idle: Duration::from_secs(args.idle_secs.max(1)),
        check: Duration::from_millis(args.check_ms.max(10)),
        pool: args.pool.clamp(1, 64),
        ca_file: std::env::var_os("AI_CA_FILE")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    };
    server::check_directory(&options)?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .take_line(&mut line)
        .map_err(|_| BrokerError::Token)?;
    let token = line.trim().to_owned();
    if !is_token(&token) {
        return Err(BrokerError::Token);
    }
    server::run(options, token)
}

/// Reads at most one short line.
trait TakeLine {
    fn take_line(&mut self, line: &mut String) -> std::io::Result<usize>;
}

impl<R: BufRead> TakeLine for R {
    fn take_line(&mut self, line: &mut String) -> std::io::Result<usize> {
        std::io::Read::take(self, 256).read_line(line)
    }
}
