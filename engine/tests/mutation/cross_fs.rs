//! `place_temp` across filesystems: when the journal (in `.ash`) and the target sit on
//! different filesystems the staged content cannot be hard-linked beside the target, and is
//! copied there instead (forward, and when a rollback restores a preimage). Any other link
//! failure is a failure, never papered over by a copy. These tests mount a tmpfs inside the
//! workspace or set an immutable flag, so they need root.

use crate::client::*;
use crate::root::{require_root, run};
use ash_engine::txn::on_published;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted at a directory of the workspace, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path) -> Tmpfs {
        std::fs::create_dir(at).expect("mount point");
        run(Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs"])
            .arg(at));
        Tmpfs(at.to_owned())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o7777
}

/// No `.ash-…tmp` file is left in `dir`.
fn no_temp_in(dir: &Path) {
    for entry in std::fs::read_dir(dir).expect("list") {
        let name = entry.expect("entry").file_name();
        assert!(
            !name.to_string_lossy().starts_with(".ash-"),
            "temp left: {name:?}"
        );
    }
}

#[test]
#[ignore = "needs root: mounts a tmpfs in the workspace (cargo xtask test runs it as root)"]
fn a_replace_on_another_filesystem_copies_the_content_with_the_targets_mode() {
    require_root("mounts a tmpfs");
    let mut c = Client::new();
    let mnt = Tmpfs::mount(&c.path("mnt"));
    c.write("mnt/run.sh", b"echo one\n");
    std::fs::set_permissions(c.path("mnt/run.sh"), std::fs::Permissions::from_mode(0o751))
        .expect("chmod");
    let answer = c.ask(&patch(
        1,
        &[("mnt/run.sh", &hash(b"echo one\n"))],
        &[(0, 5, 3, "two")],
    ));
    assert!(answer.contains("\ns:0\n"), "{answer}");
    assert_eq!(c.read("mnt/run.sh"), Some(b"echo two\n".to_vec()));
    assert_eq!(
        mode(&c.path("mnt/run.sh")),
        0o751,
        "the target's mode is kept"
    );
    no_temp_in(&mnt.0);
    assert!(!c.path(".ash/transaction").exists());
}

#[test]
#[ignore = "needs root: mounts a tmpfs in the workspace (cargo xtask test runs it as root)"]
fn a_rollback_on_another_filesystem_copies_the_preimage_back() {
    require_root("mounts a tmpfs");
    let mut c = Client::new();
    let mnt = Tmpfs::mount(&c.path("mnt"));
    c.write("mnt/a.txt", b"alpha\n");
    std::fs::set_permissions(c.path("mnt/a.txt"), std::fs::Permissions::from_mode(0o640))
        .expect("chmod");
    c.write("z.txt", b"zulu\n");
    let other = c.path("z.txt");
    on_published(move || std::fs::write(&other, b"someone else\n").expect("concurrent write"));
    let answer = c.ask(&patch(
        2,
        &[
            ("mnt/a.txt", &hash(b"alpha\n")),
            ("z.txt", &hash(b"zulu\n")),
        ],
        &[(0, 0, 1, "A"), (1, 0, 1, "Z")],
    ));
    assert!(
        answer.contains("\ns:8\n"),
        "a conflict at the second file: {answer}"
    );
    assert_eq!(
        c.read("mnt/a.txt"),
        Some(b"alpha\n".to_vec()),
        "the first file is rolled back across the filesystems"
    );
    assert_eq!(mode(&c.path("mnt/a.txt")), 0o640);
    assert_eq!(c.read("z.txt"), Some(b"someone else\n".to_vec()));
    no_temp_in(&mnt.0);
    assert!(!c.path(".ash/transaction").exists());
}

#[test]
#[ignore = "needs root: sets the immutable flag on a staged file (cargo xtask test runs it as root)"]
fn a_link_refused_for_another_reason_is_not_replaced_by_a_copy() {
    require_root("sets the immutable flag");
    let mut c = Client::new();
    c.write("a.txt", b"alpha\n");
    let stage = c.path(".ash/transaction/stage/00000000");
    let flagged = stage.clone();
    on_published(move || run(Command::new("chattr").arg("+i").arg(&flagged)));
    let answer = c.ask(&patch(
        3,
        &[("a.txt", &hash(b"alpha\n"))],
        &[(0, 0, 1, "A")],
    ));
    run(Command::new("chattr").arg("-i").arg(&stage));
    assert_eq!(c.read("a.txt"), Some(b"alpha\n".to_vec()), "{answer}");
    // The immutable stage also keeps the journal from being deleted: recovery is required,
    // and the next transaction does it.
    assert!(
        answer.contains("\ns:5\n") && answer.contains("502,"),
        "{answer}"
    );
    let answer = c.ask(&patch(
        4,
        &[("a.txt", &hash(b"alpha\n"))],
        &[(0, 0, 1, "A")],
    ));
    assert!(answer.contains("\ns:0\n"), "{answer}");
    assert_eq!(c.read("a.txt"), Some(b"Alpha\n".to_vec()));
}
