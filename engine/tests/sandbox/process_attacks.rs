//! Reaching out of the sandbox through processes: mount, new namespaces, ptrace of and
//! signals to the engine (and the supervisor), which Landlock's scoping and the seccomp filter
//! refuse.

use super::*;

/// Attaches (PTRACE_SEIZE, which does not stop the target) to `pid` and detaches.
fn seize(pid: u32) -> String {
    format!(
        "exec python3 -c 'import ctypes,os,sys\nlibc=ctypes.CDLL(None,use_errno=True)\nif libc.ptrace(0x4206,{pid},0,0)!=0:\n  sys.exit(\"ptrace: \"+os.strerror(ctypes.get_errno()))\nlibc.ptrace(17,{pid},0,0)'"
    )
}

#[test]
fn ptrace_of_the_engine_and_of_the_parent_is_refused() {
    require_python3();
    let engine = std::process::id();
    let control = unsandboxed(&seize(engine));
    assert!(
        control.status.success(),
        "the control run could not ptrace the test process outside the sandbox either, so this test cannot tell the sandbox's refusal apart (run as root or with kernel.yama.ptrace_scope=0): {}",
        String::from_utf8_lossy(&control.stderr)
    );
    for mode in MODES {
        for path in PATHS {
            let mut s = Sandboxed::new(mode, false, path);
            let r = s.refused("ptrace engine", &seize(engine));
            assert!(
                stderr(&r).contains("ptrace: Operation not permitted"),
                "{r:?}"
            );
            let parent = seize(0).replace("ptrace(0x4206,0", "ptrace(0x4206,os.getppid()");
            let parent = parent.replace("ptrace(17,0", "ptrace(17,os.getppid()");
            s.refused("ptrace parent", &parent);
        }
    }
}

#[test]
fn signals_to_the_engine_are_refused() {
    let engine = std::process::id();
    let control = unsandboxed(&format!("kill -CONT {engine}"));
    assert!(control.status.success(), "control kill failed: {control:?}");
    for mode in MODES {
        for path in PATHS {
            let mut s = Sandboxed::new(mode, false, path);
            let r = s.refused("kill engine", &format!("kill -CONT {engine}"));
            assert!(r.sandbox.denied().is_some(), "{r:?}");
            s.refused("kill parent", "kill -CONT $PPID");
            // Its own children are inside the sandbox: signalling them works.
            let own = s.sh("sleep 5 & kill $! && wait $!; test $? -gt 128");
            assert_eq!(
                exec_data(&own.response, "own child").code,
                Some(0),
                "{own:?}"
            );
        }
    }
}

#[test]
fn new_namespaces_are_refused() {
    for mode in MODES {
        for path in PATHS {
            let mut s = Sandboxed::new(mode, false, path);
            for flags in ["-U", "-r", "-n", "-m", "-p -f"] {
                let r = s.refused("unshare", &format!("unshare {flags} true"));
                assert!(
                    stderr(&r).contains("Operation not permitted"),
                    "{flags}: {r:?}"
                );
            }
        }
    }
}

#[test]
fn mount_is_refused() {
    for mode in MODES {
        let mut s = Sandboxed::new(mode, false, Spawn::Direct);
        let target = s.o("sub");
        let r = s.sh(&format!("mount -t tmpfs none {target}"));
        let mounted = std::fs::read_to_string("/proc/self/mountinfo")
            .expect("mountinfo")
            .contains(&target);
        if mounted {
            let _ = Command::new("umount").arg(&target).status();
        }
        assert!(
            !mounted,
            "the sandboxed command mounted over {target}: {r:?}"
        );
        assert_ne!(exec_data(&r.response, "mount").code, Some(0), "{r:?}");
    }
}
