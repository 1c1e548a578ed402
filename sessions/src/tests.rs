//! Recovery, damage, permission and storage-failure tests on real files.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::journal::{FaultPlan, part_path};
use crate::*;

const CWD: &str = "/work/project";

fn open_or_create(dir: &Path, max_part_bytes: u64) -> Result<Session> {
    Session::open_or_create_at(
        dir,
        None,
        Path::new(CWD),
        Profile::Offline,
        JournalOptions { max_part_bytes },
    )
}

fn session_dir() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path().join("s");
    (t, d)
}

fn submit(s: &mut Session, id: &str, text: &str) -> Result<Acceptance> {
    let cid = CommandId::new(id).expect("id");
    s.accept(
        cid,
        AcceptedAction::Submit {
            text: text.into(),
            mode: Mode::Basic,
        },
    )
}

fn part(dir: &Path, n: u32) -> PathBuf {
    part_path(dir, PartNo(n))
}

fn with_turns(dir: &Path, n: usize, max_part_bytes: u64) {
    let mut s = open_or_create(dir, max_part_bytes).expect("open");
    for i in 0..n {
        let Acceptance::Accepted(r) =
            submit(&mut s, &format!("c{i}"), &format!("question {i}")).expect("submit")
        else {
            panic!("replayed")
        };
        s.finish(r, format!("answer {i}")).expect("finish");
    }
}

#[test]
fn torn_tail_stays_in_its_part_and_writing_continues_in_a_linked_part() {
    let (_t, dir) = session_dir();
    with_turns(&dir, 2, 64 << 20);
    let p1 = part(&dir, 1);
    let clean_len = fs::metadata(&p1).expect("meta").len();
    let mut bytes = fs::read(&p1).expect("read");
    bytes.extend_from_slice(b"{\"sum\":\"0123");
    fs::write(&p1, &bytes).expect("write");
    {
        let mut s = open_or_create(&dir, 64 << 20).expect("reopen");
        assert_eq!(
            s.recovery().torn_tail,
            Some(TornTail {
                part: PartNo(1),
                offset: clean_len,
                len: 12
            })
        );
        assert!(s.read_only().is_none());
        submit(&mut s, "c9", "after the tear").expect("submit");
    }
    assert_eq!(
        fs::metadata(&p1).expect("meta").len(),
        clean_len + 12,
        "tail left in place"
    );
    assert!(part(&dir, 2).exists());
    let s = open_or_create(&dir, 64 << 20).expect("reopen twice");
    assert_eq!(
        s.recovery(),
        &RecoveryReport {
            paused: vec![RequestId(3)],
            ..Default::default()
        }
    );
    assert_eq!(s.state().turns().count(), 3);
    assert_eq!(
        s.transcript(TranscriptQuery {
            before: 0,
            limit: 64,
            forward: false
        })
        .total,
        5
    );
}

#[test]
fn bit_flip_in_a_complete_record_opens_read_only_with_exact_diagnostic() {
    let (_t, dir) = session_dir();
    with_turns(&dir, 3, 64 << 20);
    let p1 = part(&dir, 1);
    let mut bytes = fs::read(&p1).expect("read");
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    // Line 4 is seq 4: the second command's acceptance. Flip a bit inside its text.
    let line4 = starts[3];
    let q = line4
        + bytes[line4..]
            .windows(10)
            .position(|w| w == b"question 1")
            .expect("text");
    bytes[q] ^= 0x01;
    fs::write(&p1, &bytes).expect("write");
    let mut s = open_or_create(&dir, 64 << 20).expect("opens read-only");
    let damage = s.read_only().expect("damaged").clone();
    assert_eq!(
        damage.to_string(),
        format!(
            "journal part 000001 line 4 (byte {line4}): checksum mismatch on a complete record \
             (expected seq 4); the record was changed after it was written. The session is \
             read-only; restore the part from a backup or start a new session"
        )
    );
    // The verified prefix (turn 1 and its answer) is still visible.
    assert_eq!(s.state().turns().count(), 1);
    assert_eq!(
        s.transcript(TranscriptQuery {
            before: 0,
            limit: 64,
            forward: false
        })
        .total,
        2
    );
    let err = submit(&mut s, "new", "x").expect_err("read-only");
    assert!(matches!(err, SessionError::ReadOnly(_)), "{err}");
}

#[test]
fn truncated_and_missing_parts_are_diagnosed() {
    let (_t, dir) = session_dir();
    with_turns(&dir, 12, 400);
    assert!(part(&dir, 4).exists(), "small parts roll");
    // Truncate part 2 by its last line.
    let p2 = part(&dir, 2);
    let bytes = fs::read(&p2).expect("read");
    let full = bytes.len() as u64;
    let cut = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|b| *b == b'\n')
        .expect("lines")
        + 1;
    fs::write(&p2, &bytes[..cut]).expect("truncate");
    let s = open_or_create(&dir, 400).expect("opens");
    assert_eq!(
        s.read_only().map(ToString::to_string).as_deref(),
        Some(
            format!(
                "journal part 000002 is truncated: part 000003 links to {full} bytes but only {cut} \
                 exist; the session is read-only"
            )
            .as_str()
        )
    );
    drop(s);
    fs::write(&p2, &bytes).expect("restore");
    fs::remove_file(part(&dir, 3)).expect("remove");
    let s = open_or_create(&dir, 400).expect("opens");
    let last = fs::read_dir(&dir)
        .expect("ls")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("journal-"))
        .max()
        .expect("parts");
    assert_eq!(
        s.read_only().map(ToString::to_string),
        Some(format!(
            "journal part 000003 is missing (parts 000001..{} exist around it); the session is read-only",
            &last[8..14]
        ))
    );
}

#[test]
fn garbage_line_inside_a_part_is_malformed() {
    let (_t, dir) = session_dir();
    with_turns(&dir, 12, 400);
    let p2 = part(&dir, 2);
    let bytes = fs::read(&p2).expect("read");
    let cut = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|b| *b == b'\n')
        .expect("lines")
        + 1;
    let mut rewritten = bytes[..cut].to_vec();
    rewritten.extend_from_slice(b"garbage\n");
    rewritten.extend_from_slice(&bytes[cut..]);
    fs::write(&p2, &rewritten).expect("write");
    let s = open_or_create(&dir, 400).expect("opens");
    let lines = bytes[..cut].iter().filter(|b| **b == b'\n').count() + 1;
    assert_eq!(
        s.read_only().map(ToString::to_string),
        Some(format!(
            "journal part 000002 line {lines} (byte {cut}): malformed record: line does not start \
             with {{\"sum\":\"; the session is read-only"
        ))
    );
}

#[test]
fn a_part_from_another_journal_is_a_broken_link() {
    let t = tempfile::tempdir().expect("tempdir");
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    with_turns(&a, 12, 400);
    {
        let mut s = open_or_create(&b, 400).expect("open");
        for i in 0..12 {
            let Acceptance::Accepted(r) =
                submit(&mut s, &format!("c{i}"), &format!("QUESTION {i}")).expect("submit")
            else {
                panic!("replayed")
            };
            s.finish(r, format!("ANSWER {i}")).expect("finish");
        }
    }
    fs::copy(part(&b, 1), part(&a, 1)).expect("swap part 1");
    let s = open_or_create(&a, 400).expect("opens");
    let msg = s.read_only().map(ToString::to_string).expect("damaged");
    assert!(
        msg.starts_with("journal part 000002: broken link to part 000001: the link names seq ")
            && msg.ends_with("; the session is read-only"),
        "{msg}"
    );
}

#[test]
fn wrong_permissions_are_refused_with_the_fix() {
    let (_t, dir) = session_dir();
    with_turns(&dir, 1, 64 << 20);
    assert_eq!(
        fs::metadata(&dir).expect("m").permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(
        fs::metadata(part(&dir, 1)).expect("m").permissions().mode() & 0o777,
        0o600
    );
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod");
    let err = open_or_create(&dir, 64 << 20).expect_err("insecure dir");
    assert_eq!(
        err.to_string(),
        format!(
            "insecure permissions on {}: mode 0755, expected 0700; the journal may hold private \
             data, fix with `chmod 700 {}`",
            dir.display(),
            dir.display()
        )
    );
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).expect("chmod");
    let p1 = part(&dir, 1);
    fs::set_permissions(&p1, fs::Permissions::from_mode(0o644)).expect("chmod");
    let err = open_or_create(&dir, 64 << 20).expect_err("insecure part");
    assert_eq!(
        err.to_string(),
        format!(
            "insecure permissions on {}: mode 0644, expected 0600; the journal may hold private \
             data, fix with `chmod 600 {}`",
            p1.display(),
            p1.display()
        )
    );
}

#[test]
fn a_second_open_gets_session_busy() {
    let (_t, dir) = session_dir();
    let _s = open_or_create(&dir, 64 << 20).expect("open");
    let err = open_or_create(&dir, 64 << 20).expect_err("busy");
    assert_eq!(
        err.to_string(),
        format!(
            "session_busy: session {} is open in another process; close it there or start a new session",
            dir.display()
        )
    );
}

#[test]
fn submit_ids_are_deduplicated_across_restarts() {
    let (_t, dir) = session_dir();
    {
        let mut s = open_or_create(&dir, 64 << 20).expect("open");
        assert_eq!(
            submit(&mut s, "a", "hello").expect("a"),
            Acceptance::Accepted(RequestId(1))
        );
        assert_eq!(
            submit(&mut s, "a", "hello").expect("a"),
            Acceptance::Replayed(RequestId(1))
        );
    }
    let mut s = open_or_create(&dir, 64 << 20).expect("reopen");
    assert_eq!(
        submit(&mut s, "a", "hello").expect("a"),
        Acceptance::Replayed(RequestId(1))
    );
    let err = submit(&mut s, "a", "other").expect_err("conflict");
    assert_eq!(
        err.to_string(),
        "command_id a was already used for a different command (request 1); use a new command_id"
    );
    assert_eq!(
        submit(&mut s, "b", "next").expect("b"),
        Acceptance::Accepted(RequestId(2))
    );
}

#[test]
fn unfinished_turn_comes_back_paused_and_open_intents_are_reported() {
    let (_t, dir) = session_dir();
    {
        let mut s = open_or_create(&dir, 64 << 20).expect("open");
        submit(&mut s, "a", "run ls").expect("submit");
        let r = RequestId(1);
        s.append(Record::TurnState(TurnStateChange {
            request_id: r,
            state: TurnState::Running,
            reason: None,
        }))
        .expect("running");
        s.append(Record::ToolIntent(ToolIntent {
            request_id: r,
            call_id: CallId("call_1".into()),
            tool: "exec".into(),
            arguments: OpaqueJson::from_text(r#"{"program":"ls","args":[]}"#).expect("json"),
            implementation_revision: "1".into(),
        }))
        .expect("intent");
        s.sync().expect("sync");
    }
    let mut s = open_or_create(&dir, 64 << 20).expect("reopen");
    let rec = s.recovery().clone();
    assert_eq!(rec.paused, vec![RequestId(1)]);
    assert_eq!(rec.open_intents.len(), 1);
    assert_eq!(rec.open_intents[0].call_id, CallId("call_1".into()));
    let turn = s.state().turn(RequestId(1)).expect("turn");
    assert_eq!(turn.state, TurnState::Paused);
    assert_eq!(turn.reason.as_deref(), Some(session::INTERRUPTED_REASON));
    assert!(
        !s.state().resume_available(RequestId(1)),
        "open intent blocks resume"
    );
    s.append(Record::ToolOutcome(ToolOutcome {
        request_id: RequestId(1),
        call_id: CallId("call_1".into()),
        status: ToolOutcomeStatus::EffectUnknown,
        reconciled: false,
        output: OpaqueJson::from_text("null").expect("json"),
    }))
    .expect("outcome");
    s.sync().expect("sync");
    assert!(
        !s.state().resume_available(RequestId(1)),
        "effect_unknown blocks resume"
    );
    drop(s);
    let s = open_or_create(&dir, 64 << 20).expect("reopen");
    assert!(s.recovery().paused.is_empty(), "already paused");
    assert!(s.recovery().open_intents.is_empty());
    assert!(s.state().turn(RequestId(1)).expect("turn").effect_unknown);
}

#[test]
fn provider_items_round_trip_byte_exact() {
    let (_t, dir) = session_dir();
    let item = r#"{"type":"reasoning","encrypted_content":"gAAA==","n":1e400,"x":0.10000000000000000001,"k":{"b":1,"a":2}}"#;
    let mut s = open_or_create(&dir, 64 << 20).expect("open");
    submit(&mut s, "a", "q").expect("submit");
    s.append(Record::ProviderItem(ProviderItem {
        request_id: RequestId(1),
        generation: 1,
        epoch: 0,
        item: OpaqueJson::from_text(item).expect("json"),
    }))
    .expect("item");
    s.sync().expect("sync");
    let records = s.read_records().expect("read");
    let got = records
        .iter()
        .find_map(|(_, r)| match r {
            Record::ProviderItem(p) => Some(p.item.get().to_owned()),
            _ => None,
        })
        .expect("item");
    assert_eq!(got, item);
    assert_eq!(s.state().provider_items(), 1);
}

#[test]
fn unfinished_part_creation_is_rewritten() {
    let (_t, dir) = session_dir();
    with_turns(&dir, 2, 64 << 20);
    let p2 = part(&dir, 2);
    fs::write(&p2, b"{\"sum\":\"00").expect("write");
    fs::set_permissions(&p2, fs::Permissions::from_mode(0o600)).expect("chmod");
    {
        let mut s = open_or_create(&dir, 64 << 20).expect("open");
        assert_eq!(s.recovery().rewritten_part, Some(PartNo(2)));
        assert_eq!(s.recovery().torn_tail, None);
        submit(&mut s, "z", "more").expect("submit");
    }
    let s = open_or_create(&dir, 64 << 20).expect("open");
    assert!(s.read_only().is_none());
    assert_eq!(s.state().turns().count(), 3);
}

#[test]
fn write_error_puts_the_session_into_storage_failed() {
    let (_t, dir) = session_dir();
    let mut s = open_or_create(&dir, 64 << 20).expect("open");
    submit(&mut s, "a", "first").expect("first");
    s.writer_mut().expect("writer").fault = FaultPlan {
        write_budget: Some(40),
        fail_fsync: false,
    };
    let err = submit(&mut s, "b", "second").expect_err("disk full");
    let SessionError::StorageFailed { cause } = &err else {
        panic!("{err}")
    };
    assert_eq!(
        cause,
        &format!(
            "write of journal part 000001 in {} failed: No space left on device (os error 28)",
            dir.display()
        )
    );
    assert!(s.storage_failure().is_some());
    // The known command is still in memory but not durable; snapshot data keeps working.
    assert!(s.state().turn(RequestId(2)).is_some());
    assert!(!s.is_durable(RequestId(2)));
    assert!(s.is_durable(RequestId(1)));
    // A result known in memory is kept (durable:false) even though it cannot be saved.
    assert!(matches!(
        s.finish(RequestId(2), "answer".into()),
        Err(SessionError::StorageFailed { .. })
    ));
    assert_eq!(
        s.state()
            .turn(RequestId(2))
            .and_then(|t| t.final_text.as_deref()),
        Some("answer")
    );
    assert!(!s.is_durable(RequestId(2)));
    assert!(matches!(
        submit(&mut s, "c", "third"),
        Err(SessionError::StorageFailed { .. })
    ));
    assert_eq!(
        s.transcript(TranscriptQuery {
            before: 0,
            limit: 64,
            forward: true
        })
        .total,
        3
    );
    drop(s);
    // The partial write is a torn tail; nothing unsynced is reported as accepted.
    let s = open_or_create(&dir, 64 << 20).expect("reopen");
    assert_eq!(s.recovery().torn_tail.as_ref().map(|t| t.len), Some(40));
    assert_eq!(s.state().turns().count(), 1);
}

#[test]
fn fsync_error_puts_the_session_into_storage_failed() {
    let (_t, dir) = session_dir();
    let mut s = open_or_create(&dir, 64 << 20).expect("open");
    s.writer_mut().expect("writer").fault = FaultPlan {
        write_budget: None,
        fail_fsync: true,
    };
    let err = submit(&mut s, "a", "first").expect_err("eio");
    assert!(
        err.to_string()
            .starts_with("storage_failed: fsync of journal part 000001"),
        "{err}"
    );
    assert!(
        matches!(s.sync(), Err(SessionError::StorageFailed { .. })),
        "no retry after a failed fsync"
    );
}

/// Unmounts the tmpfs when the test ends, even on panic.
struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_real_full_tmpfs_gives_storage_failed() {
    let t = tempfile::tempdir().expect("tempdir");
    let mnt = t.path().join("mnt");
    fs::create_dir(&mnt).expect("mkdir");
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs"])
        .arg(&mnt)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (needs CAP_SYS_ADMIN)");
        return;
    }
    let _guard = Mount(mnt.clone());
    let dir = mnt.join("s");
    let mut s = open_or_create(&dir, 64 << 20).expect("open");
    let text = "x".repeat(4000);
    let mut failed = None;
    for i in 0..100 {
        if let Err(e) = submit(&mut s, &format!("c{i}"), &text) {
            failed = Some((i, e));
            break;
        }
    }
    let (n, err) = failed.expect("a 64 KiB tmpfs fills up");
    assert!(err.to_string().contains("No space left on device"), "{err}");
    assert!(s.storage_failure().is_some());
    drop(s);
    let s = open_or_create(&dir, 64 << 20).expect("reopen after disk full");
    assert!(s.read_only().is_none());
    assert_eq!(
        s.state().turns().count(),
        n,
        "every accepted command survived, none extra"
    );
}

#[test]
fn continue_finds_the_newest_session_of_this_cwd_and_profile() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = AnsaHome::at(t.path().join("home"));
    let a = Path::new("/work/a");
    let b = Path::new("/work/b");
    let opts = JournalOptions::default();
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(
            Session::create_in_home(&home, a, Profile::Offline, opts)
                .expect("create")
                .id()
                .clone(),
        );
    }
    let other_cwd = Session::create_in_home(&home, b, Profile::Offline, opts)
        .expect("b")
        .id()
        .clone();
    let live = Session::create_in_home(&home, a, Profile::Live, opts)
        .expect("live")
        .id()
        .clone();
    let found = Session::continue_latest(&home, a, Profile::Offline, opts)
        .expect("lookup")
        .expect("some");
    assert_eq!(found.id(), &ids[2]);
    assert_eq!(found.dir(), home.session_dir(&ids[2]));
    drop(found);
    let found = Session::continue_latest(&home, a, Profile::Live, opts)
        .expect("lookup")
        .expect("some");
    assert_eq!(found.id(), &live);
    drop(found);
    assert!(
        Session::continue_latest(&home, Path::new("/nowhere"), Profile::Offline, opts)
            .expect("lookup")
            .is_none()
    );
    // A stale pointer (newest session removed) falls back to a scan and repairs the pointer.
    fs::remove_dir_all(home.session_dir(&ids[2])).expect("rm");
    let found = Session::continue_latest(&home, a, Profile::Offline, opts)
        .expect("lookup")
        .expect("some");
    assert_eq!(found.id(), &ids[1]);
    let dir_mode = fs::metadata(home.sessions_dir().join(ids[1].as_str()))
        .expect("m")
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    assert_ne!(other_cwd, ids[1]);
}
