//! The fixture workspace every case runs in: plain, CRLF and non-UTF-8 files, links inside and
//! out of the workspace, a dangling link, a FIFO, an executable script, a large file and a
//! table-valued `.ason` file. Built afresh, identically, for every run.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Bytes of `big.txt`: larger than any inline budget the cases use.
pub const BIG_LINES: usize = 20_000;

/// Adds a `.ash` directory of the user's to the workspace at `root/ws`: a name ash reserves
/// for its state directory, holding the user's own file and no marker.
pub fn user_state_dir(root: &Path) {
    let dir = root.join("ws/.ash");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "the user's own hello\n").unwrap();
}

/// Builds the workspace at `root/ws` (and `root/outside.txt`, which a link points at).
pub fn build(root: &Path) {
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join("sub/deep")).unwrap();
    std::fs::write(root.join("outside.txt"), "outside the workspace\n").unwrap();
    let write = |rel: &str, bytes: &[u8]| std::fs::write(ws.join(rel), bytes).unwrap();
    write("a.txt", b"hello world\nsecond line\nthird hello\n");
    write("crlf.txt", b"one\r\ntwo hello\r\nthree\r\n");
    write("bin.dat", b"\xff\xfe\x00binary hello\n");
    write("empty.txt", b"");
    write("noeol.txt", b"no newline at the end");
    write(".hidden", b"hidden hello\n");
    write("sub/b.txt", b"in sub\nhello from sub\n");
    write("sub/deep/c.txt", b"deep hello\n");
    let big: String = (0..BIG_LINES)
        .map(|n| format!("line {n} of the big file\n"))
        .collect();
    write("big.txt", big.as_bytes());
    write(
        "table.ason",
        b"k:t\nrows[3]{name,size,kind}:\nalpha,10,file\nbeta,20,dir\ngamma,30,file\n",
    );
    write("script.sh", b"#!/bin/sh\necho script ran \"$@\"\n");
    std::fs::set_permissions(ws.join("script.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("a.txt", ws.join("link-in")).unwrap();
    std::os::unix::fs::symlink("sub", ws.join("link-dir")).unwrap();
    std::os::unix::fs::symlink("../outside.txt", ws.join("link-out")).unwrap();
    std::os::unix::fs::symlink("nowhere.txt", ws.join("dangling")).unwrap();
    nix::unistd::mkfifo(
        &ws.join("fifo"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .unwrap();
}

/// BLAKE3 of a fixture file, hex (what a patch or fs request names as its preimage).
pub fn digest(rel: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    blake3::hash(&std::fs::read(dir.path().join("ws").join(rel)).unwrap())
        .to_hex()
        .to_string()
}
