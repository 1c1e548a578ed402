//! `ansa`, the terminal coding agent.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let mut argv = std::env::args_os();
    if let Some(first) = argv.nth(1)
        && first == ash_engine::exec::supervisor::SUPERVISE_ARG
    {
        let rest: Vec<std::ffi::OsString> = argv.collect();
        let code = ash_engine::exec::supervisor::supervise_main(&rest);
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let args = ansa::cli::Args::parse();
    ansa::cli::run(args).into()
}
