//! What an approval shows, derived from the engine request itself — the very `Op` whose
//! canonical action document the permit's digest covers — so that what the user sees is all
//! of what runs: an `exec`'s whole argv, cwd, environment changes and stdin; an edit's whole
//! diff against the bytes the patch applies to; every file action with a created file's
//! content. Nothing is cut; what cannot be carried whole is marked withheld, and such an
//! action can only be denied.

use ansa_sessions::protocol::{
    CreatedFile, DiffLine, DiffSign, EnvShown, FileDiff, MAX_SHOWN_BYTES, Withheld,
};
use ash_engine::protocol::{
    Content, EnvChange, ExecArgs, FsArgs, FsOp, Op, PatchArgs, Request, Stdin,
};
use similar::{ChangeTag, TextDiff};

use super::current::CurrentFile;

/// Longest one-line summary, in characters.
const SUMMARY_CHARS: usize = 120;

/// The whole action of one request, in the shape an `ApprovalRequest` carries it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shown {
    /// One line: `run cargo test`, `edit src/lib.rs (+3 −1)`, `move a → b`.
    pub summary: String,
    /// An `exec`'s program and arguments, whole.
    pub argv: Vec<String>,
    /// An `exec`'s working directory (`.` for the workspace root).
    pub cwd: Option<String>,
    /// An `exec`'s environment changes.
    pub env: Vec<EnvShown>,
    /// An `exec`'s stdin.
    pub stdin: Option<String>,
    /// An edit's whole diff, per file.
    pub diffs: Vec<FileDiff>,
    /// File actions (and notes on an edit), one line each.
    pub actions: Vec<String>,
    /// Created files with their content.
    pub created: Vec<CreatedFile>,
    /// Why part of the action is not carried.
    pub withheld: Option<Withheld>,
    /// The command runs outside the configured OS sandbox, with the user's full rights.
    pub outside_sandbox: bool,
}

/// The whole of `request`'s action in words. `preimages` are the files an edit's patch
/// applies to, as read when it was prepared.
pub fn shown(request: &Request, preimages: &[CurrentFile]) -> Shown {
    let mut shown = match &request.op {
        Op::Exec(exec) => exec_shown(exec),
        Op::Patch(patch) => patch_shown(patch, preimages),
        Op::Fs(fs) => fs_shown(fs),
        // Any other changing operation (no agent tool sends one today) is shown as its
        // canonical document, which is exactly what the digest covers.
        other => Shown {
            summary: cut_summary(&format!("engine operation `{}`", other.letter())),
            actions: vec![ash_engine::ason::encode(&request.action_document())],
            ..Shown::default()
        },
    };
    let bytes = shown.text_bytes();
    if bytes > MAX_SHOWN_BYTES {
        shown = Shown {
            summary: shown.summary,
            withheld: Some(Withheld::TooLarge {
                bytes,
                limit: MAX_SHOWN_BYTES,
            }),
            ..Shown::default()
        };
    }
    shown
}

impl Shown {
    /// Bytes of text carried: what [`MAX_SHOWN_BYTES`] bounds.
    fn text_bytes(&self) -> u64 {
        let argv: usize = self.argv.iter().map(String::len).sum();
        let env: usize = self
            .env
            .iter()
            .map(|e| e.name.len() + e.value.as_ref().map_or(0, String::len))
            .sum();
        let stdin = self.stdin.as_ref().map_or(0, String::len);
        let diffs: usize = self
            .diffs
            .iter()
            .flat_map(|d| &d.lines)
            .map(|l| l.text.len())
            .sum();
        let actions: usize = self.actions.iter().map(String::len).sum();
        let created: usize = self
            .created
            .iter()
            .map(|c| c.path.len() + c.content.len())
            .sum();
        (argv + env + stdin + diffs + actions + created) as u64
    }

    fn withhold(&mut self, what: String) {
        if self.withheld.is_none() {
            self.withheld = Some(Withheld::Unshowable { what });
        }
    }
}

fn exec_shown(exec: &ExecArgs) -> Shown {
    let argv: Vec<String> = std::iter::once(exec.program.clone())
        .chain(exec.argv.iter().cloned())
        .collect();
    let mut shown = Shown {
        summary: cut_summary(&format!("run {}", argv.join(" "))),
        cwd: Some(if exec.cwd.is_empty() {
            ".".to_owned()
        } else {
            exec.cwd.clone()
        }),
        argv,
        ..Shown::default()
    };
    if exec.clear_env {
        shown
            .actions
            .push("starts from an empty environment".to_owned());
    }
    shown.env = exec
        .env
        .iter()
        .map(|change| match change {
            EnvChange::Set { name, value } => EnvShown {
                name: name.clone(),
                value: Some(value.clone()),
            },
            EnvChange::Remove(name) => EnvShown {
                name: name.clone(),
                value: None,
            },
        })
        .collect();
    match &exec.stdin {
        Stdin::Null => {}
        Stdin::Text(text) => shown.stdin = Some(text.clone()),
        Stdin::Ref(n) => shown.withhold(format!("stdin from the retained value @{n}")),
    }
    shown
}

fn fs_shown(fs: &FsArgs) -> Shown {
    let mut shown = Shown::default();
    for action in &fs.actions {
        let line = match &action.op {
            FsOp::Create { path, content } => {
                match content {
                    Content::Text(text) => shown.created.push(CreatedFile {
                        path: path.clone(),
                        content: text.clone(),
                    }),
                    Content::Ref(n) => {
                        shown.withhold(format!("the content of {path} (retained value @{n})"))
                    }
                }
                format!("create {path}")
            }
            FsOp::Copy { from, to, .. } => format!("copy {from} → {to}"),
            FsOp::Move { from, to, .. } => format!("move {from} → {to}"),
            FsOp::Remove { path, .. } => format!("remove {path}"),
        };
        shown.actions.push(line);
    }
    shown.summary = match shown.actions.as_slice() {
        [one] => cut_summary(one),
        many => format!("{} actions", many.len()),
    };
    shown
}

fn patch_shown(patch: &PatchArgs, preimages: &[CurrentFile]) -> Shown {
    let mut shown = Shown::default();
    for file in &patch.files {
        let Some(now) = preimages.iter().find(|p| p.path == file.path) else {
            shown.withhold(format!(
                "the change to {} (its bytes were not read)",
                file.path
            ));
            continue;
        };
        if now.digest != file.digest {
            shown.actions.push(format!(
                "{} changed since the model read it: the engine will refuse this edit and write nothing",
                file.path
            ));
        }
        let mut edits = Vec::with_capacity(file.edits.len());
        for edit in &file.edits {
            match &edit.insert {
                Content::Text(text) => edits.push((edit.offset, edit.delete, text.as_str())),
                Content::Ref(n) => shown.withhold(format!(
                    "an insert into {} (retained value @{n})",
                    file.path
                )),
            }
        }
        shown.diffs.push(file_diff(&file.path, &now.bytes, &edits));
    }
    let (added, removed) = shown
        .diffs
        .iter()
        .fold((0, 0), |(a, r), d| (a + d.added, r + d.removed));
    let paths: Vec<&str> = patch.files.iter().map(|f| f.path.as_str()).collect();
    shown.summary = cut_summary(&format!("edit {} (+{added} −{removed})", paths.join(" ")));
    shown
}

/// The diff of `edits` (offset, bytes deleted, text inserted) applied to `bytes`: one hunk per
/// run of edits on touching lines, each with the whole lines it changes.
fn file_diff(path: &str, bytes: &[u8], edits: &[(u64, u64, &str)]) -> FileDiff {
    let mut diff = FileDiff {
        path: path.to_owned(),
        added: 0,
        removed: 0,
        lines: Vec::new(),
    };
    let mut sorted: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|&(offset, delete, insert)| {
            let start = clamp(offset, bytes.len());
            let end = clamp(offset.saturating_add(delete), bytes.len()).max(start);
            (start, end, insert)
        })
        .collect();
    sorted.sort_by_key(|&(start, end, _)| (start, end));
    let mut at = 0;
    while at < sorted.len() {
        let region_start = line_start(bytes, sorted[at].0);
        let mut region_end = line_end(bytes, sorted[at].0, sorted[at].1);
        let mut last = at;
        while let Some(next) = sorted.get(last + 1) {
            if next.0 > region_end {
                break;
            }
            region_end = region_end.max(line_end(bytes, next.0, next.1));
            last += 1;
        }
        let old = &bytes[region_start..region_end];
        let mut new = Vec::with_capacity(old.len());
        let mut cursor = region_start;
        for &(start, end, insert) in &sorted[at..=last] {
            let start = start.max(cursor);
            new.extend_from_slice(&bytes[cursor..start]);
            new.extend_from_slice(insert.as_bytes());
            cursor = end.max(start);
        }
        new.extend_from_slice(&bytes[cursor..region_end]);
        let line = 1 + bytes[..region_start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        diff.lines.push(DiffLine {
            sign: DiffSign::Hunk,
            text: format!("line {line}"),
        });
        hunk_lines(&mut diff, &text_of(old), &text_of(&new));
        at = last + 1;
    }
    diff
}

fn hunk_lines(diff: &mut FileDiff, old: &str, new: &str) {
    for change in TextDiff::from_lines(old, new).iter_all_changes() {
        let sign = match change.tag() {
            ChangeTag::Insert => {
                diff.added += 1;
                DiffSign::Added
            }
            ChangeTag::Delete => {
                diff.removed += 1;
                DiffSign::Removed
            }
            ChangeTag::Equal => DiffSign::Context,
        };
        let text = change.value();
        let text = text.strip_suffix('\n').unwrap_or(text);
        diff.lines.push(DiffLine {
            sign,
            text: text.to_owned(),
        });
    }
}

fn clamp(offset: u64, len: usize) -> usize {
    usize::try_from(offset).map_or(len, |o| o.min(len))
}

/// The start of the line holding byte `at`.
fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |nl| nl + 1)
}

/// Where the lines an edit of `start..end` touches end (after the last one's `\n`): `end`
/// itself when the deleted bytes end with a newline, else the end of the line holding `end`
/// (an insertion at a line's start changes that line).
fn line_end(bytes: &[u8], start: usize, end: usize) -> usize {
    if end > start && bytes.get(end - 1) == Some(&b'\n') {
        return end;
    }
    bytes[end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |nl| end + nl + 1)
}

/// Bytes as text, invalid UTF-8 written as `\xNN` so that no byte goes unseen.
fn text_of(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// `text` cut to [`SUMMARY_CHARS`] with `…`.
pub(super) fn cut_summary(text: &str) -> String {
    // Control characters stay: every frontend shows them in the one sanitiser's notation, so
    // a newline or an escape in an argument is seen as such in the summary too.
    match text.char_indices().nth(SUMMARY_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests;
