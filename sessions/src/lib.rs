//! ansa-sessions: the durable session journal and the command/event session protocol.
//!
//! Nothing the user saw accepted may be lost, and nothing with an unknown effect may silently
//! run twice. See `docs/sessions.md` for the on-disk format, durability points and recovery rules.

#![forbid(unsafe_code)]

pub mod approval;
pub mod catalog;
pub mod child;
pub mod error;
pub mod fsutil;
pub mod home;
pub mod ids;
pub mod index;
pub mod journal;
pub mod link;
pub mod mcp;
pub mod meta;
pub mod points;
pub mod protocol;
pub mod rebinding;
pub mod record;
pub mod rewind;
pub mod session;
pub mod state;
pub mod tool_output;
pub mod transcript;

pub use error::{JournalDamage, Result, SessionError};
pub use home::SessionStore;
pub use ids::{CallId, CommandId, Incarnation, PartNo, Profile, RequestId, Seq, SessionId};
pub use journal::{JournalOptions, TornTail};
pub use link::{CommandSender, Inbound, RuntimeGone, SessionLink, ToRuntime};
pub use meta::SessionMeta;
pub use points::CodePoint;
pub use rebinding::{Effort, ModelBinding, RebindSource, Rebinding};
pub use record::*;
pub use session::{Acceptance, RecoveryReport, Session, read_records};
pub use state::{ApprovalStanding, OpenIntent, SessionState, Turn, UsageTotals};
pub use tool_output::{
    MAX_OUTPUT_LINES, OutputView, StoredOutput, ToolOutputPage, ToolOutputQuery,
    find as find_tool_output, page as tool_output_page,
};
pub use transcript::{Role, TranscriptEntry, TranscriptPage, TranscriptQuery};

#[cfg(test)]
mod tests;
