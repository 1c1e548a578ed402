//! `search` answers for the model, shaped like a grep with headings: one raw block with each
//! file's path on a line of its own and below it each matching line as its number, a tab and
//! the line. The engine reports a line once, at its first match (ASH/1 §3.4); the view counts
//! every match in the line again with the same query, and a line holding several says so
//! (`13 (2 matches)`), so a rename can trust the rows. The record counts files, lines and
//! matches.

use std::fmt::Write as _;

use ash_engine::ason::{Atom, Cell, Value};
use ash_engine::protocol::{Op, SearchRow};
use regex::{Regex, RegexBuilder};

use super::read::GUTTER;
use super::{Block, ViewContext, block_marker};

/// The columns of a search answer's record.
pub const COLUMNS: [&str; 4] = ["files", "lines", "matches", "text"];

/// Rewrites the rows of a search answer as `d{files,lines,matches,text}` with the matching
/// lines in one block.
pub(super) fn shape(
    value: &mut Value,
    rows: &[SearchRow],
    cx: &ViewContext<'_>,
    blocks: &mut Vec<Block>,
) {
    let pattern = match cx.op {
        Some(Op::Search(args)) => compile(&args.query, args.regex, args.case_insensitive),
        _ => None,
    };
    let mut text = String::new();
    let (mut files, mut matches) = (0u64, 0u64);
    let mut last = None;
    for row in rows {
        if last != Some(row.path) {
            last = Some(row.path);
            files += 1;
            text.push_str(cx.names.get(row.path).unwrap_or("?"));
            text.push('\n');
        }
        let count = pattern
            .as_ref()
            .map_or(1, |p| match_count(p, &row.text))
            .max(1);
        matches += count;
        let _ = match count {
            1 => writeln!(text, "{}{GUTTER}{}", row.line, row.text),
            n => writeln!(text, "{} ({n} matches){GUTTER}{}", row.line, row.text),
        };
    }
    let cell = if rows.is_empty() {
        Cell::Atom(Atom::text(""))
    } else {
        blocks.push(Block { text, header: None });
        Cell::Atom(Atom::text(block_marker(blocks.len())))
    };
    *value = Value::record(
        &COLUMNS,
        vec![
            Cell::Atom(Atom::uint(files)),
            Cell::Atom(Atom::uint(rows.len() as u64)),
            Cell::Atom(Atom::uint(matches)),
            cell,
        ],
    );
}

/// The query as the engine compiles it: a literal is escaped, case folding on request.
fn compile(query: &str, regex: bool, case_insensitive: bool) -> Option<Regex> {
    let source = if regex {
        query.to_owned()
    } else {
        regex::escape(query)
    };
    RegexBuilder::new(&source)
        .case_insensitive(case_insensitive)
        .size_limit(16 << 20)
        .build()
        .ok()
}

/// How many non-overlapping, non-empty matches `line` holds.
pub(super) fn match_count(pattern: &Regex, line: &str) -> u64 {
    pattern.find_iter(line).filter(|m| !m.is_empty()).count() as u64
}
