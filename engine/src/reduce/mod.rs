//! Exec output reducers and projection (ASH/1 §5 "Exec projection"): pure text transforms with no
//! processes, I/O or protocol types.
//!
//! Pipeline for a complete in-memory capture ([`project_stream`]): UTF-8 check (non-UTF-8 → no
//! text) → [`normalize`] (CRLF → LF) → [`repeat_lines`] (×N) → [`repeat_blocks`] (×N#K) →
//! [`failure_focus`] (⋯N, only for [`ExitOutcome::ExitedUnsuccessfully`]) → [`head_tail`] at the
//! stream budget. Spooled captures skip the reducers and go through [`project_sample`], with UTF-8
//! validity tracked across chunks by a [`Utf8Tracker`].
//!
//! Compute plane: every function that can run in parallel takes a `&ComputePlane` and enters it
//! (`install`) itself, but only for inputs of at least [`PARALLEL_MIN_BYTES`]; smaller inputs run on
//! the calling thread. Both paths produce identical bytes for any worker count. `install` blocks the
//! caller, so call these from a blocking context, never from an async I/O worker.
//!
//! Reducers return `Cow::Borrowed` exactly when they changed nothing; a changed output is always
//! strictly shorter than its input, because every marker is only written where it saves bytes.

mod anchor;
mod focus;
mod head_tail;
mod lines;
mod marker;
mod normalize;
mod parallel;
mod project;
mod repeat_blocks;
mod repeat_lines;
mod splice;
mod utf8;

#[cfg(test)]
mod tests;

pub use anchor::is_anchor;
pub use focus::failure_focus;
pub use head_tail::{Cut, MIN_CUT_BUDGET, SEPARATOR, head_tail};
pub use normalize::normalize;
pub use parallel::PARALLEL_MIN_BYTES;
pub use project::{
    ExitOutcome, Projection, SampleError, StreamBudgets, StreamSample, project_sample,
    project_stream, sample_sizes, stream_budgets,
};
pub use repeat_blocks::repeat_blocks;
pub use repeat_lines::repeat_lines;
pub use utf8::Utf8Tracker;
