//! `ansa --auth-status` (issue 15 target: ≤ 3 ms p50, no network): the whole process, signed
//! in with a store of real shape, measured over 50 runs.
//!
//! Run: `cargo bench -p ansa --bench auth_status`.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("ansa");
    let auth = home.join("auth");
    std::fs::create_dir_all(&auth).unwrap();
    for d in [&home, &auth] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let store = ansa_auth::AuthDir::open(&auth).unwrap();
    ansa_auth::Credentials {
        issuer: "https://auth.openai.com".into(),
        client_id: "app_0123456789abcdef0123".into(),
        subject: "user-123".into(),
        access_token: "a".repeat(1200),
        refresh_token: "r".repeat(64),
        id_token: "i".repeat(1100),
        scope: vec!["resource.invoke".into(), "chatgpt.tokens.use.direct".into()],
        expires_at_ms: ansa_auth::now_ms() + 3_600_000,
        earliest_refresh_at_ms: Some(ansa_auth::now_ms()),
        signed_in_at_ms: ansa_auth::now_ms(),
    }
    .save(&store)
    .unwrap();
    let mut times: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_ansa"))
                .arg("--auth-status")
                .env("ANSA_HOME", &home)
                .output()
                .unwrap();
            assert!(out.status.success() && out.stdout.starts_with(b"{\"account_hash\""));
            t.elapsed()
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "ansa --auth-status, whole process: p50 {:.2} ms, p95 {:.2} ms, min {:.2} ms (50 runs)",
        ms(times[25]),
        ms(times[47]),
        ms(times[0])
    );
}
