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

/// A python3 one-liner that makes raw system call `nr` with `args` and exits with its errno
/// (0 when the call succeeded).
fn raw_syscall(nr: u64, args: &str) -> String {
    format!(
        "exec python3 -c 'import ctypes,sys\nlibc=ctypes.CDLL(None,use_errno=True)\nr=libc.syscall({nr}{args})\nsys.exit(0 if r>=0 else ctypes.get_errno())'"
    )
}

#[test]
fn io_uring_is_refused() {
    require_python3();
    // io_uring_setup is 425 on x86_64 and aarch64; 1 entry, a zeroed params block.
    let setup = raw_syscall(425, ",1,ctypes.create_string_buffer(120)");
    for mode in MODES {
        let mut s = Sandboxed::new(mode, true, Spawn::Direct);
        let r = s.sh(&setup);
        assert_eq!(
            exec_data(&r.response, "io_uring").code,
            Some(i64::from(libc::EACCES)),
            "{r:?}"
        );
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn x32_system_calls_are_refused() {
    require_python3();
    // socket(AF_INET, SOCK_STREAM, 0) by its x32 number: refused by the filter (EACCES), not
    // answered by the kernel (which gives ENOSYS where x32 is off).
    let x32_socket = raw_syscall(0x4000_0000 + 41, ",2,1,0");
    for network in [false, true] {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, network, Spawn::Direct);
        let r = s.sh(&x32_socket);
        assert_eq!(
            exec_data(&r.response, "x32").code,
            Some(i64::from(libc::EACCES)),
            "{r:?}"
        );
    }
}

#[test]
fn threads_forks_and_pipelines_still_work() {
    require_python3();
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        // clone3 answers ENOSYS in the sandbox; the C library must fall back to clone.
        let script = "python3 -c 'import threading\nt=threading.Thread(target=print,args=(\"thread\",))\nt.start()\nt.join()' && echo a | tr a b && (sleep 0.01 & wait)";
        let r = s.sh(script);
        let d = exec_data(&r.response, "threads");
        assert_eq!(d.code, Some(0), "{d:?}");
        assert_eq!(d.stdout.as_deref(), Some("thread\nb\n"), "{d:?}");
    }
}

#[test]
fn typing_into_a_terminal_is_refused() {
    require_python3();
    // On stdin (not a terminal) the kernel answers ENOTTY; the filter answers EPERM first.
    let tiocsti = "exec python3 -c 'import fcntl,sys,termios\ntry:\n  fcntl.ioctl(0,termios.TIOCSTI,b\"x\")\nexcept OSError as e:\n  sys.exit(e.errno)'";
    let control = unsandboxed(tiocsti);
    assert_eq!(control.status.code(), Some(libc::ENOTTY), "{control:?}");
    for mode in MODES {
        let mut s = Sandboxed::new(mode, true, Spawn::Direct);
        let r = s.sh(tiocsti);
        assert_eq!(
            exec_data(&r.response, "TIOCSTI").code,
            Some(i64::from(libc::EPERM)),
            "{r:?}"
        );
    }
}
