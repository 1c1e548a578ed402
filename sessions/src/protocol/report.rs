//! What a finished tool call did, in a form a frontend draws as one row and a few lines under
//! it: how it went, a one-line summary, the last lines of a command's output, and an edit's
//! diff or a file operation's actions. Built by the agent from the typed engine answer; the
//! full output stays in the journal and is paged with the `tool_output` command.

use serde::{Deserialize, Serialize};

/// Most lines of output kept under a row.
pub const TAIL_LINES: usize = 3;
/// Most diff lines carried by a report; a frontend shows the first few under the row and the
/// rest on request.
pub const DIFF_LINES: usize = 200;
/// Most characters of a summary, a tail line or a diff line.
pub const LINE_CHARS: usize = 200;
/// Most characters of a failed call's reason in its summary: a few terminal lines, enough
/// for a reason and its fix, while the model gets the whole text.
pub const REASON_CHARS: usize = 600;

/// How a row reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportTone {
    /// It worked.
    Ok,
    /// A result worth noticing that is not a failure (a nonzero exit, a cancel, a timeout).
    Warn,
    /// The tool failed; the summary says why.
    Error,
}

/// Which side of a diff a line is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffSign {
    /// Added by the edit.
    Added,
    /// Removed by the edit.
    Removed,
    /// Unchanged, shown for orientation.
    Context,
    /// The start of a hunk: its text is where it is (`line 12`); an approval's diff has one
    /// before each run of changes.
    Hunk,
}

/// One line of an edit's diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffLine {
    /// Its side.
    pub sign: DiffSign,
    /// The line, without its newline (a report's lines are cut to [`LINE_CHARS`], an
    /// approval's never).
    pub text: String,
}

/// The change an edit made to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileDiff {
    /// The file, as the model named it.
    pub path: String,
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
    /// The diff's lines: a report carries the first ones (all files together at most
    /// [`DIFF_LINES`]), an approval all of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<DiffLine>,
}

/// What a finished tool call did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolReport {
    /// How the row reads.
    pub tone: ReportTone,
    /// One line: `exit 2`, `3 files, 120 lines`, `12 matches in 4 files`, `+3 −2`, or why it
    /// failed.
    pub summary: String,
    /// The last lines of a command's output (at most [`TAIL_LINES`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tail: Vec<String>,
    /// Non-empty lines of the command's output in all (both streams, as the answer carries
    /// them), so a row can say how many the tail leaves out; 0 when not counted.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lines: u64,
    /// The answer was cut or part of it retained: the model got less than all of it inline.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
    /// An edit's change, per file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<FileDiff>,
    /// A file operation's actions, one line each (`create notes.md`, `move a → b`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
}

impl ToolReport {
    /// A report with only a tone and a summary.
    pub fn new(tone: ReportTone, summary: impl Into<String>) -> Self {
        ToolReport {
            tone,
            summary: one_line(&summary.into()),
            tail: Vec::new(),
            lines: 0,
            cut: false,
            diffs: Vec::new(),
            actions: Vec::new(),
        }
    }

    /// A failed call: its whole reason on one line (line breaks become spaces), cut after
    /// [`REASON_CHARS`] characters with a marker that says how many bytes are left out.
    pub fn failed(reason: &str) -> Self {
        ToolReport {
            summary: reason_line(reason),
            ..ToolReport::new(ReportTone::Error, "")
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ToolReport {
    /// How many output lines the tail leaves out (0 when all are shown or none were counted).
    pub fn hidden_lines(&self) -> u64 {
        self.lines.saturating_sub(self.tail.len() as u64)
    }
}

/// `reason` on one line, cut after [`REASON_CHARS`] characters with `… (N more bytes)`.
fn reason_line(reason: &str) -> String {
    let reason = reason.trim();
    let mut line = String::with_capacity(reason.len().min(REASON_CHARS * 4));
    let mut taken = 0;
    let mut chars = reason.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if taken == REASON_CHARS {
            line.push_str(&format!("… ({} more bytes)", reason.len() - at));
            break;
        }
        match c {
            '\r' if chars.peek().is_some_and(|&(_, next)| next == '\n') => {}
            '\n' => line.push(' '),
            c => line.push(c),
        }
        taken += 1;
    }
    line
}

/// The first line of `text`, cut to [`LINE_CHARS`] characters with `…`.
pub fn one_line(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    cut_line(first.trim_end())
}

/// `line` cut to [`LINE_CHARS`] characters with `…`.
pub fn cut_line(line: &str) -> String {
    match line.char_indices().nth(LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_call_keeps_its_whole_reason_on_one_line() {
        let report = ToolReport::failed("  first line\r\nsecond line\n");
        assert_eq!(report.tone, ReportTone::Error);
        assert_eq!(report.summary, "first line second line");
    }

    #[test]
    fn a_long_reason_is_cut_with_the_bytes_left_out() {
        let reason = format!("{}{}", "é".repeat(REASON_CHARS), "x".repeat(1_000_000));
        let summary = ToolReport::failed(&reason).summary;
        let kept = "é".repeat(REASON_CHARS);
        assert_eq!(summary, format!("{kept}… (1000000 more bytes)"));
        let exact = "y".repeat(REASON_CHARS);
        assert_eq!(ToolReport::failed(&exact).summary, exact);
    }
}
