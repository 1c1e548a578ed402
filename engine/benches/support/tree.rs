//! The benchmark tree shared by `read_plane` and `search_scale`: 256 files × 32 KiB of
//! Rust-like lines in 16 directories, every 97th line a marker line, repeated `copies` times.

use std::path::Path;

/// Files in one copy of the tree.
pub const FILES: usize = 256;
/// Bytes per file (each file ends at the first line past this size).
pub const FILE_BYTES: usize = 32 * 1024;

/// Writes `copies` copies of the tree below `root`: the only copy directly in `root` when
/// `copies` is 1, otherwise copy k in `c{k:02}`. Line `n` of a file is `marker(n)` when
/// `n % 97 == 13`.
pub fn generate(root: &Path, copies: usize, marker: &dyn Fn(usize) -> String) {
    for copy in 0..copies {
        let base = if copies == 1 {
            root.to_path_buf()
        } else {
            root.join(format!("c{copy:02}"))
        };
        for f in 0..FILES {
            let d = base.join(format!("d{:02}", f % 16));
            std::fs::create_dir_all(&d).expect("mkdir");
            let text = file_text(f, FILE_BYTES, marker);
            std::fs::write(d.join(format!("f{f:04}.txt")), text).expect("write");
        }
    }
}

/// The text of file `f`: lines until past `bytes`, line `n` being `marker(n)` when
/// `n % 97 == 13`.
pub fn file_text(f: usize, bytes: usize, marker: &dyn Fn(usize) -> String) -> String {
    let mut text = String::with_capacity(bytes + 128);
    let mut line = 0usize;
    while text.len() < bytes {
        if line % 97 == 13 {
            text.push_str(&marker(line));
        } else {
            text.push_str(&format!(
                "    fn helper_{f}_{line}(value: usize) -> usize {{ value * {line} + 7 }}\n"
            ));
        }
        line += 1;
    }
    text
}
