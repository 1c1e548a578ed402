//! Domain rules of the standard tools' arguments: what a strict schema cannot express.

use super::args::{
    EditArgs, EnvChange, EvidenceArgs, EvidenceKind, ExecArgs, FileActionKind, FilesArgs, ListArgs,
    RawExecArgs, ReadArgs, ReadMode, SearchArgs, SnapshotArgs,
};
use super::schema::Violation;

fn bad(path: impl Into<String>, problem: impl Into<String>, hint: impl Into<String>) -> Violation {
    Violation {
        path: path.into(),
        problem: problem.into(),
        hint: hint.into(),
    }
}

fn non_empty_paths(paths: &[String]) -> Result<(), Violation> {
    if paths.is_empty() {
        return Err(bad(
            "paths",
            "is empty",
            "list at least one path (\".\" for the working directory)",
        ));
    }
    match paths.iter().position(String::is_empty) {
        Some(index) => Err(bad(
            format!("paths[{index}]"),
            "is an empty path",
            "use \".\" for the working directory",
        )),
        None => Ok(()),
    }
}

/// Checks an `@N` reference to a retained result.
fn reference(path: &str, value: &str) -> Result<(), Violation> {
    let digits = value.strip_prefix('@').unwrap_or("");
    let valid = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0');
    if valid {
        Ok(())
    } else {
        Err(bad(
            path,
            format!("{value:?} is not a retained-result reference"),
            "pass a reference like \"@3\" taken from an earlier tool result",
        ))
    }
}

impl ReadArgs {
    pub(super) fn check(&self) -> Result<(), Violation> {
        non_empty_paths(&self.paths)?;
        if self.mode == ReadMode::Lines && self.offset == 0 {
            return Err(bad(
                "offset",
                "is 0, but lines are numbered from 1",
                "pass offset 1 for the first line",
            ));
        }
        Ok(())
    }
}

impl ListArgs {
    pub(super) fn check(&self) -> Result<(), Violation> {
        non_empty_paths(&self.paths)
    }
}

impl SearchArgs {
    pub(super) fn check(&self) -> Result<(), Violation> {
        if self.query.is_empty() {
            return Err(bad("query", "is empty", "pass the text to search for"));
        }
        regex_syntax(&self.query, self.regex, self.case_insensitive)?;
        non_empty_paths(&self.paths)
    }
}

/// Checks a regex query's syntax at admission, so the model hears which argument is wrong in
/// its own terms (the engine would answer the same with a location in ASH/1's).
fn regex_syntax(query: &str, regex: bool, case_insensitive: bool) -> Result<(), Violation> {
    if !regex {
        return Ok(());
    }
    regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .build()
        .parse(query)
        .map(drop)
        .map_err(|e| {
            let reason = e.to_string();
            // The parser's message spans lines (the pattern, a caret, the reason): keep its
            // last line, which says what is wrong.
            let reason = reason.lines().last().unwrap_or("invalid syntax").trim();
            bad(
                "query",
                format!("is not a regex this tool supports ({reason})"),
                "use Rust regex syntax (no look-around or backreferences), or pass regex false to search for the text as written",
            )
        })
}

impl SnapshotArgs {
    pub(super) fn check(&self) -> Result<(), Violation> {
        non_empty_paths(&self.paths)?;
        match &self.baseline {
            Some(baseline) => reference("baseline", baseline),
            None => Ok(()),
        }
    }
}

impl EvidenceArgs {
    pub(super) fn check(&self) -> Result<(), Violation> {
        reference("ref", &self.reference)?;
        if self.kind == EvidenceKind::Lines && self.offset == 0 {
            return Err(bad(
                "offset",
                "is 0, but lines are numbered from 1",
                "pass offset 1 for the first line",
            ));
        }
        match (self.kind, &self.query) {
            (EvidenceKind::Search, None) => Err(bad(
                "query",
                "is null, but kind \"search\" needs a query",
                "pass the text to search for",
            )),
            (EvidenceKind::Search, Some(query)) if query.is_empty() => {
                Err(bad("query", "is empty", "pass the text to search for"))
            }
            (EvidenceKind::Search, Some(query)) => {
                regex_syntax(query, self.regex, self.case_insensitive)
            }
            (EvidenceKind::Bytes | EvidenceKind::Lines, Some(_)) => Err(bad(
                "query",
                "is set, but only kind \"search\" uses a query",
                "pass null",
            )),
            _ => Ok(()),
        }
    }
}

/// Linux's `MAX_ARG_STRLEN`: the longest argument or environment string `execve` takes,
/// terminating NUL included (32 pages of 4 KiB).
const MAX_ARG_STRLEN: usize = 128 * 1024;

impl TryFrom<RawExecArgs> for ExecArgs {
    type Error = Violation;

    fn try_from(raw: RawExecArgs) -> Result<Self, Violation> {
        if raw.program.is_empty() {
            return Err(bad("program", "is empty", "name the executable to run"));
        }
        // The kernel refuses any one argument or environment string this long (E2BIG), so such
        // a call could never run; refused at admission, its arguments are journaled bounded.
        let long = |text: &str| text.len() >= MAX_ARG_STRLEN;
        if let Some(n) = raw.args.iter().position(|a| long(a)) {
            return Err(bad(
                format!("args[{n}]"),
                format!(
                    "is {} bytes; Linux runs no command with an argument of 128 KiB or more",
                    raw.args[n].len()
                ),
                "pass large data through stdin or a file the command reads",
            ));
        }
        if let Some(n) = raw.env.iter().position(|e| long(e)) {
            return Err(bad(
                format!("env[{n}]"),
                format!(
                    "is {} bytes; Linux runs no command with an environment string of 128 KiB or more",
                    raw.env[n].len()
                ),
                "pass large data through stdin or a file the command reads",
            ));
        }
        let mut env = Vec::with_capacity(raw.env.len());
        for (index, entry) in raw.env.into_iter().enumerate() {
            env.push(parse_env(index, entry)?);
        }
        Ok(ExecArgs {
            program: raw.program,
            args: raw.args,
            cwd: raw.cwd,
            env,
            stdin: raw.stdin,
            timeout_ms: raw.timeout_ms,
            outside_sandbox: raw.outside_sandbox.unwrap_or(false),
        })
    }
}

fn parse_env(index: usize, entry: String) -> Result<EnvChange, Violation> {
    let valid_name = |name: &str| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let change = match entry.strip_prefix('-') {
        Some(name) => valid_name(name).then(|| EnvChange::Unset {
            name: name.to_owned(),
        }),
        None => entry.split_once('=').and_then(|(name, value)| {
            valid_name(name).then(|| EnvChange::Set {
                name: name.to_owned(),
                value: value.to_owned(),
            })
        }),
    };
    change.ok_or_else(|| {
        bad(
            format!("env[{index}]"),
            format!("{entry:?} is neither NAME=value nor -NAME"),
            "use NAME=value to set a variable or -NAME to remove it (NAME: letters, digits, _)",
        )
    })
}

impl EditArgs {
    pub(super) fn check(&self) -> Result<(), Violation> {
        if self.files.is_empty() {
            return Err(bad(
                "files",
                "is empty",
                "pass at least one {path, edits} entry",
            ));
        }
        let most = ash_engine::protocol::MAX_PATCH_FILES;
        if self.files.len() > most {
            return Err(bad(
                "files",
                format!("has {} files, more than {most}", self.files.len()),
                format!("split the change into edit calls of at most {most} files each"),
            ));
        }
        for (n, file) in self.files.iter().enumerate() {
            let at = |field: &str| format!("files[{n}].{field}");
            if file.path.is_empty() {
                return Err(bad(at("path"), "is empty", "name the file to edit"));
            }
            if let Some(first) = self.files[..n].iter().position(|f| f.path == file.path) {
                return Err(bad(
                    at("path"),
                    format!("repeats files[{first}].path"),
                    "put all edits of one file in one entry",
                ));
            }
            if file.edits.is_empty() {
                return Err(bad(
                    at("edits"),
                    "is empty",
                    "pass at least one {old, new} edit",
                ));
            }
            if let Some(index) = file.edits.iter().position(|edit| edit.old.is_empty()) {
                return Err(bad(
                    at(&format!("edits[{index}].old")),
                    "is empty",
                    "quote the exact existing text to replace; to create a file use the `files` tool",
                ));
            }
        }
        Ok(())
    }
}

impl FilesArgs {
    pub(super) fn check(&self) -> Result<(), Violation> {
        if self.actions.is_empty() {
            return Err(bad("actions", "is empty", "pass at least one action"));
        }
        for (index, action) in self.actions.iter().enumerate() {
            let at = |field: &str| format!("actions[{index}].{field}");
            if action.path.is_empty() {
                return Err(bad(at("path"), "is empty", "name the file"));
            }
            let (needs_to, needs_content) = match action.kind {
                FileActionKind::Create => (false, true),
                FileActionKind::Copy | FileActionKind::Move => (true, false),
                FileActionKind::Remove => (false, false),
            };
            let kind = format!("{:?}", action.kind).to_lowercase();
            if needs_to != action.to.is_some() {
                return Err(presence(at("to"), &kind, needs_to));
            }
            if needs_content != action.content.is_some() {
                return Err(presence(at("content"), &kind, needs_content));
            }
            if action.to.as_deref() == Some("") {
                return Err(bad(at("to"), "is empty", "name the destination"));
            }
        }
        Ok(())
    }
}

fn presence(path: String, kind: &str, needed: bool) -> Violation {
    if needed {
        bad(
            path,
            format!("is null, but kind \"{kind}\" needs it"),
            "pass a string",
        )
    } else {
        bad(
            path,
            format!("is set, but kind \"{kind}\" does not use it"),
            "pass null",
        )
    }
}
