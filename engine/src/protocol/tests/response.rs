//! Response encoding, decoding and §3.1 invariants.

use super::{H, doc};
use crate::ason::{Atom, Cell};
use crate::protocol::*;

fn d(c: char) -> Digest {
    Digest::from_hex(&c.to_string().repeat(64)).unwrap_or(Digest([0; 32]))
}

fn base() -> Response {
    Response::success(
        9,
        Data::Cancel(CancelResult {
            target: 4,
            flipped: true,
        }),
    )
}

#[test]
fn error_builder_encodes_exactly() {
    let r = Response::error(5, ErrorRecord::invalid_argument());
    assert_eq!(r.validate(), Ok(()));
    assert_eq!(
        r.encode(),
        "t:3\ni:5\ns:1\ne{c,q,p,x,a}:\n100,1,1,~,~\nz:0\nr:~\n"
    );
    let denied = Response::error(6, ErrorRecord::typical(ErrorCode::CapabilityDenied));
    assert_eq!(
        denied.encode(),
        "t:3\ni:6\ns:3\ne{c,q,p,x,a}:\n300,0,3,~,~\nz:0\nr:~\n"
    );
    let permit = Response::error(
        7,
        ErrorRecord::typical(ErrorCode::PermitRequired).with_evidence(3),
    );
    assert_eq!(permit.validate(), Ok(()));
    assert_eq!(
        permit.encode(),
        "t:3\ni:7\ns:3\ne{c,q,p,x,a}:\n301,3,3,@3,~\nz:8\nr:~\n"
    );
    assert_eq!(
        Response::decode(permit.encode().as_bytes(), &Default::default()),
        Ok(permit)
    );
}

#[test]
fn zero_row_tables_encode_header_only() {
    let mut r = Response::success(17, Data::Search(vec![]));
    r.flags = Flags::TRUNCATED | Flags::REDUCED | Flags::RETAINED;
    r.reference = Some(1);
    let text = "t:3\ni:17\ns:0\nd[0]{p,l,c,t}:\nz:11\nr:@1\n";
    assert_eq!(r.encode(), text);
    assert_eq!(Response::from_document(&doc(text)), Ok(r));
}

#[test]
fn success_builder_sets_retained_from_data() {
    let exec = ExecResult {
        kind: ExitKind::Exited,
        code: Some(0),
        ms: 12,
        stdout: Some("ok\n".into()),
        stderr: None,
        stdout_ref: Some(2),
        stderr_ref: None,
    };
    let r = Response::success(3, Data::Exec(exec));
    assert_eq!(r.flags, Flags::RETAINED);
    assert_eq!(r.validate(), Ok(()));
    let list = Response::success(3, Data::List(vec![]));
    assert_eq!(list.flags, Flags::NONE);
}

/// One sample of every data shape, with the operation it answers.
fn samples() -> Vec<(OpKind, Data)> {
    let t = |s: &str| Cell::Atom(Atom::text(s));
    vec![
        (
            OpKind::Exec,
            Data::Exec(ExecResult {
                kind: ExitKind::Signaled,
                code: Some(-9),
                ms: 3001,
                stdout: None,
                stderr: Some("error: x\n⋯3\n".into()),
                stdout_ref: None,
                stderr_ref: Some(4),
            }),
        ),
        (
            OpKind::Read,
            Data::Read(vec![
                ReadRow {
                    path: 1,
                    offset: 1,
                    len: 2,
                    digest: d('a'),
                    text: Some("a\nb\n".into()),
                    reference: None,
                },
                ReadRow {
                    path: 2,
                    offset: 0,
                    len: 9,
                    digest: d('b'),
                    text: None,
                    reference: Some(1),
                },
            ]),
        ),
        (
            OpKind::List,
            Data::List(vec![
                ListRow {
                    path: 1,
                    kind: EntryKind::Dir,
                    size: None,
                },
                ListRow {
                    path: 2,
                    kind: EntryKind::Symlink,
                    size: Some(0),
                },
            ]),
        ),
        (
            OpKind::Search,
            Data::Search(vec![SearchRow {
                path: 1,
                line: 1,
                column: 1,
                text: "\"q\", x".into(),
            }]),
        ),
        (
            OpKind::Patch,
            Data::Patch(vec![
                PatchRow {
                    path: 1,
                    state: MutationState::Conflict,
                    digest: Some(d('c')),
                },
                PatchRow {
                    path: 2,
                    state: MutationState::Skipped,
                    digest: None,
                },
            ]),
        ),
        (
            OpKind::Fs,
            Data::Fs(vec![FsRow {
                id: 3,
                kind: FsKind::Move,
                path: 1,
                destination: Some(2),
                state: MutationState::RecoveryRequired,
                digest: None,
            }]),
        ),
        (
            OpKind::Batch,
            Data::Batch(vec![
                BatchRow {
                    id: 1,
                    op: OpKind::Exec,
                    state: NodeState::Cancelled,
                    status: Some(Status::Cancelled),
                    reference: Some(1),
                },
                BatchRow {
                    id: 2,
                    op: OpKind::LineSlice,
                    state: NodeState::Skipped,
                    status: None,
                    reference: None,
                },
            ]),
        ),
        (
            OpKind::Snapshot,
            Data::Snapshot(vec![SnapshotRow {
                path: 1,
                change: Change::Removed,
                kind: EntryKind::File,
                size: Some(10),
                digest: Some(d('d')),
            }]),
        ),
        (
            OpKind::Slice,
            Data::Slice(SliceResult {
                offset: 0,
                len: 3,
                projected: 3,
                digest: d('e'),
                text: None,
                bytes: Some(vec![0, 0xff, 0x10]),
            }),
        ),
        (
            OpKind::Find,
            Data::Find(vec![FindRow {
                offset: 40,
                line: 3,
                column: 2,
                text: "...x...".into(),
            }]),
        ),
        (
            OpKind::Release,
            Data::Release(ReleaseResult {
                reference: 5,
                released: true,
            }),
        ),
        (
            OpKind::Project,
            Data::Project(Projection {
                columns: vec!["p".into(), "v".into()],
                rows: vec![vec![t("a"), Cell::Vector(vec![Atom::Null, Atom::Ref(2)])]],
            }),
        ),
        (
            OpKind::Materialize,
            Data::Materialize(MaterializeResult {
                path: 1,
                state: MutationState::Conflict,
                size: 0,
                digest: d('f'),
            }),
        ),
        (
            OpKind::Cancel,
            Data::Cancel(CancelResult {
                target: 4,
                flipped: false,
            }),
        ),
    ]
}

#[test]
fn every_data_shape_round_trips() {
    for (kind, data) in samples() {
        let mut r = Response::success(11, data);
        r.paths = vec![(1, "src/a.rs".into()), (2, "b".into())];
        if matches!(
            kind,
            OpKind::Slice | OpKind::Find | OpKind::Project | OpKind::Snapshot
        ) {
            r.reference = Some(6);
            r.flags = Flags::RETAINED;
        }
        assert_eq!(r.validate(), Ok(()), "{kind}");
        let text = r.encode();
        let by_kind = Response::from_document_for(&doc(&text), kind);
        assert_eq!(by_kind.as_ref(), Ok(&r), "{kind}: {text}");
        assert_eq!(by_kind.map(|x| x.encode()), Ok(text.clone()));
        assert_eq!(
            Response::from_document(&doc(&text)),
            Ok(r),
            "{kind} inferred"
        );
    }
    let line = Response::from_document_for(
        &doc(&format!(
            "t:3\ni:1\ns:0\nd{{o,n,p,h,t,b}}:\n2,5,5,{H},\"a\\nb\\n\",~\nz:8\nr:@1\n"
        )),
        OpKind::LineSlice,
    );
    assert!(matches!(line.map(|r| r.data), Ok(Some(Data::Slice(_)))));
}

#[test]
fn projection_needs_the_op_when_columns_collide() {
    let text = "t:3\ni:1\ns:0\nd[1]{p,k,z}:\nsrc/a.rs,x,y\nz:10\nr:@7\n";
    let typed = Response::from_document_for(&doc(text), OpKind::Project).expect("projection");
    assert!(matches!(typed.data, Some(Data::Project(_))));
    assert!(
        Response::from_document(&doc(text)).is_err(),
        "inferred as a list, whose p is an id"
    );
}

#[test]
fn invariant_violations() {
    use ResponseInvariant as I;
    let mut cases: Vec<(&str, Response, ResponseInvariant)> = Vec::new();
    let mut r = base();
    r.error = Some(ErrorRecord::invalid_argument());
    cases.push(("success with error", r, I::SuccessWithError));
    let mut r = base();
    r.status = Status::Failed;
    cases.push((
        "failure without error",
        r,
        I::FailureWithoutError(Status::Failed),
    ));
    let mut r = base();
    r.data = None;
    cases.push(("success without data", r, I::SuccessWithoutData));
    let mut r = Response::error(1, ErrorRecord::invalid_argument());
    r.status = Status::Failed;
    cases.push((
        "status mismatch",
        r,
        I::StatusMismatch {
            status: Status::Failed,
            code: ErrorCode::InvalidArgument,
        },
    ));
    let mut r = base();
    r.flags = Flags::RETAINED;
    cases.push((
        "retained without reference",
        r,
        I::RetainedMismatch {
            flagged: true,
            referenced: false,
        },
    ));
    let mut r = base();
    r.reference = Some(3);
    cases.push((
        "reference without retained",
        r,
        I::RetainedMismatch {
            flagged: false,
            referenced: true,
        },
    ));
    let mut r = Response::error(
        1,
        ErrorRecord::typical(ErrorCode::PermitRequired).with_argument(2),
    );
    r.flags = Flags::NONE;
    cases.push((
        "error argument without retained",
        r,
        I::RetainedMismatch {
            flagged: false,
            referenced: true,
        },
    ));
    let mut r = Response::success(
        1,
        Data::Read(vec![ReadRow {
            path: 1,
            offset: 0,
            len: 1,
            digest: d('a'),
            text: None,
            reference: Some(2),
        }]),
    );
    r.flags = Flags::NONE;
    cases.push((
        "read row reference without retained",
        r,
        I::RetainedMismatch {
            flagged: false,
            referenced: true,
        },
    ));
    let mut r = Response::success(
        1,
        Data::Release(ReleaseResult {
            reference: 2,
            released: true,
        }),
    );
    r.flags = Flags::RETAINED;
    cases.push((
        "release reference is not evidence",
        r,
        I::RetainedMismatch {
            flagged: true,
            referenced: false,
        },
    ));
    let mut r = base();
    r.flags = Flags::TRUNCATED;
    cases.push((
        "truncated without reference",
        r,
        I::TruncatedWithoutReference,
    ));
    let mut r = base();
    r.reference = Some(0);
    r.flags = Flags::RETAINED;
    cases.push(("@0 reference", r, I::ZeroReference));
    let mut r = base();
    r.paths = vec![(2, "a".into()), (1, "b".into())];
    cases.push(("path ids descending", r, I::PathIdOrder { row: 2, id: 1 }));
    let mut r = base();
    r.paths = vec![(1, "a".into()), (1, "b".into())];
    cases.push(("path ids repeated", r, I::PathIdOrder { row: 2, id: 1 }));
    let mut r = base();
    r.paths = vec![(0, "a".into())];
    cases.push(("path id 0", r, I::PathIdOrder { row: 1, id: 0 }));
    let mut r = base();
    r.paths = vec![(1, String::new())];
    cases.push(("empty path", r, I::PathLength { id: 1, len: 0 }));
    let mut r = base();
    r.paths = vec![(1, "p".repeat(4097))];
    cases.push(("long path", r, I::PathLength { id: 1, len: 4097 }));
    let project = |columns: &[&str], width: usize| {
        let mut r = Response::success(
            1,
            Data::Project(Projection {
                columns: columns.iter().map(|c| (*c).to_owned()).collect(),
                rows: vec![vec![Cell::Atom(Atom::Null); width]],
            }),
        );
        r.reference = Some(1);
        r.flags = Flags::RETAINED;
        r
    };
    cases.push((
        "projection duplicate column",
        project(&["a", "a"], 2),
        I::Projection("a column appears twice"),
    ));
    cases.push((
        "projection no column",
        project(&[], 0),
        I::Projection("needs 1..=128 columns"),
    ));
    cases.push((
        "projection bad key",
        project(&["1a"], 1),
        I::Projection("a column is not a valid ASON key"),
    ));
    cases.push((
        "projection row width",
        project(&["a", "b"], 1),
        I::Projection("a row's width differs from the column count"),
    ));
    for (name, r, want) in cases {
        assert_eq!(r.validate(), Err(want.clone()), "{name}");
        let text = r.encode();
        if let Ok(d) = crate::ason::decode(text.as_bytes(), &Default::default()) {
            assert!(
                Response::from_document(&d).is_err(),
                "{name}: decoding must also refuse"
            );
        }
    }
}

#[test]
fn decoding_rejects_schema_violations() {
    let ok = "t:3\ni:5\ns:1\ne{c,q,p,x,a}:\n100,1,1,~,~\nz:0\nr:~\n";
    assert!(Response::from_document(&doc(ok)).is_ok());
    let cases = [
        ("t:1", ok.replace("t:3", "t:1"), "t"),
        ("i:0", ok.replace("i:5", "i:0"), "i"),
        ("unknown status", ok.replace("s:1", "s:11"), "s"),
        ("unknown code", ok.replace("100,1,1", "103,1,1"), "e.c"),
        ("unknown retry", ok.replace("100,1,1", "100,4,1"), "e.q"),
        ("unknown stage", ok.replace("100,1,1", "100,1,8"), "e.p"),
        ("evidence text", ok.replace("~,~\n", "x,~\n"), "e.x"),
        ("unknown flag bit", ok.replace("z:0", "z:64"), "z"),
        ("flags leading zero", ok.replace("z:0", "z:00"), "z"),
        ("r text", ok.replace("r:~", "r:x"), "r"),
        ("r @0", ok.replace("r:~", "r:@0"), "r"),
        ("missing z", ok.replace("z:0\n", ""), "document"),
        ("missing r", ok.replace("r:~\n", ""), "document"),
        (
            "e after z",
            "t:3\ni:5\ns:1\nz:0\ne{c,q,p,x,a}:\n100,1,1,~,~\nr:~\n".into(),
            "document",
        ),
        (
            "d after e",
            "t:3\ni:5\ns:5\ne{c,q,p,x,a}:\n401,0,4,~,~\nd{i,z}:\n1,0\nz:0\nr:~\n".into(),
            "document",
        ),
        ("extra field", format!("{ok}x:1\n"), "document"),
        (
            "empty path delta",
            ok.replace("s:1\n", "s:1\np[0]{i,v}:\n"),
            "p",
        ),
        (
            "path delta columns",
            ok.replace("s:1\n", "s:1\np[1]{v,i}:\na,1\n"),
            "p",
        ),
        (
            "unknown record shape",
            ok.replace("s:1\n", "s:1\nd{q}:\n1\n"),
            "d",
        ),
        ("scalar data", ok.replace("s:1\n", "s:1\nd:1\n"), "d"),
        (
            "exec code -0",
            "t:3\ni:1\ns:0\nd{k,c,ms,o,e,ro,re}:\n0,-0,1,~,~,~,~\nz:0\nr:~\n".into(),
            "d.c",
        ),
        (
            "exec code 01",
            "t:3\ni:1\ns:0\nd{k,c,ms,o,e,ro,re}:\n0,01,1,~,~,~,~\nz:0\nr:~\n".into(),
            "d.c",
        ),
        (
            "exit kind 5",
            "t:3\ni:1\ns:0\nd{k,c,ms,o,e,ro,re}:\n5,0,1,~,~,~,~\nz:0\nr:~\n".into(),
            "d.k",
        ),
        (
            "slice hex odd",
            format!("t:3\ni:1\ns:0\nd{{o,n,p,h,t,b}}:\n0,1,1,{H},~,abc\nz:8\nr:@1\n"),
            "d.b",
        ),
        (
            "slice hex upper",
            format!("t:3\ni:1\ns:0\nd{{o,n,p,h,t,b}}:\n0,1,1,{H},~,AB\nz:8\nr:@1\n"),
            "d.b",
        ),
        (
            "batch op letter",
            "t:3\ni:1\ns:0\nd[1]{i,o,s,c,r}:\n1,z,0,0,~\nz:0\nr:~\n".into(),
            "d row 1, column o",
        ),
        (
            "list kind 4",
            "t:3\ni:1\ns:0\nd[1]{p,k,z}:\n1,4,~\nz:0\nr:~\n".into(),
            "d row 1, column k",
        ),
    ];
    for (name, text, at) in cases {
        match Response::from_document(&doc(&text)) {
            Err(ResponseError::Schema(e)) => assert!(e.at.starts_with(at), "{name}: {e}"),
            other => panic!("{name}: want a schema error, got {other:?}"),
        }
    }
    assert!(matches!(
        Response::decode(b"t:3\n\n", &Default::default()),
        Err(ResponseError::Decode(_))
    ));
    let exec_neg = "t:3\ni:1\ns:5\nd{k,c,ms,o,e,ro,re}:\n0,-1,1,~,~,~,~\ne{c,q,p,x,a}:\n401,0,4,~,~\nz:0\nr:~\n";
    let r = Response::from_document(&doc(exec_neg)).expect("negative exit code");
    assert_eq!(r.encode(), exec_neg);
    let min = "t:3\ni:1\ns:0\nd{k,c,ms,o,e,ro,re}:\n0,-9223372036854775808,1,~,~,~,~\nz:0\nr:~\n";
    assert_eq!(
        Response::from_document(&doc(min)).map(|r| r.encode()),
        Ok(min.to_owned())
    );
}

#[test]
fn request_error_response_is_valid() {
    let d = doc("t:1\ni:3\no:z\na:~\nu{tok,rec,ms}:\n1,1,1\n");
    let err = Request::from_document(&d).expect_err("unknown op");
    let resp = err.response().expect("id 3");
    assert_eq!(resp.validate(), Ok(()));
    assert_eq!(resp.id, 3);
}

#[test]
fn search_answers_encode_as_their_documents_do() {
    let mut rng = crate::testrng::Rng::new(0x5eed_2222);
    // Texts that are bare, quoted, escaped, empty, reference-like or not ASCII.
    let pieces = [
        "a", "needle", " ", "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{7f}", "\u{85}", "é", "~",
        "@", "@12", "12", "-", ",", "{", "}", "[", "]", ":", "#", "日本",
    ];
    let text = |rng: &mut crate::testrng::Rng| -> String {
        (0..rng.below(6))
            .map(|_| pieces[rng.below(pieces.len())])
            .collect()
    };
    for case in 0..400 {
        let rows: Vec<SearchRow> = (0..rng.below(8))
            .map(|_| SearchRow {
                path: 1 + rng.below(5) as u64,
                line: rng.next() >> rng.below(64),
                column: 1 + rng.below(300) as u64,
                text: text(&mut rng),
            })
            .collect();
        let mut r = Response::success(1 + (rng.next() >> rng.below(64)), Data::Search(rows));
        r.paths = (0..rng.below(4))
            .map(|i| (i as u64 + 1, format!("d/{}", text(&mut rng))))
            .collect();
        r.flags = Flags::from_bits(rng.below(64) as u8).unwrap_or(Flags::NONE);
        r.reference = (rng.below(2) == 0).then(|| 1 + rng.below(1000) as u64);
        assert_eq!(r.encode(), r.encode_document(), "case {case}");
    }
}
