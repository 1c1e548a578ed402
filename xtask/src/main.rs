//! `cargo xtask man [--check]`: renders the man pages of `ansa`, `ash` and `ash-broker` from
//! the clap definitions the binaries parse with, into `man/`; `--check` fails when a checked-in
//! page differs from what the definitions give (the test below runs that check in CI).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::CommandFactory;

/// The man pages: file name and rendered bytes, in a fixed order.
fn pages() -> Result<Vec<(String, Vec<u8>)>, std::io::Error> {
    let commands = [
        ansa::cli::Args::command(),
        ash_engine::command_line::AshArgs::command(),
        ash_broker::server::BrokerArgs::command(),
    ];
    let mut pages = Vec::new();
    for command in commands {
        let name = format!("{}.1", command.get_name());
        let mut page = Vec::new();
        clap_mangen::Man::new(command).render(&mut page)?;
        pages.push((name, page));
    }
    Ok(pages)
}

/// The checked-in pages' directory: `man/` at the repository root.
fn man_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../man")
}

/// Pages that are missing or differ from the definitions.
fn stale(dir: &Path) -> Result<Vec<String>, std::io::Error> {
    Ok(pages()?
        .into_iter()
        .filter(|(name, page)| std::fs::read(dir.join(name)).ok().as_ref() != Some(page))
        .map(|(name, _)| name)
        .collect())
}

fn write(dir: &Path) -> Result<(), std::io::Error> {
    std::fs::create_dir_all(dir)?;
    for (name, page) in pages()? {
        std::fs::write(dir.join(&name), page)?;
        println!("wrote man/{name}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = man_dir();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["man"] => write(&dir).map(|()| true),
        ["man", "--check"] => stale(&dir).map(|stale| {
            for name in &stale {
                eprintln!("man/{name} is not current: run `cargo xtask man`");
            }
            stale.is_empty()
        }),
        _ => {
            eprintln!("usage: cargo xtask man [--check]");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_checked_in_man_pages_are_current() {
        let stale = super::stale(&super::man_dir()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            stale.is_empty(),
            "{stale:?} differ from the clap definitions: run `cargo xtask man`"
        );
    }
}
