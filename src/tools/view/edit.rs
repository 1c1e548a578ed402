//! `edit` answers for the model: per file, the lines added and removed and where the changed
//! text now is (`[41-47,90]`), so checking an edit needs no second read.

use ash_engine::ason::{Atom, Cell, Value};
use ash_engine::protocol::{Content, MutationState, Op, PatchFile, PatchRow};
use similar::{Algorithm, DiffOp, TextDiff};

use super::ViewContext;

/// What one file's committed edit changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Changed {
    /// Lines in the new text that are not in the old.
    pub added: u64,
    /// Lines of the old text that are gone.
    pub removed: u64,
    /// Where each changed stretch is now: `41-47`, `41` (one line), or `41+0` (lines were
    /// only removed, just before line 41 of the new text).
    pub at: Vec<String>,
}

/// The columns of an edit answer's rows.
pub const COLUMNS: [&str; 5] = ["file", "state", "added", "removed", "at"];

/// Rewrites the rows of a patch answer as `d[N]{file,state,added,removed,at}`: each file
/// named, its state in a word, and for a committed file the lines added and removed and
/// where the change now is (`~` otherwise).
pub(super) fn summarize(value: &mut Value, rows: &[PatchRow], cx: &ViewContext<'_>) {
    let patch = match cx.op {
        Some(Op::Patch(args)) => Some(args),
        _ => None,
    };
    let mut table_rows = Vec::with_capacity(rows.len());
    for row in rows {
        let name = cx.names.get(row.path).unwrap_or("?");
        let mut cells = vec![
            Cell::Atom(Atom::text(name)),
            Cell::Atom(Atom::text(super::words::state(row.state))),
        ];
        let changed = (row.state == MutationState::Committed)
            .then_some(patch)
            .flatten()
            .and_then(|args| {
                let file = args.files.iter().find(|f| f.path == name)?;
                let before = cx.preimages.iter().find(|p| p.path == name)?;
                changed(&before.bytes, file)
            });
        match changed {
            Some(c) => {
                cells.push(Cell::Atom(Atom::uint(c.added)));
                cells.push(Cell::Atom(Atom::uint(c.removed)));
                cells.push(Cell::Vector(c.at.into_iter().map(Atom::text).collect()));
            }
            None => cells.extend((0..3).map(|_| Cell::Atom(Atom::Null))),
        }
        table_rows.push(cells);
    }
    *value = Value::table(&COLUMNS, table_rows);
}

/// The change `file`'s edits make to `before`; `None` when an edit is not inline text or
/// does not fit (the engine would not have committed it).
pub(super) fn changed(before: &[u8], file: &PatchFile) -> Option<Changed> {
    let mut after = Vec::with_capacity(before.len());
    let mut at = 0usize;
    for edit in &file.edits {
        let start = usize::try_from(edit.offset).ok()?;
        let end = start.checked_add(usize::try_from(edit.delete).ok()?)?;
        let Content::Text(text) = &edit.insert else {
            return None;
        };
        after.extend_from_slice(before.get(at..start)?);
        after.extend_from_slice(text.as_bytes());
        at = end;
    }
    after.extend_from_slice(before.get(at..)?);
    let (before, after) = (
        String::from_utf8_lossy(before),
        String::from_utf8_lossy(&after),
    );
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .diff_lines(before.as_ref(), after.as_ref());
    let mut changed = Changed {
        added: 0,
        removed: 0,
        at: Vec::new(),
    };
    for group in diff.grouped_ops(0) {
        let (mut first, mut last) = (usize::MAX, 0usize);
        for op in group {
            let (removed, added, new_start) = match op {
                DiffOp::Equal { .. } => continue,
                DiffOp::Delete {
                    old_len, new_index, ..
                } => (old_len, 0, new_index),
                DiffOp::Insert {
                    new_index, new_len, ..
                } => (0, new_len, new_index),
                DiffOp::Replace {
                    old_len,
                    new_index,
                    new_len,
                    ..
                } => (old_len, new_len, new_index),
            };
            changed.removed += removed as u64;
            changed.added += added as u64;
            first = first.min(new_start);
            last = last.max(new_start + added);
        }
        if first == usize::MAX {
            continue;
        }
        // 1-based lines of the new text; `last` is exclusive.
        changed.at.push(match last - first {
            0 => format!("{}+0", first + 1),
            1 => format!("{}", first + 1),
            _ => format!("{}-{}", first + 1, last),
        });
    }
    Some(changed)
}
