//! The `ash` binary: `ash run`, `ash ason`, `ash --version`.

use ash_engine::bootstrap::{BootstrapCode, BootstrapError};
use ash_engine::cli;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = cli::main(
        &args,
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
