use std::num::NonZeroU64;

use super::*;
use crate::files::workspace::testutil::{Fixture, plane};

fn nz(n: u64) -> NonZeroU64 {
    NonZeroU64::new(n).unwrap()
}

fn bytes(offset: u64, len: u64) -> Selection {
    Selection::Bytes {
        offset,
        len: nz(len),
    }
}

fn lines(first: u64, count: u64) -> Selection {
    Selection::Lines {
        first: nz(first),
        count: nz(count),
    }
}

/// (offset, count, text) of a successful read.
fn sel(f: &Fixture, path: &str, selection: Selection) -> (u64, u64, String) {
    let out = read_file(&f.ws, path, selection).unwrap();
    (out.offset, out.count, String::from_utf8(out.bytes).unwrap())
}

#[test]
fn byte_mode() {
    let f = Fixture::with_files(&[("f", b"0123456789"), ("empty", b"")]);
    let cases: &[(&str, Selection, (u64, u64, &str))] = &[
        ("f", bytes(0, 4), (0, 4, "0123")),
        ("f", bytes(3, 2), (3, 2, "34")),
        ("f", bytes(8, 100), (8, 2, "89")),
        ("f", bytes(10, 1), (10, 0, "")),
        ("f", bytes(25, 1), (10, 0, "")),
        ("f", bytes(u64::MAX, u64::MAX), (10, 0, "")),
        ("f", bytes(1, u64::MAX), (1, 9, "123456789")),
        ("empty", bytes(0, 5), (0, 0, "")),
        ("empty", bytes(7, 5), (0, 0, "")),
    ];
    for (path, selection, (o, n, t)) in cases {
        assert_eq!(
            sel(&f, path, *selection),
            (*o, *n, (*t).to_owned()),
            "{path} {selection:?}"
        );
    }
}

#[test]
fn line_mode() {
    let f = Fixture::with_files(&[
        ("f", b"one\ntwo\nthree\n"),
        ("open", b"one\ntwo"),
        ("crlf", b"a\r\nb\r\n"),
        ("blank", b"\n\n\n"),
        ("empty", b""),
    ]);
    let cases: &[(&str, Selection, (u64, u64, &str))] = &[
        ("f", lines(1, 1), (1, 1, "one\n")),
        ("f", lines(1, 3), (1, 3, "one\ntwo\nthree\n")),
        ("f", lines(2, 5), (2, 2, "two\nthree\n")),
        ("f", lines(3, 1), (3, 1, "three\n")),
        ("f", lines(4, 1), (4, 0, "")),
        ("f", lines(99, 9), (99, 0, "")),
        ("open", lines(2, 1), (2, 1, "two")),
        ("open", lines(1, 9), (1, 2, "one\ntwo")),
        ("open", lines(3, 1), (3, 0, "")),
        ("crlf", lines(2, 1), (2, 1, "b\r\n")),
        ("blank", lines(2, 2), (2, 2, "\n\n")),
        ("empty", lines(1, 1), (1, 0, "")),
    ];
    for (path, selection, (o, n, t)) in cases {
        assert_eq!(
            sel(&f, path, *selection),
            (*o, *n, (*t).to_owned()),
            "{path} {selection:?}"
        );
    }
}

#[test]
fn lines_across_chunk_boundaries() {
    let mut content = Vec::new();
    for i in 0..60_000 {
        content.extend_from_slice(format!("line {i:05} {}\n", "x".repeat(i % 17)).as_bytes());
    }
    let f = Fixture::with_files(&[("big", &content)]);
    let text = String::from_utf8(content.clone()).unwrap();
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    for (first, count) in [(1u64, 3u64), (20_000, 5), (59_999, 10), (1, 60_000)] {
        let start = usize::try_from(first - 1).unwrap();
        let end = (start + usize::try_from(count).unwrap()).min(all.len());
        let expected = all[start..end].concat();
        let got = sel(&f, "big", lines(first, count));
        assert_eq!(
            got,
            (first, (end - start) as u64, expected),
            "{first} {count}"
        );
    }
    let one_line = "x".repeat(300_000);
    f.file("one", one_line.as_bytes());
    assert_eq!(sel(&f, "one", lines(1, 2)), (1, 1, one_line.clone()));
    assert_eq!(sel(&f, "one", lines(2, 1)), (2, 0, String::new()));
    let got = read_file(&f.ws, "big", bytes(262_140, 10)).unwrap();
    assert_eq!(got.bytes, &content[262_140..262_150]);
    assert_eq!(got.digest, Digest::of(&content));
    assert_eq!(got.size, content.len() as u64);
}

#[test]
fn digest_is_of_whole_file() {
    let f = Fixture::with_files(&[("f", b"hello world\n")]);
    let out = read_file(&f.ws, "f", bytes(0, 1)).unwrap();
    let expected = blake3::hash(b"hello world\n").to_hex().to_string();
    assert_eq!(out.digest.to_hex(), expected);
    assert_eq!(out.digest.to_string(), expected);
    assert_eq!(out.digest.to_hex().len(), 64);
    assert!(
        out.digest
            .to_hex()
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
    let empty = Fixture::with_files(&[("e", b"")]);
    let out = read_file(&empty.ws, "e", lines(1, 1)).unwrap();
    assert_eq!(out.digest.to_hex(), blake3::hash(b"").to_hex().to_string());
}

#[test]
fn symlink_reports_requested_path() {
    let f = Fixture::with_files(&[("src/lib.rs", b"fn main() {}\n")]);
    f.symlink("src/lib.rs", "inlink");
    let out = read_file(&f.ws, "inlink", bytes(0, 2)).unwrap();
    assert_eq!(out.path, "inlink");
    assert_eq!(out.bytes, b"fn");
}

#[test]
fn error_outcomes() {
    let f = Fixture::with_files(&[("src/lib.rs", b"x"), (".ash/data", b"d")]);
    std::fs::write(f.outside("secret"), b"s").unwrap();
    f.symlink(f.outside("secret"), "abs-escape");
    f.symlink("../secret", "rel-escape");
    f.symlink("src", "dirlink");
    let socket = std::os::unix::net::UnixListener::bind(f.ws.root().join("sock")).unwrap();
    let cases: &[(&str, u16)] = &[
        ("src", 500),
        ("dirlink", 500),
        (".", 500),
        ("sock", 500),
        ("missing", 201),
        ("src/lib.rs/x", 201),
        ("abs-escape", 200),
        ("rel-escape", 200),
        ("../secret", 100),
        ("a//b", 100),
    ];
    for (path, code) in cases {
        let got = read_file(&f.ws, path, bytes(0, 1))
            .map(|_| ())
            .map_err(|e| e.code().as_u16());
        assert_eq!(got, Err(*code), "{path}");
    }
    assert_eq!(
        read_file(&f.ws, "src", bytes(0, 1)),
        Err(FsError::IsDirectory { path: "src".into() })
    );
    // A user-owned .ash without the marker stays readable; with it, it is reserved.
    assert!(read_file(&f.ws, ".ash/data", bytes(0, 1)).is_ok());
    f.mark_state_dir();
    let got = read_file(&f.ws, ".ash/data", bytes(0, 1)).map_err(|e| e.code().as_u16());
    assert_eq!(got.map(|_| ()), Err(300));
    drop(socket);
}

#[test]
fn size_ceiling() {
    let f = Fixture::new();
    let file = std::fs::File::create(f.ws.root().join("huge")).unwrap();
    file.set_len(READ_MAX_FILE_BYTES + 1).unwrap();
    let err = read_file(&f.ws, "huge", bytes(0, 1)).unwrap_err();
    assert_eq!(err.code().as_u16(), 601);
    assert_eq!(
        err,
        FsError::Ceiling {
            path: "huge".into(),
            ceiling: Ceiling::FileSize {
                size: READ_MAX_FILE_BYTES + 1,
                limit: READ_MAX_FILE_BYTES
            }
        }
    );
}

#[test]
fn read_paths_keeps_request_order_and_duplicates() {
    let f = Fixture::with_files(&[("a", b"A\n"), ("b", b"B\n")]);
    for workers in [1, 2, 4] {
        let got = read_paths(
            &plane(workers),
            &f.ws,
            &["b", "a", "missing", "b"],
            lines(1, 1),
            None,
        );
        let summary: Vec<_> = got
            .into_iter()
            .map(|r| r.map(|o| (o.path, o.bytes)).map_err(|e| e.code().as_u16()))
            .collect();
        let expected = vec![
            Ok(("b".to_owned(), b"B\n".to_vec())),
            Ok(("a".to_owned(), b"A\n".to_vec())),
            Err(201),
            Ok(("b".to_owned(), b"B\n".to_vec())),
        ];
        assert_eq!(summary, expected, "workers {workers}");
    }
}
