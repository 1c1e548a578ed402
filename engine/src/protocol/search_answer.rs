//! The encoding of a successful search answer written straight from its rows: a search answer
//! can hold thousands of rows, and building a [`crate::ason::Document`] of owned cells first cost
//! more than the encoding itself. The bytes are exactly those of the document encoder, which a
//! test checks over random answers.

use super::data::SearchRow;
use super::response::Response;
use crate::ason::{Atom, encode_atom, encode_text};

/// Bytes a row adds besides its text: three numbers, separators and the line end.
const ROW_BYTES: usize = 48;

/// The canonical encoding of `response`, whose data is the search `rows` and which carries no
/// error record.
pub(super) fn encode(response: &Response, rows: &[SearchRow]) -> String {
    let texts: usize = rows.iter().map(|r| r.text.len() + ROW_BYTES).sum::<usize>()
        + response
            .paths
            .iter()
            .map(|(_, p)| p.len() + ROW_BYTES)
            .sum::<usize>();
    let mut out = String::with_capacity(texts + 64);
    let mut digits = itoa::Buffer::new();
    out.push_str("t:3\ni:");
    out.push_str(digits.format(response.id));
    out.push_str("\ns:");
    out.push_str(digits.format(response.status.as_u8()));
    out.push('\n');
    if !response.paths.is_empty() {
        out.push_str("p[");
        out.push_str(digits.format(response.paths.len()));
        out.push_str("]{i,v}:");
        for (id, path) in &response.paths {
            out.push('\n');
            out.push_str(digits.format(*id));
            out.push(',');
            encode_text(path, &mut out);
        }
        out.push('\n');
    }
    out.push_str("d[");
    out.push_str(digits.format(rows.len()));
    out.push_str("]{p,l,c,t}:");
    for row in rows {
        out.push('\n');
        out.push_str(digits.format(row.path));
        encode_search_rest(row.line, row.column, &row.text, &mut out);
    }
    out.push_str("\nz:");
    out.push_str(digits.format(response.flags.bits()));
    out.push_str("\nr:");
    encode_atom(&Atom::opt_ref(response.reference), &mut out);
    out.push('\n');
    out
}

/// Appends `,l,c,t` of a search row as the encoder writes those atoms (line and column are
/// bare decimals, as `Atom::uint` encodes them): shared by the answer and by the evidence rows
/// a cut search spools, which differ only in their first cell (a path id or the path).
pub(crate) fn encode_search_rest(line: u64, column: u64, text: &str, out: &mut String) {
    let mut digits = itoa::Buffer::new();
    out.push(',');
    out.push_str(digits.format(line));
    out.push(',');
    out.push_str(digits.format(column));
    out.push(',');
    encode_text(text, out);
}
