use super::*;
use crate::files::workspace::testutil::{Fixture, generated_tree, plane};

fn depth(d: u64) -> Depth {
    Depth::new(d).unwrap()
}

fn list(f: &Fixture, roots: &[&str], options: WalkOptions) -> Result<Vec<(String, u8, u64)>, u16> {
    walk(&plane(2), &f.ws, roots, options)
        .map(|out| {
            out.entries
                .into_iter()
                .map(|e| (e.path, e.kind.as_u8(), e.size))
                .collect()
        })
        .map_err(|e| e.code().as_u16())
}

fn paths(f: &Fixture, roots: &[&str], options: WalkOptions) -> Vec<String> {
    list(f, roots, options)
        .unwrap()
        .into_iter()
        .map(|(p, _, _)| p)
        .collect()
}

fn sample() -> Fixture {
    let f = Fixture::with_files(&[
        ("src/lib.rs", b"lib"),
        ("src/a/b/c.rs", b"ccc"),
        ("src/.env", b"SECRET"),
        (".git/config", b"cfg"),
        ("README", b"hello"),
    ]);
    f.dir("empty");
    f.symlink("src", "srclink");
    f.symlink("/", "rootlink");
    f
}

#[test]
fn depth_bounds() {
    assert_eq!(Depth::new(0).map(Depth::get), Some(0));
    assert_eq!(Depth::new(64).map(Depth::get), Some(64));
    assert_eq!(Depth::new(65), None);
    assert_eq!(Depth::new(u64::MAX), None);
}

#[test]
fn kinds_sizes_and_unfollowed_symlinks() {
    let f = sample();
    let got = list(&f, &["."], WalkOptions::new(depth(1))).unwrap();
    let expected = vec![
        (".".to_owned(), 1, 0),
        ("README".to_owned(), 0, 5),
        ("empty".to_owned(), 1, 0),
        ("rootlink".to_owned(), 2, 0),
        ("src".to_owned(), 1, 0),
        ("srclink".to_owned(), 2, 0),
    ];
    assert_eq!(got, expected);
}

#[test]
fn other_kind() {
    let f = Fixture::new();
    let socket = std::os::unix::net::UnixListener::bind(f.ws.root().join("sock")).unwrap();
    let got = list(&f, &["."], WalkOptions::new(depth(1))).unwrap();
    assert_eq!(got[1], ("sock".to_owned(), 3, 0));
    drop(socket);
}

#[test]
fn depth_limits() {
    let f = sample();
    let cases: &[(u64, &[&str])] = &[
        (0, &["."]),
        (1, &[".", "README", "empty", "rootlink", "src", "srclink"]),
        (
            2,
            &[
                ".",
                "README",
                "empty",
                "rootlink",
                "src",
                "src/a",
                "src/lib.rs",
                "srclink",
            ],
        ),
        (
            4,
            &[
                ".",
                "README",
                "empty",
                "rootlink",
                "src",
                "src/a",
                "src/a/b",
                "src/a/b/c.rs",
                "src/lib.rs",
                "srclink",
            ],
        ),
    ];
    for (d, expected) in cases {
        assert_eq!(
            paths(&f, &["."], WalkOptions::new(depth(*d))),
            *expected,
            "depth {d}"
        );
    }
}

#[test]
fn symlink_root_lists_canonical_paths() {
    let f = sample();
    assert_eq!(
        paths(&f, &["srclink"], WalkOptions::new(depth(1))),
        ["src", "src/a", "src/lib.rs"]
    );
    assert_eq!(
        paths(&f, &["srclink/lib.rs"], WalkOptions::new(depth(3))),
        ["src/lib.rs"]
    );
}

#[test]
fn hidden_filtering() {
    let f = sample();
    let mut options = WalkOptions::new(depth(64));
    let shown = paths(&f, &["."], options);
    assert!(
        !shown
            .iter()
            .any(|p| p.contains("/.") || p.starts_with(".g")),
        "{shown:?}"
    );
    options.hidden = true;
    let all = paths(&f, &["."], options);
    for hidden in [".git", ".git/config", "src/.env"] {
        assert!(all.iter().any(|p| p == hidden), "{hidden} in {all:?}");
    }
    // The walk root itself is never filtered, and its children are still filtered.
    assert_eq!(
        paths(&f, &[".git"], WalkOptions::new(depth(1))),
        [".git", ".git/config"]
    );
    assert_eq!(
        paths(&f, &["src"], WalkOptions::new(depth(1))),
        ["src", "src/a", "src/lib.rs"]
    );
    assert_eq!(
        paths(&f, &["src/.env"], WalkOptions::new(depth(0))),
        ["src/.env"]
    );
}

#[test]
fn state_dir_is_skipped_at_depth_one_only_when_marked() {
    for marked in [false, true] {
        let f = Fixture::with_files(&[("src/.ash/x", b"x"), (".ash/data", b"d")]);
        if marked {
            f.mark_state_dir();
        }
        let mut options = WalkOptions::new(depth(64));
        options.hidden = true;
        let got = paths(&f, &["."], options);
        let expected: &[&str] = if marked {
            &[".", "src", "src/.ash", "src/.ash/x"]
        } else {
            &[".", ".ash", ".ash/data", "src", "src/.ash", "src/.ash/x"]
        };
        assert_eq!(got, expected, "marked {marked}");
        let direct = list(&f, &[".ash"], options).map(|v| v.len());
        assert_eq!(
            direct,
            if marked { Err(300) } else { Ok(2) },
            "marked {marked}"
        );
    }
}

#[test]
fn kind_filters() {
    let f = sample();
    let mut options = WalkOptions::new(depth(64));
    options.filter = ListFilter::FilesOnly;
    assert_eq!(
        paths(&f, &["."], options),
        ["README", "src/a/b/c.rs", "src/lib.rs"]
    );
    options.filter = ListFilter::DirsOnly;
    assert_eq!(
        paths(&f, &["."], options),
        [".", "empty", "src", "src/a", "src/a/b"]
    );
    assert_eq!(paths(&f, &["README"], options), Vec::<String>::new());
}

#[test]
fn roots_merge_sort_and_dedup() {
    let f = sample();
    let got = paths(
        &f,
        &["src/lib.rs", "srclink", "src", "README"],
        WalkOptions::new(depth(1)),
    );
    assert_eq!(got, ["README", "src", "src/a", "src/lib.rs"]);
}

#[test]
fn sort_is_by_bytes() {
    let f = Fixture::with_files(&[
        ("B", b""),
        ("a-b", b""),
        ("a.b", b""),
        ("a/c", b""),
        ("é", b""),
        ("Z", b""),
    ]);
    let got = paths(&f, &["."], WalkOptions::new(depth(2)));
    assert_eq!(got, [".", "B", "Z", "a", "a-b", "a.b", "a/c", "é"]);
}

#[test]
fn root_errors() {
    let f = sample();
    std::fs::write(f.outside("secret"), b"s").unwrap();
    f.symlink(f.outside("secret"), "escape");
    let options = WalkOptions::new(depth(1));
    let cases: &[(&[&str], u16)] = &[
        (&["missing"], 201),
        (&["src", "missing"], 201),
        (&["escape"], 200),
        (&["rootlink"], 200),
        (&["../x"], 100),
        (&["missing", "escape"], 201),
        (&["escape", "missing"], 200),
    ];
    for (roots, code) in cases {
        assert_eq!(
            list(&f, roots, options).map(|_| ()),
            Err(*code),
            "{roots:?}"
        );
    }
}

#[test]
fn entry_ceiling() {
    let f = sample();
    let mut options = WalkOptions::new(depth(64));
    options.max_entries = 10;
    assert_eq!(list(&f, &["."], options).map(|v| v.len()), Ok(10));
    options.max_entries = 9;
    let err = walk(&plane(2), &f.ws, &["."], options).unwrap_err();
    assert_eq!(err.code().as_u16(), 601);
    assert_eq!(err.path(), Some("."));
    // Overlapping roots: each root stays within the ceiling and so does their union.
    let options = WalkOptions {
        depth: depth(1),
        max_entries: 3,
        ..options
    };
    assert_eq!(
        list(&f, &["src", "srclink"], options).map(|v| v.len()),
        Ok(3)
    );
}

#[test]
fn non_utf8_names_are_skipped_and_counted() {
    use std::os::unix::ffi::OsStrExt;
    let f = Fixture::with_files(&[("ok", b"")]);
    let name = std::ffi::OsStr::from_bytes(b"bad\xff");
    std::fs::create_dir(f.ws.root().join(name)).unwrap();
    std::fs::write(f.ws.root().join(name).join("inner"), b"").unwrap();
    let out = walk(&plane(1), &f.ws, &["."], WalkOptions::new(depth(64))).unwrap();
    let got: Vec<_> = out.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(got, [".", "ok"]);
    let expected = Skipped {
        non_utf8_names: 1,
        unreadable: 0,
    };
    assert_eq!(out.skipped, expected);
    assert!(out.skipped.any());
}

#[test]
fn worker_count_invariance() {
    let f = Fixture::new();
    generated_tree(&f, 400);
    let roots = [".", "d1", "link-to-d1", "d3/s1"];
    for hidden in [false, true] {
        let mut options = WalkOptions::new(depth(64));
        options.hidden = hidden;
        let outputs: Vec<_> = [1, 2, 4]
            .iter()
            .map(|w| walk(&plane(*w), &f.ws, &roots, options).unwrap())
            .collect();
        assert!(
            outputs[0].entries.len() > 300,
            "{}",
            outputs[0].entries.len()
        );
        assert_eq!(outputs[0], outputs[1]);
        assert_eq!(outputs[0], outputs[2]);
    }
}

#[test]
fn a_visiting_walk_hands_each_listed_file_its_open_directory() {
    let f = sample();
    let options = WalkOptions {
        filter: ListFilter::FilesOnly,
        ..WalkOptions::new(Depth::MAX)
    };
    let visit = |dir: &Arc<OwnedFd>, name: &str, entry: &WalkEntry| {
        let at = crate::files::workspace::At::new(Arc::clone(dir), name.into());
        let mut text = String::new();
        std::io::Read::read_to_string(&mut at.open_read().ok()?, &mut text).ok()?;
        Some(format!("{} {text}", entry.path))
    };
    // A root that is a file is resolved, not listed: it has no visit.
    let visited = plane(2)
        .install(|| walk_visiting(&f.ws, &["src", "README"], options, Some(&visit)))
        .expect("walk");
    let got: Vec<(String, Option<String>)> = visited
        .entries
        .into_iter()
        .map(|(entry, visit)| (entry.path, visit))
        .collect();
    let expected = [
        ("README", None),
        ("src/a/b/c.rs", Some("src/a/b/c.rs ccc")),
        ("src/lib.rs", Some("src/lib.rs lib")),
    ]
    .map(|(path, visit)| (path.to_owned(), visit.map(str::to_owned)));
    assert_eq!(
        got, expected,
        "visits stay beside their entries through the sort"
    );
    let plain = walk(&plane(2), &f.ws, &["src", "README"], options).expect("walk");
    let plain: Vec<&str> = plain.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(plain, ["README", "src/a/b/c.rs", "src/lib.rs"]);
}
