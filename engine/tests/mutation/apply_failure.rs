//! A step that fails after it changed the workspace: the failing action itself is rolled back
//! too, not only the ones before it.

use crate::client::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Makes a directory refuse unlinking while it is alive: append-only as root (root ignores
/// permission bits), read-only otherwise. Linking out of it keeps working either way.
struct NoUnlink(PathBuf);

impl NoUnlink {
    fn new(dir: &Path) -> NoUnlink {
        if crate::root::is_root() {
            crate::root::run(Command::new("chattr").arg("+a").arg(dir));
        } else {
            set_mode(dir, 0o555);
        }
        NoUnlink(dir.to_owned())
    }
}

impl Drop for NoUnlink {
    fn drop(&mut self) {
        if crate::root::is_root() {
            crate::root::run(Command::new("chattr").arg("-a").arg(&self.0));
        } else {
            set_mode(&self.0, 0o755);
        }
    }
}

fn set_mode(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn a_move_whose_source_cannot_be_unlinked_is_undone_at_its_new_name() {
    let mut c = Client::new();
    c.write("src/a.txt", b"moving\n");
    let guard = NoUnlink::new(&c.path("src"));
    let answer = c.ask(&fs(
        1,
        &[format!("2,src/a.txt,b.txt,{},~", hash(b"moving\n"))],
    ));
    drop(guard);
    assert_eq!(answer, error(1, 5, 500, 2, 4), "{answer}");
    assert_eq!(c.read("src/a.txt"), Some(b"moving\n".to_vec()));
    assert_eq!(
        c.read("b.txt"),
        None,
        "the link made by the failing step is undone"
    );
    assert!(!c.path(".ash/transaction").exists(), "the journal is gone");
}
