//! `ansa`, the terminal coding agent. So far only the engine (`ash`) has landed; this binary
//! reports its version and says so plainly for anything else.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--version" => {
            println!("ansa {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "ansa: the agent loop is not available in this build; the ASH/1 engine is (`ash run`, `ash ason`). Try `ansa --version`."
            );
            ExitCode::from(2)
        }
    }
}
