//! The `ash` binary: `ash run`, `ash rpc`, `ash ason`, `ash --completions`; also the exec supervisor when its
//! first argument is [`SUPERVISE_ARG`] (an embedding feature, not a user command).

mod cli;
mod run;

use ash_engine::bootstrap::{BootstrapCode, BootstrapError};
use ash_engine::exec::supervisor::{SUPERVISE_ARG, supervise_main};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    // First, before anything else runs: the supervisor must stay single-threaded.
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if raw.get(1).is_some_and(|a| a == SUPERVISE_ARG) {
        std::process::exit(supervise_main(raw.get(2..).unwrap_or_default()));
    }
    #[allow(
        unsafe_code,
        reason = "the allocator is tuned while this is the process's only thread"
    )]
    // SAFETY: no thread has been started yet (the supervisor, which must stay single-threaded,
    // has left above, and it allocates little).
    unsafe {
        ash_engine::compute::pad_heap_growth();
    }
    let result = cli::main(
        raw.get(1..).unwrap_or_default(),
        &mut std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let _ = std::io::stderr().write_all(err.to_document().as_bytes());
            exit_code(&err)
        }
    }
}

fn exit_code(err: &BootstrapError) -> ExitCode {
    debug_assert!(err.code != BootstrapCode::Usage || err.exit == 2);
    ExitCode::from(u8::try_from(err.exit).unwrap_or(70))
}
