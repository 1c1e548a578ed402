//! The `story` command's answer: a transcript page together with what happened in each of its
//! turns between the prompt and the answer (commentary, tool rows, how the turn ended), so a
//! frontend reopening a session shows the turns as they looked live without reading the
//! journal itself. Previews and reasoning are never part of it.

use serde::{Deserialize, Serialize};

use super::event::ToolPhase;
use super::report::ToolReport;
use crate::ids::{CallId, RequestId};
use crate::record::TurnState;
use crate::transcript::TranscriptPage;

/// One thing a turn did between its prompt and its answer, in journal order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StoryStep {
    /// The model's words that came with its tool calls.
    Commentary {
        /// The text (Markdown, untrusted).
        text: String,
    },
    /// A tool call that ended (or has no outcome yet).
    Tool {
        /// Provider call ID.
        call_id: CallId,
        /// Tool name.
        tool: String,
        /// What it worked on, when the journal says.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<String>,
        /// How it ended: `finished`, `failed`, `effect_unknown`; `started` when no outcome was
        /// recorded (the process ended while it ran).
        status: ToolPhase,
        /// Its row as shown live, or one rebuilt from the outcome for older journals.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        report: Option<ToolReport>,
    },
}

/// What one turn of the page did, and how it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnStory {
    /// The turn.
    pub request_id: RequestId,
    /// Its steps, in order.
    pub steps: Vec<StoryStep>,
    /// Its state now.
    pub state: TurnState,
    /// Why it paused, failed or was cancelled, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A conversation rewind took it back (it stays journaled, out of the model's context).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rewound: bool,
    /// Steps left out to keep the page bounded (the oldest are kept).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A transcript page with the story of every turn that has an entry in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoryPage {
    /// The same page `transcript` answers for the query.
    pub page: TranscriptPage,
    /// One per turn with an entry on the page, oldest first.
    pub turns: Vec<TurnStory>,
}

/// Most steps a turn carries in one page (the rest are counted in `omitted`).
pub const MAX_STORY_STEPS: usize = 200;
