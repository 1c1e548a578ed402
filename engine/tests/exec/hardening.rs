//! Opt-in child hardening: `PR_SET_NO_NEW_PRIVS` is set only when the session asks for it.

use super::{Harness, common, data, sh};
use ash_engine::exec::ExecHardening;
use ash_engine::session::SessionConfig;

fn no_new_privs_line(h: &mut Harness) -> String {
    let (r, _) = h.ask(&sh(1, "grep NoNewPrivs /proc/self/status"));
    let out = data(&r).stdout.clone().unwrap_or_default();
    out.trim().to_owned()
}

#[test]
fn hardened_children_have_no_new_privs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = SessionConfig {
        output_ceiling: u64::MAX,
        hardening: ExecHardening::strict(),
        ..SessionConfig::run()
    };
    let session = common::open_session(dir.path(), config, 2);
    let mut h = Harness { dir, session };
    assert_eq!(no_new_privs_line(&mut h), "NoNewPrivs:\t1");
}

#[test]
fn default_sessions_leave_children_unrestricted() {
    let mut h = Harness::new();
    let line = no_new_privs_line(&mut h);
    // The test runner itself may already run with no_new_privs; only then is 1 acceptable.
    let own = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let inherited = own.lines().any(|l| l == "NoNewPrivs:\t1");
    assert_eq!(line == "NoNewPrivs:\t1", inherited, "{line}");
}
