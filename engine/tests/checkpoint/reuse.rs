//! Git-index-style reuse: an unchanged file is not read again; any change to its stamp or mode
//! makes the next capture read it; each distinct content is stored once.

use std::time::Duration;

use ash_engine::checkpoint::{CaptureRules, ChangeKind, Node, capture, diff};

use crate::support::{Fixture, entry, file_content};

fn tree(f: &Fixture) {
    for i in 0..50 {
        f.write(
            &format!("src/m{i}.rs"),
            format!("pub fn f{i}() {{}}\n").as_bytes(),
        );
    }
    f.write("README", b"readme\n");
}

#[test]
fn an_unchanged_tree_reads_no_file_and_gives_the_same_checkpoint() {
    let f = Fixture::new();
    tree(&f);
    let (store, first) = f.capture();
    assert_eq!(first.stats.files_read, 51);
    let ws = f.ws();
    let second = capture(&ws, &store, Some(&first.manifest), &CaptureRules::default()).unwrap();
    assert_eq!(second.stats.files_read, 0, "{:?}", second.stats);
    assert_eq!(second.stats.files_reused, 51);
    assert_eq!(second.stats.objects_written, 0);
    assert_eq!(second.id, first.id);
    assert_eq!(second.manifest, first.manifest);
}

#[test]
fn a_changed_file_is_read_again_even_with_its_size_and_mtime_restored() {
    let f = Fixture::new();
    tree(&f);
    let (store, first) = f.capture();
    let path = f.root.join("src/m7.rs");
    let before = std::fs::metadata(&path).unwrap();
    // Same length, same mtime put back: only the ctime (and nothing else) tells.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&path, b"pub fn XX() {}\n").unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    drop(file);
    f.chmod("README", 0o600);
    let second = capture(
        &f.ws(),
        &store,
        Some(&first.manifest),
        &CaptureRules::default(),
    )
    .unwrap();
    assert_eq!(second.stats.files_read, 2, "{:?}", second.stats);
    assert_eq!(
        file_content(&store, &second.manifest, "src/m7.rs"),
        b"pub fn XX() {}\n"
    );
    let changes = diff(&first.manifest, &second.manifest);
    let kinds: Vec<_> = changes.iter().map(|c| (c.path.as_str(), c.kind)).collect();
    assert_eq!(
        kinds,
        [
            ("README", ChangeKind::ModeChanged),
            ("src/m7.rs", ChangeKind::Modified)
        ]
    );
}

#[test]
fn a_file_replaced_in_place_by_another_inode_is_read_again() {
    let f = Fixture::new();
    tree(&f);
    let (store, first) = f.capture();
    // Rename a same-size file over it: a new inode.
    f.write("tmp.rs", b"pub fn f9() {}\n");
    let old = std::fs::metadata(f.root.join("src/m9.rs")).unwrap();
    std::fs::rename(f.root.join("tmp.rs"), f.root.join("src/m9.rs")).unwrap();
    let file = std::fs::File::options()
        .write(true)
        .open(f.root.join("src/m9.rs"))
        .unwrap();
    file.set_modified(old.modified().unwrap()).unwrap();
    drop(file);
    let second = capture(
        &f.ws(),
        &store,
        Some(&first.manifest),
        &CaptureRules::default(),
    )
    .unwrap();
    assert_eq!(second.stats.files_read, 1, "{:?}", second.stats);
    // Same bytes, so the same object: nothing new stored.
    assert_eq!(second.stats.objects_written, 0);
    assert_eq!(
        entry(&second.manifest, "src/m9.rs").state,
        entry(&first.manifest, "src/m9.rs").state
    );
}

#[test]
fn the_same_content_is_stored_once() {
    let f = Fixture::new();
    let body = b"identical content, many names\n".repeat(100);
    for i in 0..20 {
        f.write(&format!("copies/c{i}.txt"), &body);
    }
    let big = b"a large file streamed in chunks ".repeat(70_000);
    f.write("big1", &big);
    f.write("big2", &big);
    let (store, captured) = f.capture();
    assert_eq!(store.object_count(), 2);
    assert_eq!(captured.stats.objects_written, 2);
    let digests: std::collections::HashSet<_> = captured
        .manifest
        .entries
        .iter()
        .filter_map(|e| match &e.state {
            Ok(Node::File { digest, .. }) => Some(*digest),
            _ => None,
        })
        .collect();
    assert_eq!(digests.len(), 2);
    assert_eq!(file_content(&store, &captured.manifest, "big2"), big);
    // A second session store of the same tree: one object file per content on disk too.
    let objects = crate::support::files_below(&f.store_dir.join("objects"));
    assert_eq!(objects.len(), 2, "{objects:?}");
}

#[test]
fn a_file_changed_just_before_its_read_is_read_again_once_the_clock_moved_on() {
    // Written and captured at once, its change time is within two clock ticks of the read: the
    // capture waits for the clock and reads it again, so the next capture may trust the stamp.
    let f = Fixture::new();
    let store = f.store(1 << 30);
    let mut reread = false;
    for attempt in 0..20 {
        f.write("hot.txt", format!("version {attempt}\n").as_bytes());
        let captured = capture(&f.ws(), &store, None, &CaptureRules::default()).unwrap();
        assert_eq!(
            file_content(&store, &captured.manifest, "hot.txt"),
            format!("version {attempt}\n").as_bytes()
        );
        if captured.stats.racy_rereads == 1 {
            reread = true;
            break;
        }
    }
    assert!(
        reread,
        "a file written right before the capture was never read again"
    );
}

#[test]
fn a_file_growing_during_the_capture_is_kept_consistent_or_reported() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    let f = Fixture::new();
    tree(&f);
    let path = f.root.join("growing.log");
    std::fs::write(&path, b"").unwrap();
    let stop = AtomicBool::new(false);
    let store = f.store(1 << 30);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                writeln!(file, "line {n}").unwrap();
                n += 1;
            }
        });
        for _ in 0..5 {
            let captured = capture(&f.ws(), &store, None, &CaptureRules::default()).unwrap();
            let now = std::fs::read(&path).unwrap();
            match &entry(&captured.manifest, "growing.log").state {
                // What was kept is exactly the file as it was at one moment: a prefix.
                Ok(Node::File { digest, size }) => {
                    let size = *size as usize;
                    assert!(size <= now.len());
                    assert_eq!(ash_engine::protocol::Digest::of(&now[..size]), *digest);
                    assert_eq!(
                        entry(&captured.manifest, "growing.log").stamp.size,
                        size as u64
                    );
                }
                Err(ash_engine::checkpoint::Unrestorable::Unreadable { reason }) => {
                    assert!(reason.contains("kept changing"), "{reason}");
                }
                other => panic!("{other:?}"),
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
}
