//! Holes a hostile review found, each tried through real processes: a writable root swapped
//! for a symlink by one command to widen the next one's sandbox, device nodes made in the
//! workspace (as root), capabilities kept by a root command, the workspace at `/`, and
//! limits or scheduling of processes outside the sandbox changed from inside it.

use super::*;
use ash_engine::exec::sandbox::SandboxError;

/// A sandbox whose workspace lies in a writable root (as a workspace under /tmp does), so a
/// command can move the workspace away and put a symlink in its place.
fn in_writable_parent(path: Spawn) -> Sandboxed {
    let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
    let parent = s.base.path().canonicalize().expect("base").join("parent");
    let ws = parent.join("ws");
    std::fs::create_dir_all(&ws).expect("ws");
    s.session = session_on(&ws);
    s.ws = ws;
    s.policy.writable = vec![parent];
    s
}

#[test]
fn a_workspace_swapped_for_a_symlink_refuses_the_next_command() {
    for path in PATHS {
        let mut s = in_writable_parent(path);
        let ok = s.sh("echo ok > inside");
        assert_eq!(exec_data(&ok.response, "first").code, Some(0), "{ok:?}");
        let before = tree(&s.outside);
        let swap = s.sh(&format!(
            "cd .. && mv ws ws.old && ln -s {} ws",
            s.outside.display()
        ));
        assert_eq!(exec_data(&swap.response, "swap").code, Some(0), "{swap:?}");
        let r = s.sh(&format!("echo pwned > {}", s.ws.join("victim").display()));
        assert!(
            matches!(r.sandbox.refused(), Some(SandboxError::RootReplaced { path: p }) if *p == s.ws),
            "{path:?}: {r:?}"
        );
        assert!(
            r.sandbox
                .refused()
                .expect("refused")
                .to_string()
                .contains("no longer the directory"),
            "{r:?}"
        );
        assert_eq!(tree(&s.outside), before, "{path:?}: wrote outside");
    }
}

#[test]
fn a_listed_root_swapped_for_a_symlink_refuses_the_next_command() {
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        let parent = s.ws.join("parent");
        let extra = parent.join("extra");
        std::fs::create_dir_all(&extra).expect("extra");
        s.policy.writable = vec![extra.clone()];
        let ok = s.sh("echo ok > parent/extra/file");
        assert_eq!(exec_data(&ok.response, "first").code, Some(0), "{ok:?}");
        let before = tree(&s.outside);
        let swap = s.sh(&format!(
            "mv parent/extra parent/extra.old && ln -s {} parent/extra",
            s.outside.display()
        ));
        assert_eq!(exec_data(&swap.response, "swap").code, Some(0), "{swap:?}");
        let r = s.sh(&format!("echo pwned > {}", s.o("victim")));
        assert!(
            matches!(r.sandbox.refused(), Some(SandboxError::RootReplaced { path: p }) if *p == extra),
            "{path:?}: {r:?}"
        );
        // Another real directory in its place is refused too, never silently adopted.
        let replace = std::fs::remove_file(&extra).and_then(|()| std::fs::create_dir(&extra));
        replace.expect("replace with a directory");
        let r = s.sh("echo again > marker");
        assert!(
            matches!(r.sandbox.refused(), Some(SandboxError::RootReplaced { .. })),
            "{path:?}: {r:?}"
        );
        assert!(!s.ws.join("marker").exists(), "the command ran");
        assert_eq!(tree(&s.outside), before, "{path:?}: wrote outside");
    }
}

#[test]
fn a_listed_root_with_a_symlinked_component_is_refused() {
    let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, Spawn::Direct);
    let link = s.base.path().join("outside-link");
    std::os::unix::fs::symlink(&s.outside, &link).expect("symlink");
    s.policy.writable = vec![link.join("sub")];
    let r = s.sh("echo ran > marker");
    let err = r.sandbox.refused().unwrap_or_else(|| panic!("ran: {r:?}"));
    assert!(
        matches!(err, SandboxError::WritableMissing { .. }) && err.to_string().contains("symlink"),
        "{err}"
    );
    assert!(!s.ws.join("marker").exists(), "the command ran");
}

/// The `CapEff`, `CapPrm` and `CapBnd` lines of a process's status.
const CAPS: &str = "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status";

#[test]
fn device_nodes_cannot_be_made_and_no_capability_is_kept() {
    let control = unsandboxed(CAPS);
    let control = String::from_utf8_lossy(&control.stdout).into_owned();
    // As root (how this project's tests run) the control has capabilities to lose, and the
    // bounding set must be emptied too; as another user mknod fails for lack of CAP_MKNOD
    // alone, and the bounding set (which only root may shrink) stays.
    let root = control
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:\t"))
        .is_some_and(|caps| caps.trim() != "0000000000000000");
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        let r = s.refused("mknod block", "mknod blk b 7 0");
        assert!(!s.ws.join("blk").exists(), "{path:?}: block device made");
        let r2 = s.refused("mknod char", "mknod chr c 1 3");
        assert!(!s.ws.join("chr").exists(), "{path:?}: char device made");
        for r in [&r, &r2] {
            assert!(
                stderr(r).contains("Operation not permitted")
                    || stderr(r).contains("Permission denied"),
                "{r:?}"
            );
        }
        let caps = s.sh(CAPS);
        let d = exec_data(&caps.response, "caps");
        assert_eq!(d.code, Some(0), "{caps:?}");
        let out = d.stdout.clone().unwrap_or_default();
        for line in [
            "CapEff:\t0000000000000000",
            "CapPrm:\t0000000000000000",
            "CapBnd:\t0000000000000000",
        ] {
            if line.starts_with("CapBnd") && !root {
                continue;
            }
            assert!(
                out.contains(line),
                "{path:?}, root {root}: {out} (control {control})"
            );
        }
        // Files and directories are still made.
        let ok = s.sh("mkfifo fifo && mkdir d && echo x > d/f");
        assert_eq!(exec_data(&ok.response, "fifo").code, Some(0), "{ok:?}");
    }
}

#[test]
fn a_workspace_at_the_filesystem_root_is_refused() {
    let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, Spawn::Direct);
    s.session = session_on(Path::new("/"));
    let marker = s.o("marker");
    let r = s.sh(&format!("echo ran > {marker}"));
    assert_eq!(
        r.sandbox.refused(),
        Some(&SandboxError::WorkspaceIsRoot),
        "{r:?}"
    );
    assert!(!Path::new(&marker).exists(), "the command ran");
    // Read-only writes nothing, so `/` is a fine workspace for it.
    s.policy.mode = SandboxMode::ReadOnly;
    let r = s.sh("true");
    assert_eq!(exec_data(&r.response, "read-only").code, Some(0), "{r:?}");
}

/// A process of the user's outside the sandbox, to aim at.
struct Target(std::process::Child);

impl Target {
    fn start() -> Target {
        Target(Command::new("sleep").arg("60").spawn().expect("sleep"))
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    /// Its open-files limit, nice value, CPU affinity and I/O priority.
    fn state(&self) -> String {
        let pid = self.pid();
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).expect("limits");
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
        let ionice = Command::new("ionice")
            .args(["-p", &pid.to_string()])
            .output()
            .expect("ionice");
        let affinity = Command::new("taskset")
            .args(["-p", &pid.to_string()])
            .output()
            .expect("taskset");
        format!(
            "{limits}\n{}\n{}{}",
            // Fields 18 and 19 (priority, nice), counted after the command name.
            stat.rsplit(')')
                .next()
                .unwrap_or_default()
                .split_whitespace()
                .skip(15)
                .take(2)
                .collect::<Vec<_>>()
                .join(" "),
            String::from_utf8_lossy(&ionice.stdout),
            String::from_utf8_lossy(&affinity.stdout)
        )
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn limits_and_scheduling_of_other_processes_cannot_be_changed() {
    let target = Target::start();
    let pid = target.pid();
    let engine = std::process::id();
    let attacks = [
        ("prlimit", format!("prlimit --pid {pid} --nofile=100:100")),
        (
            "prlimit engine",
            format!("prlimit --pid {engine} --core=0:0"),
        ),
        ("renice", format!("renice -n 5 -p {pid}")),
        ("renice user", "renice -n 5 -u $(id -u)".to_owned()),
        ("taskset", format!("taskset -p 1 {pid}")),
        ("ionice", format!("ionice -c 3 -p {pid}")),
    ];
    for mode in MODES {
        for path in PATHS {
            let mut s = Sandboxed::new(mode, false, path);
            let before = target.state();
            for (what, script) in &attacks {
                s.refused(what, script);
                assert_eq!(
                    target.state(),
                    before,
                    "{what} ({mode:?}, {path:?}) changed the target"
                );
            }
            // The command's own limits and priority are its to change.
            let own = s.sh("ulimit -n 100 && nice -n 5 true && ionice -c 3 true && taskset 1 true && test \"$(ulimit -n)\" = 100");
            assert_eq!(
                exec_data(&own.response, "own").code,
                Some(0),
                "{mode:?}, {path:?}: {own:?}"
            );
        }
    }
    // The control: outside the sandbox the same call does change the target.
    let control = unsandboxed(&format!("prlimit --pid {pid} --nofile=100:100"));
    assert!(control.status.success(), "{control:?}");
    assert!(
        target.state().contains("100                  100"),
        "{}",
        target.state()
    );
}
