//! `/` byte slices and `#` line slices: selection, clamping, text versus hex, cuts to L, and
//! spooled values read by range.

use crate::client::{BIG, Client, cell, no_fit, req, slice_answer};
use ash_engine::store::{Body, Pending, SpoolFile};
use std::sync::Arc;

/// A slice case: operands, expected `o,n,p`, the selection, and expected `t,b` cells.
type Case<'a> = (&'a str, (u64, u64, u64), &'a [u8], (&'a str, &'a str));

#[test]
fn byte_slices_select_clamp_and_project() {
    let mut c = Client::new();
    let v = c.retain(b"hello world\nd\n");
    let cases: [Case; 5] = [
        ("@1,6,5", (6, 5, 5), b"world", ("world", "~")),
        ("@1,0,1", (0, 1, 1), b"h", ("h", "~")),
        // Clamped to the value; o stays the requested offset.
        ("@1,12,100", (12, 2, 2), b"d\n", ("\"d\\n\"", "~")),
        ("@1,14,3", (14, 0, 0), b"", ("\"\"", "~")),
        ("@1,99,3", (99, 0, 0), b"", ("\"\"", "~")),
    ];
    for (i, (items, onp, selection, tb)) in cases.into_iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(
            c.ask(&req(id, '/', items, BIG)),
            slice_answer(id, onp, selection, tb, 8, v),
            "{items}"
        );
    }
}

#[test]
fn non_utf8_selections_are_hex() {
    let mut c = Client::new();
    let v = c.retain(b"ok\xff\x00A");
    assert_eq!(
        c.ask(&req(1, '/', "@1,1,4", BIG)),
        slice_answer(1, (1, 4, 4), b"k\xff\x00A", ("~", "6bff0041"), 8, v)
    );
    // A UTF-8 part of a non-UTF-8 value is text.
    assert_eq!(
        c.ask(&req(2, '/', "@1,0,2", BIG)),
        slice_answer(2, (0, 2, 2), b"ok", ("ok", "~"), 8, v)
    );
}

/// The largest `k` whose answer built by `answer(k)` fits `limit` bytes.
fn largest_fitting(limit: usize, most: usize, answer: impl Fn(usize) -> String) -> usize {
    (0..=most)
        .rev()
        .find(|&k| answer(k).len() <= limit)
        .expect("some prefix fits")
}

#[test]
fn text_is_cut_on_characters_to_fit_l() {
    let mut c = Client::new();
    let text = "é".repeat(200);
    let v = c.retain(text.as_bytes());
    // tok 60 → L = 240 bytes.
    let answer = |k: usize| {
        slice_answer(
            1,
            (0, 400, k as u64),
            text.as_bytes(),
            (&cell(&text[..k]), "~"),
            11,
            v,
        )
    };
    let got = c.ask(&req(1, '/', "@1,0,1000", (60, 10)));
    let k = largest_fitting(240, 399, |k| {
        if text.is_char_boundary(k) {
            answer(k)
        } else {
            "x".repeat(1000)
        }
    });
    assert_eq!(got, answer(k));
    assert!(k > 0 && k % 2 == 0, "a whole number of characters: {k}");
}

#[test]
fn escapes_count_against_l() {
    let mut c = Client::new();
    let text = "\n".repeat(100);
    let v = c.retain(text.as_bytes());
    let answer = |k: usize| {
        slice_answer(
            1,
            (0, 100, k as u64),
            text.as_bytes(),
            (&cell(&text[..k]), "~"),
            11,
            v,
        )
    };
    let k = largest_fitting(200, 99, answer);
    assert_eq!(c.ask(&req(1, '/', "@1,0,100", (50, 10))), answer(k));
}

#[test]
fn hex_is_cut_on_bytes_to_fit_l() {
    let mut c = Client::new();
    let bytes: Vec<u8> = (0..=255u8).cycle().take(600).collect();
    let v = c.retain(&bytes);
    let hex = |k: usize| -> String { bytes[..k].iter().map(|b| format!("{b:02x}")).collect() };
    let answer = |k: usize| {
        let h = if k == 0 { "\"\"".to_owned() } else { hex(k) };
        slice_answer(1, (0, 600, k as u64), &bytes, ("~", &h), 11, v)
    };
    let k = largest_fitting(400, 599, answer);
    assert_eq!(c.ask(&req(1, '/', "@1,0,600", (100, 10))), answer(k));
    assert!(k > 100);
}

#[test]
fn nothing_fits_is_600_and_whole_fits_are_not_cut() {
    let mut c = Client::new();
    c.retain(b"abc");
    assert_eq!(c.ask(&req(1, '/', "@1,0,3", (1, 1))), no_fit(1));
    assert_eq!(c.ask(&req(2, '#', "@1,1,1", (1, 1))), no_fit(2));
    // The smallest L that holds the whole answer gets it uncut; one token less cuts it.
    let v = c.retain(b"abcdefghij");
    let answer = |id: u64, k: usize| {
        let text = &"abcdefghij"[..k];
        let z = if k == 10 { 8 } else { 11 };
        slice_answer(id, (0, 10, k as u64), b"abcdefghij", (text, "~"), z, v)
    };
    let tok = (answer(3, 10).len() as u64).div_ceil(4);
    assert_eq!(c.ask(&req(3, '/', "@2,0,10", (tok, 1))), answer(3, 10));
    let k = largest_fitting(4 * (tok as usize - 1), 9, |k| answer(4, k));
    assert_eq!(c.ask(&req(4, '/', "@2,0,10", (tok - 1, 1))), answer(4, k));
}

#[test]
fn line_slices_report_byte_lengths() {
    let mut c = Client::new();
    let value = b"one\ntwo\r\nthree\nfour";
    let v = c.retain(value);
    let cases: [Case; 6] = [
        ("@1,1,1", (1, 4, 4), b"one\n", ("\"one\\n\"", "~")),
        (
            "@1,2,2",
            (2, 11, 11),
            b"two\r\nthree\n",
            ("\"two\\r\\nthree\\n\"", "~"),
        ),
        // The unterminated last line counts; past the end the selection is empty.
        ("@1,4,5", (4, 4, 4), b"four", ("four", "~")),
        (
            "@1,3,1000000",
            (3, 10, 10),
            b"three\nfour",
            ("\"three\\nfour\"", "~"),
        ),
        ("@1,5,1", (5, 0, 0), b"", ("\"\"", "~")),
        (
            "@1,1,4",
            (1, 19, 19),
            value,
            ("\"one\\ntwo\\r\\nthree\\nfour\"", "~"),
        ),
    ];
    for (i, (items, onp, selection, tb)) in cases.into_iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(
            c.ask(&req(id, '#', items, BIG)),
            slice_answer(id, onp, selection, tb, 8, v),
            "{items}"
        );
    }
}

#[test]
fn line_slices_of_edge_values() {
    let mut c = Client::new();
    let empty = c.retain(b"");
    let lf = c.retain(b"a\n");
    let binary = c.retain(b"\xff\n\xfe\n");
    assert_eq!(
        c.ask(&req(1, '#', &format!("@{empty},1,1"), BIG)),
        slice_answer(1, (1, 0, 0), b"", ("\"\"", "~"), 8, empty)
    );
    // The empty tail after a final LF is not a line.
    assert_eq!(
        c.ask(&req(2, '#', &format!("@{lf},2,1"), BIG)),
        slice_answer(2, (2, 0, 0), b"", ("\"\"", "~"), 8, lf)
    );
    assert_eq!(
        c.ask(&req(3, '#', &format!("@{binary},2,1"), BIG)),
        slice_answer(3, (2, 2, 2), b"\xfe\n", ("~", "fe0a"), 8, binary)
    );
}

#[test]
fn line_slices_are_cut_like_byte_slices() {
    let mut c = Client::new();
    let value = "line\n".repeat(100);
    let v = c.retain(value.as_bytes());
    let selection = &value.as_bytes()[..250];
    let answer = |k: usize| {
        slice_answer(
            1,
            (1, 250, k as u64),
            selection,
            (&cell(&value[..k]), "~"),
            11,
            v,
        )
    };
    let k = largest_fitting(200, 249, answer);
    assert_eq!(c.ask(&req(1, '#', "@1,1,50", (50, 10))), answer(k));
}

/// Bytes this process has read through read(2)-like calls so far (Linux `rchar`).
#[cfg(target_os = "linux")]
fn read_so_far() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").expect("/proc/self/io");
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("rchar line")
}

#[test]
fn spooled_values_are_read_by_range() {
    const SIZE: u64 = 8 << 20;
    const TAIL: usize = 64 << 10;
    let dir = tempfile::tempdir().expect("spool dir");
    let path = dir.path().join("capture");
    let tail: Vec<u8> = (0..TAIL).map(|i| b'a' + (i % 26) as u8).collect();
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::File::create(&path).expect("create spool");
        f.set_len(SIZE).expect("size spool");
        f.seek(SeekFrom::Start(SIZE - TAIL as u64)).expect("seek");
        f.write_all(&tail).expect("write tail");
    }
    let mut whole = vec![0u8; (SIZE as usize) - TAIL];
    whole.extend_from_slice(&tail);
    let mut c = Client::new();
    let mut store = c.session.store_mut();
    let pending = Pending {
        body: Body::Spool(Arc::new(SpoolFile::adopt(path.clone(), SIZE))),
        digest: blake3::hash(&whole),
        charge: store.meter().reserve(SIZE).expect("room"),
    };
    let v = store.retain_all(vec![pending]).expect("retain spool")[0];
    drop(store);
    drop(whole);

    #[cfg(target_os = "linux")]
    let before = read_so_far();
    let items = format!("@{v},{},{TAIL}", SIZE - TAIL as u64);
    let got = c.ask(&req(1, '/', &items, BIG));
    #[cfg(target_os = "linux")]
    {
        let read = read_so_far() - before;
        assert!(read < 2 << 20, "read {read} bytes for a 64 KiB slice");
    }
    let t = std::str::from_utf8(&tail).expect("ascii");
    assert_eq!(
        got,
        slice_answer(
            1,
            (SIZE - TAIL as u64, TAIL as u64, TAIL as u64),
            &tail,
            (t, "~"),
            8,
            v
        )
    );
    assert_eq!(
        c.ask(&req(2, '-', &format!("@{v}"), BIG)),
        format!("t:3\ni:2\ns:0\nd{{r,z}}:\n@{v},1\nz:0\nr:~\n")
    );
    assert!(
        !path.exists(),
        "releasing the last holder removes the spool file"
    );
}
