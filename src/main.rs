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
    #[allow(
        unsafe_code,
        reason = "the allocator is tuned while this is the process's only thread"
    )]
    // SAFETY: no thread has been started yet: all that ansa starts, it starts in `cli::run`.
    unsafe {
        ash_engine::compute::pad_heap_growth();
    }
    let args = ansa::cli::Args::parse();
    ansa::cli::run(args).into()
}
