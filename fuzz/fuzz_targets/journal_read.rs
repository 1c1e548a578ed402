//! Fuzz journal decoding and recovery on real files: `ansa_sessions::read_records` (envelope,
//! checksum, part headers and links, typed record bodies) and `Session::open` (state replay and
//! recovery of whatever verified).
//!
//! Input layout, so that the fuzzer gets past the checksum: the input is split on NUL bytes into
//! at most three journal parts. In each part every complete line is the *covered* text of a
//! record (`"seq":N,"kind":"k","body":{...}}`) and gets a correct `{"sum":"<hex>",` prefix;
//! a line starting with `!` is written as it is (minus the `!`), and bytes after the last newline
//! stay a torn tail.
//!
//! Properties: nothing panics; decoded records come in strictly increasing seq order, never
//! contain a part header, and each body re-serialises and decodes to the same value; a journal
//! that opened healthy reopens healthy with the same turns and transcript, and nothing left to
//! pause (recovery is idempotent).
#![no_main]

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ansa_sessions::journal::part_path;
use ansa_sessions::meta::META_FILE;
use ansa_sessions::{
    JournalOptions, PartNo, Profile, Record, Session, TranscriptQuery, read_records,
};
use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Scratch root (tmpfs when available: recovery fsyncs) and the bytes of a valid session.json.
fn scratch() -> &'static (PathBuf, Vec<u8>) {
    static S: OnceLock<(PathBuf, Vec<u8>)> = OnceLock::new();
    S.get_or_init(|| {
        let base = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        // libFuzzer exits without running destructors: remove what dead earlier runs left.
        let prefix = "ansa-fuzz-journal-";
        for entry in fs::read_dir(&base).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let pid = name.to_str().and_then(|n| n.strip_prefix(prefix));
            if pid.is_some_and(|p| !Path::new("/proc").join(p).exists()) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
        let root = base.join(format!("{prefix}{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&root)
            .expect("scratch dir");
        let template = root.join("template");
        drop(
            Session::open_or_create_at(
                &template,
                None,
                Path::new("/fuzz"),
                Profile::Offline,
                JournalOptions::default(),
            )
            .expect("template session"),
        );
        let meta = fs::read(template.join(META_FILE)).expect("template meta");
        (root, meta)
    })
}

fn checksum_hex(covered: &[u8]) -> String {
    blake3::hash(covered).as_bytes()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn part_bytes(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + 64);
    let mut rest = input;
    while let Some(nl) = rest.iter().position(|b| *b == b'\n') {
        let line = &rest[..nl];
        if let Some(raw) = line.strip_prefix(b"!") {
            out.extend_from_slice(raw);
        } else {
            out.extend_from_slice(b"{\"sum\":\"");
            out.extend_from_slice(checksum_hex(line).as_bytes());
            out.extend_from_slice(b"\",");
            out.extend_from_slice(line);
        }
        out.push(b'\n');
        rest = &rest[nl + 1..];
    }
    out.extend_from_slice(rest);
    out
}

fn same_after_round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(v: &T) {
    let text = serde_json::to_vec(v).expect("a decoded record serialises");
    let back: T = serde_json::from_slice(&text).unwrap_or_else(|e| {
        panic!(
            "{v:?} re-serialised as {} does not decode: {e}",
            String::from_utf8_lossy(&text)
        )
    });
    assert_eq!(&back, v);
}

fn body_round_trips(record: &Record) {
    match record {
        Record::PartHeader(b) => same_after_round_trip(b),
        Record::Binding(b) => same_after_round_trip(b),
        Record::CommandAccepted(b) => same_after_round_trip(b),
        Record::ProviderItem(b) => same_after_round_trip(b),
        Record::ContextEpoch(b) => same_after_round_trip(b),
        Record::ToolIntent(b) => same_after_round_trip(b),
        Record::ToolOutcome(b) => same_after_round_trip(b),
        Record::TurnState(b) => same_after_round_trip(b),
        Record::Done(b) => same_after_round_trip(b),
        Record::Usage(b) => same_after_round_trip(b),
    }
}

fn write_private(path: &Path, bytes: &[u8]) {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .expect("create scratch file");
    f.write_all(bytes).expect("write scratch file");
}

/// Turns and transcript size, to compare two opens.
fn digest(s: &Session) -> (Vec<String>, u64) {
    let turns = s.state().turns().map(|t| format!("{t:?}")).collect();
    let total = s
        .transcript(TranscriptQuery {
            before: 0,
            limit: 1,
            forward: true,
        })
        .total;
    (turns, total)
}

fuzz_target!(|data: &[u8]| {
    let (root, meta) = scratch();
    let dir = root.join("s");
    let _ = fs::remove_dir_all(&dir);
    fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .expect("session dir");
    write_private(&dir.join(META_FILE), meta);
    for (i, part) in data.splitn(3, |b| *b == 0).enumerate() {
        write_private(&part_path(&dir, PartNo(i as u32 + 1)), &part_bytes(part));
    }

    if let Ok(records) = read_records(&dir) {
        let mut last = 1;
        for (seq, record) in &records {
            assert!(seq.0 > last, "seq {} after {last}", seq.0);
            last = seq.0;
            assert!(
                !matches!(record, Record::PartHeader(_)),
                "part header delivered as data"
            );
            body_round_trips(record);
        }
    }

    let first = match Session::open(&dir, JournalOptions::default()) {
        Ok(s) => s,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let healthy = first.read_only().is_none() && first.storage_failure().is_none();
    let before = digest(&first);
    drop(first);
    let second = Session::open(&dir, JournalOptions::default())
        .unwrap_or_else(|e| panic!("a journal that opened does not reopen: {e}"));
    if healthy {
        assert_eq!(second.read_only().map(ToString::to_string), None);
        assert_eq!(
            second.recovery().paused,
            Vec::new(),
            "recovery is idempotent"
        );
        assert_eq!(digest(&second), before, "reopen changed the state");
    }
});
