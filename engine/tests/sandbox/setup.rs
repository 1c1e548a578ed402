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

/// Stacks Landlock layers that allow everything on the calling thread until the kernel's limit
/// of 16 is reached, so that the next `landlock_restrict_self` (in a child forked from this
/// thread) fails with `E2BIG`.
fn exhaust_landlock_layers() {
    use landlock::{
        ABI, Access, AccessFs, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
    };
    // Landlock needs no_new_privs on this thread.
    nix::sys::prctl::set_no_new_privs().expect("no_new_privs");
    for _ in 0..16 {
        let status = Ruleset::default()
            .handle_access(AccessFs::from_all(ABI::V1))
            .expect("handled")
            .create()
            .expect("ruleset")
            .add_rule(PathBeneath::new(
                PathFd::new("/").expect("root"),
                AccessFs::from_all(ABI::V1),
            ))
            .expect("rule")
            .restrict_self();
        if status.is_err() {
            return;
        }
    }
}

#[test]
fn a_child_that_cannot_restrict_itself_never_runs_the_command() {
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        // Landlock restricts only the calling thread and what it forks: a thread of its own
        // keeps the rest of the test process untouched.
        let r = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    exhaust_landlock_layers();
                    s.sh("echo ran > marker")
                })
                .join()
                .expect("thread")
        });
        let err = r
            .sandbox
            .refused()
            .unwrap_or_else(|| panic!("not refused: {r:?}"));
        assert!(
            matches!(err, ash_engine::exec::sandbox::SandboxError::Apply { step, .. } if step.contains("landlock")),
            "{path:?}: {err}"
        );
        assert!(err.to_string().contains("the command was not run"), "{err}");
        assert_eq!(
            r.response.error.as_ref().map(|e| e.code.as_u16()),
            Some(400),
            "{r:?}"
        );
        assert!(!s.ws.join("marker").exists(), "the command ran");
    }
}

#[test]
fn every_command_of_a_batch_runs_sandboxed() {
    let node = |script: &str| {
        common::cell(&format!(
            "a{{x,v,c,e,in,f}}:\nsh,[-c,{}],.,[],~,0\n",
            common::cell(script)
        ))
    };
    for mode in [SandboxMode::Off, SandboxMode::WorkspaceWrite] {
        let mut s = Sandboxed::new(mode, false, Spawn::Direct);
        let batch = format!(
            "t:1\ni:1\no:b\na[2]{{i,d,o,a}}:\n1,[],x,{}\n2,[1],x,{}\nu{{tok,rec,ms}}:\n100000,16,30000\n",
            node("echo ok > marker"),
            node(&format!("echo pwned > {}", s.o("new")))
        );
        let request = common::request(&batch);
        let r = s.session.execute_sandboxed(
            &request,
            CancelToken::new(),
            &Attachments::default(),
            Some(&s.policy),
        );
        assert!(
            s.ws.join("marker").exists(),
            "{mode:?}: the batch did not run: {r:?}"
        );
        // Mode off is the control: the same batch does write outside there.
        assert_eq!(
            s.outside.join("new").exists(),
            mode == SandboxMode::Off,
            "{mode:?}: {r:?}"
        );
    }
}
