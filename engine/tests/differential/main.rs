//! ASH/1 against the public reference implementation, byte for byte: every case runs in two
//! fresh copies of one fixture workspace, once with our `ash` and once with the reference
//! (`ASH_REFERENCE`), and exit status, stdout (or the list of RPC answers), stderr and the
//! workspace afterwards must be equal. The only normalisation is the elapsed-ms cell of exec
//! answers. A difference is either one of our documented decisions (`docs/protocol.md`,
//! [`decisions::DECISIONS`]) or a case listed as still open ([`decisions::OPEN`]); anything
//! else, and an open case that no longer differs, fails the test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod cases;
mod decisions;
mod fixture;
mod run;

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The cases say what they mean to: every request document but the malformed envelopes is
/// canonical ASON, so both implementations get past decoding.
#[test]
fn every_case_document_is_canonical() {
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_ash"));
    let mut bad = Vec::new();
    for case in cases::all() {
        let docs: Vec<String> = match &case.kind {
            run::Kind::Run(doc) if !case.name.starts_with("envelope ") => vec![doc.clone()],
            run::Kind::Rpc(frames) => frames.clone(),
            _ => continue,
        };
        for doc in docs {
            let ason = run::Case {
                name: case.name.clone(),
                kind: run::Kind::Ason(doc.clone().into_bytes()),
                start: run::Start::Fixture,
            };
            let out = run::run(&ours, &ason);
            if out.out != [doc.clone()] {
                bad.push(format!("{}: {:?}", case.name, out.stderr));
            }
        }
    }
    assert!(bad.is_empty(), "not canonical:\n{}", bad.join("\n"));
}

#[test]
#[ignore = "needs the reference ash: set ASH_REFERENCE to its build"]
fn ours_answers_like_the_reference() {
    let reference = std::env::var_os("ASH_REFERENCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("set ASH_REFERENCE to the reference ash binary"));
    assert!(
        reference.is_file(),
        "ASH_REFERENCE {} is not a file: set it to the reference ash binary",
        reference.display()
    );
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_ash"));
    let cases = cases::all();
    assert!(cases.len() >= 200, "only {} cases", cases.len());
    let mut names = std::collections::BTreeSet::new();
    for case in &cases {
        assert!(
            names.insert(case.name.clone()),
            "duplicate case {}",
            case.name
        );
    }
    let mut differing: BTreeMap<String, String> = BTreeMap::new();
    let mut explained: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for case in &cases {
        let a = run::run(&ours, case);
        let b = run::run(&reference, case);
        let Some(diff) = run::difference(&a, &b) else {
            continue;
        };
        if decisions::UNSTABLE.contains(&case.name.as_str()) {
            eprintln!(
                "differential: {} differs this run (timing-dependent):\n{diff}",
                case.name
            );
            continue;
        }
        if decisions::OPEN.iter().any(|(n, _)| *n == case.name) {
            differing.insert(case.name.clone(), diff);
            continue;
        }
        match decisions::DECISIONS.iter().find(|d| (d.explains)(&a, &b)) {
            Some(d) => explained.entry(d.name).or_default().push(case.name.clone()),
            None => {
                differing.insert(case.name.clone(), diff);
            }
        }
    }
    let open = |name: &str| decisions::OPEN.iter().any(|(n, _)| *n == name);
    let unexpected: Vec<String> = differing
        .iter()
        .filter(|(name, _)| !open(name))
        .map(|(name, diff)| format!("== {name}\n{diff}"))
        .collect();
    let fixed: Vec<&str> = decisions::OPEN
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !differing.contains_key(*n))
        .collect();
    let unused: Vec<&str> = decisions::DECISIONS
        .iter()
        .map(|d| d.name)
        .filter(|n| !explained.contains_key(n))
        .collect();
    eprintln!(
        "differential: {} cases; {} explained by decisions {explained:?}; {} open",
        cases.len(),
        explained.values().map(Vec::len).sum::<usize>(),
        differing.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} cases differ from the reference and are neither a decision nor open:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    if !unused.is_empty() {
        eprintln!("differential: no case needed these decisions this run: {unused:?}");
    }
    assert!(
        fixed.is_empty(),
        "these open cases no longer differ; take them off `decisions::OPEN`: {fixed:?}"
    );
}
