//! The frontend's report of a finished tool call, built from the typed engine answer and the
//! call's arguments (never from the model's view text): how it went, a one-line summary, the
//! last lines of a command's output, an edit's diff, a file operation's actions.

use std::collections::BTreeSet;

use ansa_sessions::protocol::{
    DIFF_LINES, DiffLine, DiffSign, FileDiff, ReportTone, TAIL_LINES, ToolReport, cut_line,
};
use ash_engine::protocol::{Change, Data, ErrorCode, ExecResult, ExitKind, Flags, Response};
use similar::{ChangeTag, TextDiff};

use super::args::{EditArgs, FileActionKind, FilesArgs, ReadMode, ToolArgs};

mod readable;
pub mod retained;
pub use readable::readable;

/// The report of an engine answer to the call `args`.
pub fn report(args: &ToolArgs, response: &Response) -> ToolReport {
    let mut report = match (&response.data, args) {
        (Some(Data::Exec(exec)), _) => exec_report(exec),
        _ if response.error.is_some() => error_report(args, response),
        (Some(Data::Read(rows)), ToolArgs::Read(a)) => {
            let files = rows.iter().map(|r| r.path).collect::<BTreeSet<_>>().len();
            let amount: u64 = rows.iter().map(|r| r.len).sum();
            let unit = match a.mode {
                ReadMode::Lines => "line",
                ReadMode::Bytes => "byte",
            };
            let amount = count(amount, unit);
            let summary = match files {
                1 => amount,
                n => format!("{}, {amount}", count(n as u64, "file")),
            };
            ToolReport::new(ReportTone::Ok, summary)
        }
        (Some(Data::List(rows)), _) => {
            ToolReport::new(ReportTone::Ok, count(rows.len() as u64, "entry"))
        }
        (Some(Data::Search(rows)), _) => {
            let files = rows.iter().map(|r| r.path).collect::<BTreeSet<_>>().len();
            let summary = match rows.len() {
                0 => "no matches".to_owned(),
                n => format!(
                    "{} in {}",
                    count(n as u64, "match"),
                    count(files as u64, "file")
                ),
            };
            ToolReport::new(ReportTone::Ok, summary)
        }
        (Some(Data::Snapshot(rows)), _) => {
            let changes = rows.iter().filter(|r| r.change != Change::Captured).count();
            let summary = if changes == 0 && rows.iter().all(|r| r.change == Change::Captured) {
                count(rows.len() as u64, "entry")
            } else {
                count(changes as u64, "change")
            };
            ToolReport::new(ReportTone::Ok, summary)
        }
        (_, ToolArgs::Edit(a)) => edit_report(a),
        (_, ToolArgs::Files(a)) => files_report(a),
        (_, ToolArgs::Evidence(_)) => ToolReport::new(ReportTone::Ok, "read retained output"),
        _ => ToolReport::new(ReportTone::Ok, "done"),
    };
    report.cut = response.flags.contains(Flags::TRUNCATED)
        || response.flags.contains(Flags::RETAINED)
        || response.reference.is_some();
    report
}

/// "1 file", "3 files", "1 match", "2 matches", "1 entry", "4 entries".
fn count(n: u64, noun: &str) -> String {
    let plural = match noun {
        _ if n == 1 => noun.to_owned(),
        "match" => "matches".to_owned(),
        "entry" => "entries".to_owned(),
        _ => format!("{noun}s"),
    };
    format!("{n} {plural}")
}

fn exec_report(exec: &ExecResult) -> ToolReport {
    let code = exec.code.map_or_else(|| "?".to_owned(), |c| c.to_string());
    let (tone, summary) = match exec.kind {
        ExitKind::Exited if exec.code == Some(0) => (ReportTone::Ok, "exit 0".to_owned()),
        ExitKind::Exited => (ReportTone::Warn, format!("exit {code}")),
        ExitKind::Signaled => (ReportTone::Warn, format!("killed by signal {code}")),
        ExitKind::TimedOut => (
            ReportTone::Warn,
            format!("timed out after {}", seconds(exec.ms)),
        ),
        ExitKind::Cancelled => (ReportTone::Warn, "cancelled".to_owned()),
        ExitKind::Killed => (ReportTone::Warn, "killed".to_owned()),
    };
    let mut report = ToolReport::new(tone, summary);
    // A failing command's reason is usually on stderr; otherwise its result is on stdout.
    let failing = tone != ReportTone::Ok;
    let first = if failing { &exec.stderr } else { &exec.stdout };
    let second = if failing { &exec.stdout } else { &exec.stderr };
    let text = first
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .or(second.as_deref());
    report.tail = text.map(tail).unwrap_or_default();
    report.lines = [&exec.stdout, &exec.stderr]
        .into_iter()
        .flatten()
        .map(|t| t.lines().filter(|l| !l.trim().is_empty()).count() as u64)
        .sum();
    report
}

fn seconds(ms: u64) -> String {
    if ms < 10_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} s", ms / 1000)
    }
}

/// The last non-empty lines of `text`.
pub(crate) fn tail(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = lines.len().saturating_sub(TAIL_LINES);
    lines[from..].iter().map(|l| cut_line(l)).collect()
}

fn error_report(args: &ToolArgs, response: &Response) -> ToolReport {
    let Some(error) = &response.error else {
        return ToolReport::new(ReportTone::Ok, "done");
    };
    let edit = matches!(args, ToolArgs::Edit(_) | ToolArgs::Files(_));
    let (tone, reason) = match error.code {
        ErrorCode::Cancelled => (ReportTone::Warn, "cancelled"),
        ErrorCode::TimedOut => (ReportTone::Warn, "timed out"),
        ErrorCode::InvalidArgument if edit => (
            ReportTone::Error,
            "the edit does not fit the file as last read",
        ),
        ErrorCode::InvalidArgument => (ReportTone::Error, "invalid arguments"),
        ErrorCode::UnsupportedOperation => (ReportTone::Error, "not available in this session"),
        ErrorCode::DuplicateRequest => (ReportTone::Error, "the same request is still running"),
        ErrorCode::WorkspaceEscape => (ReportTone::Error, "the path leads outside the workspace"),
        ErrorCode::PathNotFound if matches!(args, ToolArgs::Exec(_)) => (
            ReportTone::Error,
            "failed to start: program or cwd not found",
        ),
        ErrorCode::PathNotFound => (ReportTone::Error, "not found"),
        ErrorCode::WrongFileType => (ReportTone::Error, "wrong file type"),
        ErrorCode::CapabilityDenied => (ReportTone::Error, "not allowed in this mode"),
        ErrorCode::PermitRequired | ErrorCode::PermitInvalid => {
            (ReportTone::Error, "needs approval")
        }
        ErrorCode::SpawnFailed => (ReportTone::Error, "failed to start"),
        ErrorCode::ProcessFailed => (ReportTone::Warn, "the process failed"),
        ErrorCode::Filesystem => (ReportTone::Error, "filesystem error"),
        ErrorCode::ContentConflict if edit => (
            ReportTone::Error,
            "the file changed since it was read, or the target exists",
        ),
        ErrorCode::ContentConflict => (ReportTone::Error, "conflict"),
        ErrorCode::RecoveryRequired => (ReportTone::Error, "an interrupted change needs recovery"),
        ErrorCode::OutputBudget => (
            ReportTone::Error,
            "the answer did not fit the output budget",
        ),
        ErrorCode::StorageBudget => (ReportTone::Error, "a size or storage limit was hit"),
        ErrorCode::ConcurrencyBudget => (ReportTone::Error, "too many requests at once"),
        ErrorCode::UnknownReference => (ReportTone::Error, "unknown or released reference"),
        ErrorCode::ReferenceBusy => (ReportTone::Error, "the reference is in use"),
        ErrorCode::BatchFailed => (ReportTone::Error, "a step of the batch failed"),
        ErrorCode::Internal => (ReportTone::Error, "internal engine error"),
    };
    ToolReport::new(tone, format!("{reason} ({})", error.code.as_u16()))
}

fn edit_report(args: &EditArgs) -> ToolReport {
    let mut room = DIFF_LINES;
    let mut diffs = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let mut diff = FileDiff {
            path: file.path.clone(),
            added: 0,
            removed: 0,
            lines: Vec::new(),
        };
        for edit in &file.edits {
            // Lines compare by their text: a last line without its newline still matches.
            let (old, new) = (with_newline(&edit.old), with_newline(&edit.new));
            for change in TextDiff::from_lines(old.as_ref(), new.as_ref()).iter_all_changes() {
                let sign = match change.tag() {
                    ChangeTag::Insert => {
                        diff.added += 1;
                        DiffSign::Added
                    }
                    ChangeTag::Delete => {
                        diff.removed += 1;
                        DiffSign::Removed
                    }
                    ChangeTag::Equal => continue,
                };
                if room > 0 {
                    room -= 1;
                    let text = change.value();
                    let text = text.strip_suffix('\n').unwrap_or(text);
                    let text = text.strip_suffix('\r').unwrap_or(text);
                    diff.lines.push(DiffLine {
                        sign,
                        text: cut_line(text),
                    });
                }
            }
        }
        diffs.push(diff);
    }
    let (added, removed) = diffs
        .iter()
        .fold((0, 0), |(a, r), d| (a + d.added, r + d.removed));
    let summary = match diffs.len() {
        1 => format!("+{added} −{removed}"),
        n => format!("{}, +{added} −{removed}", count(n as u64, "file")),
    };
    let mut report = ToolReport::new(ReportTone::Ok, summary);
    report.diffs = diffs;
    report
}

fn with_newline(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_empty() || text.ends_with('\n') {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(format!("{text}\n"))
    }
}

fn files_report(args: &FilesArgs) -> ToolReport {
    let actions: Vec<String> = args
        .actions
        .iter()
        .map(|a| {
            let to = a.to.as_deref().unwrap_or("?");
            cut_line(&match a.kind {
                FileActionKind::Create => format!("create {}", a.path),
                FileActionKind::Copy => format!("copy {} → {to}", a.path),
                FileActionKind::Move => format!("move {} → {to}", a.path),
                FileActionKind::Remove => format!("remove {}", a.path),
            })
        })
        .collect();
    let summary = match actions.as_slice() {
        [one] => one.clone(),
        many => count(many.len() as u64, "action"),
    };
    let mut report = ToolReport::new(ReportTone::Ok, summary);
    report.actions = actions;
    report
}

#[cfg(test)]
mod tests;
