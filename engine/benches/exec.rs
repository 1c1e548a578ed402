//! Exec benchmark: spawn-to-reap latency of `true`, and capture throughput of two 8 MiB streams
//! (and two 64 MiB streams) written as fast as `head` can, all through `ash_engine::exec::run`.
//!
//! Run: `cargo bench -p ash-engine --bench exec`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use ash_engine::cancel::CancelToken;
use ash_engine::deadline::Deadline;
use ash_engine::exec::{Capture, CaptureLimits, ExecContext, Launch, ProcessOutcome, SpoolRoot};
use ash_engine::files::workspace::Workspace;
use ash_engine::protocol::{ExecArgs, Stdin};
use ash_engine::store::QuotaMeter;
use std::time::{Duration, Instant};

struct Bench {
    ws: Workspace,
    spool: SpoolRoot,
    meter: QuotaMeter,
    cancel: CancelToken,
}

impl Bench {
    fn run(&self, program: &str, argv: &[&str]) -> ProcessOutcome {
        let args = ExecArgs {
            program: program.to_owned(),
            argv: argv.iter().map(|a| (*a).to_owned()).collect(),
            cwd: ".".to_owned(),
            env: Vec::new(),
            stdin: Stdin::Null,
            clear_env: false,
        };
        let launch = Launch::resolve(&args, &self.ws).expect("resolves");
        let cx = ExecContext {
            deadline: Deadline::after_ms(60_000),
            cancel: &self.cancel,
            meter: &self.meter,
            spool: &self.spool,
            limits: CaptureLimits::default(),
            live: None,
        };
        let out = ash_engine::exec::run(&launch, None, &cx).expect("runs");
        assert!(out.success(), "{program} failed: {:?}", out.kind);
        out
    }
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

fn time(rounds: usize, mut f: impl FnMut()) -> Vec<Duration> {
    f(); // warm-up
    let mut samples: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    samples.sort();
    samples
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let spool_base = tempfile::tempdir().expect("spool base");
    let bench = Bench {
        ws: Workspace::new(dir.path()).expect("workspace"),
        spool: SpoolRoot::create(spool_base.path(), Duration::from_secs(3600))
            .expect("spool root")
            .0,
        meter: QuotaMeter::new(256 << 20),
        cancel: CancelToken::new(),
    };
    println!(
        "{:<44} {:>9} {:>9} {:>9} {:>11}",
        "case", "p50 ms", "p90 ms", "min ms", "MiB/s (p50)"
    );

    let samples = time(300, || {
        bench.run("true", &[]);
    });
    println!(
        "{:<44} {:>9.2} {:>9.2} {:>9.2} {:>11}",
        "exec true (spawn → reap, both pipes EOF)",
        ms(percentile(&samples, 50)),
        ms(percentile(&samples, 90)),
        ms(samples[0]),
        "-"
    );

    for (label, bytes, rounds) in [
        ("capture 2 x 8 MiB (memory 4 MiB, then spool)", 8 << 20, 40),
        ("capture 2 x 64 MiB (spooled)", 64 << 20, 8),
    ] {
        let script = format!("head -c {bytes} /dev/zero & head -c {bytes} /dev/zero >&2; wait");
        let samples = time(rounds, || {
            let out = bench.run("sh", &["-c", &script]);
            assert_eq!(out.stdout.len + out.stderr.len, 2 * bytes as u64);
            assert!(matches!(out.stdout.capture, Capture::Spooled(_)));
        });
        let p50 = percentile(&samples, 50);
        let mib = 2.0 * bytes as f64 / f64::from(1 << 20);
        println!(
            "{:<44} {:>9.2} {:>9.2} {:>9.2} {:>11.0}",
            label,
            ms(p50),
            ms(percentile(&samples, 90)),
            ms(samples[0]),
            mib / p50.as_secs_f64()
        );
    }

    // The writer alone, without capture, for scale: the same processes with output to /dev/null.
    let samples = time(40, || {
        bench.run(
            "sh",
            &[
                "-c",
                "head -c 8388608 /dev/zero >/dev/null & head -c 8388608 /dev/zero >/dev/null; wait",
            ],
        );
    });
    println!(
        "{:<44} {:>9.2} {:>9.2} {:>9.2} {:>11}",
        "reference: same writers into /dev/null",
        ms(percentile(&samples, 50)),
        ms(percentile(&samples, 90)),
        ms(samples[0]),
        "-"
    );
}
