//! `read` answers for the model: each file's text is a raw block headed by its path and
//! numbered by line (`41`, a tab, the line), so the model matches blocks to files and finds where to
//! edit without a search. Every line starts with a tab; the first, the last and every fifth
//! carry their number before it, so any line is at most two lines from a number. A file too
//! large to answer inline is shown from its retained copy as far as the read budget goes, and
//! `more` says where it stopped and how to read on.

use std::fmt::Write as _;

use ash_engine::ason::{Atom, Cell, Value};
use ash_engine::protocol::{Op, ReadMode, ReadRow};

use super::{Block, ViewContext, block_marker};
use crate::tools::execute::READ_TOK;

/// What separates a line's number from its text: a tab, as `cat -n` writes it. Measured
/// with o200k on the token bench's files (docs/benchmarks.md, "Tokens per task"): `N\t`
/// costs 1,865 tokens over 10,391 bare, `N→` and `N│` 3,236, `N:` 2,947; `N ` (1,858) is
/// cheaper by 7 but leaves a model to tell the separator from the line's own indentation.
pub const GUTTER: &str = "\t";

/// Every line whose number is a multiple of this carries its number (the first and last lines
/// of a block always do). Measured like the separators on the bench's files (10,391 tokens
/// bare; docs/benchmarks.md): numbering every line costs 1,865 tokens, every fifth 489, every
/// tenth 327, only the lines that start a block 261. Every fifth keeps each line within two
/// of a printed number, as a ruler's ticks do; every tenth leaves up to five lines to count,
/// and block starts leave a function's body (19 lines in the bench's library) unnumbered.
pub const TICK: u64 = 5;
/// Bytes of file text one read answer shows: the engine's inline budget (half the
/// presentation limit of `READ_TOK` tokens, ASH/1 §3.4).
const SHOWN_BYTES: usize = (READ_TOK as usize * 4) / 2;

/// A file cut short is shown at least this far, whatever others took.
const MIN_SHOWN_BYTES: usize = 2048;

/// The columns of a read answer's rows in bytes mode: the file's path, the first byte, the
/// bytes returned, the text.
pub const COLUMNS: [&str; 4] = ["file", "from", "count", "text"];

/// The columns in lines mode: the numbered text says the first and last line, so `from` and
/// `count` would only repeat them.
pub const LINE_COLUMNS: [&str; 2] = ["file", "text"];

/// Rewrites the rows as `d[N]{file,text}` (lines) or `d[N]{file,from,count,text}` (bytes):
/// each file named, its text a block (numbered in lines mode; headed by its path when the
/// answer has several); the head of a file too large to answer inline is shown from its
/// retained copy (`more` names it). True when some file is shown only in part.
pub(super) fn shape(
    value: &mut Value,
    rows: &[ReadRow],
    cx: &ViewContext<'_>,
    more: &mut Vec<String>,
    blocks: &mut Vec<Block>,
) -> bool {
    let mut cut = false;
    let mut table_rows = Vec::with_capacity(rows.len());
    let lines = !matches!(cx.op, Some(Op::Read(args)) if args.mode == ReadMode::Bytes);
    let inline: usize = rows
        .iter()
        .filter_map(|r| r.text.as_ref())
        .map(String::len)
        .sum();
    let cut_rows = rows.iter().filter(|r| r.text.is_none()).count().max(1);
    let room = (SHOWN_BYTES.saturating_sub(inline) / cut_rows).max(MIN_SHOWN_BYTES);
    for row in rows {
        let path = cx.names.get(row.path).unwrap_or("?");
        let mut cells = vec![
            Cell::Atom(Atom::text(path)),
            Cell::Atom(Atom::uint(row.offset)),
            Cell::Atom(Atom::uint(row.len)),
            Cell::Atom(Atom::Null),
        ];
        let text = match (&row.text, row.reference) {
            (Some(text), _) if text.is_empty() => {
                cells[3] = Cell::Atom(Atom::text(""));
                table_rows.push(cells);
                continue;
            }
            (Some(text), _) => text.clone(),
            (None, Some(reference)) => {
                match cut_from_retained(cx, reference, row, lines, room, path) {
                    Some((head, shown, note)) => {
                        // `count` is what the answer shows; `more` says how much was asked.
                        cells[2] = Cell::Atom(Atom::uint(shown));
                        more.push(note);
                        cut = true;
                        head
                    }
                    None => {
                        more.push(format!(
                            "{path} is not shown: it is not UTF-8 text (@{reference} holds it; read it with evidence kind \"bytes\")."
                        ));
                        table_rows.push(cells);
                        continue;
                    }
                }
            }
            (None, None) => {
                table_rows.push(cells);
                continue;
            }
        };
        let shown = if lines {
            numbered(&text, row.offset)
        } else {
            text
        };
        blocks.push(Block {
            text: shown,
            // One file's block follows its row; several are each headed by their path.
            header: (rows.len() > 1).then(|| path.to_owned()),
        });
        cells[3] = Cell::Atom(Atom::text(block_marker(blocks.len())));
        table_rows.push(cells);
    }
    if lines {
        // `from` and `count` go: the block's first and last lines carry their numbers.
        for row in &mut table_rows {
            row.drain(1..3);
        }
        *value = Value::table(&LINE_COLUMNS, table_rows);
    } else {
        *value = Value::table(&COLUMNS, table_rows);
    }
    cut
}

/// `text` with each line prefixed by a tab, and by its number (from `first`) when it is the
/// first or last line or its number is a multiple of [`TICK`].
pub(super) fn numbered(text: &str, first: u64) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let count = text.split_inclusive('\n').count() as u64;
    let last = first + count.saturating_sub(1);
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let number = first + n as u64;
        if number == first || number == last || number.is_multiple_of(TICK) {
            let _ = write!(out, "{number}");
        }
        out.push_str(GUTTER);
        out.push_str(line);
    }
    out
}

/// The whole lines of a retained read that fit `room` bytes, how many lines (or bytes) that
/// is, and the note saying what was left out; `None` when the value is not UTF-8 text.
fn cut_from_retained(
    cx: &ViewContext<'_>,
    reference: u64,
    row: &ReadRow,
    lines: bool,
    room: usize,
    path: &str,
) -> Option<(String, u64, String)> {
    let body = cx.store.get(reference)?;
    let bytes = body.read_all().ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let mut end = 0;
    let mut kept = 0u64;
    for line in text.split_inclusive('\n') {
        if end + line.len() > room {
            break;
        }
        end += line.len();
        kept += 1;
    }
    if !lines {
        end = text.floor_char_boundary(room.min(text.len()));
    }
    let total = text.split_inclusive('\n').count() as u64;
    let head = text[..end].to_owned();
    let note = if lines {
        let (first, last) = (row.offset, row.offset + kept.saturating_sub(1));
        format!(
            "{path}: lines {first}-{last} of the {total} asked for are shown (a read shows up to {SHOWN_BYTES} bytes); read on with offset {} or evidence {{\"ref\":\"@{reference}\",\"kind\":\"lines\",\"offset\":{},\"length\":null,\"query\":null,\"regex\":false,\"case_insensitive\":false}}.",
            last + 1,
            kept + 1
        )
    } else {
        format!(
            "{path}: {end} of the {} bytes asked for are shown; the rest is @{reference} (evidence kind \"bytes\", offset {end}).",
            text.len()
        )
    };
    let shown = if lines { kept } else { end as u64 };
    Some((head, shown, note))
}
