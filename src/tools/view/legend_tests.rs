//! The legend in the base prompt covers every status, flag, code, header and marker a model
//! view can contain: a new one fails here until the legend explains it. (The golden answers
//! and their check against the legend are in `tests/tools_execute/golden.rs`.)

use super::*;
use crate::prompt::BASE;
use ash_engine::protocol::{
    Change, Digest, EntryKind, ErrorCode, ErrorRecord, ExecResult, ExitKind, FindRow, FsKind,
    FsRow, ListRow, MutationState, PatchRow, ReadRow, SearchRow, SliceResult, SnapshotRow, Status,
};
use ash_engine::store::StoreQuota;

fn names() -> PathNames {
    let mut names = PathNames::default();
    let mut r = Response::success(1, Data::List(Vec::new()));
    r.paths = vec![(1, "a".to_owned()), (2, "b".to_owned())];
    names.learn(&r);
    names
}

fn header_of(tool: &'static str, data: Data) -> String {
    let store = RetainedStore::new(StoreQuota::default());
    let plane = ComputePlane::new(1).unwrap();
    let names = names();
    let text = render(
        &Response::success(1, data),
        &ViewContext {
            tool,
            names: &names,
            store: &store,
            plane: &plane,
            exec_limit: 16384,
            sandbox_refused: false,
            op: None,
            preimages: &[],
        },
    );
    let line = text
        .lines()
        .find(|l| l.starts_with('d'))
        .expect("a d field");
    // `d[3]{…}:` is written `d[N]{…}` in the legend.
    let open = line.find('{').unwrap();
    let cols = &line[open..line.len() - 1];
    if line.starts_with("d[") {
        format!("d[N]{cols}")
    } else {
        format!("d{cols}")
    }
}

fn digest() -> Digest {
    Digest::of(b"")
}

#[test]
fn every_view_header_is_in_the_legend() {
    let headers = [
        header_of(
            "read",
            Data::Read(vec![ReadRow {
                path: 1,
                offset: 1,
                len: 1,
                digest: digest(),
                text: Some("x".into()),
                reference: None,
            }]),
        ),
        header_of(
            "list",
            Data::List(vec![ListRow {
                path: 1,
                kind: EntryKind::File,
                size: Some(1),
            }]),
        ),
        header_of(
            "search",
            Data::Search(vec![SearchRow {
                path: 1,
                line: 1,
                column: 1,
                text: "x".into(),
            }]),
        ),
        header_of(
            "exec",
            Data::Exec(ExecResult {
                kind: ExitKind::Exited,
                code: Some(0),
                ms: 1,
                stdout: None,
                stderr: None,
                stdout_ref: None,
                stderr_ref: None,
            }),
        ),
        header_of(
            "edit",
            Data::Patch(vec![PatchRow {
                path: 1,
                state: MutationState::Committed,
                digest: Some(digest()),
            }]),
        ),
        header_of(
            "files",
            Data::Fs(vec![FsRow {
                id: 1,
                kind: FsKind::Copy,
                path: 1,
                destination: Some(2),
                state: MutationState::Committed,
                digest: Some(digest()),
            }]),
        ),
        header_of(
            "snapshot",
            Data::Snapshot(vec![SnapshotRow {
                path: 1,
                change: Change::Added,
                kind: EntryKind::File,
                size: Some(1),
                digest: Some(digest()),
            }]),
        ),
        header_of(
            "evidence",
            Data::Slice(SliceResult {
                offset: 0,
                len: 1,
                projected: 1,
                digest: digest(),
                text: Some("x".into()),
                bytes: None,
            }),
        ),
        header_of(
            "evidence",
            Data::Find(vec![FindRow {
                offset: 0,
                line: 1,
                column: 1,
                text: "x".into(),
            }]),
        ),
    ];
    for header in headers {
        assert!(
            BASE.contains(&format!("`{header}`")),
            "the legend does not explain {header}"
        );
    }
}

/// The legend line that starts with `` - `key` ``.
fn legend_line(key: &str) -> &'static str {
    BASE.lines()
        .find(|l| l.starts_with(&format!("- `{key}")))
        .unwrap_or_else(|| panic!("no legend line for `{key}`"))
}

#[test]
fn every_status_flag_and_kind_is_explained() {
    let s = legend_line("s`");
    for n in 0..=10u8 {
        let status = Status::from_u8(n).unwrap();
        if words::UNREACHABLE_STATUS.contains(&status) {
            continue;
        }
        let word = words::status(status);
        assert!(s.contains(&format!(" {word}")), "status {word}: {s}");
    }
    let flags = legend_line("flags`");
    for (_, word) in words::FLAGS {
        assert!(flags.contains(&format!(" {word}")), "flag {word}: {flags}");
    }
    let exits: Vec<&str> = (0..4)
        .map(|n| words::exit_kind(ExitKind::from_u8(n).unwrap()))
        .collect();
    let entries: Vec<&str> = (0..4)
        .map(|n| words::entry_kind(EntryKind::from_u8(n).unwrap()))
        .collect();
    let changes: Vec<&str> = (0..4)
        .map(|n| words::change(Change::from_u8(n).unwrap()))
        .collect();
    let actions: Vec<&str> = (0..4)
        .map(|n| words::fs_kind(FsKind::from_u8(n).unwrap()))
        .collect();
    let states: Vec<&str> = (0..5)
        .map(|n| words::state(MutationState::from_u8(n).unwrap()))
        .collect();
    let kinds: [(&str, &[&str]); 5] = [
        ("exec `d{k", &exits),
        ("list `d[N]{p,k,z}`", &entries),
        ("edit `d[N]{file,state", &states),
        ("snapshot `d[N]", &changes),
        ("files `d[N]", &actions),
    ];
    for (start, values) in kinds {
        let line = BASE
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("- {start}")))
            .unwrap_or_else(|| panic!("no legend line for {start}"));
        for v in values {
            assert!(
                line.contains(&format!(" {v}")) || line.contains(&format!("({v}")),
                "{start}: value {v}: {line}"
            );
        }
    }
    assert!(
        ExitKind::from_u8(4).is_some(),
        "4 (killed) is reserved, never emitted"
    );
    for key in [
        "p[N]{i,v}",
        "error",
        "next",
        "why",
        "more",
        "r:@N",
        "ro",
        "re",
    ] {
        assert!(
            BASE.contains(&format!("`{key}")),
            "the legend does not name {key}"
        );
    }
    for marker in [
        "×N",
        "×N#K",
        "⋯N",
        ">>>N",
        "⟦instructions",
        "(N matches)",
        "+0",
    ] {
        assert!(
            BASE.contains(marker),
            "the legend does not explain {marker}"
        );
    }
}

#[test]
fn every_error_code_has_a_word_and_a_next_step() {
    let mut seen = 0;
    let errors = legend_line("error`");
    for n in 0..=1000u16 {
        let Some(code) = ErrorCode::from_u16(n) else {
            continue;
        };
        seen += 1;
        let unreachable = words::UNREACHABLE.iter().any(|(c, _)| *c == code);
        assert!(
            unreachable || errors.contains(&format!(" {}", words::error(code))),
            "{n}: {}",
            words::error(code)
        );
        let response = Response::error(1, ErrorRecord::typical(code));
        for tool in [
            "read", "search", "exec", "edit", "files", "snapshot", "evidence",
        ] {
            let next = next_step(tool, &response);
            assert!(
                next.len() > 20 && next.ends_with('.'),
                "{n} ({tool}): {next:?}"
            );
        }
    }
    assert_eq!(seen, 23);
}
