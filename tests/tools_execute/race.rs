//! The symlink-swap race through ansa's own tools: while another process exchanges a workspace
//! directory with a symlink to a directory outside the workspace, `read` never returns outside
//! content and `files` never creates anything outside.

use super::Harness;
use std::path::Path;

#[path = "../../engine/tests/common/swap.rs"]
mod swap;
use swap::{start_swapper, stop_swapper};

const SECRET: &str = "SECRET-tools-91c2";
const ITERATIONS: usize = 200;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn read_and_files_never_cross_a_swapped_symlink() {
    let mut h = Harness::new(&[("d/f.txt", "inside\n")]);
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("f.txt"), format!("{SECRET}\n")).expect("write");
    std::os::unix::fs::symlink(outside.path(), h.dir.path().join("swap")).expect("symlink");
    let before = names(outside.path());
    let swapper = start_swapper(&h.dir.path().join("d"), &h.dir.path().join("swap"));
    let mut leaks = 0;
    let mut inside = 0;
    for n in 0..ITERATIONS {
        let read = h.call(
            "read",
            r#"{"paths":["d/f.txt"],"mode":"lines","offset":1,"length":5}"#,
        );
        let created = h.call(
            "files",
            &format!(
                r#"{{"actions":[{{"kind":"create","path":"d/new-{n}.txt","to":null,"content":"x"}}]}}"#
            ),
        );
        for text in [read, created].into_iter().flatten() {
            leaks += usize::from(text.contains(SECRET));
            inside += usize::from(text.contains("inside"));
        }
    }
    stop_swapper(swapper);
    assert_eq!(leaks, 0, "reads returned the outside file");
    assert_eq!(names(outside.path()), before, "nothing was created outside");
    assert!(
        inside > 0,
        "no read got through at all: the test tests nothing"
    );
}
