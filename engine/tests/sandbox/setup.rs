//! Setting the sandbox up: a workspace that is a symlink, a writable root that does not
//! exist, extra writable roots, and network allowed.

use super::*;

#[test]
fn a_workspace_reached_through_a_symlink_is_confined_to_its_target() {
    let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, Spawn::Direct);
    let link = s.base.path().join("ws-link");
    std::os::unix::fs::symlink(&s.ws, &link).expect("symlink");
    s.session = session_on(&link);
    let r = s.sh("echo ok > inside");
    assert_eq!(exec_data(&r.response, "inside").code, Some(0), "{r:?}");
    assert!(s.ws.join("inside").exists());
    s.refused("outside", &format!("echo pwned > {}", s.o("new")));
}

#[test]
fn a_writable_root_that_does_not_exist_refuses_the_command() {
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        s.policy.writable = vec![s.outside.join("missing")];
        let r = s.sh("echo ran > marker");
        assert!(
            matches!(
                r.sandbox.refused(),
                Some(ash_engine::exec::sandbox::SandboxError::WritableMissing { .. })
            ),
            "{r:?}"
        );
        assert!(
            r.sandbox
                .refused()
                .expect("refused")
                .to_string()
                .contains("missing")
        );
        assert_eq!(
            r.response.error.as_ref().map(|e| e.code.as_u16()),
            Some(400),
            "{r:?}"
        );
        assert!(!s.ws.join("marker").exists(), "the command ran");
    }
}

#[test]
fn a_listed_writable_root_is_writable_and_read_only_ignores_it() {
    let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, Spawn::Direct);
    s.policy.writable = vec![s.outside.join("sub")];
    let r = s.sh(&format!("echo ok > {}", s.o("sub/extra")));
    assert_eq!(exec_data(&r.response, "listed").code, Some(0), "{r:?}");
    s.refused(
        "beside the listed root",
        &format!("echo pwned > {}", s.o("new")),
    );
    s.policy.mode = SandboxMode::ReadOnly;
    s.refused(
        "listed root in read-only",
        &format!("echo pwned > {}", s.o("sub/more")),
    );
}

#[test]
fn mode_off_runs_unsandboxed_and_reports_nothing() {
    let mut s = Sandboxed::new(SandboxMode::Off, false, Spawn::Direct);
    let r = s.sh(&format!("echo ok > {}", s.o("new")));
    assert_eq!(exec_data(&r.response, "off").code, Some(0), "{r:?}");
    assert_eq!(r.sandbox, SandboxOutcome::Unsandboxed);
}
