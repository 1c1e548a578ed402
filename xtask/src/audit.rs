//! `cargo xtask audit-tests`: every test can fail. It lists
//!
//! - tests with no check: no `assert*!`, `panic!`, `unwrap`/`expect`, `?` or
//!   `#[should_panic]` in their body, nor in a function of the same target they call (followed
//!   through calls, by name);
//! - code that prints that it skipped something, and tests with a bare `return` (a test that
//!   returns early as a pass);
//! - `#[ignore]` without a reason, or with one that `cargo xtask test` cannot act on
//!   (`requirement.rs` has the grammar), or naming a parent test that does not exist;
//!
//! minus the entries of `xtask/audit-tests.allow`, each of which gives its reason. An entry
//! that matches nothing is a finding too, so the list stays true.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::inventory::{Ignore, Inventory, Test};
use crate::requirement::{self, Reason};

/// The allowlist, relative to the repository root.
pub const ALLOWLIST: &str = "xtask/audit-tests.allow";

/// One finding: where (`FILE::FUNCTION`) and what.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// `FILE::FUNCTION`, the allowlist's key.
    pub key: String,
    /// What is wrong.
    pub what: String,
}

/// A parsed allowlist: key → reason.
#[derive(Debug, Default)]
pub struct Allowlist {
    entries: BTreeMap<String, String>,
    /// Lines that are not `KEY: REASON`.
    malformed: Vec<String>,
}

impl Allowlist {
    /// Parses `KEY: REASON` lines; `#` starts a comment line.
    pub fn parse(text: &str) -> Self {
        let mut list = Allowlist::default();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.split_once(": ") {
                Some((key, reason)) if !key.trim().is_empty() && !reason.trim().is_empty() => {
                    list.entries
                        .insert(key.trim().to_owned(), reason.trim().to_owned());
                }
                _ => list.malformed.push(line.to_owned()),
            }
        }
        list
    }
}

fn key(test: &Test) -> String {
    format!("{}::{}", test.file.display(), test.function)
}

/// Helper names that check, per target: a function checks when its body does, or it calls
/// one that does.
fn checking_helpers(inventory: &Inventory) -> BTreeSet<(String, String)> {
    let mut checking: BTreeSet<(String, String)> = inventory
        .helpers
        .functions
        .iter()
        .filter(|h| h.checks.direct)
        .map(|h| (h.target.clone(), h.name.clone()))
        .collect();
    loop {
        let before = checking.len();
        for h in &inventory.helpers.functions {
            if h.checks
                .calls
                .iter()
                .any(|c| checking.contains(&(h.target.clone(), c.clone())))
            {
                checking.insert((h.target.clone(), h.name.clone()));
            }
        }
        if checking.len() == before {
            return checking;
        }
    }
}

/// Every finding, before the allowlist.
pub fn findings(inventory: &Inventory) -> Vec<Finding> {
    let checking = checking_helpers(inventory);
    let mut found = Vec::new();
    for test in &inventory.tests {
        let target = crate::inventory::target_key(&test.package, &test.target);
        let calls_check = test
            .body
            .calls
            .iter()
            .any(|c| checking.contains(&(target.clone(), c.clone())));
        if !(test.should_panic || test.body.direct || test.body.try_operator || calls_check) {
            found.push(Finding {
                key: key(test),
                what: "no assertion, expect/unwrap, `?` or panic, in it or in what it calls".into(),
            });
        }
        if test.body.early_return {
            found.push(Finding {
                key: key(test),
                what: "returns early, a pass without its checks: make the condition an #[ignore] or a failure"
                    .into(),
            });
        }
        if test.body.prints_skip {
            found.push(Finding {
                key: key(test),
                what: "prints that it skipped something: a skip must be an #[ignore] or a failure"
                    .into(),
            });
        }
        match &test.ignore {
            Ignore::No => {}
            Ignore::Bare => found.push(Finding {
                key: key(test),
                what: "#[ignore] without a reason".into(),
            }),
            Ignore::Reason(reason) => match requirement::parse(reason) {
                Err(e) => found.push(Finding {
                    key: key(test),
                    what: format!("#[ignore = {reason:?}]: {e}"),
                }),
                Ok(Reason::ChildOf(parent)) => {
                    let exists = inventory.tests.iter().any(|t| {
                        t.package == test.package && t.target == test.target && t.function == parent
                    });
                    if !exists {
                        found.push(Finding {
                            key: key(test),
                            what: format!(
                                "the child process of `{parent}`, which is no test of its target"
                            ),
                        });
                    }
                }
                Ok(Reason::Needs(_)) => {}
            },
        }
    }
    for helper in &inventory.helpers.functions {
        if helper.checks.prints_skip {
            found.push(Finding {
                key: format!("{}::{}", helper.file.display(), helper.name),
                what: "prints that it skipped something: a skip must be an #[ignore] or a failure"
                    .into(),
            });
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The findings the allowlist does not excuse, and its stale or malformed entries.
pub fn unexcused(found: Vec<Finding>, allow: &Allowlist) -> Vec<Finding> {
    let mut left: Vec<Finding> = found
        .iter()
        .filter(|f| !allow.entries.contains_key(&f.key))
        .cloned()
        .collect();
    for key in allow.entries.keys() {
        if !found.iter().any(|f| &f.key == key) {
            left.push(Finding {
                key: key.clone(),
                what: format!(
                    "{ALLOWLIST} lists it, but the audit finds nothing there: remove the entry"
                ),
            });
        }
    }
    for line in &allow.malformed {
        left.push(Finding {
            key: ALLOWLIST.into(),
            what: format!("not `FILE::FUNCTION: REASON`: {line}"),
        });
    }
    left
}

/// Runs the audit over the repository at `root`.
pub fn run(root: &Path) -> Result<Vec<Finding>, crate::XtaskError> {
    let inventory = crate::inventory::collect(root)?;
    let path = root.join(ALLOWLIST);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(crate::XtaskError::Io {
                what: path.display().to_string(),
                source,
            });
        }
    };
    Ok(unexcused(findings(&inventory), &Allowlist::parse(&text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::{BodyChecks, Helper, Target};
    use std::path::PathBuf;

    fn test(function: &str, body: BodyChecks, ignore: Ignore) -> Test {
        Test {
            package: "p".into(),
            target: Target::Lib,
            name: format!("tests::{function}"),
            function: function.into(),
            file: PathBuf::from("src/a.rs"),
            ignore,
            should_panic: false,
            body,
        }
    }

    fn calls(names: &[&str]) -> BodyChecks {
        BodyChecks {
            calls: names.iter().map(|n| (*n).to_owned()).collect(),
            ..BodyChecks::default()
        }
    }

    fn helper(name: &str, checks: BodyChecks) -> Helper {
        Helper {
            target: crate::inventory::target_key("p", &Target::Lib),
            name: name.into(),
            file: PathBuf::from("src/a.rs"),
            checks,
        }
    }

    #[test]
    fn a_test_checks_through_the_helpers_it_calls_and_not_without() {
        let direct = BodyChecks {
            direct: true,
            ..BodyChecks::default()
        };
        let inventory = Inventory {
            helpers: crate::inventory::Helpers {
                functions: vec![
                    helper("check", direct.clone()),
                    helper("outer", calls(&["check"])),
                    helper("quiet", calls(&["println"])),
                ],
            },
            tests: vec![
                test("asserts", direct, Ignore::No),
                test("via_two_helpers", calls(&["outer"]), Ignore::No),
                test("via_quiet", calls(&["quiet"]), Ignore::No),
                test("nothing", BodyChecks::default(), Ignore::No),
            ],
        };
        let keys: Vec<String> = findings(&inventory).into_iter().map(|f| f.key).collect();
        assert_eq!(keys, ["src/a.rs::nothing", "src/a.rs::via_quiet"]);
    }

    #[test]
    fn ignore_reasons_must_be_actionable_and_children_must_have_parents() {
        let ok = || BodyChecks {
            direct: true,
            ..BodyChecks::default()
        };
        let inventory = Inventory {
            tests: vec![
                test("parent", ok(), Ignore::No),
                test(
                    "child",
                    ok(),
                    Ignore::Reason("the child process of parent".into()),
                ),
                test(
                    "orphan",
                    ok(),
                    Ignore::Reason("the child process of gone".into()),
                ),
                test("bare", ok(), Ignore::Bare),
                test("vague", ok(), Ignore::Reason("slow".into())),
                test(
                    "browser",
                    ok(),
                    Ignore::Reason("needs chromium-headless-shell: run cargo xtask test".into()),
                ),
            ],
            ..Inventory::default()
        };
        let keys: Vec<String> = findings(&inventory).into_iter().map(|f| f.key).collect();
        assert_eq!(
            keys,
            ["src/a.rs::bare", "src/a.rs::orphan", "src/a.rs::vague"]
        );
    }

    #[test]
    fn the_allowlist_excuses_with_a_reason_and_its_stale_entries_are_findings() {
        let found = vec![
            Finding {
                key: "a.rs::x".into(),
                what: "no check".into(),
            },
            Finding {
                key: "a.rs::y".into(),
                what: "no check".into(),
            },
        ];
        let allow = Allowlist::parse(
            "# comment\na.rs::x: it checks by not hanging\na.rs::gone: was removed\na.rs::y:\n",
        );
        let left: Vec<String> = unexcused(found, &allow)
            .into_iter()
            .map(|f| f.key)
            .collect();
        // y has no reason (malformed, so not excused); gone matches nothing.
        assert_eq!(left, ["a.rs::y", "a.rs::gone", ALLOWLIST]);
    }

    #[test]
    fn the_repository_passes_the_test_audit() {
        let left = run(&crate::inventory::repo_root()).unwrap_or_else(|e| panic!("{e}"));
        let listing: Vec<String> = left
            .iter()
            .map(|f| format!("{}: {}", f.key, f.what))
            .collect();
        assert!(
            left.is_empty(),
            "cargo xtask audit-tests finds:\n{}\nfix each test, or give its reason in {ALLOWLIST}",
            listing.join("\n")
        );
    }
}
