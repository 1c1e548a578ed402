//! What recovery did with an interrupted transaction, for the embedder that must tell its
//! user and reconcile the request the transaction belonged to.

use super::tag::Tag;

/// One interrupted transaction recovery found, and what it did with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// The tag its request carried (see [`crate::session::Attachments`]), when it had one
    /// and the journal still holds it.
    pub tag: Option<Tag>,
    /// The workspace paths its actions name (each source, then its destination), in journal
    /// order; empty when the journal never got as far as its manifest or it was unreadable.
    pub paths: Vec<String>,
    /// What happened to it.
    pub outcome: Outcome,
}

/// Where an interrupted transaction ended up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// None of its changes remain: every path holds what it held before the request.
    RolledBack,
    /// It had committed before the interruption: every change is in place, and only the
    /// journal was left to delete.
    Committed,
    /// Its state could not be proven: journal and files are left untouched for inspection,
    /// and the next mutation answers `502` (recovery required).
    Unresolved {
        /// Why, naming the path or journal file that could not be proven.
        reason: String,
    },
}
