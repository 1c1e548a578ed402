//! What a person reads of a finished call in a frontend's output viewer (the TUI's Ctrl+O),
//! built from the typed engine answer like the report: a command's stdout and stderr as text,
//! a read's file text, a search's matches, a listing's entries. The model's view (ASON) is
//! still what the journal keeps and what the viewer shows behind its toggle; this text is
//! kept by the runtime for the session's recent calls only.

use std::fmt::Write;

use ash_engine::protocol::{Data, Response};

use super::super::args::ToolArgs;
use super::super::execute::PathNames;

/// The readable text of `response` to the call `args`; `None` when it has nothing better to
/// show than the model's view (an engine error, whose record and hint are that view).
pub fn readable(args: &ToolArgs, response: &Response, names: &PathNames) -> Option<String> {
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
                let Some(text) = text.as_deref().filter(|t| !t.is_empty()) else {
                    continue;
                };
                let _ = writeln!(out, "── {name}");
                out.push_str(text);
                if !text.ends_with('\n') {
                    out.push('\n');
                }
                if let Some(at) = kept {
                    let _ = writeln!(
                        out,
                        "── (the answer shows part of {name}; all of it is retained as @{at})"
                    );
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
                match &row.text {
                    Some(text) => {
                        out.push_str(text);
                        if !text.ends_with('\n') {
                            out.push('\n');
                        }
                    }
                    None => out.push_str("(no text: binary, or retained for the model)\n"),
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
