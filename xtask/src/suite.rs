//! `cargo xtask test`: every test, with the real components. It provides the components
//! (`components.rs`), runs `cargo test --workspace` with their environment, then the tests
//! `cargo test --workspace` reports as ignored because they need a component, root or the
//! reference build — exactly those, by name, and only the ones whose needs are met here — and
//! then the sign-in suites again on the keyring backend inside a private D-Bus session.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::XtaskError;
use crate::components::{self, Provided, describe, is_root};
use crate::inventory::{self, Ignore, Target, Test};
use crate::requirement::{self, Reason, Requirement};

/// Where the components and (unless `CARGO_TARGET_DIR` says otherwise) the build products
/// live: `ANSA_CI_CACHE`, else `~/.cache/ansa-ci`.
pub fn cache_dir() -> Result<PathBuf, XtaskError> {
    if let Some(dir) = std::env::var_os("ANSA_CI_CACHE").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| PathBuf::from(home).join(".cache/ansa-ci"))
        .ok_or(XtaskError::NoCache)
}

/// The reference ASH/1 build, when `ASH_REFERENCE` names it (the repository does not know
/// where a machine keeps it).
fn reference() -> Option<OsString> {
    std::env::var_os("ASH_REFERENCE").filter(|p| !p.is_empty())
}

/// An ignored test and whether this run can run it.
#[derive(Debug)]
struct Opted<'a> {
    test: &'a Test,
    /// What it needs that this run does not have; empty: it runs.
    unmet: Vec<Requirement>,
}

/// The tests `cargo test --workspace` ignores for what they need, with what is unmet here.
fn opted_out<'a>(tests: &'a [Test], root_user: bool, have_reference: bool) -> Vec<Opted<'a>> {
    tests
        .iter()
        .filter_map(|test| {
            let Ignore::Reason(reason) = &test.ignore else {
                return None;
            };
            let Ok(Reason::Needs(needs)) = requirement::parse(reason) else {
                return None;
            };
            let unmet = needs
                .into_iter()
                .filter(|need| match need {
                    // `provide` succeeded, so every component is here.
                    Requirement::Component(_) => false,
                    Requirement::Root => !root_user,
                    Requirement::Reference => !have_reference,
                })
                .collect();
            Some(Opted { test, unmet })
        })
        .collect()
}

/// The `cargo test` invocation (after `cargo test`) that runs exactly `tests` of one
/// target, ignored or not. `--workspace` keeps the features (and so the build) of the first
/// phase: `-p` alone would resolve another feature set and rebuild.
fn exact_args(target: &Target, tests: &[&Test]) -> Vec<String> {
    let mut args = vec!["--workspace".to_owned()];
    args.extend(target.cargo_args());
    args.extend(["--".into(), "--include-ignored".into(), "--exact".into()]);
    args.extend(tests.iter().map(|t| t.name.clone()));
    args
}

/// The tests to run as groups of one target each (package, target, tests).
fn by_target<'a>(tests: impl IntoIterator<Item = &'a Test>) -> Vec<(Target, Vec<&'a Test>)> {
    let mut groups: Vec<(Target, Vec<&Test>)> = Vec::new();
    for test in tests {
        match groups.iter_mut().find(|(t, _)| *t == test.target) {
            Some((_, list)) => list.push(test),
            None => groups.push((test.target.clone(), vec![test])),
        }
    }
    groups
}

/// One cargo command of the run.
struct Cargo<'a> {
    root: &'a Path,
    env: &'a [(&'static str, OsString)],
}

impl Cargo<'_> {
    fn command(&self, wrapper: &[&str], args: &[String]) -> Command {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = match wrapper.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(&cargo);
                c
            }
            None => Command::new(&cargo),
        };
        command
            .arg("test")
            .args(args)
            .current_dir(self.root)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    fn run(
        &self,
        wrapper: &[&str],
        args: &[String],
        extra: &[(&str, &str)],
    ) -> Result<(), XtaskError> {
        let mut command = self.command(wrapper, args);
        command.envs(extra.iter().copied());
        eprintln!("+ {}", describe(&command));
        let status = command.status().map_err(|source| XtaskError::Spawn {
            command: describe(&command),
            source,
        })?;
        if status.success() {
            Ok(())
        } else {
            Err(XtaskError::Failed {
                command: describe(&command),
                status,
            })
        }
    }
}

/// Runs every test; see the module doc.
pub fn run(root: &Path) -> Result<(), XtaskError> {
    let cache = cache_dir()?;
    eprintln!("== components (cache: {})", cache.display());
    let Provided { mut env } = components::provide(&cache)?;
    if std::env::var_os("CARGO_TARGET_DIR").is_none() {
        env.push(("CARGO_TARGET_DIR", cache.join("target").into()));
    }
    let reference = reference();
    if let Some(path) = &reference {
        env.push(("ASH_REFERENCE", path.clone()));
    }
    for (name, value) in &env {
        eprintln!("{name}={}", value.to_string_lossy());
    }
    let inventory = inventory::collect(root)?;
    let root_user = is_root();
    let opted = opted_out(&inventory.tests, root_user, reference.is_some());
    let cargo = Cargo { root, env: &env };

    eprintln!("== cargo test --workspace");
    cargo.run(&[], &["--workspace".into()], &[])?;

    eprintln!("== the tests cargo test --workspace ignores for what they need");
    let runnable: Vec<&Test> = opted
        .iter()
        .filter(|o| o.unmet.is_empty())
        .map(|o| o.test)
        .collect();
    for (target, tests) in by_target(runnable.iter().copied()) {
        cargo.run(&[], &exact_args(&target, &tests), &[])?;
    }

    eprintln!("== the sign-in suites again on the keyring backend (Secret Service, private D-Bus)");
    let keyring_session = root.join(".ci/keyring-session").display().to_string();
    let wrapper = ["dbus-run-session", "--", keyring_session.as_str()];
    for (target, tests) in by_target(keyring_pass(&inventory.tests)) {
        cargo.run(
            &wrapper,
            &exact_args(&target, &tests),
            &[("ANSA_TEST_KEYRING", "1")],
        )?;
    }

    let not_run: Vec<&Opted> = opted.iter().filter(|o| !o.unmet.is_empty()).collect();
    eprintln!(
        "== done: {} opted-out tests ran; {} did not",
        runnable.len(),
        not_run.len()
    );
    for o in not_run {
        let needs: Vec<&str> = o.unmet.iter().map(|r| r.name()).collect();
        eprintln!(
            "not run: {} {} (needs {}{})",
            o.test.package,
            o.test.name,
            needs.join(", "),
            if o.unmet.contains(&Requirement::Root) {
                ": run cargo xtask test as root"
            } else {
                ": set ASH_REFERENCE to the reference ash build"
            }
        );
    }
    Ok(())
}

/// The keyring pass: every test of the sign-in suites (the auth crate's `siwc`, and the
/// end-to-end `auth::` and `signed_in::` modules), ignored or not, but no child process.
fn keyring_pass(tests: &[Test]) -> Vec<&Test> {
    tests
        .iter()
        .filter(|t| {
            (t.package == "ansa-auth" && t.target == Target::Test("siwc".into()))
                || (t.package == "ansa"
                    && t.target == Target::Test("e2e".into())
                    && (t.name.starts_with("auth::") || t.name.starts_with("signed_in::")))
        })
        .filter(|t| match &t.ignore {
            Ignore::No => true,
            Ignore::Reason(r) => matches!(requirement::parse(r), Ok(Reason::Needs(_))),
            Ignore::Bare => false,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::BodyChecks;

    fn test(package: &str, target: Target, name: &str, ignore: Ignore) -> Test {
        Test {
            package: package.into(),
            target,
            name: name.into(),
            function: name.rsplit("::").next().unwrap_or(name).into(),
            file: PathBuf::from("x.rs"),
            ignore,
            should_panic: false,
            body: BodyChecks::default(),
        }
    }

    fn reason(text: &str) -> Ignore {
        Ignore::Reason(text.into())
    }

    #[test]
    fn only_tests_ignored_for_what_this_run_has_are_run_and_child_processes_never() {
        let e2e = || Target::Test("e2e".into());
        let tests = [
            test("ansa", e2e(), "plain", Ignore::No),
            test(
                "ansa",
                e2e(),
                "browser",
                reason("needs chromium-headless-shell: run cargo xtask test"),
            ),
            test("ansa", e2e(), "tmpfs", reason("needs root: mounts a tmpfs")),
            test(
                "ansa",
                e2e(),
                "diff",
                reason("needs the reference ash: set ASH_REFERENCE"),
            ),
            test("ansa", e2e(), "child", reason("the child process of plain")),
            test("ansa", e2e(), "old", Ignore::Bare),
        ];
        let names = |opted: &[Opted]| -> Vec<String> {
            opted
                .iter()
                .filter(|o| o.unmet.is_empty())
                .map(|o| o.test.name.clone())
                .collect()
        };
        assert_eq!(names(&opted_out(&tests, false, false)), ["browser"]);
        assert_eq!(names(&opted_out(&tests, true, false)), ["browser", "tmpfs"]);
        assert_eq!(
            names(&opted_out(&tests, true, true)),
            ["browser", "tmpfs", "diff"]
        );
        let unmet: Vec<Vec<Requirement>> = opted_out(&tests, false, false)
            .into_iter()
            .map(|o| o.unmet)
            .collect();
        assert_eq!(
            unmet,
            [
                vec![],
                vec![Requirement::Root],
                vec![Requirement::Reference]
            ]
        );
    }

    #[test]
    fn a_group_runs_its_names_exactly_on_the_workspace_build() {
        let lib = test("ash-engine", Target::Lib, "a::b", Ignore::No);
        let args = exact_args(&Target::Test("mutation".into()), &[&lib]);
        assert_eq!(
            args,
            [
                "--workspace",
                "--test",
                "mutation",
                "--",
                "--include-ignored",
                "--exact",
                "a::b"
            ]
        );
    }

    #[test]
    fn the_keyring_pass_takes_the_sign_in_suites_without_child_processes() {
        let siwc = || Target::Test("siwc".into());
        let e2e = || Target::Test("e2e".into());
        let tests = [
            test(
                "ansa-auth",
                siwc(),
                "browser",
                reason("needs chromium-headless-shell and oidc-provider: run cargo xtask test"),
            ),
            test(
                "ansa-auth",
                siwc(),
                "child_refresher",
                reason("the child process of browser"),
            ),
            test("ansa-auth", siwc(), "plain", Ignore::No),
            test(
                "ansa",
                e2e(),
                "auth::cli",
                reason("needs oidc-provider: run cargo xtask test"),
            ),
            test("ansa", e2e(), "signed_in::bearer", Ignore::No),
            test("ansa", e2e(), "tui::start", Ignore::No),
            test(
                "ansa-auth",
                Target::Test("store".into()),
                "files",
                Ignore::No,
            ),
        ];
        let names: Vec<&str> = keyring_pass(&tests)
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["browser", "plain", "auth::cli", "signed_in::bearer"]
        );
    }

    #[test]
    fn the_cache_is_ansa_ci_cache_or_under_home() {
        // Read only: the variables of this process are not changed (tests run in parallel).
        let dir = cache_dir().unwrap_or_else(|e| panic!("{e}"));
        match std::env::var_os("ANSA_CI_CACHE").filter(|d| !d.is_empty()) {
            Some(set) => assert_eq!(dir, PathBuf::from(set)),
            None => assert!(dir.ends_with(".cache/ansa-ci"), "{}", dir.display()),
        }
    }
}
