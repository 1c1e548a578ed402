//! The golden JSONL of rewind's later additions (`spec/jsonl/events-rewind.jsonl`): a rewind
//! rolled back with both versions of a path kept, transcript entries flagged `rewound`, and
//! the plan's "changed, not restored" directories. Each line parses and reserialises byte
//! exact.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::path::PathBuf;

use ansa_sessions::protocol::{Event, EventBody};

#[test]
fn every_rewind_golden_event_parses_and_reserialises_byte_exact() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/jsonl/events-rewind.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut seen = (false, false, false);
    for line in text.lines() {
        let ev = Event::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        match &ev.body {
            EventBody::RewindDone(d) => {
                assert!(d.rolled_back);
                assert_eq!(
                    d.conflicts[0].set_aside,
                    "src/lib.rs.ansa-rewind-conflict-1"
                );
                seen.0 = true;
            }
            EventBody::Transcript(p) => {
                let flags: Vec<bool> = p.entries.iter().map(|e| e.rewound).collect();
                assert_eq!(flags, [false, false, true, true]);
                seen.1 = true;
            }
            EventBody::RewindPlan(p) => {
                let dirs: Vec<(&str, u64)> = p
                    .changed_not_restored
                    .iter()
                    .map(|c| (c.path.as_str(), c.paths))
                    .collect();
                assert_eq!(dirs, [(".git", 5), ("vendor/lib/.hg", 1)]);
                seen.2 = true;
            }
            _ => {}
        }
        assert_eq!(ev.to_json().expect("serialises"), line);
    }
    assert!(seen.0 && seen.1 && seen.2, "{seen:?}");
}
