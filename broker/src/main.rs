//! `ash-broker --socket PATH --parent-pid PID --lease PATH --upstream URL`: the capability
//! token arrives on stdin (one line), never on the command line. `ash-broker --probe PATH`
//! only says whether a broker answers there.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use ash_broker::client::is_token;
use ash_broker::server::{self, BrokerArgs, BrokerError, Options, Probe, Upstream};
use clap::Parser;

fn main() -> ExitCode {
    // The token lives in this process's memory: the user's other processes (the commands
    // `ansa` runs among them) must not read it through /proc or a debugger.
    if let Err(e) = nix::sys::prctl::set_dumpable(false) {
        let _ = writeln!(
            std::io::stderr(),
            "ash-broker: cannot make the process non-dumpable ({e}); not starting"
        );
        return ExitCode::from(1);
    }
    let args = BrokerArgs::parse();
    if let Some(socket) = &args.probe {
        return match server::probe(socket) {
            Probe::Live => ExitCode::SUCCESS,
            Probe::Stale => ExitCode::from(1),
            Probe::Untrusted(why) => {
                let _ = writeln!(std::io::stderr(), "ash-broker: {}: {why}", socket.display());
                ExitCode::from(2)
            }
        };
    }
    match start(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "ash-broker: {e}");
            ExitCode::from(1)
        }
    }
}

fn start(args: BrokerArgs) -> Result<(), BrokerError> {
    // clap requires all four unless `--probe` is given, which returned above.
    let (Some(socket), Some(parent_pid), Some(lease), Some(upstream)) =
        (args.socket, args.parent_pid, args.lease, args.upstream)
    else {
        return Err(BrokerError::Arguments);
    };
    let options = Options {
        upstream: Upstream::parse(&upstream)?,
        socket,
        parent_pid,
        lease,
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
