//! SIGKILL crash tests with real processes. The test binary re-executes itself as a writer child
//! (selected by `ANSA_CRASH_CHILD`); the child reports each durability boundary on stdout and the
//! parent kills it there (step mode) or at random moments (random mode), then reopens and checks:
//! no synced record is lost, nothing unsynced was reported durable, nothing is counted twice, and
//! no tool effect with an unknown outcome ran twice.
//!
//! Each run of a tool effect creates its own marker file (`<turn>.<n>` in the effects directory)
//! with `create_new`, which a kill cannot tear. Effects logged as lines of one append-only file
//! could be cut between a turn's digits and its newline, and the next effect's line then merged
//! with the fragment (`8` + `9\n` read as a second run of turn 89).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use ansa_sessions::*;

const CHILD_ENV: &str = "ANSA_CRASH_CHILD";
const PART_BYTES: u64 = 16 << 10;

fn opts() -> JournalOptions {
    JournalOptions {
        max_part_bytes: PART_BYTES,
    }
}

/// Opens the session, retrying `session_busy` briefly: the two tests run in parallel threads, and a
/// child forked by one briefly inherits the other's lock descriptor until it execs.
fn open(dir: &Path) -> Session {
    for _ in 0..200 {
        match Session::open_or_create_at(dir, None, Path::new("/crash"), Profile::Offline, opts()) {
            Err(SessionError::SessionBusy { .. }) => std::thread::sleep(Duration::from_millis(10)),
            other => return other.expect("open session"),
        }
    }
    panic!("session stayed busy");
}

// ---------------------------------------------------------------- child

struct Reporter {
    step: bool,
    stdin: std::io::Stdin,
}

impl Reporter {
    fn say(&self, line: &str) {
        let mut out = std::io::stdout().lock();
        // The parent stops reading just before it kills us: a closed pipe is the expected end.
        if writeln!(out, "@@ {line}")
            .and_then(|()| out.flush())
            .is_err()
        {
            std::process::exit(0);
        }
    }

    /// A durability boundary: report it and, in step mode, wait for the parent's go-ahead.
    fn boundary(&self, name: &str, i: usize) {
        self.say(&format!("boundary {name} {i}"));
        if self.step {
            let mut ack = String::new();
            self.stdin.read_line(&mut ack).expect("ack");
        }
    }
}

fn sync(s: &mut Session, r: &Reporter, name: &str, i: usize) {
    r.boundary(&format!("pre-{name}"), i);
    assert!(
        s.durable_seq() < s.appended_seq(),
        "append must not claim durability"
    );
    let seq = s.sync().expect("sync");
    assert_eq!(seq, s.appended_seq());
    r.say(&format!("durable {}", seq.0));
    r.boundary(&format!("post-{name}"), i);
}

/// The tool's external effect. It starts with the atomic creation of a marker file for this run
/// (`<turn>.<n>`, the first free `n`), so every run is counted exactly once whatever the moment of
/// a kill; the kill may still land inside the effect, before its content is written.
fn run_effect(effects: &Path, r: &Reporter, i: usize) {
    std::fs::create_dir_all(effects).expect("effects dir");
    let mut n = 0;
    let mut f = loop {
        let path = effects.join(format!("{i}.{n}"));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => break f,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => n += 1,
            Err(e) => panic!("effect {}: {e}", path.display()),
        }
    };
    r.boundary("mid-effect", i);
    writeln!(f, "value v{i}").expect("effect");
}

/// Runs of each turn's effect, from the marker files.
fn effect_runs(effects: &Path) -> BTreeMap<usize, usize> {
    let mut runs = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(effects) else {
        return runs;
    };
    for entry in entries {
        let name = entry.expect("effects entry").file_name();
        let name = name.to_str().expect("utf-8 name");
        let turn = name
            .split_once('.')
            .and_then(|(t, n)| Some((t.parse().ok()?, n.parse::<usize>().ok()?)))
            .unwrap_or_else(|| panic!("unexpected file {name:?} in the effects directory"))
            .0;
        *runs.entry(turn).or_insert(0) += 1;
    }
    runs
}

/// Regression for a false "ran twice": with one append-only effects log, a kill between turn 8's
/// digits and its newline made turn 9's line read `89`, a second run of turn 89. Markers cannot
/// merge: an interrupted run (empty marker) counts once for its own turn.
#[test]
fn effect_accounting_counts_interrupted_runs_once() {
    let t = tempfile::tempdir().expect("tempdir");
    let effects = t.path().join("session.effects");
    assert!(effect_runs(&effects).is_empty(), "no effects yet");
    std::fs::create_dir(&effects).expect("mkdir");
    std::fs::write(effects.join("8.0"), "").expect("interrupted run");
    std::fs::write(effects.join("9.0"), "value v9\n").expect("run");
    std::fs::write(effects.join("89.0"), "value v89\n").expect("run");
    assert_eq!(
        effect_runs(&effects),
        BTreeMap::from([(8, 1), (9, 1), (89, 1)])
    );
    std::fs::write(effects.join("89.1"), "").expect("second run");
    assert_eq!(
        effect_runs(&effects).get(&89),
        Some(&2),
        "a real rerun counts"
    );
}

fn text_for(i: usize) -> String {
    // Varying sizes so that kills land inside writes and parts roll at different records.
    format!("question {i} {}", "q".repeat((i * 37) % 700))
}

fn run_child(dir: &Path, turns: usize, step: bool) {
    let r = Reporter {
        step,
        stdin: std::io::stdin(),
    };
    let effects = dir.with_extension("effects");
    let mut s = open(dir);
    let open_intents: BTreeSet<CallId> = s
        .recovery()
        .open_intents
        .iter()
        .map(|o| o.call_id.clone())
        .collect();
    r.say("open");
    for i in 0..turns {
        let cid = CommandId::new(format!("c{i}")).expect("id");
        let finished = s
            .state()
            .command(&cid)
            .and_then(|(req, _)| s.state().turn(req));
        if finished.is_some_and(|t| t.state.is_terminal()) {
            continue;
        }
        r.boundary("pre-accept", i);
        let action = AcceptedAction::Submit {
            text: text_for(i),
            mode: Mode::Basic,
            mentions: Vec::new(),
        };
        let req = match s.accept(cid, action).expect("accept") {
            Acceptance::Accepted(r) | Acceptance::Replayed(r) => r,
        };
        r.say(&format!("accepted {i} {}", req.0));
        r.boundary("post-accept", i);
        let turn = s.state().turn(req).expect("turn").clone();
        if turn.state.is_terminal() {
            continue;
        }
        let call = CallId(format!("call_{i}"));
        if turn.effect_unknown || open_intents.contains(&call) {
            // The effect may or may not have happened: never run it again.
            if !turn.effect_unknown {
                s.append(Record::ToolOutcome(ToolOutcome {
                    request_id: req,
                    call_id: call,
                    status: ToolOutcomeStatus::EffectUnknown,
                    reconciled: false,
                    output: OpaqueJson::from_text("null").expect("json"),
                    answer: None,
                    instructions: Vec::new(),
                    report: None,
                }))
                .expect("outcome");
            }
            s.append(Record::TurnState(TurnStateChange {
                request_id: req,
                state: TurnState::Failed,
                reason: Some("effect_unknown".into()),
            }))
            .expect("failed");
            sync(&mut s, &r, "sync-failed", i);
            r.say(&format!("failed {i}"));
            continue;
        }
        if turn.outcomes == 0 {
            s.append(Record::TurnState(TurnStateChange {
                request_id: req,
                state: TurnState::Running,
                reason: None,
            }))
            .expect("running");
            let item = format!(
                r#"{{"type":"function_call","call_id":"call_{i}","n":1.50,"arguments":"{{}}"}}"#
            );
            s.append(Record::ProviderItem(ProviderItem {
                request_id: req,
                generation: i as u64,
                epoch: 0,
                item: OpaqueJson::from_text(item).expect("json"),
            }))
            .expect("item");
            s.append(Record::ToolIntent(ToolIntent {
                request_id: req,
                call_id: call.clone(),
                tool: "get_test_value".into(),
                arguments: OpaqueJson::from_text(format!(r#"{{"key":"k{i}"}}"#)).expect("json"),
                implementation_revision: "1".into(),
                target: None,
            }))
            .expect("intent");
            sync(&mut s, &r, "sync-intent", i);
            run_effect(&effects, &r, i);
            r.boundary("post-effect", i);
            s.append(Record::ToolOutcome(ToolOutcome {
                request_id: req,
                call_id: call,
                status: ToolOutcomeStatus::Ok,
                reconciled: false,
                output: OpaqueJson::from_text(format!(r#"{{"value":"v{i}"}}"#)).expect("json"),
                answer: None,
                instructions: Vec::new(),
                report: None,
            }))
            .expect("outcome");
            sync(&mut s, &r, "sync-outcome", i);
        }
        r.boundary("pre-done", i);
        s.finish(req, format!("answer {i}")).expect("finish");
        r.say(&format!("done {i}"));
        r.boundary("post-done", i);
    }
    r.say("complete");
}

/// Child entry point: does nothing unless the parent selected child mode.
#[test]
fn crash_child_entry() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let turns = std::env::var("ANSA_CRASH_TURNS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(100);
    let step = std::env::var_os("ANSA_CRASH_STEP").is_some();
    run_child(Path::new(&dir), turns, step);
}

// ---------------------------------------------------------------- parent

/// What children reported before they died.
#[derive(Default)]
struct Seen {
    accepted: BTreeMap<usize, u64>,
    done: BTreeSet<usize>,
    failed: BTreeSet<usize>,
    durable: u64,
    complete: bool,
    kills_at: HashMap<String, usize>,
}

fn spawn(dir: &Path, turns: usize, step: bool) -> Child {
    let mut cmd = Command::new(std::env::current_exe().expect("exe"));
    cmd.args([
        "crash_child_entry",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD_ENV, dir)
    .env("ANSA_CRASH_TURNS", turns.to_string())
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::inherit());
    if step {
        cmd.env("ANSA_CRASH_STEP", "1");
    }
    cmd.spawn().expect("spawn child")
}

/// Applies one progress line; returns the boundary name if it was one.
fn note(seen: &mut Seen, line: &str) -> Option<String> {
    let mut w = line.strip_prefix("@@ ")?.split(' ');
    let num = |s: Option<&str>| s.and_then(|v| v.parse::<u64>().ok()).expect("number");
    match w.next()? {
        "accepted" => {
            let i = num(w.next()) as usize;
            seen.accepted.insert(i, num(w.next()));
        }
        "done" => {
            seen.done.insert(num(w.next()) as usize);
        }
        "failed" => {
            seen.failed.insert(num(w.next()) as usize);
        }
        "durable" => seen.durable = seen.durable.max(num(w.next())),
        "complete" => seen.complete = true,
        "boundary" => return w.next().map(str::to_owned),
        _ => {}
    }
    None
}

fn kill(child: &mut Child) {
    // std's kill() sends SIGKILL on Unix.
    let _ = child.kill();
    let _ = child.wait();
}

fn ack(stdin: &mut Option<ChildStdin>) {
    if let Some(i) = stdin.as_mut() {
        let _ = i.write_all(b"\n");
        let _ = i.flush();
    }
}

/// Reopens the session after a crash and checks every invariant.
fn verify(dir: &Path, seen: &Seen) {
    let s = open(dir);
    assert!(
        s.read_only().is_none(),
        "crash must never look like damage: {:?}",
        s.read_only()
    );
    assert!(
        s.durable_seq().0 >= seen.durable,
        "synced record lost: reported durable {} but journal ends at {}",
        seen.durable,
        s.durable_seq()
    );
    for (i, req) in &seen.accepted {
        let cid = CommandId::new(format!("c{i}")).expect("id");
        let (r, _) = s
            .state()
            .command(&cid)
            .unwrap_or_else(|| panic!("accepted command c{i} lost"));
        assert_eq!(r.0, *req, "c{i} changed request id");
        assert_eq!(
            r.0,
            *i as u64 + 1,
            "request ids are contiguous, one per command"
        );
    }
    for i in &seen.done {
        let t = s.state().turn(RequestId(*i as u64 + 1)).expect("turn");
        assert_eq!(t.state, TurnState::Done, "done turn {i} lost");
        assert_eq!(
            t.final_text.as_deref(),
            Some(format!("answer {i}").as_str())
        );
    }
    let mut accepted = HashMap::new();
    let mut dones = HashMap::new();
    let mut intents = BTreeSet::new();
    let mut ok_outcomes = BTreeSet::new();
    let mut last = 0;
    for (seq, rec) in s.read_records().expect("records") {
        assert!(seq.0 > last, "sequence numbers increase");
        last = seq.0;
        match rec {
            Record::CommandAccepted(c) => *accepted.entry(c.command_id).or_insert(0) += 1,
            Record::Done(d) => *dones.entry(d.request_id).or_insert(0) += 1,
            Record::ToolIntent(t) => {
                intents.insert(t.call_id.0);
            }
            Record::ToolOutcome(o) if o.status == ToolOutcomeStatus::Ok => {
                ok_outcomes.insert(o.call_id.0);
            }
            _ => {}
        }
    }
    assert!(
        accepted.values().all(|n| *n == 1),
        "a command was accepted twice"
    );
    assert!(dones.values().all(|n| *n == 1), "a turn was finished twice");
    assert_eq!(s.state().turns().count(), accepted.len());
    let runs = effect_runs(&dir.with_extension("effects"));
    assert!(
        runs.values().all(|n| *n == 1),
        "a tool effect ran twice: {runs:?}"
    );
    for i in runs.keys() {
        assert!(
            intents.contains(&format!("call_{i}")),
            "the effect of turn {i} ran without a synced intent"
        );
    }
    for call in &ok_outcomes {
        let i: usize = call
            .strip_prefix("call_")
            .and_then(|i| i.parse().ok())
            .expect("call id");
        assert!(
            runs.contains_key(&i),
            "turn {i} has an ok outcome but its effect never ran"
        );
    }
}

fn workdir() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path().join("session");
    (t, d)
}

/// Kills children at every kind of durability boundary (before and after each fsync, inside and
/// after the external effect), at a rotating position, until the workload completes.
#[test]
fn sigkill_at_every_durability_boundary() {
    let (_t, dir) = workdir();
    let turns = 60;
    let mut seen = Seen::default();
    let mut round = 0usize;
    while !seen.complete {
        round += 1;
        assert!(round < 2000, "no progress");
        let kill_at = 1 + round % 13;
        let mut child = spawn(&dir, turns, true);
        let mut stdin = child.stdin.take();
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut boundaries = 0;
        for line in out.lines() {
            let line = line.expect("line");
            if let Some(name) = note(&mut seen, &line) {
                boundaries += 1;
                if boundaries == kill_at {
                    *seen.kills_at.entry(name).or_insert(0) += 1;
                    break;
                }
                ack(&mut stdin);
            }
        }
        kill(&mut child);
        if std::env::var_os("ANSA_CRASH_DEBUG").is_some() {
            eprintln!(
                "round {round}: {boundaries} boundaries, accepted {}",
                seen.accepted.len()
            );
        }
        verify(&dir, &seen);
    }
    let kinds = [
        "pre-accept",
        "post-accept",
        "pre-sync-intent",
        "post-sync-intent",
        "mid-effect",
        "post-effect",
        "pre-sync-outcome",
        "post-sync-outcome",
        "pre-done",
        "post-done",
    ];
    for k in kinds {
        assert!(
            seen.kills_at.get(k).copied().unwrap_or(0) > 0,
            "never killed at {k}: {:?}",
            seen.kills_at
        );
    }
    assert_eq!(
        seen.done.len() + seen.failed.len(),
        turns,
        "every turn ended exactly once"
    );
    eprintln!("step mode: {round} kills, by boundary {:?}", seen.kills_at);
}

/// Kills free-running children at random moments (including inside writes) across thousands
/// of records and several part rolls.
#[test]
fn sigkill_at_random_points() {
    let (_t, dir) = workdir();
    let turns = 500;
    let mut seen = Seen::default();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(std::process::id());
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut rounds = 0;
    while !seen.complete {
        rounds += 1;
        assert!(rounds < 5000, "no progress");
        let mut child = spawn(&dir, turns, false);
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        let lines_before_kill = next() % 150;
        let mut n = 0;
        for line in out.lines() {
            let Ok(line) = line else { break };
            note(&mut seen, &line);
            n += 1;
            if n >= lines_before_kill {
                std::thread::sleep(Duration::from_micros(next() % 800));
                break;
            }
        }
        kill(&mut child);
        verify(&dir, &seen);
    }
    let s = open(&dir);
    let records = s.read_records().expect("records").len();
    let parts = std::fs::read_dir(&dir)
        .expect("ls")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("journal-"))
        })
        .count();
    assert!(records > 2000, "thousands of records: {records}");
    assert!(parts > 3, "parts rolled: {parts}");
    assert_eq!(s.state().turns().count(), turns);
    assert!(
        s.state().turns().all(|t| t.state.is_terminal()),
        "every turn ended"
    );
    let unknown = s.state().turns().filter(|t| t.effect_unknown).count();
    assert_eq!(
        s.state()
            .turns()
            .filter(|t| t.state == TurnState::Failed)
            .count(),
        unknown,
        "only turns with an unknown effect fail"
    );
    eprintln!(
        "random mode: {rounds} kills, {records} records in {parts} parts, {unknown} turns failed as effect_unknown"
    );
}
