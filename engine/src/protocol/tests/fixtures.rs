//! Every request/response/handshake/challenge fixture decodes into the typed model,
//! re-encodes byte-identically, and equals a value built by hand.

use super::H;
use crate::ason::{Atom, Cell, Limits, decode_canonical};
use crate::protocol::*;

macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../spec/fixtures/ason/",
            $name
        ))
    };
}

fn digest(c: char) -> Digest {
    Digest::from_hex(&c.to_string().repeat(64)).unwrap_or(Digest([0; 32]))
}

fn budget(tok: u64, rec: u64, ms: u64) -> Budget {
    Budget { tok, rec, ms }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[track_caller]
fn check_request(bytes: &[u8], want: Request) {
    let doc = decode_canonical(bytes, &Limits::default()).expect("fixture is canonical ASON");
    let got = Request::from_document(&doc).expect("fixture is a valid request");
    assert_eq!(got.encode().as_bytes(), bytes, "typed re-encoding");
    assert_eq!(got, want, "typed value");
    assert_eq!(want.encode().as_bytes(), bytes, "hand-built encoding");
}

#[track_caller]
fn check_response(bytes: &[u8], kind: OpKind, want: Response) {
    let doc = decode_canonical(bytes, &Limits::default()).expect("fixture is canonical ASON");
    let inferred = Response::from_document(&doc).expect("fixture is a valid response");
    let typed = Response::from_document_for(&doc, kind).expect("fixture types as its op");
    assert_eq!(inferred, typed, "inferred and op-directed typing agree");
    assert_eq!(typed.encode().as_bytes(), bytes, "typed re-encoding");
    assert_eq!(typed, want, "typed value");
    assert_eq!(want.validate(), Ok(()));
    assert_eq!(want.encode().as_bytes(), bytes, "hand-built encoding");
}

fn search_todo() -> Op {
    Op::Search(SearchArgs {
        query: "TODO".into(),
        paths: strings(&["src"]),
        regex: false,
        case_insensitive: false,
        hidden: false,
    })
}

#[test]
fn exec_request() {
    let op = Op::Exec(ExecArgs {
        program: "cargo".into(),
        argv: strings(&["test", "--locked"]),
        cwd: ".".into(),
        env: vec![
            EnvChange::Set {
                name: "RUST_BACKTRACE".into(),
                value: "1".into(),
            },
            EnvChange::Remove("SECRET".into()),
        ],
        stdin: Stdin::Null,
        clear_env: false,
    });
    let want = Request {
        id: 18,
        op,
        budget: budget(512, 64, 120_000),
        permit: None,
    };
    check_request(fixture!("exec-request.ason"), want);
}

#[test]
fn read_list_search_snapshot_requests() {
    let read = Request {
        id: 19,
        op: Op::Read(ReadArgs {
            paths: strings(&["src/lib.rs"]),
            mode: ReadMode::Lines,
            offset: 1,
            count: 80,
        }),
        budget: budget(512, 64, 30_000),
        permit: None,
    };
    check_request(fixture!("read-request.ason"), read);

    let list = Request {
        id: 20,
        op: Op::List(ListArgs {
            paths: strings(&["."]),
            depth: 2,
            hidden: false,
            filter: ListFilter::All,
        }),
        budget: budget(256, 128, 30_000),
        permit: None,
    };
    check_request(fixture!("list-request.ason"), list);

    let search = Request {
        id: 17,
        op: search_todo(),
        budget: budget(256, 64, 30_000),
        permit: None,
    };
    check_request(fixture!("search-request.ason"), search);

    let snapshot = Request {
        id: 24,
        op: Op::Snapshot(SnapshotArgs {
            paths: strings(&["."]),
            depth: 64,
            mode: SnapshotMode::Capture,
            hidden: false,
        }),
        budget: budget(512, 64, 30_000),
        permit: None,
    };
    check_request(fixture!("snapshot-request.ason"), snapshot);
}

#[test]
fn patch_and_fs_requests() {
    let patch = Request {
        id: 23,
        op: Op::Patch(PatchArgs {
            files: vec![PatchFile {
                path: "src/lib.rs".into(),
                digest: digest('a'),
                edits: vec![Edit {
                    offset: 4,
                    delete: 3,
                    insert: Content::Text("pub".into()),
                }],
            }],
        }),
        budget: budget(512, 64, 30_000),
        permit: None,
    };
    check_request(fixture!("patch-request.ason"), patch);

    let fs = Request {
        id: 84,
        op: Op::Fs(FsArgs {
            actions: vec![
                FsAction {
                    id: 1,
                    op: FsOp::Create {
                        path: "new.txt".into(),
                        content: Content::Text("hello\n".into()),
                    },
                },
                FsAction {
                    id: 2,
                    op: FsOp::Copy {
                        from: "Cargo.toml".into(),
                        to: "Cargo.copy.toml".into(),
                        digest: digest('a'),
                    },
                },
            ],
        }),
        budget: budget(64, 8, 30_000),
        permit: None,
    };
    check_request(fixture!("fs-request.ason"), fs);
}

#[test]
fn batch_and_cancel_requests() {
    let batch = Request {
        id: 80,
        op: Op::Batch(BatchArgs {
            nodes: vec![
                BatchNode {
                    id: 1,
                    deps: vec![],
                    op: search_todo(),
                },
                BatchNode {
                    id: 2,
                    deps: vec![1],
                    op: Op::Read(ReadArgs {
                        paths: strings(&["Cargo.toml"]),
                        mode: ReadMode::Bytes,
                        offset: 0,
                        count: 32,
                    }),
                },
            ],
        }),
        budget: budget(64, 16, 30_000),
        permit: None,
    };
    assert_eq!(batch.required_caps(), Caps::READ);
    check_request(fixture!("batch-request.ason"), batch);

    let cancel = Request {
        id: 42,
        op: Op::Cancel(CancelArgs { target: 41 }),
        budget: budget(64, 1, 30_000),
        permit: None,
    };
    check_request(fixture!("cancel-request.ason"), cancel);
}

#[test]
fn formula_requests() {
    let find = Request {
        id: 43,
        op: Op::Formula(Formula::Find {
            source: 7,
            offset: 0,
            len: 1_048_576,
            query: "TODO".into(),
            regex: false,
            case_insensitive: false,
        }),
        budget: budget(256, 64, 30_000),
        permit: None,
    };
    check_request(fixture!("ref-request.ason"), find);

    let project = Request {
        id: 44,
        op: Op::Formula(Formula::Project {
            source: 7,
            table: "d".into(),
            offset: 0,
            rows: 64,
            columns: strings(&["p", "l", "t"]),
        }),
        budget: budget(256, 64, 30_000),
        permit: None,
    };
    check_request(fixture!("ref-project-request.ason"), project);

    let materialize = Request {
        id: 45,
        op: Op::Formula(Formula::Materialize {
            source: 8,
            path: "artifacts/out.bin".into(),
        }),
        budget: budget(256, 64, 30_000),
        permit: None,
    };
    assert_eq!(materialize.required_caps(), Caps::RETAINED | Caps::WRITE);
    check_request(fixture!("ref-materialize-request.ason"), materialize);
}

#[test]
fn search_result() {
    let want = Response {
        id: 17,
        status: Status::Success,
        paths: vec![(1, "src/lib.rs".into())],
        data: Some(Data::Search(vec![
            SearchRow {
                path: 1,
                line: 42,
                column: 7,
                text: "TODO item".into(),
            },
            SearchRow {
                path: 1,
                line: 87,
                column: 3,
                text: "FIXME item".into(),
            },
        ])),
        error: None,
        flags: Flags::NONE,
        reference: None,
    };
    check_response(fixture!("search-result.ason"), OpKind::Search, want);
}

#[test]
fn fs_result() {
    let want = Response {
        id: 84,
        status: Status::Success,
        paths: vec![
            (1, "new.txt".into()),
            (2, "Cargo.toml".into()),
            (3, "Cargo.copy.toml".into()),
        ],
        data: Some(Data::Fs(vec![
            FsRow {
                id: 1,
                kind: FsKind::Create,
                path: 1,
                destination: None,
                state: MutationState::Committed,
                digest: Some(digest('b')),
            },
            FsRow {
                id: 2,
                kind: FsKind::Copy,
                path: 2,
                destination: Some(3),
                state: MutationState::Committed,
                digest: Some(digest('a')),
            },
        ])),
        error: None,
        flags: Flags::NONE,
        reference: None,
    };
    check_response(fixture!("fs-result.ason"), OpKind::Fs, want);
}

#[test]
fn batch_result() {
    let row = |id, op, reference| BatchRow {
        id,
        op,
        state: NodeState::Ok,
        status: Some(Status::Success),
        reference: Some(reference),
    };
    let want = Response {
        id: 70,
        status: Status::Success,
        paths: vec![],
        data: Some(Data::Batch(vec![
            row(1, OpKind::Search, 4),
            row(2, OpKind::Read, 5),
        ])),
        error: None,
        flags: Flags::RETAINED,
        reference: None,
    };
    check_response(fixture!("batch-result.ason"), OpKind::Batch, want);
}

#[test]
fn project_and_materialize_results() {
    let text = |s: &str| Cell::Atom(Atom::text(s));
    let project = Response {
        id: 44,
        status: Status::Success,
        paths: vec![],
        data: Some(Data::Project(Projection {
            columns: strings(&["p", "t"]),
            rows: vec![
                vec![text("src/a.rs"), text("TODO")],
                vec![text("src/b.rs"), text("FIXME")],
            ],
        })),
        error: None,
        flags: Flags::REDUCED | Flags::RETAINED,
        reference: Some(7),
    };
    check_response(
        fixture!("ref-project-result.ason"),
        OpKind::Project,
        project,
    );

    let materialize = Response {
        id: 45,
        status: Status::Success,
        paths: vec![(1, "artifacts/out.bin".into())],
        data: Some(Data::Materialize(MaterializeResult {
            path: 1,
            state: MutationState::Committed,
            size: 3,
            digest: digest('a'),
        })),
        error: None,
        flags: Flags::RETAINED,
        reference: Some(8),
    };
    check_response(
        fixture!("ref-materialize-result.ason"),
        OpKind::Materialize,
        materialize,
    );
}

fn fixture_handshake_request() -> HandshakeRequest {
    HandshakeRequest {
        id: 7,
        ash: VersionRange {
            major: 1,
            low: 0,
            high: 0,
        },
        ason: VersionRange {
            major: 1,
            low: 0,
            high: 0,
        },
        frame: 1_048_576,
        output: 65_536,
        ops: 1023,
        caps: 15,
        root: ".".into(),
        nonce: "nonce-7".into(),
    }
}

#[test]
fn handshake_request() {
    let bytes = fixture!("handshake-request.ason");
    let doc = decode_canonical(bytes, &Limits::default()).expect("canonical");
    let got = HandshakeRequest::from_document(&doc).expect("valid handshake");
    assert_eq!(got, fixture_handshake_request());
    assert_eq!(got.encode().as_bytes(), bytes);
    assert_eq!(fixture_handshake_request().encode().as_bytes(), bytes);
}

#[test]
fn handshake_response() {
    let bytes = fixture!("handshake-response.ason");
    let doc = decode_canonical(bytes, &Limits::default()).expect("canonical");
    let got = HandshakeResponse::from_document(&doc).expect("valid handshake response");
    let v1 = Version { major: 1, minor: 0 };
    let want = HandshakeResponse {
        id: 7,
        ash: v1,
        ason: v1,
        frame: 1_048_576,
        output: 65_536,
        ops: OpMask::ALL,
        caps: Caps::ALL,
        os: "linux".into(),
        arch: "x86_64".into(),
        session: 1,
        nonce: "nonce-7".into(),
    };
    assert_eq!(got, want);
    assert_eq!(got.encode().as_bytes(), bytes);
    assert_eq!(want.encode().as_bytes(), bytes);
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        let negotiated =
            HandshakeResponse::negotiate(&fixture_handshake_request(), COMPAT_FRAME_MAX);
        assert_eq!(negotiated, Ok(want));
    }
}

#[test]
fn approval_challenge() {
    let bytes = fixture!("approval-challenge.ason");
    let doc = decode_canonical(bytes, &Limits::default()).expect("canonical");
    let got = Challenge::from_document(&doc).expect("valid challenge");
    let want = Challenge {
        session: 7,
        caps: Caps::WRITE,
        expires_ms: 99,
        binding: [1; 16],
        policy: [2; 16],
        action: [3; 32],
        nonce: [4; 16],
    };
    assert_eq!(got, want);
    assert_eq!(got.encode().as_bytes(), bytes);
    assert_eq!(want.encode().as_bytes(), bytes);
}

#[test]
fn every_fixture_is_covered() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/fixtures/ason");
    let covered = [
        "approval-challenge.ason",
        "batch-request.ason",
        "batch-result.ason",
        "cancel-request.ason",
        "exec-request.ason",
        "fs-request.ason",
        "fs-result.ason",
        "handshake-request.ason",
        "handshake-response.ason",
        "list-request.ason",
        "patch-request.ason",
        "read-request.ason",
        "ref-materialize-request.ason",
        "ref-materialize-result.ason",
        "ref-project-request.ason",
        "ref-project-result.ason",
        "ref-request.ason",
        "search-request.ason",
        "search-result.ason",
        "snapshot-request.ason",
        // Syntax-only sample of every value form; not a protocol message.
        "value-forms.ason",
    ];
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("fixture dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ason"))
        .collect();
    names.sort();
    assert_eq!(
        names, covered,
        "a fixture was added or removed; cover it here"
    );
    assert!(H.len() == 64);
}
