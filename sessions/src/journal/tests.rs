//! Unit tests that pin down the journal's boundary checks and its storage-failure latch (each
//! kills a mutant that the session-level tests let live; `docs/testing.md`).

use std::path::Path;

use super::codec::{self, LineError};
use super::scan::{ScanSummary, scan};
use super::writer::{JournalOptions, JournalWriter};
use super::{Checksum, FaultPlan, parse_part_file_name, part_path};
use crate::error::{JournalDamage, SessionError};
use crate::ids::{PartNo, RequestId, Seq};
use crate::record::{Done, PartHeader, Record};

fn done(n: u64) -> Record {
    Record::Done(Done {
        request_id: RequestId(n),
        final_text: format!("answer {n}"),
    })
}

fn writer(dir: &Path, max_part_bytes: u64) -> JournalWriter {
    JournalWriter::create_part(dir, PartNo(1), None, JournalOptions { max_part_bytes })
        .expect("create part 1")
}

fn scan_dir(dir: &Path) -> (ScanSummary, Vec<Seq>) {
    let mut seen = Vec::new();
    let summary = scan(dir, &mut |seq, _, _| {
        seen.push(seq);
        Ok(())
    })
    .expect("scan");
    (summary, seen)
}

fn parts(dir: &Path) -> Vec<Vec<u8>> {
    (1..)
        .map(|n| part_path(dir, PartNo(n)))
        .take_while(|p| p.exists())
        .map(|p| std::fs::read(p).expect("read part"))
        .collect()
}

#[test]
fn checksums_are_exactly_sixteen_lowercase_hex_digits() {
    assert_eq!(
        Checksum::parse_hex(b"0123456789abcdef"),
        Some(Checksum(0x0123_4567_89ab_cdef))
    );
    for bad in [
        &b"0123456789ABCDEF"[..],
        b"0123",
        b"0123456789abcdef0",
        b"+123456789abcdef",
        b"",
    ] {
        assert_eq!(Checksum::parse_hex(bad), None, "{bad:?}");
    }
}

#[test]
fn part_file_names_have_six_digits_and_start_at_one() {
    assert_eq!(
        parse_part_file_name("journal-000001.jsonl"),
        Some(PartNo(1))
    );
    assert_eq!(
        parse_part_file_name("journal-123456.jsonl"),
        Some(PartNo(123_456))
    );
    for bad in [
        "journal-000000.jsonl",
        "journal-12345.jsonl",
        "journal-1234567.jsonl",
        "journal-+00001.jsonl",
        "journal-00000a.jsonl",
        "journal-000001.json",
    ] {
        assert_eq!(parse_part_file_name(bad), None, "{bad}");
    }
}

#[test]
fn a_line_too_short_for_its_checksum_is_malformed_not_a_panic() {
    for short in [&b"{\"sum\":\"0123"[..], b"{\"sum\":\"", b"{", b""] {
        assert!(
            matches!(codec::decode(short), Err(LineError::Malformed(_))),
            "{short:?}"
        );
    }
    // Exactly the envelope with nothing covered: long enough to check, and the (empty)
    // covered bytes do not match the checksum.
    let bare = b"{\"sum\":\"0000000000000000\",";
    assert_eq!(bare.len(), 26);
    assert!(matches!(codec::decode(bare), Err(LineError::Checksum)));
}

#[test]
fn a_failed_write_latches_the_writer_and_nothing_is_appended_after_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = writer(dir.path(), 64 << 20);
    w.append(&done(1)).expect("append");
    w.fault = FaultPlan {
        write_budget: Some(10),
        fail_fsync: false,
    };
    assert!(matches!(w.sync(), Err(SessionError::StorageFailed { .. })));
    assert!(w.failure().is_some());
    assert!(
        matches!(w.append(&done(2)), Err(SessionError::StorageFailed { .. })),
        "no append after a failed write"
    );
    assert!(matches!(w.sync(), Err(SessionError::StorageFailed { .. })));
    assert_eq!(w.appended_seq(), Seq(2), "header and record 1 only");
}

#[test]
fn the_write_budget_of_the_fault_plan_is_spent_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = writer(dir.path(), 64 << 20);
    w.append(&done(1)).expect("append");
    // Room for everything buffered so far plus 5 bytes of the next record.
    let first = {
        let mut buf = Vec::new();
        codec::encode(
            Seq(1),
            &Record::PartHeader(PartHeader {
                format: super::FORMAT_VERSION,
                part: PartNo(1),
                prev: None,
            }),
            &mut buf,
        )
        .expect("encode");
        codec::encode(Seq(2), &done(1), &mut buf).expect("encode");
        buf.len() as u64
    };
    w.fault = FaultPlan {
        write_budget: Some(first + 5),
        fail_fsync: false,
    };
    w.sync()
        .expect("a write that uses the budget exactly succeeds");
    w.append(&done(2)).expect("append");
    assert!(w.sync().is_err(), "the budget is spent");
    let (summary, seen) = scan_dir(dir.path());
    assert_eq!(seen, vec![Seq(2)]);
    assert_eq!(
        summary.torn_tail.map(|t| (t.offset, t.len)),
        Some((first, 5))
    );
}

#[test]
fn appended_seq_counts_every_record_including_the_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = writer(dir.path(), 64 << 20);
    assert_eq!(w.appended_seq(), Seq(1));
    assert_eq!(w.append(&done(1)).expect("append"), Seq(2));
    assert_eq!(w.appended_seq(), Seq(2));
    assert_eq!(w.durable_seq(), Seq(0));
    assert_eq!(w.sync().expect("sync"), Seq(2));
}

#[test]
fn a_part_never_closes_with_only_its_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Smaller than any header: every part is "full" as soon as it exists.
    let mut w = writer(dir.path(), 1);
    for n in 1..=3 {
        w.append(&done(n)).expect("append");
    }
    w.sync().expect("sync");
    let parts = parts(dir.path());
    assert_eq!(parts.len(), 3, "one record per part");
    for (i, part) in parts.iter().enumerate() {
        let lines = part.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(lines, 2, "part {} holds its header and one record", i + 1);
    }
    let (summary, seen) = scan_dir(dir.path());
    assert!(summary.damage.is_none(), "{:?}", summary.damage);
    assert_eq!(seen, vec![Seq(2), Seq(4), Seq(6)]);
}

#[test]
fn the_part_limit_rolls_to_a_new_part() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = writer(dir.path(), 200);
    for n in 1..=4 {
        w.append(&done(n)).expect("append");
    }
    w.sync().expect("sync");
    assert!(
        w.part() > PartNo(1),
        "200 bytes hold fewer than four records"
    );
    let (summary, seen) = scan_dir(dir.path());
    assert!(summary.damage.is_none());
    assert_eq!(seen.len(), 4);
}

#[test]
fn an_empty_part_before_the_last_is_damage_not_an_unfinished_part() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = writer(dir.path(), 1);
    for n in 1..=3 {
        w.append(&done(n)).expect("append");
    }
    w.sync().expect("sync");
    std::fs::write(part_path(dir.path(), PartNo(2)), b"").expect("empty part 2");
    let (summary, _) = scan_dir(dir.path());
    assert_eq!(
        summary.damage,
        Some(JournalDamage::MissingHeader { part: PartNo(2) })
    );
    assert_eq!(summary.unfinished_part, None);
}

#[test]
fn a_header_naming_another_part_is_damage() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = Vec::new();
    let header = Record::PartHeader(PartHeader {
        format: super::FORMAT_VERSION,
        part: PartNo(2),
        prev: None,
    });
    codec::encode(Seq(1), &header, &mut bytes).expect("encode");
    codec::encode(Seq(2), &done(1), &mut bytes).expect("encode");
    let path = part_path(dir.path(), PartNo(1));
    std::fs::write(&path, &bytes).expect("write part 1");
    std::fs::set_permissions(
        &path,
        std::os::unix::fs::PermissionsExt::from_mode(crate::fsutil::FILE_MODE),
    )
    .expect("chmod");
    let (summary, seen) = scan_dir(dir.path());
    assert_eq!(
        summary.damage,
        Some(JournalDamage::MissingHeader { part: PartNo(1) })
    );
    assert!(seen.is_empty());
}

#[test]
fn writes_under_a_fault_plan_are_counted_like_real_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = writer(dir.path(), 200);
    w.fault = FaultPlan {
        write_budget: Some(1 << 20),
        fail_fsync: false,
    };
    for n in 1..=6 {
        w.append(&done(n)).expect("append");
        w.sync().expect("sync within the budget");
    }
    assert!(w.part() > PartNo(1));
    // Every part's link names the exact length of the part before it.
    let (summary, seen) = scan_dir(dir.path());
    assert!(summary.damage.is_none(), "{:?}", summary.damage);
    assert_eq!(seen.len(), 6);
}
