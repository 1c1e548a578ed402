//! Pure mapping of read-side and exec tool arguments onto typed ASH/1 operations.

use super::super::args as tool;
use super::error::ToolExecError;
use ash_engine::protocol::{
    EnvChange, ExecArgs, Formula, ListArgs, ListFilter, MAX_WINDOW_BYTES, MAX_WINDOW_ROWS, Op,
    ReadArgs, ReadMode, SearchArgs, SnapshotArgs, SnapshotMode, Stdin,
};

/// `read` → `r`.
pub fn read(args: &tool::ReadArgs) -> Op {
    Op::Read(ReadArgs {
        paths: args.paths.clone(),
        mode: match args.mode {
            tool::ReadMode::Lines => ReadMode::Lines,
            tool::ReadMode::Bytes => ReadMode::Bytes,
        },
        offset: args.offset,
        // To the end: the engine stops at the end of the file.
        count: args.length.unwrap_or(u64::MAX),
    })
}

/// `list` → `l`.
pub fn list(args: &tool::ListArgs) -> Result<Op, ToolExecError> {
    Ok(Op::List(ListArgs {
        paths: args.paths.clone(),
        depth: depth("list", args.depth)?,
        hidden: args.include_hidden,
        filter: match args.kind {
            tool::ListKind::All => ListFilter::All,
            tool::ListKind::Files => ListFilter::FilesOnly,
            tool::ListKind::Dirs => ListFilter::DirsOnly,
        },
    }))
}

/// `search` → `g`.
pub fn search(args: &tool::SearchArgs) -> Op {
    Op::Search(SearchArgs {
        query: args.query.clone(),
        paths: args.paths.clone(),
        regex: args.regex,
        case_insensitive: args.case_insensitive,
        hidden: args.include_hidden,
    })
}

/// `snapshot` → `s`: a capture, or a delta against the `@N` baseline.
pub fn snapshot(args: &tool::SnapshotArgs) -> Result<Op, ToolExecError> {
    // The engine wants roots strictly sorted; the model should not have to care.
    let mut paths = args.paths.clone();
    paths.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    paths.dedup();
    let mode = match &args.baseline {
        None => SnapshotMode::Capture,
        Some(baseline) => SnapshotMode::Delta(reference("snapshot", "baseline", baseline)?),
    };
    Ok(Op::Snapshot(SnapshotArgs {
        paths,
        depth: depth("snapshot", args.depth)?,
        mode,
        hidden: args.include_hidden,
    }))
}

/// `evidence` → `/` (bytes), `#` (lines) or `?` (search).
///
/// A `length` of null covers the rest of the value: `value_len` is its size when the session
/// holds it (an unknown reference is left to the engine, which answers 700).
pub fn evidence(args: &tool::EvidenceArgs, value_len: Option<u64>) -> Result<Op, ToolExecError> {
    let source = reference("evidence", "ref", &args.reference)?;
    let rest = || {
        value_len
            .map_or(1, |len| len.saturating_sub(args.offset))
            .clamp(1, MAX_WINDOW_BYTES)
    };
    let formula = match args.kind {
        tool::EvidenceKind::Bytes => Formula::Slice {
            source,
            offset: args.offset,
            len: args.length.unwrap_or_else(rest),
        },
        tool::EvidenceKind::Lines => Formula::LineSlice {
            source,
            line: args.offset,
            lines: args.length.unwrap_or(MAX_WINDOW_ROWS),
        },
        tool::EvidenceKind::Search => Formula::Find {
            source,
            offset: args.offset,
            len: args.length.unwrap_or_else(rest),
            query: args.query.clone().ok_or_else(|| ToolExecError::Invalid {
                tool: "evidence",
                detail: "kind \"search\" needs a query".to_owned(),
            })?,
            regex: args.regex,
            case_insensitive: args.case_insensitive,
        },
    };
    Ok(Op::Formula(formula))
}

/// `exec` → `x` (the timeout travels in the budget, not here).
pub fn exec(args: &tool::ExecArgs) -> Op {
    let env = args
        .env
        .iter()
        .map(|change| match change {
            tool::EnvChange::Set { name, value } => EnvChange::Set {
                name: name.clone(),
                value: value.clone(),
            },
            tool::EnvChange::Unset { name } => EnvChange::Remove(name.clone()),
        })
        .collect();
    Op::Exec(ExecArgs {
        program: args.program.clone(),
        argv: args.args.clone(),
        cwd: args.cwd.clone(),
        env,
        stdin: match &args.stdin {
            Some(text) => Stdin::Text(text.clone()),
            None => Stdin::Null,
        },
        clear_env: false,
    })
}

/// Parses `@N` (N ≥ 1).
pub fn reference(tool: &'static str, field: &str, text: &str) -> Result<u64, ToolExecError> {
    text.strip_prefix('@')
        .and_then(|digits| digits.parse::<u64>().ok())
        .filter(|&n| n >= 1)
        .ok_or_else(|| ToolExecError::Invalid {
            tool,
            detail: format!("`{field}` {text:?} is not a reference like \"@3\""),
        })
}

fn depth(tool: &'static str, depth: u32) -> Result<u8, ToolExecError> {
    u8::try_from(depth)
        .ok()
        .filter(|&d| d <= ash_engine::protocol::MAX_DEPTH)
        .ok_or_else(|| ToolExecError::Invalid {
            tool,
            detail: format!(
                "`depth` {depth} is too deep; use 0..={}",
                ash_engine::protocol::MAX_DEPTH
            ),
        })
}
