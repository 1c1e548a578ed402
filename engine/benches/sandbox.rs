//! Sandbox benchmark: what the OS sandbox adds to one exec — `seq 1` spawned to reap with
//! strict hardening, unsandboxed vs workspace-write (Landlock ruleset and seccomp filters built
//! before the fork, applied in the child), directly and under the exec supervisor. Rounds of
//! the two variants alternate so that load on the machine hits both alike.
//!
//! A second table: what a file-metadata call costs under the sandbox (each goes to the
//! supervising process, see `exec/sandbox/notify`): python3 calling `os.chmod` on a workspace
//! file `CHMODS` times, unsandboxed vs workspace-write, the difference per call.
//!
//! Run: `cargo bench -p ash-engine --bench sandbox`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use ash_engine::cancel::CancelToken;
use ash_engine::deadline::Deadline;
use ash_engine::exec::sandbox::{SandboxMode, SandboxPolicy, probe};
use ash_engine::exec::supervisor::Supervision;
use ash_engine::exec::{CaptureLimits, ExecContext, ExecHardening, Launch, SpoolRoot};
use ash_engine::files::workspace::Workspace;
use ash_engine::protocol::{ExecArgs, Stdin};
use ash_engine::store::QuotaMeter;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const ROUNDS: usize = 300;
/// chmod calls per python3 run in the metadata table.
const CHMODS: usize = 1000;
/// Alternating rounds of the metadata table.
const CHMOD_ROUNDS: usize = 20;

struct Bench {
    ws: Workspace,
    spool: SpoolRoot,
    meter: QuotaMeter,
    cancel: CancelToken,
    evidence: PathBuf,
}

impl Bench {
    fn run(&self, sandbox: Option<&SandboxPolicy>, supervised: bool) -> Duration {
        self.exec("seq", &["1"], b"1\n", sandbox, supervised)
    }

    fn chmods(&self, sandbox: Option<&SandboxPolicy>, supervised: bool) -> Duration {
        let script =
            format!("import os\nfor i in range({CHMODS}): os.chmod('f', 0o600 | (i & 1) << 6)\n");
        self.exec("python3", &["-c", &script], b"", sandbox, supervised)
    }

    fn exec(
        &self,
        program: &str,
        argv: &[&str],
        expected: &[u8],
        sandbox: Option<&SandboxPolicy>,
        supervised: bool,
    ) -> Duration {
        let args = ExecArgs {
            program: program.to_owned(),
            argv: argv.iter().map(|a| (*a).to_owned()).collect(),
            cwd: ".".to_owned(),
            env: Vec::new(),
            stdin: Stdin::Null,
            clear_env: false,
        };
        let start = Instant::now();
        let launch = Launch::resolve(&args, &self.ws)
            .expect("resolves")
            .with_hardening(ExecHardening::strict())
            .with_sandbox(sandbox.cloned())
            .with_supervision(supervised.then(|| Supervision {
                program: PathBuf::from(env!("CARGO_BIN_EXE_ash")),
                evidence: self.evidence.clone(),
            }));
        let cx = ExecContext {
            deadline: Deadline::after_ms(60_000),
            cancel: &self.cancel,
            meter: &self.meter,
            spool: &self.spool,
            limits: CaptureLimits::default(),
            live: None,
        };
        let out = ash_engine::exec::run(&launch, None, &cx).expect("runs");
        let elapsed = start.elapsed();
        assert!(
            out.success(),
            "{program} failed: {:?} {:?}",
            out.kind,
            out.stderr.bytes()
        );
        assert_eq!(out.stdout.bytes(), Some(expected));
        elapsed
    }
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let policy = SandboxPolicy {
        mode: SandboxMode::WorkspaceWrite,
        writable: Vec::new(),
        network: false,
    };
    policy
        .check(&probe())
        .expect("this kernel enforces the sandbox");
    let dir = tempfile::tempdir().expect("temp dir");
    let spool_base = tempfile::tempdir().expect("spool base");
    let bench = Bench {
        ws: Workspace::new(dir.path()).expect("workspace"),
        spool: SpoolRoot::create(spool_base.path(), Duration::from_secs(3600))
            .expect("spool root")
            .0,
        meter: QuotaMeter::new(256 << 20),
        cancel: CancelToken::new(),
        evidence: spool_base.path().join("evidence"),
    };
    println!("seq 1, spawn to reap, strict hardening, {ROUNDS} alternating rounds");
    println!("| path | sandbox | p50 ms | p90 ms | min ms |");
    println!("|---|---|---|---|---|");
    for supervised in [false, true] {
        let (mut off, mut on) = (Vec::new(), Vec::new());
        bench.run(None, supervised);
        bench.run(Some(&policy), supervised);
        for _ in 0..ROUNDS {
            off.push(bench.run(None, supervised));
            on.push(bench.run(Some(&policy), supervised));
        }
        off.sort();
        on.sort();
        let path = if supervised { "supervised" } else { "direct" };
        for (name, samples) in [("off", &off), ("workspace-write", &on)] {
            println!(
                "| {path} | {name} | {:.2} | {:.2} | {:.2} |",
                ms(percentile(samples, 50)),
                ms(percentile(samples, 90)),
                ms(samples[0])
            );
        }
        println!(
            "| {path} | added at p50 | {:.2} | | |",
            ms(percentile(&on, 50)) - ms(percentile(&off, 50))
        );
    }
    std::fs::write(dir.path().join("f"), b"x").expect("chmod target");
    println!();
    println!(
        "python3 with {CHMODS} os.chmod calls on a workspace file, {CHMOD_ROUNDS} alternating rounds"
    );
    println!("| path | sandbox | p50 ms | added per chmod µs |");
    println!("|---|---|---|---|");
    for supervised in [false, true] {
        let (mut off, mut on) = (Vec::new(), Vec::new());
        bench.chmods(None, supervised);
        bench.chmods(Some(&policy), supervised);
        for _ in 0..CHMOD_ROUNDS {
            off.push(bench.chmods(None, supervised));
            on.push(bench.chmods(Some(&policy), supervised));
        }
        off.sort();
        on.sort();
        let path = if supervised { "supervised" } else { "direct" };
        let per_call = (ms(percentile(&on, 50)) - ms(percentile(&off, 50))) * 1e3 / CHMODS as f64;
        println!("| {path} | off | {:.2} | |", ms(percentile(&off, 50)));
        println!(
            "| {path} | workspace-write | {:.2} | {per_call:.1} |",
            ms(percentile(&on, 50))
        );
    }
}
