//! `cargo xtask man [--check]`: renders the man pages of `ansa`, `ash` and `ash-broker` from
//! the clap definitions the binaries parse with, into `man/`; `--check` fails when a checked-in
//! page differs from what the definitions give (the test below runs that check in CI).

use std::path::{Path, PathBuf};

use clap::CommandFactory;

/// The man pages: file name and rendered bytes, in a fixed order. A command's page lists its
/// subcommands as `COMMAND-SUB(1)`, so each subcommand gets that page of its own.
fn pages() -> Result<Vec<(String, Vec<u8>)>, std::io::Error> {
    let commands = [
        ansa::cli::Args::command(),
        ash_engine::command_line::AshArgs::command(),
        ash_broker::server::BrokerArgs::command(),
    ];
    let mut pages = Vec::new();
    for command in commands {
        let name = command.get_name().to_owned();
        add_pages(command, &name, &name, &mut pages)?;
    }
    Ok(pages)
}

/// Renders `command` as `page_name.1` after the pages of its subcommands (at every depth:
/// `ansa sessions rm` is `ansa-sessions-rm(1)`, which `ansa-sessions(1)` refers to).
fn add_pages(
    command: clap::Command,
    page_name: &str,
    bin_name: &str,
    pages: &mut Vec<(String, Vec<u8>)>,
) -> Result<(), std::io::Error> {
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        // clap takes a `'static` name unless its `string` feature is on, which would change
        // clap's build for the whole workspace; a few leaked bytes in a short task do not.
        let sub_page: &'static str =
            Box::leak(format!("{page_name}-{}", sub.get_name()).into_boxed_str());
        let sub_bin = format!("{bin_name} {}", sub.get_name());
        let sub = sub.clone().name(sub_page).bin_name(sub_bin.clone());
        add_pages(sub, sub_page, &sub_bin, pages)?;
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(command).render(&mut page)?;
    pages.push((format!("{page_name}.1"), page));
    Ok(())
}

/// The checked-in pages' directory: `man/` at the repository root.
pub fn man_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../man")
}

/// Pages that are missing or differ from the definitions.
pub fn stale(dir: &Path) -> Result<Vec<String>, std::io::Error> {
    Ok(pages()?
        .into_iter()
        .filter(|(name, page)| std::fs::read(dir.join(name)).ok().as_ref() != Some(page))
        .map(|(name, _)| name)
        .collect())
}

/// Writes every page into `dir`.
pub fn write(dir: &Path) -> Result<(), std::io::Error> {
    std::fs::create_dir_all(dir)?;
    for (name, page) in pages()? {
        std::fs::write(dir.join(&name), page)?;
        println!("wrote man/{name}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The `NAME(1)` references of a rendered page (roff escapes `-` as `\-`).
    fn references(page: &str) -> Vec<String> {
        let text = page.replace("\\-", "-");
        let mut found = Vec::new();
        for (at, _) in text.match_indices("(1)") {
            let name: String = text[..at]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
        found
    }

    #[test]
    fn every_page_a_man_page_refers_to_exists() {
        let pages = super::pages().unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<String> = pages
            .iter()
            .map(|(file, _)| file.trim_end_matches(".1").to_owned())
            .collect();
        let mut referenced = 0;
        for (file, page) in &pages {
            for name in references(&String::from_utf8_lossy(page)) {
                assert!(
                    names.contains(&name),
                    "{file} refers to {name}(1), which is not among {names:?}"
                );
                referenced += 1;
            }
        }
        assert!(referenced >= 3, "ash's subcommands are referred to");
        assert!(names.contains(&"ash-run".to_owned()), "{names:?}");
    }

    #[test]
    fn the_checked_in_man_pages_are_current() {
        let stale = super::stale(&super::man_dir()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            stale.is_empty(),
            "{stale:?} differ from the clap definitions: run `cargo xtask man`"
        );
    }
}
