use super::chunks::{CHUNK_FILES, FILE_MATCH_BYTES};
use super::*;
use crate::files::workspace::testutil::{Fixture, generated_tree, plane};

const LITERAL: MatchFlags = MatchFlags {
    regex: false,
    case_insensitive: false,
};
const REGEX: MatchFlags = MatchFlags {
    regex: true,
    case_insensitive: false,
};

/// Rows as (path, line, column, text).
fn rows(out: &SearchOutput) -> Vec<(&str, u64, u64, &str)> {
    out.matches
        .iter()
        .map(|m| (m.path.as_str(), m.line, m.column, m.text.as_str()))
        .collect()
}

fn run(f: &Fixture, query: &str, flags: MatchFlags, roots: &[&str]) -> SearchOutput {
    let matcher = compile(query, flags).unwrap();
    search(&plane(2), &f.ws, &matcher, roots, false, None).unwrap()
}

#[test]
fn literal_one_match_per_line() {
    let f = Fixture::with_files(&[("a.txt", b"foo foo\nbar\nxfoo\n"), ("b.txt", b"nothing\n")]);
    let out = run(&f, "foo", LITERAL, &["."]);
    assert_eq!(
        rows(&out),
        [("a.txt", 1, 1, "foo foo"), ("a.txt", 3, 2, "xfoo")]
    );
    assert!(!out.normalized && !out.partial);
}

#[test]
fn literal_escapes_regex_syntax() {
    let f = Fixture::with_files(&[("a", b"a.c\nabc\n(x)*\n")]);
    assert_eq!(rows(&run(&f, "a.c", LITERAL, &["."])), [("a", 1, 1, "a.c")]);
    assert_eq!(
        rows(&run(&f, "(x)*", LITERAL, &["."])),
        [("a", 3, 1, "(x)*")]
    );
    assert_eq!(rows(&run(&f, "a.c", REGEX, &["."])).len(), 2);
}

#[test]
fn case_insensitive() {
    let f = Fixture::with_files(&[("a", b"TODO\ntodo\nToDo later\nnone\n")]);
    let flags = MatchFlags {
        regex: false,
        case_insensitive: true,
    };
    assert_eq!(
        rows(&run(&f, "todo", flags, &["."])),
        [
            ("a", 1, 1, "TODO"),
            ("a", 2, 1, "todo"),
            ("a", 3, 1, "ToDo later")
        ]
    );
    assert_eq!(rows(&run(&f, "todo", LITERAL, &["."])).len(), 1);
    let flags = MatchFlags {
        regex: true,
        case_insensitive: true,
    };
    assert_eq!(rows(&run(&f, "^to", flags, &["."])).len(), 3);
}

#[test]
fn byte_columns_after_multibyte_text() {
    let f = Fixture::with_files(&[("u", "héllo wörld\n日本語 x\n".as_bytes())]);
    assert_eq!(
        rows(&run(&f, "wörld", LITERAL, &["."])),
        [("u", 1, 8, "héllo wörld")]
    );
    assert_eq!(
        rows(&run(&f, "x", LITERAL, &["."])),
        [("u", 2, 11, "日本語 x")]
    );
}

#[test]
fn regex_semantics_are_per_line() {
    let content = b"fn a() {}\n  fn b()\nxfn c\n\nend\r\nlast";
    let f = Fixture::with_files(&[("r", content)]);
    let cases: &[(&str, &[(u64, u64)])] = &[
        ("^fn", &[(1, 1)]),
        ("fn \\w", &[(1, 1), (2, 3), (3, 2)]),
        ("\\bfn", &[(1, 1), (2, 3)]),
        ("\\(\\)$", &[(2, 7)]),
        ("^$", &[(4, 1)]),
        ("d$", &[(5, 3)]),
        ("\\Aend\\z", &[(5, 1)]),
        ("(?-m)^last$", &[(6, 1)]),
        ("t$", &[(6, 4)]),
        ("a\\nb", &[]),
        ("\\s+fn", &[(2, 1)]),
        ("\\r", &[]),
        ("x*", &[(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1)]),
    ];
    for (pattern, expected) in cases {
        let out = run(&f, pattern, REGEX, &["."]);
        let got: Vec<_> = out.matches.iter().map(|m| (m.line, m.column)).collect();
        assert_eq!(got, *expected, "pattern {pattern:?}");
    }
}

#[test]
fn anchors_agree_with_and_without_crlf() {
    // Same logical lines with LF and CRLF ends must give the same rows.
    let lf = b"alpha\nbeta end\n\ngamma\n";
    let crlf = b"alpha\r\nbeta end\r\n\r\ngamma\r\n";
    let f = Fixture::with_files(&[("lf", lf), ("crlf", crlf)]);
    for pattern in ["end$", "^$", "^gamma$", "a$", "(?m)^b", "\\Agamma"] {
        let lf_rows = run(&f, pattern, REGEX, &["lf"]);
        let crlf_rows = run(&f, pattern, REGEX, &["crlf"]);
        let strip = |o: &SearchOutput| -> Vec<(u64, u64, String)> {
            o.matches
                .iter()
                .map(|m| (m.line, m.column, m.text.clone()))
                .collect()
        };
        assert_eq!(strip(&lf_rows), strip(&crlf_rows), "pattern {pattern:?}");
        assert!(!strip(&lf_rows).is_empty(), "pattern {pattern:?}");
        assert!(crlf_rows.normalized && !lf_rows.normalized);
    }
}

#[test]
fn crlf_sets_normalized_even_without_matches() {
    let f = Fixture::with_files(&[("a", b"hit\n"), ("b", b"x\r\ny\r\n")]);
    let out = run(&f, "hit", LITERAL, &["."]);
    assert_eq!(rows(&out), [("a", 1, 1, "hit")]);
    assert!(out.normalized);
    let f = Fixture::with_files(&[("lone", b"a\rb\nend\r")]);
    let out = run(&f, "b", LITERAL, &["."]);
    assert_eq!(rows(&out), [("lone", 1, 3, "a\rb")]);
    assert!(!out.normalized, "a lone CR is not a CRLF line end");
    assert_eq!(
        rows(&run(&f, "end", LITERAL, &["."])),
        [("lone", 2, 1, "end\r")]
    );
}

#[test]
fn crlf_text_is_stripped() {
    let f = Fixture::with_files(&[("w", b"one two\r\nthree\r\n")]);
    let out = run(&f, "two", LITERAL, &["."]);
    assert_eq!(rows(&out), [("w", 1, 5, "one two")]);
    assert!(out.normalized);
}

#[test]
fn non_utf8_files_are_skipped_as_partial() {
    let f = Fixture::with_files(&[("bin", b"needle \xff\n"), ("ok", b"needle\n")]);
    let out = run(&f, "needle", LITERAL, &["."]);
    assert_eq!(rows(&out), [("ok", 1, 1, "needle")]);
    assert!(out.partial);
}

#[test]
fn non_utf8_names_are_partial() {
    use std::os::unix::ffi::OsStrExt;
    let f = Fixture::with_files(&[("ok", b"needle\n")]);
    let name = std::ffi::OsStr::from_bytes(b"bad\xff");
    std::fs::write(f.ws.root().join(name), b"needle\n").unwrap();
    let out = run(&f, "needle", LITERAL, &["."]);
    assert_eq!(rows(&out).len(), 1);
    assert!(out.partial);
}

#[test]
fn walk_rules_apply() {
    let f = Fixture::with_files(&[
        ("src/b.rs", b"k\n"),
        ("src/a.rs", b"k\nk\n"),
        ("src/.hidden", b"k\n"),
        ("other/c.rs", b"k\n"),
        (".ash/notes", b"k\n"),
    ]);
    f.mark_state_dir();
    f.symlink("other", "src/otherlink");
    f.symlink("a.rs", "src/alink");
    let matcher = compile("k", LITERAL).unwrap();
    let out = search(
        &plane(2),
        &f.ws,
        &matcher,
        &["src", "src/a.rs"],
        false,
        None,
    )
    .unwrap();
    assert_eq!(
        rows(&out),
        [
            ("src/a.rs", 1, 1, "k"),
            ("src/a.rs", 2, 1, "k"),
            ("src/b.rs", 1, 1, "k")
        ]
    );
    let out = search(&plane(2), &f.ws, &matcher, &["."], true, None).unwrap();
    let files: Vec<_> = out.matches.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(
        files,
        [
            "other/c.rs",
            "src/.hidden",
            "src/a.rs",
            "src/a.rs",
            "src/b.rs"
        ]
    );
    // A symlink root to a file is followed.
    let out = search(&plane(2), &f.ws, &matcher, &["src/alink"], false, None).unwrap();
    assert_eq!(rows(&out).len(), 2);
}

#[test]
fn errors() {
    let f = Fixture::with_files(&[("a", b"x\n")]);
    let err = compile("(unclosed", REGEX).unwrap_err();
    assert_eq!(err.code().as_u16(), 100);
    assert!(err.to_string().contains("unclosed"), "{err}");
    assert!(compile("(unclosed", LITERAL).is_ok());
    let huge = compile("\\w{1000}\\w{1000}\\w{1000}", REGEX).unwrap_err();
    assert_eq!(huge.code().as_u16(), 100);
    let matcher = compile("x", LITERAL).unwrap();
    for (root, code) in [("missing", 201), ("../a", 100)] {
        let got =
            search(&plane(1), &f.ws, &matcher, &[root], false, None).map_err(|e| e.code().as_u16());
        assert_eq!(got.map(|_| ()), Err(code), "{root}");
    }
}

#[test]
fn match_ceilings() {
    let per_file = "m\n".repeat(MAX_MATCHES_PER_FILE);
    let over = "m\n".repeat(MAX_MATCHES_PER_FILE + 1);
    let f = Fixture::with_files(&[("ok", per_file.as_bytes()), ("over", over.as_bytes())]);
    let matcher = compile("m", LITERAL).unwrap();
    let ok = search(&plane(2), &f.ws, &matcher, &["ok"], false, None).unwrap();
    assert_eq!(ok.matches.len(), MAX_MATCHES_PER_FILE);
    let err = search(&plane(2), &f.ws, &matcher, &["."], false, None).unwrap_err();
    assert_eq!(
        err,
        FsError::Ceiling {
            path: "over".into(),
            ceiling: Ceiling::FileMatches {
                limit: MAX_MATCHES_PER_FILE
            }
        }
    );
}

#[test]
fn file_size_ceiling() {
    let f = Fixture::new();
    let file = std::fs::File::create(f.ws.root().join("huge")).unwrap();
    file.set_len(SEARCH_MAX_FILE_BYTES + 1).unwrap();
    let matcher = compile("x", LITERAL).unwrap();
    let err = search(&plane(1), &f.ws, &matcher, &["."], false, None).unwrap_err();
    assert_eq!(err.code().as_u16(), 601);
    assert_eq!(err.path(), Some("huge"));
}

#[test]
fn scan_strategies_agree() {
    // Whole-buffer scanning must equal naive per-line scanning for every strategy.
    let texts = [
        "a$b\n\r\nfoo\r\n foo bar\nbar foo\r\r\nfoo\rx\nend\rfoo",
        "foo\n\nbar foo\n foo\rbar\n\n",
    ];
    for text in texts {
        scan_agrees(text);
    }
}

fn scan_agrees(text: &str) {
    for (query, regex) in [
        ("foo", false),
        ("foo\r", false),
        ("o\nb", false),
        ("foo$", true),
        ("^ ?foo", true),
        ("\\bbar\\b", true),
        ("(?-m)foo", true),
        ("o+", true),
        ("$", true),
        ("", false),
    ] {
        let flags = MatchFlags {
            regex,
            case_insensitive: false,
        };
        let matcher = Matcher::new(query, flags).unwrap();
        let naive_re = regex::Regex::new(&if regex {
            query.to_owned()
        } else {
            regex::escape(query)
        })
        .unwrap();
        let bytes = text.as_bytes();
        let crlf_text = scan::TextKind::Utf8 {
            crlf: true,
            match_from: Some(0),
        };
        let naive = naive_rows(text, &naive_re);
        let scanned = matcher
            .scan(text, scan::text_kind(bytes, None) == crlf_text, usize::MAX)
            .unwrap();
        assert_eq!(scanned.len(), naive.len());
        let got: Vec<(u64, u64, String)> = scanned
            .iter()
            .map(|(line, column, text)| (line, column, text.to_owned()))
            .collect();
        assert_eq!(got, naive, "query {query:?} text {text:?}");
    }
}

#[test]
fn worker_count_invariance() {
    let f = Fixture::new();
    generated_tree(&f, 400);
    let roots = [".", "d1", "link-to-d1", "d3/s1"];
    for (query, flags) in [("needle1", LITERAL), ("needle[02] é$", REGEX)] {
        let matcher = compile(query, flags).unwrap();
        for hidden in [false, true] {
            let outputs: Vec<_> = [1, 2, 4]
                .iter()
                .map(|w| search(&plane(*w), &f.ws, &matcher, &roots, hidden, None).unwrap())
                .collect();
            assert!(
                outputs[0].matches.len() > 1000,
                "{}",
                outputs[0].matches.len()
            );
            assert!(outputs[0].normalized && outputs[0].partial);
            assert_eq!(outputs[0], outputs[1]);
            assert_eq!(outputs[0], outputs[2]);
        }
    }
}

#[test]
fn files_past_a_chunks_match_budget_are_scanned_again_and_handed_on_once() {
    // Every line matches, so each file holds more than a chunk's budget of matches and all
    // but the first file of a pass are deferred to the next.
    let line = "hit and some more text to make the line long enough\n";
    let files: Vec<(String, Vec<u8>)> = (0..40)
        .map(|i| (format!("f{i:02}.txt"), line.repeat(50 + i).into_bytes()))
        .collect();
    let named: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_slice()))
        .collect();
    let f = Fixture::with_files(&named);
    assert!(line.len() * 50 > CHUNK_MATCH_BYTES);
    let expected: Vec<(String, u64)> = (0..40)
        .flat_map(|i| (1..=50 + i as u64).map(move |l| (format!("f{i:02}.txt"), l)))
        .collect();
    let matcher = compile("hit", LITERAL).unwrap();
    for workers in [1, 2, 4] {
        let out = search(&plane(workers), &f.ws, &matcher, &["."], false, None).unwrap();
        let got: Vec<(String, u64)> = out
            .matches
            .iter()
            .map(|m| (m.path.clone(), m.line))
            .collect();
        assert_eq!(got, expected, "{workers} workers");
    }
}

/// Runs a literal search of `query` over `.` with an encoder that writes `path:line` per row,
/// and returns, per `FileRows` handed on: its path, rows, text bytes and encoding.
fn handed_parts(
    f: &Fixture,
    query: &str,
    workers: usize,
) -> Vec<(String, Vec<SearchMatch>, usize, String)> {
    let matcher = compile(query, LITERAL).unwrap();
    let encoder = |file: &FileRows<'_>, out: &mut String| {
        for row in file.rows() {
            out.push_str(&format!("{}:{}\n", row.path, row.line));
        }
        RowsNeeded::Rows
    };
    let query = SearchQuery {
        matcher: &matcher,
        roots: &["."],
        hidden: false,
        deadline: None,
        encoder: Some(&encoder),
    };
    let mut parts = Vec::new();
    search_into(&plane(workers), &f.ws, &query, &mut |file| {
        let rows = file.rows().map(|m| m.to_match()).collect();
        parts.push((
            file.path().to_owned(),
            rows,
            file.text_bytes(),
            file.encoded().to_owned(),
        ));
        Ok(())
    })
    .unwrap();
    parts
}

#[test]
fn files_with_more_matches_than_a_file_may_hold_are_handed_on_in_parts() {
    // Long lines, every one matching: each `long` file's matches are past what one file may
    // hold; the `short` files between them are handed on whole.
    let line = format!("{:<299}\n", "hit and a long line");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..6 {
        files.push((format!("f{i}-long"), line.repeat(40 + i).into_bytes()));
        files.push((format!("f{i}-short"), b"x\nhit\n".to_vec()));
    }
    let named: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_slice()))
        .collect();
    let f = Fixture::with_files(&named);
    assert!(line.len() * 40 > FILE_MATCH_BYTES);
    let mut expected = Vec::new();
    let hit = regex::Regex::new("hit").unwrap();
    for (name, text) in &files {
        let text = std::str::from_utf8(text).unwrap();
        for (line, column, text) in naive_rows(text, &hit) {
            expected.push((name.clone(), line, column, text));
        }
    }
    for workers in [1, 2, 4] {
        let parts = handed_parts(&f, "hit", workers);
        let got: Vec<(String, u64, u64, String)> = parts
            .iter()
            .flat_map(|(_, rows, _, _)| rows)
            .map(|m| (m.path.clone(), m.line, m.column, m.text.clone()))
            .collect();
        assert_eq!(got, expected, "{workers} workers");
        for (path, rows, text_bytes, encoded) in &parts {
            // A part holds no more than a file may, and its encoding is of its own rows.
            assert!(*text_bytes <= FILE_MATCH_BYTES, "{path}: {text_bytes}");
            let own: String = rows
                .iter()
                .map(|m| format!("{}:{}\n", m.path, m.line))
                .collect();
            assert_eq!(*encoded, own, "{path}");
        }
        for i in 0..6 {
            let long = format!("f{i}-long");
            let of_file = parts.iter().filter(|(path, ..)| *path == long).count();
            assert!(of_file > 1, "{long} was handed on in {of_file} part");
        }
    }
}

#[test]
fn the_total_match_ceiling_stops_a_streamed_file_before_its_rows_are_handed_on() {
    // Ten files of the most matches a file may have reach the total ceiling exactly; the
    // next file with a match is past it. Each is more than one file may hold.
    let full = "m\n".repeat(MAX_MATCHES_PER_FILE);
    let mut files: Vec<(String, String)> = (0..MAX_MATCHES_TOTAL / MAX_MATCHES_PER_FILE)
        .map(|i| (format!("f{i:02}"), full.clone()))
        .collect();
    files.push(("g-over".to_owned(), "m\n".repeat(1000)));
    let named: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_bytes()))
        .collect();
    let f = Fixture::with_files(&named);
    let matcher = compile("m", LITERAL).unwrap();
    let query = SearchQuery {
        matcher: &matcher,
        roots: &["."],
        hidden: false,
        deadline: None,
        encoder: None,
    };
    let mut handed: Vec<(String, usize)> = Vec::new();
    let err = search_into(&plane(2), &f.ws, &query, &mut |file| {
        handed.push((file.path().to_owned(), file.len()));
        Ok(())
    })
    .unwrap_err();
    assert_eq!(
        err,
        FsError::Ceiling {
            path: "g-over".into(),
            ceiling: Ceiling::TotalMatches {
                limit: MAX_MATCHES_TOTAL
            }
        }
    );
    assert!(handed.iter().all(|(path, _)| path != "g-over"));
    assert_eq!(
        handed.iter().map(|(_, n)| n).sum::<usize>(),
        MAX_MATCHES_TOTAL
    );
}

#[test]
fn chunks_cover_the_files_in_order_growing_then_shrinking() {
    for files in [0, 1, 2, 3, 5, 16, 17, 31, 100, 1000] {
        let chunks = chunk_ranges(files);
        let mut next = 0;
        for chunk in &chunks {
            assert_eq!(chunk.start, next, "{files} files: {chunks:?}");
            assert!(!chunk.is_empty() && chunk.len() <= CHUNK_FILES);
            next = chunk.end;
        }
        assert_eq!(next, files);
    }
    let sizes: Vec<usize> = chunk_ranges(200).iter().map(|c| c.len()).collect();
    // Up from 2 files to 16, then down by half of what is left.
    assert_eq!(
        sizes,
        [
            2, 2, 4, 8, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 12, 6, 3, 2, 1
        ]
    );
}

#[test]
fn a_read_takes_what_the_file_holds_now_whatever_the_buffer_held_before() {
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("long");
    let short = dir.path().join("short");
    std::fs::write(&long, vec![b'x'; 100_000]).unwrap();
    std::fs::write(&short, b"abc").unwrap();
    let mut buf = Vec::new();
    // A stated size below the real one is a file that grew since it was stated.
    let file = std::fs::File::open(&long).unwrap();
    assert_eq!(super::read::read_all(&file, 10, &mut buf), Some(100_000));
    assert!(buf[..100_000].iter().all(|&b| b == b'x'));
    // The scratch beyond the length is stale; only the length says what was read.
    let file = std::fs::File::open(&short).unwrap();
    assert_eq!(super::read::read_all(&file, 3, &mut buf), Some(3));
    assert_eq!(&buf[..3], b"abc");
    // A stated size above the real one is a file that shrank.
    let file = std::fs::File::open(&short).unwrap();
    assert_eq!(super::read::read_all(&file, 50, &mut buf), Some(3));
    // A file past the kept-buffer size is read by the other path, to the same end.
    let big = dir.path().join("big");
    std::fs::write(&big, vec![b'y'; 3 << 20]).unwrap();
    let file = std::fs::File::open(&big).unwrap();
    assert_eq!(
        super::read::read_all(&file, 2 << 20, &mut buf),
        Some(3 << 20)
    );
    assert!(buf[..3 << 20].iter().all(|&b| b == b'y'));
    let file = std::fs::File::open(&short).unwrap();
    assert_eq!(super::read::read_all(&file, 3, &mut buf), Some(3));
    assert_eq!(&buf[..3], b"abc");
    // A size of 0 (what `/proc` reports) is no promise: the file is read until a read of 0.
    let file = std::fs::File::open(&long).unwrap();
    assert_eq!(super::read::read_all(&file, 0, &mut buf), Some(100_000));
}

/// The rows a line-by-line reading of `text` gives for `pattern`: (line, column, text). The
/// empty tail after a final LF is not a line; a CR is stripped only before an LF.
fn naive_rows(text: &str, pattern: &regex::Regex) -> Vec<(u64, u64, String)> {
    let mut rows = Vec::new();
    let segments: Vec<&str> = text.split('\n').collect();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if last && segment.is_empty() {
            break;
        }
        let line = if last {
            *segment
        } else {
            segment.strip_suffix('\r').unwrap_or(segment)
        };
        if let Some(found) = pattern.find(line) {
            rows.push((i as u64 + 1, found.start() as u64 + 1, line.to_owned()));
        }
    }
    rows
}

#[test]
fn mapped_and_segmented_files_give_the_rows_a_line_by_line_reading_gives() {
    // Sizes around the map threshold, on both sides of it; all but the first are scanned
    // in several segments.
    let min = mapped::MAP_MIN_BYTES as usize;
    let sizes = [100, 40_000, min - 1, min, min + 1, 3 * min + 5000];
    // Matching lines every 7 lines, so every segment is scanned; and every 3,001 lines
    // (about 90 KB), so segments without a match lie between those with one and the lines
    // of both kinds are counted in turn.
    let spacings = sizes.iter().map(|size| (*size, 7)).chain([(3 * min, 3001)]);
    let f = Fixture::new();
    let mut files = Vec::new();
    for (n, (size, spacing)) in spacings.enumerate() {
        let mut text = String::new();
        let mut line = 0;
        while text.len() < size {
            let row = match line % spacing {
                0 => format!("é needle {line}\r\n"),
                3 => format!("x{line} needle\n"),
                _ => format!("filler line {line} ünïcode\n"),
            };
            text.push_str(&row);
            line += 1;
        }
        // The last line is unterminated and matches at the file's very last byte.
        text.push_str("tail needle");
        let name = format!("f{n:02}.txt");
        f.file(&name, text.as_bytes());
        files.push((name, text));
    }
    // A large file that is not UTF-8 near its end is skipped, and the answer is partial: the
    // matches its first segments held are dropped.
    let mut binary = format!("{:<99}\n", "x needle")
        .repeat(mapped::MAP_MIN_BYTES as usize / 100 + 10)
        .into_bytes();
    binary.extend_from_slice(b"needle \xff\n");
    f.file("z-binary", &binary);
    // A literal, `^` at segment starts, `$` before a stripped CR (per-line scanning in the
    // segments with CRLF), and a regex confirmed per line.
    for (query, flags) in [
        ("needle", LITERAL),
        (r"^é needle \d+$", REGEX),
        ("needle$", REGEX),
        (r"x\d+ need", REGEX),
    ] {
        let pattern = regex::Regex::new(&if flags.regex {
            query.to_owned()
        } else {
            regex::escape(query)
        })
        .unwrap();
        let mut expected = Vec::new();
        for (name, text) in &files {
            for (line, column, text) in naive_rows(text, &pattern) {
                expected.push((name.clone(), line, column, text));
            }
        }
        let out = run(&f, query, flags, &["."]);
        let got: Vec<(String, u64, u64, String)> = out
            .matches
            .iter()
            .map(|m| (m.path.clone(), m.line, m.column, m.text.clone()))
            .collect();
        assert!(!expected.is_empty(), "{query}");
        assert_eq!(got.len(), expected.len(), "{query}");
        assert_eq!(got, expected, "{query}");
        assert!(out.partial && out.normalized);
    }
}

#[test]
fn files_truncated_and_rewritten_during_searches_never_end_the_process() {
    let f = Fixture::new();
    let line = "a needle line that is long enough to count\n";
    let full = line.repeat(3 * mapped::MAP_MIN_BYTES as usize / 2 / line.len());
    for n in 0..4 {
        f.file(&format!("f{n}"), full.as_bytes());
    }
    let root = f.ws.root().to_path_buf();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut round = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let path = root.join(format!("f{}", round % 4));
                let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                // Cut to a partial line, then restore: a search mapping the file sees pages
                // vanish, or reads a torn line.
                file.set_len((round * 4093 % full.len()) as u64).unwrap();
                std::fs::write(&path, full.as_bytes()).unwrap();
                round += 1;
            }
        });
        let matcher = compile("needle", LITERAL).unwrap();
        let mut rows = 0;
        for _ in 0..60 {
            let out = search(&plane(2), &f.ws, &matcher, &["."], false, None).unwrap();
            // Every row is a whole line of the file or a prefix of one that a cut left.
            for m in &out.matches {
                assert!(line.starts_with(&m.text), "{:?}", m.text);
            }
            rows += out.matches.len();
        }
        // The searches saw the files, not only the moments they were cut to nothing.
        assert!(rows > 0);
        stop.store(true, Ordering::Relaxed);
    });
}

#[test]
fn the_blocked_text_check_agrees_with_checking_the_whole_buffer() {
    // Pieces that put multi-byte characters, stray continuation bytes and CRLFs on every
    // side of the (small) block boundaries.
    let pieces: [&[u8]; 9] = [
        b"a",
        b"\r",
        b"\n",
        "é".as_bytes(),
        "€".as_bytes(),
        "😀".as_bytes(),
        b"\x80",
        b"\xf0",
        b"\xff",
    ];
    let mut rng = crate::testrng::Rng::new(22);
    for round in 0..4000 {
        let mut buf = Vec::new();
        for _ in 0..rng.below(40) {
            // Mostly valid text, so that most buffers pass and the CR answer is compared.
            let piece = if round % 4 == 0 {
                rng.below(9)
            } else {
                rng.below(6)
            };
            buf.extend_from_slice(pieces[piece]);
        }
        for needle in ["é\r", "a€a", "😀"] {
            let finder = memchr::memmem::Finder::new(needle);
            let whole = if std::str::from_utf8(&buf).is_err() {
                scan::TextKind::NotUtf8
            } else {
                scan::TextKind::Utf8 {
                    crlf: memchr::memmem::find(&buf, b"\r\n").is_some(),
                    match_from: finder.find(&buf),
                }
            };
            for block in [1, 2, 3, 5, 7, 64] {
                let blocked = scan::text_kind_in_blocks(&buf, Some(&finder), block);
                assert_eq!(blocked, whole, "{buf:?} {needle:?} in {block}s");
            }
        }
    }
}
