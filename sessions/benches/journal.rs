//! Journal benchmarks: synced append, open + projection of a large session, `--continue` lookup.
//! Run: `cargo bench -p ansa-sessions --bench journal`. Prints a table (p50/p90/min).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use ansa_sessions::*;

fn stats(mut v: Vec<Duration>) -> (f64, f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (ms(v[v.len() / 2]), ms(v[v.len() * 9 / 10]), ms(v[0]))
}

fn row(name: &str, v: Vec<Duration>, target: &str) {
    let (p50, p90, min) = stats(v);
    println!("| {name} | {p50:.3} | {p90:.3} | {min:.3} | {target} |");
}

fn item(n: usize, bytes: usize) -> OpaqueJson {
    let pad = "a".repeat(bytes.saturating_sub(60));
    OpaqueJson::from_text(format!(
        r#"{{"type":"message","id":"msg_{n}","n":1.50,"text":"{pad}"}}"#
    ))
    .expect("json")
}

fn open(dir: &Path) -> Session {
    Session::open_or_create_at(
        dir,
        None,
        Path::new("/bench"),
        Profile::Offline,
        JournalOptions::default(),
    )
    .expect("open")
}

fn bench_append(root: &Path) {
    let mut s = open(&root.join("append"));
    let Acceptance::Accepted(r) = s
        .accept(
            CommandId::new("c").expect("id"),
            AcceptedAction::Submit {
                text: "q".into(),
                mode: Mode::Basic,
                mentions: Vec::new(),
            },
        )
        .expect("accept")
    else {
        unreachable!()
    };
    let rec = |i: usize| {
        Record::ProviderItem(ProviderItem {
            request_id: r,
            generation: 1,
            epoch: 0,
            item: item(i, 1024),
        })
    };
    let (mut synced, mut buffered) = (Vec::new(), Vec::new());
    for i in 0..600 {
        let t = Instant::now();
        s.append(rec(i)).expect("append");
        buffered.push(t.elapsed());
        s.sync().expect("sync");
        if i >= 100 {
            synced.push(t.elapsed());
        }
    }
    let path = root.join("raw");
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .expect("raw");
    let block = vec![b'x'; 1100];
    let mut raw = Vec::new();
    for i in 0..600 {
        let t = Instant::now();
        f.write_all(&block).expect("write");
        f.sync_data().expect("fdatasync");
        if i >= 100 {
            raw.push(t.elapsed());
        }
    }
    row(
        "synced append of a 1 KiB record (append + sync)",
        synced,
        "≤ 2 ms p50",
    );
    row(
        "  of which: append (encode + checksum, buffered)",
        buffered,
        "",
    );
    row(
        "  raw write 1.1 KiB + fdatasync on the same disk",
        raw,
        "(fsync cost)",
    );
}

fn build_big(dir: &Path, turns: usize) -> u64 {
    let mut s = open(dir);
    for t in 0..turns {
        let cid = CommandId::new(format!("c{t}")).expect("id");
        let text = format!(
            "question {t}: {}",
            "explain the build and fix it ".repeat(3)
        );
        let Acceptance::Accepted(r) = s.accept_buffered_for_bench(cid, text) else {
            unreachable!()
        };
        s.append(Record::TurnState(TurnStateChange {
            request_id: r,
            state: TurnState::Running,
            reason: None,
        }))
        .expect("running");
        for g in 0..3 {
            s.append(Record::ProviderItem(ProviderItem {
                request_id: r,
                generation: g,
                epoch: 0,
                item: item(g as usize, 1300),
            }))
            .expect("item");
        }
        s.append(Record::ToolIntent(ToolIntent {
            request_id: r,
            call_id: CallId(format!("call_{t}")),
            tool: "read".into(),
            arguments: OpaqueJson::from_text(
                r#"{"paths":["src/main.rs"],"mode":"lines","offset":1,"length":40}"#,
            )
            .expect("json"),
            implementation_revision: "1".into(),
            target: None,
        }))
        .expect("intent");
        s.append(Record::ToolOutcome(ToolOutcome {
            request_id: r,
            call_id: CallId(format!("call_{t}")),
            status: ToolOutcomeStatus::Ok,
            reconciled: false,
            output: OpaqueJson::from_text(format!("\"{}\"", "line of file\\n".repeat(40)))
                .expect("json"),
            answer: None,
            instructions: Vec::new(),
            report: None,
        }))
        .expect("outcome");
        s.append(Record::Done(Done {
            request_id: r,
            final_text: format!("answer {t}: the build uses cargo."),
        }))
        .expect("done");
    }
    s.sync().expect("sync");
    std::fs::read_dir(dir)
        .expect("ls")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("journal-"))
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .sum()
}

trait BenchExt {
    fn accept_buffered_for_bench(&mut self, cid: CommandId, text: String) -> Acceptance;
}

impl BenchExt for Session {
    /// Builds the fixture quickly: the same record `accept` writes, without a sync per turn.
    fn accept_buffered_for_bench(&mut self, command_id: CommandId, text: String) -> Acceptance {
        let request_id = self.state().next_request_id();
        let action = AcceptedAction::Submit {
            text,
            mode: Mode::Basic,
            mentions: Vec::new(),
        };
        self.append(Record::CommandAccepted(CommandAccepted {
            command_id,
            request_id,
            action,
        }))
        .expect("append");
        Acceptance::Accepted(request_id)
    }
}

fn bench_open(root: &Path) {
    let dir = root.join("big");
    let bytes = build_big(&dir, 10_000);
    let mut v = Vec::new();
    let mut total = 0;
    for _ in 0..15 {
        let t = Instant::now();
        let s = open(&dir);
        let page = s.transcript(TranscriptQuery {
            before: 0,
            limit: 64,
            forward: false,
        });
        total = page.total;
        v.push(t.elapsed());
        drop(s);
    }
    assert_eq!(total, 20_000);
    row(
        &format!(
            "open + verify + project 10,000 turns ({:.1} MB, last page of 64)",
            bytes as f64 / 1e6
        ),
        v,
        "≤ 150 ms p50",
    );
}

fn bench_continue(root: &Path) {
    let home = SessionStore::at(root.join("home"));
    let cwds: Vec<String> = (0..100).map(|i| format!("/work/project-{i}")).collect();
    for i in 0..1000 {
        let cwd = Path::new(&cwds[i % cwds.len()]);
        let profile = if (i / cwds.len()).is_multiple_of(2) {
            Profile::Offline
        } else {
            Profile::Live
        };
        Session::create_in_home(&home, cwd, profile, JournalOptions::default()).expect("create");
    }
    let (mut lookup, mut cont) = (Vec::new(), Vec::new());
    for i in 0..200 {
        let cwd = Path::new(&cwds[i % cwds.len()]);
        let t = Instant::now();
        let e = index::latest(&home, cwd, Profile::Offline).expect("lookup");
        lookup.push(t.elapsed());
        assert!(e.is_some());
        let t = Instant::now();
        let s = Session::continue_latest(&home, cwd, Profile::Offline, JournalOptions::default())
            .expect("continue");
        cont.push(t.elapsed());
        assert!(s.is_some());
    }
    row(
        "`--continue` lookup among 1,000 sessions (index read)",
        lookup,
        "≤ 5 ms p50",
    );
    row("  lookup + open the found session", cont, "");
}

fn main() {
    let root = tempfile::Builder::new()
        .prefix("ansa-bench-")
        .tempdir_in(std::env::var_os("BENCH_DIR").unwrap_or_else(|| "/var/tmp".into()))
        .expect("tempdir");
    println!("| case | p50 ms | p90 ms | min ms | target |");
    println!("|---|---|---|---|---|");
    bench_append(root.path());
    bench_open(root.path());
    bench_continue(root.path());
}
