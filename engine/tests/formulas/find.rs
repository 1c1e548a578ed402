//! `?` find: every occurrence in a byte window, absolute offsets, line/column, line text with CR
//! stripped and long lines clipped, UTF-8 only, and row-prefix truncation.

use crate::client::{BIG, Client, cell, no_fit, req, table_answer, wrong_type};

const COLS: &str = "o,l,c,t";
const VALUE: &[u8] = b"alpha TODO\nbeta\nTODO gamma TODO\r\nend";

fn row(o: u64, l: u64, c: u64, t: &str) -> String {
    format!("{o},{l},{c},{}", cell(t))
}

fn find(id: u64, window: &str, query: &str, flags: u8, budget: (u64, u64)) -> String {
    req(
        id,
        '?',
        &format!("@1,{window},{},{flags}", cell(query)),
        budget,
    )
}

#[test]
fn every_occurrence_with_absolute_offsets() {
    let mut c = Client::new();
    c.retain(VALUE);
    let all = vec![
        row(6, 1, 7, "alpha TODO"),
        row(16, 3, 1, "TODO gamma TODO"),
        row(27, 3, 12, "TODO gamma TODO"),
    ];
    let cases: [(&str, &str, u8, &[String]); 7] = [
        ("0,1048576", "TODO", 0, &all),
        ("0,1048576", "todo", 2, &all),
        ("0,1048576", "todo", 0, &[]),
        // The window bounds the matches; offsets and lines stay absolute.
        ("12,100", "TODO", 0, &all[1..]),
        ("0,9", "TODO", 0, &[]),
        ("6,21", "TODO", 0, &all[..2]),
        ("37,5", "TODO", 0, &[]),
    ];
    for (i, (window, query, flags, rows)) in cases.into_iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(
            c.ask(&find(id, window, query, flags, BIG)),
            table_answer(id, COLS, rows, 8, 1),
            "{window} {query} {flags}"
        );
    }
}

#[test]
fn regexes_anchor_at_lines() {
    let mut c = Client::new();
    c.retain(VALUE);
    let cases: [(&str, u8, Vec<String>); 4] = [
        ("^T\\w+", 1, vec![row(16, 3, 1, "TODO gamma TODO")]),
        // `$` sees the CRLF line end.
        (
            "TODO$",
            1,
            vec![
                row(6, 1, 7, "alpha TODO"),
                row(27, 3, 12, "TODO gamma TODO"),
            ],
        ),
        (
            "^(alpha|END)",
            3,
            vec![row(0, 1, 1, "alpha TODO"), row(33, 4, 1, "end")],
        ),
        // A match may run over line ends; its row is the line it starts on.
        ("O\\nb", 1, vec![row(9, 1, 10, "alpha TODO")]),
    ];
    for (i, (query, flags, rows)) in cases.into_iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(
            c.ask(&find(id, "0,100", query, flags, BIG)),
            table_answer(id, COLS, &rows, 8, 1),
            "{query}"
        );
    }
}

#[test]
fn empty_matches_fall_on_characters_of_real_lines() {
    let mut c = Client::new();
    c.retain("é\r\nb\n".as_bytes());
    c.retain("é\nb".as_bytes());
    // No match inside `é`, none on the empty tail after the final LF.
    assert_eq!(
        c.ask(&req(1, '?', "@1,0,100,\"$\",1", BIG)),
        table_answer(1, COLS, &[row(2, 1, 3, "é"), row(5, 2, 2, "b")], 8, 1)
    );
    assert_eq!(
        c.ask(&req(2, '?', "@2,0,100,\"x*\",1", BIG)),
        table_answer(
            2,
            COLS,
            &[
                row(0, 1, 1, "é"),
                row(2, 1, 3, "é"),
                row(3, 2, 1, "b"),
                row(4, 2, 2, "b")
            ],
            8,
            2
        )
    );
}

#[test]
fn columns_are_bytes_and_long_lines_are_clipped() {
    let mut c = Client::new();
    let long = format!("{}X{}", "a".repeat(5000), "b".repeat(5000));
    c.retain(format!("héllo X\n{long}\n").as_bytes());
    let clipped = format!("...{}...", &long[3976..3976 + 4090]);
    assert_eq!(clipped.len(), 4096);
    assert_eq!(
        c.ask(&find(1, "0,20000", "X", 0, BIG)),
        table_answer(
            1,
            COLS,
            &[row(7, 1, 8, "héllo X"), row(9 + 5000, 2, 5001, &clipped)],
            8,
            1
        )
    );
}

#[test]
fn values_must_be_utf8() {
    let mut c = Client::new();
    c.retain(b"TODO fine\n\xff\n");
    // Even a window over the valid part: the value as a whole is checked.
    assert_eq!(c.ask(&find(1, "0,4", "TODO", 0, BIG)), wrong_type(1));
}

#[test]
fn rows_are_cut_to_rec_and_l_with_the_source_as_reference() {
    let mut c = Client::new();
    c.retain("x\n".repeat(20).as_bytes());
    let rows: Vec<String> = (0..20).map(|i| row(2 * i, i + 1, 1, "x")).collect();
    assert_eq!(
        c.ask(&find(1, "0,100", "x", 0, (1000, 20))),
        table_answer(1, COLS, &rows, 8, 1)
    );
    assert_eq!(
        c.ask(&find(2, "0,100", "x", 0, (1000, 5))),
        table_answer(2, COLS, &rows[..5], 11, 1)
    );
    // The §5 example: 20 matches, tok 32 (L = 128), rec 20.
    let cut = c.ask(&find(3, "0,100", "x", 0, (32, 20)));
    let k = (0..20)
        .rev()
        .find(|&k| table_answer(3, COLS, &rows[..k], 11, 1).len() <= 128)
        .expect("a prefix fits");
    assert_eq!(cut, table_answer(3, COLS, &rows[..k], 11, 1));
    assert_eq!(
        c.stored(),
        1,
        "the source is the evidence; nothing new is retained"
    );
    assert_eq!(c.ask(&find(4, "0,100", "x", 0, (1, 20))), no_fit(4));
}

#[test]
fn the_fixture_request_runs_against_alias_7() {
    let mut c = Client::new();
    for i in 0..6u8 {
        c.retain(&[b'0' + i]);
    }
    let v = c.retain(b"fn main() {}\n// TODO: wire it up\nlet x = 1; // TODO\n");
    assert_eq!(v, 7);
    let fixture = include_str!("../../../spec/fixtures/ason/ref-request.ason");
    assert_eq!(
        c.ask(fixture),
        table_answer(
            43,
            COLS,
            &[
                row(16, 2, 4, "// TODO: wire it up"),
                row(47, 3, 15, "let x = 1; // TODO"),
            ],
            8,
            7
        )
    );
}
