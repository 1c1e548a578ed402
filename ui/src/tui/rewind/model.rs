//! What the rewind screens show, as the TUI holds it: the session's prompts, the chosen scope,
//! the plan and the conflict choice. Filled from the runtime's `checkpoints` and `rewind_plan`
//! events (`events.rs`); the screens draw only from these, so they are tested without a
//! runtime.

use ansa_sessions::RequestId;
use ansa_sessions::rewind::ManifestHex;

/// One prompt of the session, as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PromptItem {
    /// Its request (the turn a rewind returns to).
    pub request: RequestId,
    /// Its turn number.
    pub turn: u64,
    /// When it was submitted, as the list shows it (`14:03`, `Dec 4 14:03`).
    pub time: String,
    /// The prompt's first line, as the runtime sent it (sanitized when drawn).
    pub prompt: String,
    /// The paths the turn changed (possibly capped by the runtime).
    pub files: Vec<String>,
    /// Paths the turn changed beyond `files` (the runtime's cap).
    pub more_files: u64,
    /// Whether its code can be restored (a checkpoint exists and was kept whole).
    pub restorable: bool,
    /// Whether a conversation rewind already took this turn back.
    pub rewound: bool,
    /// For the point just before a rewind (to `request`): the checkpoint that undoes that
    /// rewind. Such an item restores code only.
    pub undo: Option<ManifestHex>,
}

/// What a rewind takes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// The files and the conversation.
    Both,
    /// The files only; the conversation goes on.
    Code,
    /// The conversation only; the files stay as they are.
    Conversation,
}

impl Scope {
    /// The choices, in the order the scope screen lists them.
    pub const ALL: [Scope; 3] = [Scope::Both, Scope::Code, Scope::Conversation];

    /// Whether files change.
    pub fn code(self) -> bool {
        matches!(self, Scope::Both | Scope::Code)
    }

    /// Whether the conversation goes back.
    pub fn conversation(self) -> bool {
        matches!(self, Scope::Both | Scope::Conversation)
    }

    /// How the screens name it.
    pub fn label(self) -> &'static str {
        match self {
            Scope::Both => "code and conversation",
            Scope::Code => "code only",
            Scope::Conversation => "conversation only",
        }
    }

    /// What choosing it does, one line.
    pub fn help(self) -> &'static str {
        match self {
            Scope::Both => "files back to before this prompt, and the context too",
            Scope::Code => "files back to before this prompt; the conversation goes on",
            Scope::Conversation => "the context goes back; the files stay as they are",
        }
    }
}

/// What a path of the plan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (restored as a link, never followed).
    Symlink,
}

/// One path a rewind changes, with its line counts (a file's content; 0 for others).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlannedPath {
    /// Workspace-relative path, as the runtime sent it.
    pub path: String,
    /// What it is.
    pub kind: PathKind,
    /// Lines the restore adds.
    pub added: u64,
    /// Lines the restore removes.
    pub removed: u64,
}

/// A path the rewind leaves alone, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unrestorable {
    /// Workspace-relative path.
    pub path: String,
    /// Why (ignored, too large, unreadable …), as the runtime said.
    pub reason: String,
}

/// What a rewind would do, before anything changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PlanView {
    /// Paths that exist now and differ from the checkpoint.
    pub restore: Vec<PlannedPath>,
    /// Paths of the checkpoint that are gone now.
    pub recreate: Vec<PlannedPath>,
    /// Paths that did not exist at the checkpoint.
    pub delete: Vec<PlannedPath>,
    /// Paths of the plan changed after that turn by something other than this session.
    pub conflicts: Vec<String>,
    /// Paths left as they are.
    pub not_restorable: Vec<Unrestorable>,
    /// Paths the rewind replaces or deletes whose current version was never kept.
    pub unkept: Vec<String>,
    /// Turns whose conversation the rewind takes back (none for code only).
    pub rewound: Vec<RequestId>,
    /// State directories (`.git` …) with changed paths, never restored: (path, how many).
    pub changed_not_restored: Vec<(String, u64)>,
}

impl PlanView {
    /// Whether no file would change.
    pub fn no_changes(&self) -> bool {
        self.restore.is_empty() && self.recreate.is_empty() && self.delete.is_empty()
    }
}

/// What happens to the conflicting paths; one choice covers them all, because the
/// protocol's `on_conflict` is one value per rewind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConflictChoice {
    /// The paths stay as they are now.
    KeepTheirs,
    /// The checkpoint's version wins.
    TakeCheckpoint,
}

impl ConflictChoice {
    /// How the plan screen names it.
    pub fn label(self) -> &'static str {
        match self {
            ConflictChoice::KeepTheirs => "keep theirs",
            ConflictChoice::TakeCheckpoint => "take the checkpoint's",
        }
    }
}
