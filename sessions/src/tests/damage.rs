//! Journal damage on open: torn tails, bit flips, truncated, missing, foreign and unfinished parts.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use super::*;

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
