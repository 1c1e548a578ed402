//! Checkpoint and rewind journal records (issue 41): what the workspace looked like at a turn's
//! boundaries, and which turn a rewind went back to.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::ids::{CommandId, RequestId};

/// Most changed paths one `checkpoint` record lists; `changed_total` counts all of them.
pub const MAX_CHANGED_PATHS: usize = 64;

/// A checkpoint manifest's identity: 64 lowercase hex digits (the engine's `ManifestId`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ManifestHex(String);

impl ManifestHex {
    /// The hex of a 32-byte manifest ID.
    pub fn from_bytes(bytes: &[u8; 32]) -> Self {
        let mut s = String::with_capacity(64);
        for b in bytes {
            s.push_str(&format!("{b:02x}"));
        }
        Self(s)
    }

    /// The 32 bytes it names.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, chunk) in self.0.as_bytes().chunks(2).enumerate() {
            // Validated at construction: two lowercase hex digits per byte.
            let hi = (chunk[0] as char).to_digit(16).unwrap_or(0) as u8;
            let lo = (chunk[1] as char).to_digit(16).unwrap_or(0) as u8;
            out[i] = hi << 4 | lo;
        }
        out
    }

    /// The hex text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ManifestHex {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        if s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(Self(s))
        } else {
            Err(format!(
                "a checkpoint is named by 64 lowercase hex digits, not `{}`",
                s.chars().take(80).collect::<String>()
            ))
        }
    }
}

impl From<ManifestHex> for String {
    fn from(m: ManifestHex) -> String {
        m.0
    }
}

impl fmt::Display for ManifestHex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which moment of a turn a checkpoint records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointPhase {
    /// Before the turn's first call that can change the workspace (synced before its intent).
    Before,
    /// After a turn that changed (or could have changed) the workspace ended.
    After,
    /// The workspace just before a rewind changed it: the point "undo the rewind" returns to.
    BeforeRewind,
}

/// The workspace's state at one moment, by its manifest in the session's checkpoint store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// The turn it belongs to (for `before_rewind`: the turn the rewind returns to).
    pub request_id: RequestId,
    /// Which moment.
    pub phase: CheckpointPhase,
    /// The manifest in the store.
    pub manifest: ManifestHex,
    /// Paths that differ from the session's previous checkpoint, sorted, at most
    /// [`MAX_CHANGED_PATHS`].
    pub changed: Vec<String>,
    /// How many paths differ in all (`changed` may list fewer).
    pub changed_total: u64,
    /// Entries recorded without their content (ignored, excluded, too large, unreadable …).
    pub not_restorable: u64,
    /// The store's budget was spent: some contents were not kept.
    pub over_budget: bool,
    /// When it was captured, in milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// For `before_rewind`: the manifest the rewind is about to restore, so a crash between
    /// the restore and the `rewind` record can be told apart on reopen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewind_to: Option<ManifestHex>,
}

/// What a rewind takes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RewindScope {
    /// The workspace only.
    Code,
    /// The model's context only.
    Conversation,
    /// Both.
    #[default]
    Both,
}

impl RewindScope {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            RewindScope::Code => "code",
            RewindScope::Conversation => "conversation",
            RewindScope::Both => "both",
        }
    }

    /// True when the workspace is restored.
    pub fn code(self) -> bool {
        matches!(self, RewindScope::Code | RewindScope::Both)
    }

    /// True when the context is rewound.
    pub fn conversation(self) -> bool {
        matches!(self, RewindScope::Conversation | RewindScope::Both)
    }
}

impl FromStr for RewindScope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "code" => Ok(RewindScope::Code),
            "conversation" => Ok(RewindScope::Conversation),
            "both" => Ok(RewindScope::Both),
            other => Err(format!(
                "unknown scope `{other}`; expected `code`, `conversation` or `both`"
            )),
        }
    }
}

impl fmt::Display for RewindScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a rewind does with a path something other than this session changed after the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OnConflict {
    /// Leave such paths as they are now.
    Keep,
    /// The checkpoint's version wins.
    Take,
    /// Change nothing and report the conflicts (`rewind_conflict`).
    #[default]
    Refuse,
}

impl OnConflict {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            OnConflict::Keep => "keep",
            OnConflict::Take => "take",
            OnConflict::Refuse => "refuse",
        }
    }
}

impl FromStr for OnConflict {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "keep" => Ok(OnConflict::Keep),
            "take" => Ok(OnConflict::Take),
            "refuse" => Ok(OnConflict::Refuse),
            other => Err(format!(
                "unknown on_conflict `{other}`; expected `keep`, `take` or `refuse`"
            )),
        }
    }
}

impl fmt::Display for OnConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a restore changed, in counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewindApplied {
    /// Paths whose content, mode or kind was put back.
    pub restored: u64,
    /// Paths created again.
    pub recreated: u64,
    /// Paths deleted.
    pub deleted: u64,
    /// Conflicting paths left as they were (`on_conflict: keep`).
    pub kept: u64,
}

/// A rewind that happened (synced before `rewind_done` is published).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rewind {
    /// The command that asked for it (a resent command is not applied twice).
    pub command_id: CommandId,
    /// The turn it returns to: its prompt is taken back.
    pub request_id: RequestId,
    /// What was taken back.
    pub scope: RewindScope,
    /// The `before_rewind` checkpoint (absent for a conversation-only rewind).
    pub checkpoint: Option<ManifestHex>,
    /// The manifest the workspace was restored to (absent for a conversation-only rewind).
    pub restored_to: Option<ManifestHex>,
    /// What the restore changed.
    pub applied: RewindApplied,
    /// The context epoch in force after it (a new one when the conversation was rewound).
    pub epoch: u64,
    /// Set when the rewind did not end normally: its restore failed and changed nothing
    /// (`rolled_back`), or the process stopped during it and the reopen found what its restore
    /// came to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<RewindRecovery>,
}

/// How an interrupted rewind's restore ended, as found when the session was opened again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewindRecovery {
    /// The workspace is as it was before the rewind: nothing of it happened.
    RolledBack,
    /// The workspace is as the rewind's checkpoint: its restore completed (the conversation
    /// was not rewound).
    Completed,
}
