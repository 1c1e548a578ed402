//! File-metadata changes (chmod, chown, utime(s), xattrs) under the sandbox: Landlock has no
//! right for them, so the seccomp filter hands them to the supervising process, which allows
//! them only on objects beneath a writable root (by identity) and makes them itself. Outside:
//! refused with EPERM, reported as the sandbox's denial, the file's metadata unchanged (its
//! ctime included, which any change of mode, owner, times or xattrs moves). Inside: they work,
//! with the tools that use them.

use super::*;
use ash_engine::exec::sandbox::DenialKind;
use std::os::unix::fs::MetadataExt;

/// Everything a metadata change moves, symlink not followed.
fn meta(path: &Path) -> (u32, u32, u32, i64, i64, i64, i64) {
    let m = std::fs::symlink_metadata(path).expect("stat");
    (
        m.mode(),
        m.uid(),
        m.gid(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    )
}

fn each(attack: impl Fn(&mut Sandboxed)) {
    for mode in MODES {
        for path in PATHS {
            let mut s = Sandboxed::new(mode, false, path);
            attack(&mut s);
        }
    }
}

fn code(r: &Reported) -> Option<i64> {
    exec_data(&r.response, "code").code
}

/// `script` must fail, leave `victim`'s metadata (and the tree outside) as it was, and be
/// reported as the sandbox's denial of a change to `victim`.
fn refused_on(s: &mut Sandboxed, what: &str, script: &str, victim: &Path) -> Reported {
    let before = meta(victim);
    let r = s.refused(what, script);
    assert_eq!(
        meta(victim),
        before,
        "{what} changed {} ({:?}, {:?}): {r:?}",
        victim.display(),
        s.policy.mode,
        s.path
    );
    // EPERM from the supervisor; `touch` opens the file for writing first, which Landlock
    // refuses with EACCES.
    let err = stderr(&r);
    assert!(
        err.contains("Operation not permitted") || err.contains("Permission denied"),
        "{what}: {r:?}"
    );
    // The denial names the victim when the tool's message has its absolute path (a bare
    // relative name is reported as a denial without a path).
    let kind = r.sandbox.denied().map(|d| d.kind.clone());
    if err.contains(&victim.display().to_string()) {
        assert_eq!(
            kind,
            Some(DenialKind::Write(victim.to_path_buf())),
            "{what}: {r:?}"
        );
    } else {
        assert!(kind.is_some(), "{what}: {r:?}");
    }
    r
}

/// What every metadata tool does to `target`, one script per change.
fn changes(target: &str) -> Vec<(&'static str, String)> {
    vec![
        ("chmod", format!("chmod 600 {target}")),
        ("chmod +x", format!("chmod +x {target}")),
        (
            "chown to own uid",
            format!("chown $(id -u):$(id -g) {target}"),
        ),
        (
            "touch -d",
            format!("touch -d '2001-02-03 04:05:06' {target}"),
        ),
        (
            "python utime",
            format!("python3 -c \"import os; os.utime('{target}', (1, 2))\""),
        ),
        (
            "python utimensat now",
            format!("python3 -c \"import os; os.utime('{target}')\""),
        ),
        (
            "python setxattr",
            format!("python3 -c \"import os; os.setxattr('{target}', 'user.pwned', b'1')\""),
        ),
    ]
}

#[test]
fn metadata_changes_outside_are_refused_and_reported() {
    require_python3();
    each(|s| {
        std::fs::write(s.outside.join("xattr"), b"x").expect("xattr file");
        let status = Command::new("python3")
            .args([
                "-c",
                &format!(
                    "import os; os.setxattr('{}', 'user.keep', b'1')",
                    s.o("xattr")
                ),
            ])
            .status()
            .expect("python3");
        assert!(status.success(), "setting up an xattr outside");
        let victim = s.outside.join("victim");
        for (what, script) in changes(&s.o("victim")) {
            refused_on(s, what, &script, &victim);
        }
        let xattr = s.outside.join("xattr");
        let script = format!(
            "python3 -c \"import os; os.removexattr('{}', 'user.keep')\"",
            s.o("xattr")
        );
        refused_on(s, "python removexattr", &script, &xattr);
        // A directory outside, and the outside directory itself.
        let dir = s.outside.join("sub");
        refused_on(s, "chmod dir", &format!("chmod 700 {}", s.o("sub")), &dir);
        let before = meta(&s.outside);
        let r = s.refused(
            "chmod the outside dir",
            &format!("chmod 700 {}", s.outside.display()),
        );
        assert_eq!(meta(&s.outside), before, "{r:?}");
    });
}

#[test]
fn descriptor_calls_on_files_opened_outside_are_refused() {
    require_python3();
    each(|s| {
        let victim = s.outside.join("victim");
        let script = format!(
            "python3 -c \"import os; fd = os.open('{}', os.O_RDONLY); os.fchmod(fd, 0o600)\"",
            s.o("victim")
        );
        refused_on(s, "fchmod", &script, &victim);
        let script = format!(
            "python3 -c \"import os; fd = os.open('{}', os.O_RDONLY); os.utime(fd, (5, 6))\"",
            s.o("victim")
        );
        refused_on(s, "futimens", &script, &victim);
        let script = format!(
            "python3 -c \"import os; fd = os.open('{}', os.O_RDONLY); os.fchown(fd, os.getuid(), os.getgid())\"",
            s.o("victim")
        );
        refused_on(s, "fchown", &script, &victim);
    });
}

#[test]
fn relative_paths_symlinks_and_dir_fds_resolve_as_the_kernel_would() {
    require_python3();
    each(|s| {
        let victim = s.outside.join("victim");
        refused_on(s, "relative ..", "chmod 600 ../outside/victim", &victim);
        refused_on(
            s,
            "relative from a cwd outside",
            "cd ../outside && chmod 600 victim",
            &victim,
        );
        let before = meta(&victim);
        let r = s.sh(&format!("ln -s {} out; chmod 600 out", s.o("victim")));
        assert_ne!(code(&r), Some(0), "chmod through a symlink out: {r:?}");
        assert_eq!(meta(&victim), before, "{r:?}");
        let script = format!(
            "python3 -c \"import os; d = os.open('{}', os.O_RDONLY); os.chmod('victim', 0o600, dir_fd=d)\"",
            s.outside.display()
        );
        refused_on(s, "dir_fd outside", &script, &victim);
        // The outside symlink `link` -> victim, changed without following: refused too.
        let link = s.outside.join("link");
        let before = meta(&link);
        let r = s.refused(
            "lchown outside",
            &format!("chown -h $(id -u) {}", s.o("link")),
        );
        assert_eq!(meta(&link), before, "{r:?}");
        // /proc/self/... names the supervisor's view, never followed.
        let before = meta(&victim);
        let r = s.sh(&format!("chmod 600 /proc/self/root{}", s.o("victim")));
        assert_ne!(code(&r), Some(0), "{r:?}");
        assert_eq!(meta(&victim), before, "{r:?}");
    });
}

#[test]
fn metadata_changes_inside_the_writable_roots_work() {
    require_python3();
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        let tmp = tempfile::tempdir_in("/tmp").expect("dir in /tmp");
        let t = tmp.path().display().to_string();
        let script = format!(
            r#"set -e
printf '#!/bin/sh\necho ran\n' > tool.sh
chmod +x tool.sh
./tool.sh
mkdir -p sub src
echo a > src/a; chmod 640 src/a; touch -d '2001-02-03 04:05:06' src/a
cp -p src/a copy
test "$(stat -c %a:%Y copy)" = "$(stat -c %a:%Y src/a)"
chmod 751 src/a; tar cf t.tar src; rm -r src; tar xpf t.tar
test "$(stat -c %a src/a)" = 751
install -m 604 copy sub/installed
test "$(stat -c %a sub/installed)" = 604
chown $(id -u):$(id -g) copy
cd sub && chmod 612 ../copy && cd ..
test "$(stat -c %a copy)" = 612
python3 -c "import os; os.setxattr('copy', 'user.k', b'v'); print(os.getxattr('copy', 'user.k').decode()); os.removexattr('copy', 'user.k')"
python3 -c "import os; d = os.open('sub', os.O_RDONLY); os.chmod('installed', 0o600, dir_fd=d); os.utime('installed', (7, 8), dir_fd=d)"
test "$(stat -c %a:%Y sub/installed)" = 600:8
python3 -c "import os; fd = os.open('copy', os.O_RDONLY); os.fchmod(fd, 0o644); os.utime(fd, (3, 4))"
test "$(stat -c %a:%Y copy)" = 644:4
echo x > {t}/f; chmod 600 {t}/f; touch -d @99 {t}/f
test "$(stat -c %a:%Y {t}/f)" = 600:99
chmod 700 .
echo ok
"#
        );
        let r = s.sh(&script);
        let d = exec_data(&r.response, "inside");
        assert_eq!(d.code, Some(0), "{path:?}: {d:?}");
        assert_eq!(d.stdout.as_deref(), Some("ran\nv\nok\n"), "{path:?}: {d:?}");
        assert!(r.sandbox.denied().is_none(), "{r:?}");
    }
}

#[test]
fn a_symlink_inside_pointing_out_changes_only_itself_when_not_followed() {
    require_python3();
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        let victim = s.outside.join("victim");
        let before = meta(&victim);
        let script = format!(
            "set -e; ln -s {} out; chown -h $(id -u):$(id -g) out; touch -h -d @12345 out; stat -c %Y out; \
             python3 -c \"import ctypes
libc = ctypes.CDLL(None, use_errno=True)
rc = libc.syscall(452, -100, b'out', 0o600, 0x100)
print(ctypes.get_errno() if rc != 0 else 0)\"",
            s.o("victim")
        );
        let r = s.sh(&script);
        let d = exec_data(&r.response, "symlink inside");
        assert_eq!(d.code, Some(0), "{path:?}: {d:?}");
        // A symlink's mode cannot change (EOPNOTSUPP, as from the kernel).
        assert_eq!(
            d.stdout.as_deref(),
            Some(format!("12345\n{}\n", libc::EOPNOTSUPP).as_str()),
            "{d:?}"
        );
        assert_eq!(meta(&victim), before, "{path:?}: {d:?}");
    }
}

#[test]
fn read_only_refuses_metadata_changes_in_the_workspace_too() {
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::ReadOnly, false, path);
        let f = s.ws.join("f");
        std::fs::write(&f, b"x").expect("file");
        let before = meta(&f);
        let r = s.sh("chmod 600 f; touch -d @5 f; chown $(id -u) f");
        assert_ne!(code(&r), Some(0), "{r:?}");
        assert_eq!(meta(&f), before, "{path:?}: {r:?}");
        assert!(stderr(&r).contains("Operation not permitted"), "{r:?}");
    }
}

#[test]
fn a_shared_sticky_root_keeps_its_own_mode_owner_and_acls() {
    use std::os::unix::fs::PermissionsExt;
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        // A scratch root like /tmp, owned by the test's user so the kernel itself would let
        // the user change it: only the supervisor's rule stands in the way.
        let shared = s.base.path().canonicalize().expect("base").join("shared");
        std::fs::create_dir(&shared).expect("shared");
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).expect("sticky");
        s.policy.writable.push(shared.clone());
        let d = shared.display().to_string();
        let before = meta(&shared);
        for (what, script) in [
            ("chmod the root", format!("chmod 0755 {d}")),
            ("chown the root", format!("chown $(id -u):$(id -g) {d}")),
            (
                "chmod the root through a descriptor",
                format!("cd {d} && chmod 0700 ."),
            ),
        ] {
            let r = s.sh(&script);
            assert_ne!(code(&r), Some(0), "{what} ({path:?}): {r:?}");
            assert!(
                stderr(&r).contains("Operation not permitted"),
                "{what}: {r:?}"
            );
            assert_eq!(meta(&shared), before, "{what} ({path:?}): {r:?}");
        }
        // Beneath it everything works, and the root's own times may be touched.
        let r = s.sh(&format!(
            "set -e; echo x > {d}/f; chmod 600 {d}/f; touch -d @77 {d}; stat -c %a:%Y {d}/f {d}"
        ));
        let out = exec_data(&r.response, "beneath");
        assert_eq!(out.code, Some(0), "{path:?}: {out:?}");
        assert_eq!(
            out.stdout.as_deref().and_then(|o| o.lines().next()),
            Some("600:".to_owned() + &meta_mtime(&shared.join("f"))).as_deref(),
            "{out:?}"
        );
        assert_eq!(
            std::fs::metadata(&shared).expect("stat").mode() & 0o7777,
            0o1777
        );
        assert_eq!(std::fs::metadata(&shared).expect("stat").mtime(), 77);
    }
}

fn meta_mtime(path: &Path) -> String {
    std::fs::metadata(path).expect("stat").mtime().to_string()
}

#[test]
fn a_daemon_left_behind_is_still_served_after_the_command_exits() {
    // Directly spawned only: the exec supervisor ends every descendant with the command.
    let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, Spawn::Direct);
    let f = s.ws.join("f");
    std::fs::write(&f, b"x").expect("file");
    std::fs::set_permissions(&f, std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .expect("mode");
    let victim = s.outside.join("victim");
    let before = meta(&victim);
    let script = format!(
        "(sleep 1; chmod 600 f; chmod 600 {v}; echo $? > refused; echo done > marker) >/dev/null 2>&1 </dev/null & echo started",
        v = s.o("victim")
    );
    let r = s.sh(&script);
    assert_eq!(code(&r), Some(0), "{r:?}");
    let marker = s.ws.join("marker");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !marker.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the daemon never finished: its chmod was not answered"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(meta(&f).0 & 0o7777, 0o600, "the daemon's chmod inside");
    assert_eq!(meta(&victim), before, "the daemon changed the victim");
    assert_eq!(
        std::fs::read_to_string(s.ws.join("refused")).expect("status"),
        "1\n"
    );
}

#[test]
fn racing_threads_that_swap_the_path_never_change_anything_outside() {
    require_python3();
    for path in PATHS {
        let mut s = Sandboxed::new(SandboxMode::WorkspaceWrite, false, path);
        // Same length as "../outside/victim", so the swap is a plain overwrite.
        let inside = "inside_file_00017";
        std::fs::write(s.ws.join(inside), b"x").expect("inside");
        let victim = s.outside.join("victim");
        let before = meta(&victim);
        let script = format!(
            r#"python3 - <<'PY'
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
paths = [b"{inside}", b"../outside/victim"]
assert len(paths[0]) == len(paths[1])
buf = ctypes.create_string_buffer(paths[0], 64)
stop = threading.Event()
counts = {{"ok": 0, "eperm": 0}}
other = set()
lock = threading.Lock()
def swap():
    i = 0
    while not stop.is_set():
        i ^= 1
        ctypes.memmove(buf, paths[i], len(paths[i]))
def hammer(mode):
    for _ in range(300):
        rc = libc.chmod(buf, mode)
        e = ctypes.get_errno()
        with lock:
            if rc == 0: counts["ok"] += 1
            elif e == 1: counts["eperm"] += 1
            else: other.add(e)
t = threading.Thread(target=swap); t.start()
ws = [threading.Thread(target=hammer, args=(0o600 + (n % 2) * 0o44,)) for n in range(8)]
for w in ws: w.start()
for w in ws: w.join()
stop.set(); t.join()
# A path read while it is half swapped names nothing (ENOENT), as it would for the kernel.
print(counts["ok"] > 0, counts["eperm"] > 0, sorted(other - {{2}}))
PY"#
        );
        let r = s.sh(&script);
        let d = exec_data(&r.response, "race");
        assert_eq!(d.code, Some(0), "{path:?}: {d:?}");
        assert_eq!(meta(&victim), before, "{path:?}: the victim changed: {d:?}");
        assert_eq!(
            d.stdout.as_deref(),
            Some("True True []\n"),
            "{path:?}: {d:?}"
        );
    }
}
