//! The `ash` command line: subcommand selection, stdin limits and bootstrap failures.

use ash_engine::ason::{self, Limits};
use ash_engine::bootstrap::{BootstrapCode, BootstrapError, decode_error, exit};
use ash_engine::command_line::{AshArgs, AshCommand};
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use std::ffi::OsString;
use std::io::{Read, Write};

/// Runs the `ash` command line with `args` (without the program name).
pub fn main(
    args: &[OsString],
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
) -> Result<(), BootstrapError> {
    let parsed =
        AshArgs::try_parse_from(std::iter::once(OsString::from("ash")).chain(args.iter().cloned()));
    let parsed = match parsed {
        Ok(parsed) => parsed,
        // Help and the version are answers, not failures.
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            return write_out(stdout, e.render().to_string().as_bytes());
        }
        Err(e) => return Err(usage(&e)),
    };
    if let Some(shell) = parsed.completions {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut AshArgs::command(), "ash", &mut script);
        return write_out(stdout, &script);
    }
    match parsed.command {
        Some(AshCommand::Ason) => {
            let input = read_input(stdin)?;
            let doc = ason::decode(&input, &Limits::default()).map_err(decode_error)?;
            write_out(stdout, ason::encode(&doc).as_bytes())
        }
        Some(AshCommand::Run) => {
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
        Some(AshCommand::Rpc) => ash_engine::rpc::serve_stdio(stdin),
        None => Err(BootstrapError::new(
            BootstrapCode::Usage,
            exit::USAGE,
            format!("no subcommand given; {USAGE}"),
        )),
    }
}

/// What `ash` accepts, said in one line of a usage error.
const USAGE: &str = "usage: ash run | ash rpc | ash ason | ash --completions SHELL | ash --version (ash --help says more)";

/// Bootstrap error 1 for arguments clap refused, with clap's reason on one line.
fn usage(e: &clap::Error) -> BootstrapError {
    let rendered = e.render().to_string();
    let why = rendered
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .to_owned();
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
