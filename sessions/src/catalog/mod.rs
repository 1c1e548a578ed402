//! The catalog of a home's sessions: per-session summaries kept at durable boundaries
//! (`summary`), listing them newest first (`list`), and deleting sessions safely (`remove`).
//! `ansa sessions`, `/sessions` and the `--resume` picker read it; nothing here scans every
//! journal unless a summary is missing or stale.

mod list;
mod remove;
mod summary;

pub use list::{Listed, ListedState, held_elsewhere, list};
pub use remove::{Pruned, RemoveError, prune, remove, resolve};
pub use summary::{JournalEnd, SUMMARY_FILE, Summary};
pub(crate) use summary::{journal_bytes, now_ms};
