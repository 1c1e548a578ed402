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
        reason = "the allocator and the environment are changed while this is the process's only thread"
    )]
    // SAFETY: no thread has been started yet: all that ansa starts, it starts in `cli::run`.
    unsafe {
        ash_engine::compute::pad_heap_growth();
        // The commands ansa runs are the user's own processes: they must not read the keys
        // from ansa's environment block or its memory (docs/security.md).
        ash_engine::exec::secrecy::clear_environment_block();
    }
    if let Err(e) = ash_engine::exec::secrecy::keep_inherited_descriptors() {
        eprintln!(
            "ansa: warning: cannot keep inherited descriptors from the commands it runs ({e})"
        );
    }
    if let Err(e) = ash_engine::exec::secrecy::forbid_inspection() {
        eprintln!(
            "ansa: cannot make the process non-dumpable ({e}); commands it runs could read its secrets"
        );
        return ExitCode::from(ansa::cli::Exit::Config.code());
    }
    let args = ansa::cli::Args::parse();
    ansa::cli::run(args).into()
}
