//! What a person reads of a finished call in a frontend's output viewer (the TUI's Ctrl+O),
//! built from the typed engine answer like the report: a command's stdout and stderr as text,
//! a read's file text, a search's matches, a listing's entries. The model's view (ASON) is
//! still what the journal keeps and what the viewer shows behind its toggle; this text is
//! kept by the runtime for the session's recent calls only.

use std::fmt::Write;

use ash_engine::protocol::{Data, Response};

use super::super::args::ToolArgs;
use super::super::execute::PathNames;
use super::retained::{LineCount, RetainedText};

/// The readable text of `response` to the call `args`; `None` when it has nothing better to
/// show than the model's view (an engine error, whose record and hint are that view).
/// `retained` reads back a stream the answer carried only part of (`@N`).
pub fn readable(
    args: &ToolArgs,
    response: &Response,
    names: &PathNames,
    retained: &dyn Fn(u64) -> RetainedText,
) -> Option<String> {
    let path = |id: u64| {
        names
            .get(id)
            .map_or_else(|| format!("path #{id}"), str::to_owned)
    };
    let mut out = String::new();
    match response.data.as_ref()? {
        Data::Exec(exec) => {
            if let ToolArgs::Exec(_) = args {
                let _ = writeln!(out, "$ {}", args.target());
            }
            let end = match exec.code {
                Some(code) => format!("{:?} {code}", exec.kind),
                None => format!("{:?}", exec.kind),
            };
            let _ = writeln!(out, "{} after {} ms", end.to_lowercase(), exec.ms);
            for (name, text, kept) in [
                ("stdout", &exec.stdout, exec.stdout_ref),
                ("stderr", &exec.stderr, exec.stderr_ref),
            ] {
                let text = text.as_deref().unwrap_or_default();
                if text.is_empty() && kept.is_none() {
                    continue;
                }
                let _ = writeln!(out, "── {name}");
                match kept {
                    Some(at) => stream_part(&mut out, name, text, at, retained(at)),
                    None => push_text(&mut out, text),
                }
            }
        }
        Data::Read(rows) => {
            for row in rows {
                let _ = writeln!(
                    out,
                    "── {} (from {}, {} long)",
                    path(row.path),
                    row.offset,
                    row.len
                );
                match (&row.text, row.reference) {
                    (Some(text), _) => push_text(&mut out, text),
                    // A selection too long for the answer is retained whole: a person reads
                    // it back, as a command's cut output is (it used to say "no text" for a
                    // plain text file the model got as `@N`).
                    (None, Some(at)) => read_part(&mut out, at, retained(at)),
                    (None, None) => out.push_str("(no text)\n"),
                }
            }
        }
        Data::Search(rows) => {
            if rows.is_empty() {
                out.push_str("no matches\n");
            }
            for row in rows {
                let _ = writeln!(
                    out,
                    "{}:{}:{}: {}",
                    path(row.path),
                    row.line,
                    row.column,
                    row.text.trim_end_matches(['\n', '\r'])
                );
            }
        }
        Data::List(rows) => {
            for row in rows {
                let size = row.size.map(|s| format!("  {s} bytes")).unwrap_or_default();
                let _ = writeln!(out, "{:?}  {}{size}", row.kind, path(row.path));
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Appends `text` and ends it with a newline.
fn push_text(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.is_empty() && !text.ends_with('\n') {
        out.push('\n');
    }
}

/// A stream the answer carried only part of (`shown`), retained whole as `@at`: all of it when
/// it could be read back, else the whole lines the answer kept of its start and end around a
/// line saying how many lines are not shown.
fn stream_part(out: &mut String, name: &str, shown: &str, at: u64, whole: RetainedText) {
    let count = match whole {
        RetainedText::Whole(text) => {
            push_text(out, &text);
            let _ = writeln!(
                out,
                "── (all of {name}; the model got part of it, the whole is retained as @{at})"
            );
            return;
        }
        RetainedText::TooLong(count) => count,
        RetainedText::Gone => None,
    };
    let (head, tail) = match split_cut(shown) {
        // The cut falls inside lines: only whole lines are shown on either side.
        Some((head, tail)) => (
            &head[..head.rfind('\n').map_or(0, |i| i + 1)],
            tail.find('\n').map_or("", |i| &tail[i + 1..]),
        ),
        None => (shown, ""),
    };
    push_text(out, head);
    let hidden = count.map(|c| {
        c.all
            .saturating_sub(LineCount::of(head).all + LineCount::of(tail).all)
    });
    match hidden {
        Some(n) => {
            let lines = if n == 1 { "line" } else { "lines" };
            let _ = writeln!(out, "… {n} {lines} not shown (retained as @{at})");
        }
        None => {
            let _ = writeln!(out, "… part of {name} not shown (retained as @{at})");
        }
    }
    push_text(out, tail);
}

/// A read's selection the answer carried only as `@at`: its text when it could be read back
/// and is text, else a line saying why it is not shown.
fn read_part(out: &mut String, at: u64, whole: RetainedText) {
    match whole {
        // Bytes that are not UTF-8 were replaced on the way back: a binary file, not text.
        RetainedText::Whole(text) if text.contains('\u{FFFD}') => {
            let _ = writeln!(out, "(binary, not shown: retained as @{at})");
        }
        RetainedText::Whole(text) => {
            push_text(out, &text);
            let _ = writeln!(
                out,
                "── (all of the selection; the model got it retained as @{at})"
            );
        }
        RetainedText::TooLong(Some(count)) => {
            let _ = writeln!(
                out,
                "… {} lines not shown: too long to show (retained as @{at})",
                count.all
            );
        }
        RetainedText::TooLong(None) => {
            let _ = writeln!(out, "… not shown: too long to show (retained as @{at})");
        }
        RetainedText::Gone => {
            let _ = writeln!(out, "… not shown: no longer retained (@{at})");
        }
    }
}

/// The head and tail of a text the engine cut in the middle (`head`, `\n...\n`, `tail`, the
/// two halves about equally long); `None` when it was not cut that way.
fn split_cut(text: &str) -> Option<(&str, &str)> {
    let sep = ash_engine::reduce::SEPARATOR;
    let middle = text.len().saturating_sub(sep.len()) / 2;
    text.match_indices(sep)
        .map(|(at, _)| at)
        .min_by_key(|&at| at.abs_diff(middle))
        .filter(|&at| at.abs_diff(middle) <= 4)
        .map(|at| (&text[..at], &text[at + sep.len()..]))
}
