//! The `ash` binary's command line as a clap definition: the binary parses with it, and the
//! completion scripts and the man page are generated from it, so the three never disagree.

use clap::{Parser, Subcommand};

/// The ASH/1 workspace engine: one request, or one framed session, over stdin and stdout.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "ash",
    version,
    disable_help_subcommand = true,
    args_conflicts_with_subcommands = true,
    after_help = "Failures before a request ID exists are written to stderr as a bootstrap error \
                  document (s:1, e{c}, m) with exit 2 (usage), 3 (run and ason: input over \
                  8 MiB, not UTF-8 or not ASON), 4 (not canonical, not a request, an rpc \
                  frame or handshake error, or an rpc frame that is not UTF-8 or not ASON) or \
                  70 (I/O or internal)."
)]
pub struct AshArgs {
    /// What to run.
    #[command(subcommand)]
    pub command: Option<AshCommand>,

    /// Print the completion script for SHELL on stdout.
    #[arg(long, value_name = "SHELL")]
    pub completions: Option<clap_complete::Shell>,
}

/// The subcommands of `ash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub enum AshCommand {
    /// Read one canonical ASH/1 request on stdin, write its canonical answer on stdout, exit 0
    /// whatever its status.
    Run,
    /// Serve a framed ASH/1 session on stdin/stdout (4-byte big-endian length + canonical
    /// ASON): handshake, pipelined requests answered in input order, inline cancels.
    Rpc,
    /// Canonicalise the ASON document on stdin to stdout.
    Ason,
}
