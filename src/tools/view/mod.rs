//! The model's view of an ASH/1 answer (docs/agent.md, "Answers").
//!
//! The journal keeps every canonical answer byte for byte; the model receives this view of it,
//! which leaves out only what the model cannot use, keeps everything reachable, and spells in
//! words what the canonical answer codes in numbers:
//! - no `t`/`i` envelope; `s` as a word (`ok`, `failed`, …); `r` only when it names a value;
//! - `flags:[…]` words instead of the `z` bit sum, only when some flag is set;
//! - `error:` a word for the code and `next:"…"` saying what to do, instead of the
//!   `e{c,q,p,x,a}` record (its retry class, stage and permit challenge are the engine's);
//! - no `h` digest columns (the `edit` and `files` tools track digests themselves);
//! - a `p[N]{i,v}` table defining *every* path id the answer's rows use, in the order the rows
//!   use them, so an answer reads on its own after a compaction dropped the one that
//!   introduced an id (ids stay session-wide); read, search and edit answers name files;
//! - `more:"…"` when rows or text were cut, naming the call that reads the rest;
//! - per tool: read text numbered by line under a block header naming its file (`read`),
//!   matching lines under their file, counting every match (`search`), lines added, removed and where (`edit`), exec
//!   streams cut at line boundaries by a stated rule (`stream`);
//! - multi-line texts (file text, command output) shown raw after the answer: the cell holds
//!   `>>>N` and block N is the line `>>>N` (then the file's path, for a read) followed by the
//!   text as it is.

mod edit;
mod hints;
mod read;
mod refusal;
mod search;
mod stream;
pub mod words;
// MCP results are cut like exec output (issue 45).
pub(crate) use stream::plan_cut;

use ash_engine::ason::{self, Atom, Cell, Document, Value};
use ash_engine::compute::ComputePlane;
use ash_engine::protocol::{Data, Flags, Op, Response};
use ash_engine::store::RetainedStore;

use super::execute::{CurrentFile, PathNames};

pub(super) use hints::next_step;
pub use refusal::{call_error, exec_error, refusal};
pub use words::Refusal;

/// Columns the model never needs: whole-file digests.
const DIGEST_COLUMN: &str = "h";

/// What the view needs besides the answer.
pub struct ViewContext<'a> {
    /// The tool the model called (for the wording of hints).
    pub tool: &'static str,
    /// Names of every path id of the session so far (this answer's included).
    pub names: &'a PathNames,
    /// The retained values, for exec streams cut at line boundaries and large reads.
    pub store: &'a RetainedStore,
    /// Where reducers run.
    pub plane: &'a ComputePlane,
    /// The presentation limit of an exec (4 × its `tok`), from which stream budgets follow.
    pub exec_limit: usize,
    /// The OS sandbox refused to start the command: the `next` hint says so instead of the
    /// spawn failure's (the engine answers such a refusal as a failed spawn).
    pub sandbox_refused: bool,
    /// The operation that was asked (a read's mode, a search's query, an edit's patch).
    pub op: Option<&'a Op>,
    /// The files an edit changed, as they were before it (for its line counts and ranges).
    pub preimages: &'a [CurrentFile],
}

/// The `next` hint of a command the OS sandbox would not start (its reason is on the answer's
/// `sandbox:` line).
const SANDBOX_REFUSED_NEXT: &str = "The OS sandbox could not be applied, so the command was not started (the sandbox line says why): tell the user; do not retry it.";

/// One raw text shown after the answer: `>>>N`, then `header` if any, then the text.
pub(super) struct Block {
    text: String,
    header: Option<String>,
}

/// The model's view of `response`.
pub fn render(response: &Response, cx: &ViewContext<'_>) -> String {
    let mut doc = Document::new().with(
        "s",
        Value::Scalar(Atom::text(words::status(response.status))),
    );
    let capture = large_capture(response);
    let ids = if capture.is_some() {
        Vec::new()
    } else {
        path_ids(response.data.as_ref())
    };
    if !ids.is_empty() {
        let rows = ids
            .iter()
            .map(|id| {
                let name = cx.names.get(*id).unwrap_or("?");
                vec![Cell::Atom(Atom::uint(*id)), Cell::Atom(Atom::text(name))]
            })
            .collect();
        doc.push("p", Value::table(&["i", "v"], rows));
    }
    let mut more = Vec::new();
    let mut blocks = Vec::new();
    // What the view itself cut is flagged like what the engine cut.
    let mut flags = response.flags;
    if let Some(data) = &response.data {
        let mut value = data.to_value();
        drop_column(&mut value, DIGEST_COLUMN);
        if let (Some(note), Value::Table(table)) = (&capture, &mut value) {
            table.rows.clear();
            more.push(note.clone());
        }
        let cut = match data {
            Data::Exec(exec) => {
                stream::reshape(&mut value, exec, cx, &mut more);
                false
            }
            Data::Read(rows) => read::shape(&mut value, rows, cx, &mut more, &mut blocks),
            Data::Search(rows) => {
                search::shape(&mut value, rows, cx, &mut blocks);
                false
            }
            Data::Patch(rows) => {
                edit::summarize(&mut value, rows, cx);
                false
            }
            _ => false,
        };
        if cut {
            flags = flags.with(Flags::TRUNCATED);
        }
        words::name_codes(&mut value, data);
        for column in TEXT_COLUMNS {
            lift_text(&mut value, column, &mut blocks);
        }
        doc.push("d", value);
    }
    if let Some(e) = &response.error {
        doc.push("error", Value::Scalar(Atom::text(words::error(e.code))));
        doc.push(
            "next",
            Value::Scalar(Atom::text(if cx.sandbox_refused {
                SANDBOX_REFUSED_NEXT.to_owned()
            } else {
                next_step(cx.tool, response)
            })),
        );
    }
    if let Some(note) = cut_rows_note(response) {
        more.push(note);
    }
    if !more.is_empty() {
        doc.push("more", Value::Scalar(Atom::text(more.join(" "))));
    }
    let flags = words::flags(flags);
    if !flags.is_empty() {
        doc.push(
            "flags",
            Value::Vector(flags.into_iter().map(Atom::text).collect()),
        );
    }
    if let Some(r) = response.reference {
        doc.push("r", Value::Scalar(Atom::Ref(r)));
    }
    let mut out = ason::encode(&doc);
    for (n, block) in blocks.iter().enumerate() {
        out.push_str(&block_marker(n + 1));
        if let Some(header) = &block.header {
            out.push(' ');
            out.push_str(header);
        }
        out.push('\n');
        out.push_str(&block.text);
        if !block.text.ends_with('\n') {
            out.push_str(NO_FINAL_NEWLINE);
        }
    }
    out
}

/// Columns whose multi-line texts are shown raw below the answer: read and slice `t`, exec
/// `o` and `e`.
const TEXT_COLUMNS: [&str; 3] = ["t", "o", "e"];

/// Said after a raw block whose text does not end with a newline (one was added to show it).
const NO_FINAL_NEWLINE: &str = "\n(no newline at end)\n";

/// The cell that stands for block `n`, and the line that starts it.
fn block_marker(n: usize) -> String {
    format!(">>>{n}")
}

/// Replaces each text of two or more lines in `column` with a block marker, keeping the text in
/// `blocks`: raw text costs fewer tokens than quoted text with escapes, and reads as written.
fn lift_text(value: &mut Value, column: &str, blocks: &mut Vec<Block>) {
    let mut lift = |cell: &mut Cell| {
        // One line stays inline: a block would cost more than its two escapes.
        if let Cell::Atom(Atom::Text(text)) = cell
            && text.trim_end_matches('\n').contains('\n')
        {
            blocks.push(Block {
                text: std::mem::take(text),
                header: None,
            });
            *cell = Cell::Atom(Atom::text(block_marker(blocks.len())));
        }
    };
    match value {
        Value::Record(record) => {
            if let Some(at) = record.cols.iter().position(|c| c == column) {
                lift(&mut record.row[at]);
            }
        }
        Value::Table(table) => {
            if let Some(at) = table.cols.iter().position(|c| c == column) {
                for row in &mut table.rows {
                    lift(&mut row[at]);
                }
            }
        }
        Value::Scalar(_) | Value::Vector(_) => {}
    }
}

/// Every path id the rows of `data` use, once each, in the order the rows first use them:
/// the `p` table then reads in the same order as the rows. Read, search and edit answers name
/// their files themselves, so they need no table.
fn path_ids(data: Option<&Data>) -> Vec<u64> {
    let all: Vec<u64> = match data {
        Some(Data::List(rows)) => rows.iter().map(|r| r.path).collect(),
        Some(Data::Snapshot(rows)) => rows.iter().map(|r| r.path).collect(),
        Some(Data::Fs(rows)) => rows
            .iter()
            .flat_map(|r| std::iter::once(r.path).chain(r.destination))
            .collect(),
        Some(Data::Materialize(m)) => vec![m.path],
        _ => Vec::new(),
    };
    let mut seen = std::collections::HashSet::with_capacity(all.len());
    all.into_iter().filter(|id| seen.insert(*id)).collect()
}

/// Removes column `name` from a record or table value.
fn drop_column(value: &mut Value, name: &str) {
    match value {
        Value::Record(record) => {
            if let Some(at) = record.cols.iter().position(|c| c == name) {
                record.cols.remove(at);
                record.row.remove(at);
            }
        }
        Value::Table(table) => {
            if let Some(at) = table.cols.iter().position(|c| c == name) {
                table.cols.remove(at);
                for row in &mut table.rows {
                    row.remove(at);
                }
            }
        }
        Value::Scalar(_) | Value::Vector(_) => {}
    }
}

/// A capture lists at most this many entries; a larger one is summarised (its manifest is the
/// baseline of a later delta, and `list` shows a tree better).
const CAPTURE_ROWS_SHOWN: usize = 16;

/// The note that replaces the rows of a large snapshot capture, or `None` to show them.
fn large_capture(response: &Response) -> Option<String> {
    let Some(Data::Snapshot(rows)) = &response.data else {
        return None;
    };
    let reference = response.reference?;
    let captured = rows
        .iter()
        .all(|r| r.change == ash_engine::protocol::Change::Captured);
    if !captured || rows.len() <= CAPTURE_ROWS_SHOWN {
        return None;
    }
    let files = rows
        .iter()
        .filter(|r| r.kind == ash_engine::protocol::EntryKind::File)
        .count();
    // The manifest is `k:s`, `v:1`, the scope record (2 lines) and the table header: rows from
    // line 6, literal paths.
    Some(format!(
        "Captured {} entries ({files} files) as @{reference}; pass \"@{reference}\" as the baseline of a later snapshot to list what changed. The entries are the manifest's rows from line 6: evidence {}.",
        rows.len(),
        evidence_lines(reference, 6, None)
    ))
}

/// The complete arguments of an `evidence` call reading `length` lines (`None`: to the end)
/// of `@reference` from line `offset`, as the model can send them unchanged.
pub(super) fn evidence_lines(reference: u64, offset: u64, length: Option<u64>) -> String {
    let length = length.map_or_else(|| "null".to_owned(), |n| n.to_string());
    format!(
        "{{\"ref\":\"@{reference}\",\"kind\":\"lines\",\"offset\":{offset},\"length\":{length},\"query\":null,\"regex\":false,\"case_insensitive\":false}}"
    )
}

/// For a row table cut to a prefix (`z` bit 0 with a top-level `r`): where the other rows are.
/// The retained document has two header lines (`k:…`, `d[N]{…}:`), then one row per line.
fn cut_rows_note(response: &Response) -> Option<String> {
    let reference = response.reference?;
    if !response.flags.contains(Flags::TRUNCATED) {
        return None;
    }
    let shown = match &response.data {
        Some(Data::List(rows)) => rows.len(),
        Some(Data::Search(rows)) => rows.len(),
        _ => return None,
    };
    let first = shown as u64 + 3;
    Some(format!(
        "Only the first {shown} are shown; @{reference} holds all of them (one per line from line 3, with literal paths). Read on with evidence {} or search it with kind \"search\".",
        evidence_lines(reference, first, Some(200))
    ))
}

#[cfg(test)]
mod legend_tests;
#[cfg(test)]
mod tests;
