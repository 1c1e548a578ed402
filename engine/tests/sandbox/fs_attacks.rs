//! Writes outside the writable roots, by every route the issue names, in both modes and both
//! spawn paths; writes inside still work where the mode allows them.

use super::*;
use ash_engine::exec::sandbox::DenialKind;

/// Runs `attack` in every mode and spawn path.
fn each(attack: impl Fn(&mut Sandboxed)) {
    for mode in MODES {
        for path in PATHS {
            let mut s = Sandboxed::new(mode, false, path);
            attack(&mut s);
        }
    }
}

#[test]
fn sh_cannot_create_overwrite_or_append_outside_and_the_denial_is_reported() {
    each(|s| {
        let script = format!("echo pwned > {}", s.o("new"));
        let r = s.refused("sh create", &script);
        assert_eq!(
            r.sandbox.denied().map(|d| d.kind.clone()),
            Some(DenialKind::Write(s.outside.join("new"))),
            "{r:?}"
        );
        s.refused("sh overwrite", &format!("echo pwned > {}", s.o("victim")));
        s.refused("sh append", &format!("echo pwned >> {}", s.o("victim")));
        s.refused(
            "sh through an outside symlink",
            &format!("echo pwned > {}", s.o("link")),
        );
    });
}

#[test]
fn python_cannot_write_outside() {
    require_python3();
    each(|s| {
        let script = format!(
            "python3 -c \"open('{}', 'w').write('pwned')\"",
            s.o("victim")
        );
        let r = s.refused("python write", &script);
        assert!(stderr(&r).contains("PermissionError"), "{r:?}");
        assert!(r.sandbox.denied().is_some(), "{r:?}");
    });
}

#[test]
fn a_symlink_in_the_workspace_pointing_out_does_not_lead_out() {
    each(|s| {
        let script = format!(
            "ln -s {} link; ln -s {} dir; echo pwned > link; echo pwned > dir/new",
            s.o("victim"),
            s.outside.display()
        );
        s.refused("symlink out", &script);
    });
}

#[test]
fn dot_dot_and_proc_self_root_do_not_lead_out() {
    each(|s| {
        s.refused(
            "..",
            "echo pwned > ../outside/new; echo pwned > ../outside/victim",
        );
        let script = format!(
            "echo pwned > /proc/self/root{}; echo pwned > /proc/self/cwd/../outside/new2",
            s.o("victim")
        );
        s.refused("/proc/self/root", &script);
    });
}

#[test]
fn a_hard_link_to_an_outside_file_can_be_neither_made_nor_written_through() {
    each(|s| {
        let script = format!("ln {} hl && echo pwned >> hl", s.o("victim"));
        s.refused("hard link", &script);
        assert!(!s.ws.join("hl").exists(), "the link was made");
        // Nor a link made outside to a workspace file.
        let script = format!("echo x > /dev/null; ln /etc/hostname {}", s.o("hl"));
        s.refused("hard link outside", &script);
    });
}

#[test]
fn nothing_moves_out_and_nothing_outside_moves_in_or_goes() {
    each(|s| {
        s.refused(
            "rename out",
            &format!("echo x > /dev/null; mv {} ./stolen", s.o("victim")),
        );
        s.refused("mkdir out", &format!("mkdir {}", s.o("newdir")));
        s.refused(
            "remove out",
            &format!("rm -f {}; rm -rf {}", s.o("victim"), s.o("sub")),
        );
        s.refused("truncate out", &format!("truncate -s 0 {}", s.o("victim")));
        s.refused(
            "mkfifo and symlink out",
            &format!("mkfifo {}; ln -s /etc/passwd {}", s.o("fifo"), s.o("sym")),
        );
    });
    // A file made in the workspace cannot be moved out either.
    let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, Spawn::Direct);
    s.refused(
        "move out",
        &format!("echo x > mine && mv mine {}", s.o("moved")),
    );
    assert!(
        s.ws.join("mine").exists(),
        "the file stays in the workspace"
    );
}

#[test]
fn a_daemon_the_command_leaves_behind_is_still_confined() {
    // Mode off is the control: the same daemon does write outside there.
    let runs = [
        (SandboxMode::Off, Spawn::Direct),
        (SandboxMode::WorkspaceWrite, Spawn::Direct),
        (SandboxMode::WorkspaceWrite, Spawn::Supervised),
    ];
    for (mode, path) in runs {
        let mut s = Sandboxed::new(mode, false, path);
        let done = s.ws.join("daemon-done");
        let daemon = format!(
            "setsid sh -c 'sleep 0.3; echo pwned > {}; echo done > {}' </dev/null >/dev/null 2>&1 &",
            s.o("daemon"),
            done.display()
        );
        // The supervisor ends every descendant when the command exits, so there the command
        // waits for its daemon; a direct spawn leaves it running after the command's exit.
        let script = match path {
            Spawn::Direct => daemon,
            Spawn::Supervised => format!(
                "{daemon} while [ ! -e {} ]; do sleep 0.05; done",
                done.display()
            ),
        };
        let r = s.sh(&script);
        assert_eq!(exec_data(&r.response, "daemon").code, Some(0), "{r:?}");
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !done.exists() {
            assert!(
                std::time::Instant::now() < until,
                "the daemon never finished ({mode:?}, {path:?})"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let wrote = s.outside.join("daemon").exists();
        assert_eq!(wrote, mode == SandboxMode::Off, "{mode:?} {path:?}");
    }
}

#[test]
fn workspace_write_allows_the_workspace_tmp_and_devices() {
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        let tmp = tempfile::NamedTempFile::new_in("/tmp").expect("tmp file");
        let script = format!(
            "set -e; echo ok > a; mkdir d; echo ok > d/b; mv a d/c; ln d/c d/hard; ln -s d/c l; \
             truncate -s 1 d/b; rm d/b; echo x > /dev/null; echo ok > {}; cat /etc/hostname >/dev/null",
            tmp.path().display()
        );
        let r = s.sh(&script);
        let d = exec_data(&r.response, "inside");
        assert_eq!(d.code, Some(0), "{d:?}");
        assert_eq!(r.sandbox, SandboxOutcome::Ran { denied: None });
        assert_eq!(
            std::fs::read_to_string(s.ws.join("d/c")).expect("c"),
            "ok\n"
        );
        assert_eq!(std::fs::read_to_string(tmp.path()).expect("tmp"), "ok\n");
    }
}

#[test]
fn read_only_allows_only_devices() {
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::ReadOnly, false, path);
        s.refused("read-only workspace", "echo x > a");
        assert!(!s.ws.join("a").exists());
        let tmp = format!("/tmp/ansa-read-only-{}", std::process::id());
        s.refused("read-only /tmp", &format!("echo x > {tmp}"));
        assert!(!Path::new(&tmp).exists());
        let r = s.sh("echo x > /dev/null && head -c 4 /dev/urandom > /dev/null && cat /etc/hostname > /dev/null");
        assert_eq!(exec_data(&r.response, "devices").code, Some(0), "{r:?}");
    }
}

#[test]
fn posix_semaphores_work_in_workspace_write() {
    require_python3();
    // multiprocessing's locks are POSIX semaphores in /dev/shm.
    let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, Spawn::Direct);
    let r = s.sh("python3 -c 'import multiprocessing\nmultiprocessing.Lock()\nprint(\"locked\")'");
    let d = exec_data(&r.response, "semaphore");
    assert_eq!(d.stdout.as_deref(), Some("locked\n"), "{d:?}");
}
