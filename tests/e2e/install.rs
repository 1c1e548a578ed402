//! What a newcomer is told to run works: every command in the README's `sh` blocks is run here
//! (or, for the ones marked `# live`, checked to parse; the `cargo` ones are run by `.ci/run`),
//! and the completion scripts the binaries print are valid for their shells.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::harness::{World, only_session_in};

/// The repository root.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The directory of the built binaries: `ansa`, with `ash` and `ash-broker` beside it.
fn bin_dir() -> PathBuf {
    let ansa = Path::new(env!("CARGO_BIN_EXE_ansa"));
    let dir = ansa.parent().unwrap().to_path_buf();
    assert!(
        dir.join("ash").is_file(),
        "{} has no ash: build the workspace (`cargo test --workspace` does)",
        dir.display()
    );
    dir
}

/// Every command line of the README's `sh` blocks, in order.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in readme.lines() {
        match line {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            _ if in_sh && !line.trim().is_empty() => commands.push(line.trim().to_owned()),
            _ => {}
        }
    }
    commands
}

/// `sh -c line` in `world`'s workspace and home, with the built binaries first on PATH and
/// none of the caller's provider settings.
fn shell(world: &World, line: &str) -> std::process::Output {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(line).current_dir(world.ws()).env_clear();
    sh.env("PATH", format!("{}:/usr/bin:/bin", bin_dir().display()))
        .env("HOME", world.path("home"))
        .env("LANG", "C.UTF-8")
        .env("NO_COLOR", "1");
    sh.output().unwrap()
}

#[test]
fn every_readme_command_runs() {
    let commands = readme_commands();
    assert!(commands.len() >= 10, "only {} commands", commands.len());
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    let world = World::new();
    std::fs::write(world.ws().join("main.py"), "print('hello')\n").unwrap();
    let mut ran = 0;
    for line in &commands {
        if line.starts_with("cargo ") {
            // The README's test command is the one CI extracts and runs; the others it runs
            // literally (a fresh clone's demo, the installs).
            let is_test =
                line.starts_with("cargo xtask test") && ci.contains("grep -m1 '^cargo xtask test'");
            assert!(
                is_test || ci.lines().any(|l| l.contains(line.as_str())),
                "`{line}` is shown in the README but .ci/run does not run it"
            );
            continue;
        }
        if let Some((command, _)) = line.split_once(" # live") {
            // Needs an account, a key or a server: its arguments must parse.
            if !command.split_whitespace().any(|w| w == "ansa") {
                assert!(
                    command.starts_with("export "),
                    "unexpected live line `{line}`"
                );
                continue;
            }
            let out = shell(&world, &format!("{command} --help"));
            assert!(
                out.status.success(),
                "`{command}` does not parse: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            continue;
        }
        let out = shell(&world, line);
        assert!(
            out.status.success(),
            "`{line}` failed ({:?}):\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 6, "only {ran} commands ran");
    // What they left behind is what the README says: one session, continued; completions.
    // `--continue` reopened the first session instead of making a second one.
    only_session_in(&world.path("home/.ansa/sessions"));
    let completions = world.path("home/.local/share/bash-completion/completions");
    for name in ["ansa", "ash"] {
        assert!(completions.join(name).is_file(), "{name} completions");
    }
}

/// Whether `program` runs here.
fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Prints each binary's completion script for `shell` and has `shell` parse it (`check` is
/// its no-execute flag). A shell that is not installed fails the test with how to install it.
fn completion_scripts_parse_in(shell: &str, check: &str) {
    assert!(
        installed(shell),
        "{shell} is needed to syntax-check the completion scripts: install it (Debian: apt-get install {shell}), or run cargo xtask test"
    );
    let dir = bin_dir();
    let scratch = tempfile::tempdir().unwrap();
    for binary in ["ansa", "ash"] {
        let out = Command::new(dir.join(binary))
            .args(["--completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{binary} --completions {shell}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("completions"),
            "{binary}'s {shell} script completes its own options"
        );
        let file = scratch.path().join(format!("{binary}.{shell}"));
        std::fs::write(&file, &out.stdout).unwrap();
        let status = Command::new(shell).arg(check).arg(&file).status().unwrap();
        assert!(status.success(), "{binary}'s {shell} script does not parse");
    }
}

#[test]
fn completion_scripts_are_valid_for_bash_and_zsh() {
    completion_scripts_parse_in("bash", "-n");
    completion_scripts_parse_in("zsh", "-n");
    let dir = bin_dir();
    let out = Command::new(dir.join("ansa"))
        .args(["--completions", "bash", "--offline"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--completions stands alone");
}

#[test]
#[ignore = "needs fish: run cargo xtask test"]
fn completion_scripts_are_valid_for_fish() {
    completion_scripts_parse_in("fish", "--no-execute");
}

#[test]
fn the_flakes_sandbox_skips_name_real_tests() {
    // A renamed test would otherwise run (and fail) inside the Nix sandbox unnoticed. An
    // `#[ignore]`d test does not run there anyway, so naming one is a mistake too: the
    // patterns below need `#[test]` directly above the `fn`.
    let flake = std::fs::read_to_string(repo().join("flake.nix")).unwrap();
    let list = flake
        .split_once("sandboxSkips = [")
        .and_then(|(_, rest)| rest.split_once("];"))
        .map(|(list, _)| list)
        .expect("flake.nix has a sandboxSkips list");
    let names: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('"'))
        .map(|l| l.trim_matches('"'))
        .collect();
    assert!(names.len() >= 3, "{names:?}");
    for name in names {
        let Some((module, test)) = name.split_once("::") else {
            // A bare name is a test of another crate's test targets.
            let found = ["auth/tests", "sessions/src/tests"].iter().any(|dir| {
                rust_sources(&repo().join(dir)).iter().any(|source| {
                    std::fs::read_to_string(source)
                        .is_ok_and(|text| text.contains(&format!("#[test]\nfn {name}()")))
                })
            });
            assert!(
                found,
                "{name} in flake.nix names no test, or an #[ignore]d one"
            );
            continue;
        };
        let source = std::fs::read_to_string(repo().join(format!("tests/e2e/{module}.rs")))
            .unwrap_or_else(|e| panic!("{name}: tests/e2e/{module}.rs: {e}"));
        assert!(
            source.contains(&format!("#[test]\nfn {test}()")),
            "{name} in flake.nix names no test of tests/e2e/{module}.rs, or an #[ignore]d one"
        );
    }
}

/// The `.rs` files directly in `dir`.
fn rust_sources(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect()
}
