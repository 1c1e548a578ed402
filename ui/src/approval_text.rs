//! The whole text of an approval, as rows every frontend shows in full (the TUI wrapped and
//! paged, line mode and one-shot printed): the command line, cwd, every environment change,
//! stdin, file actions with a created file's content, and every line of an edit's diff. Runs
//! of whitespace, tabs and invisible characters are made visible, so a command padded with
//! spaces cannot push its tail out of sight and nothing in a row is hidden from the eye.

use std::fmt::Write as _;

use ansa_sessions::protocol::{ApprovalRequest, DiffSign};

/// The mark of a row that continues the one before it after a newline in the same value, so a
/// value with a newline can never pass for a row of its own (`env unset X` under an env value).
const CONTINUED: &str = "↳ ";

/// The row an approval to run a command outside the OS sandbox starts with.
pub(crate) const OUTSIDE_SANDBOX: &str = "runs OUTSIDE the sandbox, with your full rights: it can write anywhere you can and use the network";

/// A run of this many spaces or fewer is shown as that many `·`; a longer one as `␠×N`.
const DOTTED_RUN: usize = 8;

/// What a row is, for its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowKind {
    /// The command line.
    Command,
    /// cwd, an environment change, a file action.
    Detail,
    /// A heading over content or a diff: `stdin (12 bytes, 1 line):`.
    Label,
    /// A line of stdin or of a created file.
    Content,
    /// A diff line added.
    Added,
    /// A diff line removed.
    Removed,
    /// A diff line kept, for orientation.
    Context,
    /// Where a hunk starts.
    Hunk,
    /// Why the action can only be denied.
    Warning,
}

/// One row of an approval's text: a mark (`$ `, `+ `, `│ `, …) and the text, already visible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    /// Its kind.
    pub kind: RowKind,
    /// What goes before the text.
    pub mark: &'static str,
    /// The text with whitespace and invisible characters made visible; never contains a
    /// control character.
    pub text: String,
}

impl Row {
    fn new(kind: RowKind, mark: &'static str, text: &str) -> Row {
        Row {
            kind,
            mark,
            text: visible(text),
        }
    }
}

/// Every row of `request`'s action, in order; nothing is left out or cut.
pub(crate) fn rows(request: &ApprovalRequest) -> Vec<Row> {
    let mut rows = Vec::new();
    if request.outside_sandbox {
        // First, above the command, so it is read before anything else.
        rows.push(Row {
            kind: RowKind::Warning,
            mark: "! ",
            text: OUTSIDE_SANDBOX.to_owned(),
        });
    }
    if !request.argv.is_empty() {
        let command = shell_words(&request.argv);
        let mut parts = command.split('\n').peekable();
        let mut first = true;
        while let Some(part) = parts.next() {
            let mark = if first { "$ " } else { CONTINUED };
            first = false;
            let mut row = Row::new(RowKind::Command, mark, part);
            if parts.peek().is_some() {
                row.text.push('↵');
            }
            rows.push(row);
        }
    }
    if let Some(cwd) = &request.cwd {
        let text = match cwd.as_str() {
            "." | "" => "in . (the workspace root)".to_owned(),
            other => format!("in {}", visible(other)),
        };
        rows.push(Row {
            kind: RowKind::Detail,
            mark: "",
            text,
        });
    }
    for change in &request.env {
        match &change.value {
            Some(value) => text_rows(
                &mut rows,
                RowKind::Detail,
                &format!("env {}={value}", change.name),
            ),
            None => rows.push(Row::new(
                RowKind::Detail,
                "",
                &format!("env unset {}", change.name),
            )),
        }
    }
    if let Some(stdin) = &request.stdin {
        content_rows(&mut rows, "stdin", stdin);
    }
    for action in &request.actions {
        text_rows(&mut rows, RowKind::Detail, action);
    }
    for file in &request.created {
        content_rows(
            &mut rows,
            &format!("content of {}", visible(&file.path)),
            &file.content,
        );
    }
    for diff in &request.diffs {
        rows.push(Row {
            kind: RowKind::Label,
            mark: "",
            text: format!(
                "edit {} (+{} −{})",
                visible(&diff.path),
                diff.added,
                diff.removed
            ),
        });
        for line in &diff.lines {
            let (kind, mark) = match line.sign {
                DiffSign::Added => (RowKind::Added, "+ "),
                DiffSign::Removed => (RowKind::Removed, "- "),
                DiffSign::Context => (RowKind::Context, "  "),
                DiffSign::Hunk => (RowKind::Hunk, "@@ "),
            };
            rows.push(Row::new(kind, mark, &line.text));
        }
        let carried = diff
            .lines
            .iter()
            .filter(|l| matches!(l.sign, DiffSign::Added | DiffSign::Removed))
            .count() as u64;
        // An old record kept only the first lines: say so rather than look complete.
        if carried < diff.added + diff.removed {
            rows.push(Row {
                kind: RowKind::Warning,
                mark: "",
                text: format!(
                    "… {} more changed lines were not recorded",
                    diff.added + diff.removed - carried
                ),
            });
        }
    }
    if let Some(withheld) = &request.withheld {
        rows.push(Row::new(RowKind::Warning, "", &withheld.to_string()));
    }
    rows
}

/// `text` as rows split at its newlines, each but the last ending in `↵`.
fn text_rows(rows: &mut Vec<Row>, kind: RowKind, text: &str) {
    let mut parts = text.split('\n').peekable();
    let mut mark = "";
    while let Some(part) = parts.next() {
        let mut row = Row::new(kind, mark, part);
        mark = CONTINUED;
        if parts.peek().is_some() {
            row.text.push('↵');
        }
        rows.push(row);
    }
}

/// A label with the size, then every line of `content` under a `│` bar.
fn content_rows(rows: &mut Vec<Row>, what: &str, content: &str) {
    let lines = content.lines().count();
    let plural = if lines == 1 { "" } else { "s" };
    rows.push(Row {
        kind: RowKind::Label,
        mark: "",
        text: format!("{what} ({} bytes, {lines} line{plural}):", content.len()),
    });
    if content.is_empty() {
        return;
    }
    let body = content.strip_suffix('\n').unwrap_or(content);
    for line in body.split('\n') {
        rows.push(Row::new(RowKind::Content, "│ ", line));
    }
    if !content.ends_with('\n') {
        rows.push(Row {
            kind: RowKind::Label,
            mark: "",
            text: "(no newline at the end)".to_owned(),
        });
    }
}

/// An argv as a shell would need it typed: words with spaces or quotes are single-quoted.
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` (one line) with nothing invisible: a run of 2–8 spaces as that many `·`, a longer
/// run as `␠×N`, a space at the end as `·`, a tab as `→`, whitespace other than the plain
/// space and variation selectors as `<U+NNNN>`, and every control and format character in the
/// one sanitiser's notation ([`crate::sanitize::exact`]: `␛`, `␍`, `<U+202E>`, …).
pub(crate) fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                let mut run = 1;
                while chars.next_if_eq(&' ').is_some() {
                    run += 1;
                }
                if run == 1 && chars.peek().is_some() {
                    out.push(' ');
                } else if run <= DOTTED_RUN {
                    out.extend(std::iter::repeat_n('·', run));
                } else {
                    let _ = write!(out, "␠×{run}");
                }
            }
            '\t' => out.push('→'),
            // What the sanitiser leaves as it is but an approval must not: blank or invisible
            // characters a reader would take for a space or for nothing.
            c if !c.is_ascii() && hidden(c) && sanitizer_keeps(c) => {
                let _ = write!(out, "<U+{:04X}>", u32::from(c));
            }
            c => out.push(c),
        }
    }
    crate::sanitize::exact(&out).into_owned()
}

/// Whether the one sanitiser shows `c` as itself.
fn sanitizer_keeps(c: char) -> bool {
    let mut buf = [0u8; 4];
    matches!(
        crate::sanitize::exact(c.encode_utf8(&mut buf)),
        std::borrow::Cow::Borrowed(_)
    )
}

/// A character that shows as nothing or as blank: controls, whitespace other than the plain
/// space, and the format characters that hide or reorder text.
fn hidden(c: char) -> bool {
    c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(
            c,
            '\u{ad}'
                | '\u{34f}'
                | '\u{61c}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{17b4}'
                | '\u{17b5}'
                | '\u{180b}'..='\u{180f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff0}'..='\u{fffb}'
                | '\u{e0000}'..='\u{e0fff}'
        )
}

#[cfg(test)]
mod tests;
