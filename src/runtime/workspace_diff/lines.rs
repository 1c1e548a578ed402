//! A unified diff of two texts as protocol lines: `@@ -a,b +c,d @@` hunks with three lines of
//! context. Myers' diff without a deadline, so the same two texts always give the same lines.

use ansa_sessions::protocol::{DiffLine, DiffSign};
use similar::{ChangeTag, TextDiff};

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// A file's unified diff and its counts.
pub struct Unified {
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
    /// Hunk headers and their lines.
    pub lines: Vec<DiffLine>,
}

/// The unified diff from `old` to `new`.
pub fn unified(old: &str, new: &str) -> Unified {
    let diff = TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_lines(old, new);
    let mut out = Unified {
        added: 0,
        removed: 0,
        lines: Vec::new(),
    };
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (old_range, new_range) = (
            first.old_range().start..last.old_range().end,
            first.new_range().start..last.new_range().end,
        );
        out.lines.push(DiffLine {
            sign: DiffSign::Hunk,
            text: format!(
                "@@ -{} +{} @@",
                range(old_range.start, old_range.len()),
                range(new_range.start, new_range.len())
            ),
        });
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Equal => DiffSign::Context,
                    ChangeTag::Insert => {
                        out.added += 1;
                        DiffSign::Added
                    }
                    ChangeTag::Delete => {
                        out.removed += 1;
                        DiffSign::Removed
                    }
                };
                let text = change.value();
                let text = text.strip_suffix('\n').unwrap_or(text);
                let text = text.strip_suffix('\r').unwrap_or(text);
                out.lines.push(DiffLine {
                    sign,
                    text: text.to_owned(),
                });
            }
        }
    }
    out
}

/// `start,len` as a unified diff writes it (1-based; `0,0` for an empty side).
fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        n => format!("{},{n}", start + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(u: &Unified) -> Vec<String> {
        u.lines
            .iter()
            .map(|l| {
                let sign = match l.sign {
                    DiffSign::Added => "+",
                    DiffSign::Removed => "-",
                    DiffSign::Context => " ",
                    DiffSign::Hunk => "",
                };
                format!("{sign}{}", l.text)
            })
            .collect()
    }

    #[test]
    fn hunks_count_and_context_like_diff_u() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nD\ne\nf\ng\nh\ni\n";
        let u = unified(old, new);
        assert_eq!((u.added, u.removed), (2, 1));
        assert_eq!(
            shown(&u),
            [
                "@@ -1,8 +1,9 @@",
                " a",
                " b",
                " c",
                "-d",
                "+D",
                " e",
                " f",
                " g",
                " h",
                "+i"
            ]
        );
        let added = unified("", "x\ny\n");
        assert_eq!(shown(&added), ["@@ -0,0 +1,2 @@", "+x", "+y"]);
        assert!(unified("same\n", "same\n").lines.is_empty());
    }
}
