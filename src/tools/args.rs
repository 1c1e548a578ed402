//! Typed arguments of the standard tools, and the domain checks a schema cannot express.

use serde::Deserialize;

/// `read`: line or byte ranges of files.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// Files to read, in request order.
    pub paths: Vec<String>,
    /// Whether `offset`/`length` count lines or bytes.
    pub mode: ReadMode,
    /// First line (1-based) or byte (0-based).
    pub offset: u64,
    /// Number of lines or bytes; `None` reads to the end of the file (the answer shows as
    /// much as the read budget allows and says where it stopped).
    pub length: Option<u64>,
}

/// Unit of a `read` range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadMode {
    /// Lines, 1-based.
    Lines,
    /// Bytes, 0-based.
    Bytes,
}

/// `list`: a directory walk.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Roots to walk.
    pub paths: Vec<String>,
    /// Maximum depth below each root.
    pub depth: u32,
    /// Whether dot-entries are listed.
    pub include_hidden: bool,
    /// Which entry kinds to keep.
    pub kind: ListKind,
}

/// Entry filter of `list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ListKind {
    /// Every entry.
    All,
    /// Regular files only.
    Files,
    /// Directories only.
    Dirs,
}

/// `search`: first match per line across files.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Literal text or a regex.
    pub query: String,
    /// Roots to search.
    pub paths: Vec<String>,
    /// Whether `query` is a regex.
    pub regex: bool,
    /// Whether matching ignores case.
    pub case_insensitive: bool,
    /// Whether dot-entries are searched.
    pub include_hidden: bool,
}

/// `snapshot`: a hashed manifest, optionally as a delta against a retained baseline.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotArgs {
    /// Roots to capture.
    pub paths: Vec<String>,
    /// Maximum depth below each root.
    pub depth: u32,
    /// Whether dot-entries are captured.
    pub include_hidden: bool,
    /// An earlier snapshot (`@N`) to diff against.
    pub baseline: Option<String>,
}

/// `evidence`: slice or search a retained result.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceArgs {
    /// The retained result, `@N`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// What to take from it.
    pub kind: EvidenceKind,
    /// Byte offset (0-based) or line (1-based).
    pub offset: u64,
    /// Number of bytes or lines; `None` reads (or searches) to the end of the value.
    pub length: Option<u64>,
    /// The search query (`kind: "search"` only).
    pub query: Option<String>,
    /// Whether `query` is a regex.
    pub regex: bool,
    /// Whether the search ignores case.
    pub case_insensitive: bool,
}

/// Projection of `evidence`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EvidenceKind {
    /// A byte slice.
    Bytes,
    /// A line slice.
    Lines,
    /// A search inside a byte window.
    Search,
}

/// `exec`: run a program with an argv (no shell unless the model runs `sh -c` itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecArgs {
    /// The executable.
    pub program: String,
    /// Its arguments (argv\[1..\]).
    pub args: Vec<String>,
    /// Working directory.
    pub cwd: String,
    /// Environment changes, in order.
    pub env: Vec<EnvChange>,
    /// Text fed to stdin, if any.
    pub stdin: Option<String>,
    /// Timeout override in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Whether the model asks to run this one command outside the OS sandbox (`null` and
    /// `false`: sandboxed, the normal case).
    pub outside_sandbox: bool,
}

/// One `exec` environment change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvChange {
    /// `NAME=value`.
    Set {
        /// Variable name.
        name: String,
        /// New value.
        value: String,
    },
    /// `-NAME`.
    Unset {
        /// Variable name.
        name: String,
    },
}

/// The wire shape of `exec`, before `env` entries are parsed.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExecArgs {
    pub(super) program: String,
    pub(super) args: Vec<String>,
    pub(super) cwd: String,
    pub(super) env: Vec<String>,
    pub(super) stdin: Option<String>,
    pub(super) timeout_ms: Option<u64>,
    pub(super) outside_sandbox: Option<bool>,
}

/// `edit`: replace exact text in one or more files, applied as one all-or-nothing patch.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The files, each with its replacements.
    pub files: Vec<FileEdits>,
}

/// The replacements of one file of an `edit`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEdits {
    /// The file to patch.
    pub path: String,
    /// Replacements, each `old` occurring exactly once in the file as last read.
    pub edits: Vec<TextEdit>,
}

/// One `{old, new}` replacement.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextEdit {
    /// Text to replace (non-empty, unique in the file).
    pub old: String,
    /// Replacement text.
    pub new: String,
}

/// `files`: create/copy/move/remove, never overwriting.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesArgs {
    /// Actions, applied together.
    pub actions: Vec<FileAction>,
}

/// One `files` action as the model sent it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileAction {
    /// What to do.
    pub kind: FileActionKind,
    /// Source (or the created file).
    pub path: String,
    /// Destination (copy and move only).
    pub to: Option<String>,
    /// Content (create only).
    pub content: Option<String>,
}

/// Kind of a `files` action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileActionKind {
    /// Create a new file with `content`.
    Create,
    /// Copy `path` to `to`.
    Copy,
    /// Move `path` to `to`.
    Move,
    /// Remove `path`.
    Remove,
}

/// `get_test_value`: the offline profile's pure tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GetTestValueArgs {
    /// The key to look up.
    pub key: String,
}

/// Validated arguments of one standard tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolArgs {
    /// `read`.
    Read(ReadArgs),
    /// `list`.
    List(ListArgs),
    /// `search`.
    Search(SearchArgs),
    /// `snapshot`.
    Snapshot(SnapshotArgs),
    /// `evidence`.
    Evidence(EvidenceArgs),
    /// `exec`.
    Exec(ExecArgs),
    /// `edit`.
    Edit(EditArgs),
    /// `files`.
    Files(FilesArgs),
    /// `get_test_value`.
    GetTestValue(GetTestValueArgs),
    /// `delegate` (orchestrate mode; run by the runtime, not the executor).
    Delegate(super::delegate::DelegateArgs),
    /// A tool of an MCP server (`mcp__SERVER__TOOL`).
    Mcp(super::mcp::McpArgs),
}

/// Longest target shown on a status line.
const TARGET_CHARS: usize = 120;

impl ToolArgs {
    /// What the call works on, in one short line for status displays: the paths, the query,
    /// the command line, the retained reference or the key. Control characters are kept: a
    /// frontend shows them visibly (`ansa_ui::sanitize`), so a `\n` or an escape sequence in
    /// an argument is seen, not turned into a harmless-looking space.
    pub fn target(&self) -> String {
        let joined = |paths: &[String]| paths.join(" ");
        let text = match self {
            ToolArgs::Read(a) => joined(&a.paths),
            ToolArgs::List(a) => joined(&a.paths),
            ToolArgs::Search(a) => format!("{:?} in {}", a.query, joined(&a.paths)),
            ToolArgs::Snapshot(a) => joined(&a.paths),
            ToolArgs::Evidence(a) => a.reference.clone(),
            ToolArgs::Exec(a) => std::iter::once(a.program.as_str())
                .chain(a.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            ToolArgs::Edit(a) => a
                .files
                .iter()
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            ToolArgs::Files(a) => a
                .actions
                .iter()
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            ToolArgs::GetTestValue(a) => a.key.clone(),
            ToolArgs::Delegate(a) => format!(
                "{} task{}",
                a.tasks.len(),
                if a.tasks.len() == 1 { "" } else { "s" }
            ),
            ToolArgs::Mcp(a) => a.target(),
        };
        if text.chars().nth(TARGET_CHARS).is_some() {
            let cut: String = text.chars().take(TARGET_CHARS - 1).collect();
            format!("{cut}…")
        } else {
            text
        }
    }
}
