//! Offline compaction: after three completed turns over the budget, older history becomes the
//! retained user messages plus a summary item, synced as a new context epoch; the journal
//! keeps everything, and a reopened session replays the compacted context.

use serde_json::json;

use crate::harness::World;

#[test]
fn older_turns_are_compacted_into_a_new_epoch_that_survives_a_restart() {
    let w = World::new();
    let big: String = (0..600)
        .map(|n| format!("line {n:04} of the big file\n"))
        .collect();
    std::fs::write(w.ws().join("big.txt"), &big).unwrap();
    let read = json!({"name": "read", "arguments": {"paths": ["big.txt"], "mode": "lines", "offset": 1, "length": 600}});
    let script = w.script(
        "compact.json",
        json!([
            {"tool_calls": [read.clone()]}, {"text": "t1"},
            {"tool_calls": [read.clone()]}, {"text": "t2"},
            {"tool_calls": [read]}, {"text": "t3"},
            {"text": "A={{tool_output:0}}|B={{tool_output:2}}"},
            {"text": "C={{tool_output:0}}|D={{tool_output:1}}"}
        ]),
    );
    let dir = w.path("session");
    let args = [
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
        "--compact-bytes",
        "16384",
    ];
    let mut s = w.jsonl(&args);
    for n in 1..=3 {
        let rid = s.submit(&format!("task {n}"));
        assert_eq!(s.answer(rid), format!("t{n}"));
    }
    let rid = s.submit("task 4");
    let answer = s.answer(rid);
    let (a, b) = answer.split_once("|B=").unwrap();
    assert_eq!(a, "A=[tool output removed from the context by compaction]");
    assert!(b.contains("line 0599 of the big file"), "{b}");
    s.finish();

    let journal = crate::harness::journal_text(&dir);
    let epochs: Vec<&str> = journal
        .lines()
        .filter(|l| l.contains("\"kind\":\"context_epoch\""))
        .collect();
    assert_eq!(epochs.len(), 1, "{epochs:?}");
    assert!(epochs[0].contains("\"method\":\"offline\"") && epochs[0].contains("\"epoch\":1"));
    // The full history stays in the journal: three reads' outputs are all there.
    let outcomes = journal
        .lines()
        .filter(|l| {
            l.contains("\"kind\":\"tool_outcome\"") && l.contains("line 0599 of the big file")
        })
        .count();
    assert_eq!(outcomes, 3);

    let mut s = w.jsonl(&args);
    let rid = s.submit("task 5");
    let answer = s.answer(rid);
    let (c, d) = answer.split_once("|D=").unwrap();
    assert_eq!(c, "C=[tool output removed from the context by compaction]");
    assert!(d.contains("line 0599"), "{d}");
    s.finish();
}
