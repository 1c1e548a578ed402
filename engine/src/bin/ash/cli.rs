//! The `ash` command line: subcommand selection, stdin limits and bootstrap failures.

use ash_engine::ason::{self, Limits};
use ash_engine::bootstrap::{BootstrapCode, BootstrapError, decode_error, exit};
use std::io::{Read, Write};

/// Usage text, reported as bootstrap error 1.
pub const USAGE: &str = "usage: ash run (one canonical ASH/1 request on stdin) | ash rpc (framed ASH/1 session on stdin/stdout) | ash ason (canonicalise ASON on stdin) | ash --version";

/// Runs the `ash` command line with `args` (without the program name).
pub fn main(
    args: &[String],
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
) -> Result<(), BootstrapError> {
    match args {
        [flag] if flag == "--version" => write_out(
            stdout,
            format!("ash {}\n", env!("CARGO_PKG_VERSION")).as_bytes(),
        ),
        [cmd] if cmd == "ason" => {
            let input = read_input(stdin)?;
            let doc = ason::decode(&input, &Limits::default()).map_err(decode_error)?;
            write_out(stdout, ason::encode(&doc).as_bytes())
        }
        [cmd] if cmd == "run" => {
            let input = read_input(stdin)?;
            let cwd = std::env::current_dir().map_err(|e| {
                BootstrapError::new(
                    BootstrapCode::Io,
                    exit::SOFTWARE,
                    format!("the current directory is unusable: {e}"),
                )
            })?;
            let response = crate::run::run_in(&cwd, &input)?;
            write_out(stdout, response.as_bytes())
        }
        [cmd] if cmd == "rpc" => ash_engine::rpc::serve_stdio(stdin),
        [] => Err(usage("no subcommand given")),
        [other, ..] => Err(usage(&format!(
            "unknown subcommand or arguments starting at {other:?}"
        ))),
    }
}

fn usage(why: &str) -> BootstrapError {
    BootstrapError::new(BootstrapCode::Usage, exit::USAGE, format!("{why}; {USAGE}"))
}

fn write_out(stdout: &mut dyn Write, bytes: &[u8]) -> Result<(), BootstrapError> {
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(|e| {
            BootstrapError::new(
                BootstrapCode::Io,
                exit::SOFTWARE,
                format!("writing stdout failed: {e}"),
            )
        })
}

/// Reads stdin up to the 8 MiB ceiling without ever holding more than ceiling + 1 bytes.
fn read_input(stdin: &mut dyn Read) -> Result<Vec<u8>, BootstrapError> {
    let limit = Limits::default().document_bytes;
    let mut buf = Vec::new();
    stdin
        .take(limit as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| {
            BootstrapError::new(
                BootstrapCode::Io,
                exit::SOFTWARE,
                format!("reading stdin failed: {e}"),
            )
        })?;
    if buf.len() > limit {
        return Err(BootstrapError::new(
            BootstrapCode::InputCeiling,
            exit::INPUT,
            format!("stdin is larger than the {limit}-byte ceiling; send a smaller document"),
        ));
    }
    Ok(buf)
}
