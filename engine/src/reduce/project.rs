//! Exec stream projection: budgets, the reducer pipeline for complete captures and the head/tail
//! cut for spooled samples (ASH/1 §5 "Exec projection").
//!
//! Flags the caller derives from a [`Projection`] (see [`Projection::flag_bits`]):
//! - `truncated` → `z` bit 0. Set for a head/tail cut, for text omitted because the budget is
//!   below 8, and for *every* reduction: any reduction sets both bit 0 and bit 1.
//! - `reduced` → `z` bit 1. Set when ×N, ×N#K or ⋯N changed the text.
//! - `normalized` → `z` bit 2. Set when a CRLF was replaced.
//! - Bit 3 (retained) is the caller's, per [`Projection::retains`].

use std::borrow::Cow;

use thiserror::Error;

use super::focus::failure_focus;
use super::head_tail::{SEPARATOR, cut_lengths, head_tail};
use super::normalize::normalize;
use super::parallel::{on_plane, worth_parallel};
use super::repeat_blocks::repeat_blocks;
use super::repeat_lines::repeat_lines;
use crate::compute::ComputePlane;

/// How the process ended, as far as projection is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitOutcome {
    /// Exit code 0: success budgets, no ⋯N.
    Succeeded,
    /// Nonzero exit code or terminated by a signal: failure budgets and ⋯N.
    ExitedUnsuccessfully,
    /// Deadline or cancellation: failure budgets, but no ⋯N.
    TimedOutOrCancelled,
}

/// Byte budgets of the two streams of one exec result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamBudgets {
    /// Budget of the stdout projection.
    pub stdout: usize,
    /// Budget of the stderr projection.
    pub stderr: usize,
}

/// The stream budgets for presentation limit `limit` (L): success → stdout ⌊L/2⌋, stderr ⌊L/8⌋;
/// any failure (nonzero, signal, timeout, cancel) → stdout ⌊L/8⌋, stderr ⌊L/2⌋.
pub fn stream_budgets(limit: usize, outcome: ExitOutcome) -> StreamBudgets {
    let (half, eighth) = (limit / 2, limit / 8);
    match outcome {
        ExitOutcome::Succeeded => StreamBudgets {
            stdout: half,
            stderr: eighth,
        },
        ExitOutcome::ExitedUnsuccessfully | ExitOutcome::TimedOutOrCancelled => StreamBudgets {
            stdout: eighth,
            stderr: half,
        },
    }
}

/// The projection of one stream and the facts behind its result flags (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Projection {
    /// The projected text; `None` (`~`) for an empty stream, bytes that are not UTF-8, or a text
    /// that does not fit a budget below 8.
    pub text: Option<String>,
    /// A CRLF was replaced with LF (`z` bit 2).
    pub normalized: bool,
    /// A reducer (×N, ×N#K, ⋯N) changed the text (`z` bit 1; implies `truncated`).
    pub reduced: bool,
    /// The text shown is less than the stream: reduced, cut or omitted (`z` bit 0).
    pub truncated: bool,
}

impl Projection {
    /// The `z` bits 0–2 this stream contributes (bit 3, retained, is set by the caller).
    pub fn flag_bits(&self) -> u8 {
        u8::from(self.truncated) | u8::from(self.reduced) << 1 | u8::from(self.normalized) << 2
    }

    /// Whether a capture of `source_len` bytes must be retained: §5 step 5 (reduced, normalized,
    /// or non-empty without text) plus a head/tail cut (docs/protocol.md decision 4), so no byte
    /// the model cannot see is lost.
    pub fn retains(&self, source_len: u64) -> bool {
        self.truncated || self.reduced || self.normalized || (source_len > 0 && self.text.is_none())
    }
}

/// Projects a complete in-memory capture into `budget` bytes: non-UTF-8 → no text; otherwise
/// CRLF → LF, ×N, ×N#K, ⋯N (only for [`ExitOutcome::ExitedUnsuccessfully`]), then the head/tail
/// cut. Runs inside `plane` for inputs of at least [`super::PARALLEL_MIN_BYTES`] (blocking).
pub fn project_stream(
    plane: &ComputePlane,
    bytes: &[u8],
    outcome: ExitOutcome,
    budget: usize,
) -> Projection {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Projection::default();
    };
    if text.is_empty() {
        return Projection::default();
    }
    on_plane(plane, worth_parallel(text.len()), || {
        let normalized = normalize(text);
        let lines = repeat_lines(plane, &normalized);
        let blocks = repeat_blocks(plane, &lines);
        let focused = match outcome {
            ExitOutcome::ExitedUnsuccessfully => failure_focus(plane, &blocks),
            ExitOutcome::Succeeded | ExitOutcome::TimedOutOrCancelled => {
                Cow::Borrowed(blocks.as_ref())
            }
        };
        // Reducers return `Cow::Owned` exactly when they changed something.
        let reduced = [&lines, &blocks, &focused]
            .iter()
            .any(|stage| matches!(stage, Cow::Owned(_)));
        let cut = head_tail(&focused, budget);
        Projection {
            text: cut.render().map(Cow::into_owned),
            normalized: matches!(normalized, Cow::Owned(_)),
            reduced,
            truncated: reduced || cut.is_cut(),
        }
    })
}

/// What stays in memory of a spooled capture: its first and last bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamSample<'a> {
    /// The first bytes of the stream.
    pub head: &'a [u8],
    /// The last bytes of the stream.
    pub tail: &'a [u8],
    /// Total length of the stream in bytes.
    pub len: u64,
    /// Whether the whole stream is UTF-8 ([`super::Utf8Tracker::is_valid`] after the last chunk).
    pub utf8: bool,
}

/// A sample that cannot produce the projection it was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum SampleError {
    /// The head or tail sample is longer than the stream.
    #[error("a {have}-byte sample cannot belong to a {len}-byte stream")]
    Inconsistent {
        /// Length of the longer sample.
        have: usize,
        /// Stream length.
        len: u64,
    },
    /// A sample is shorter than the cut needs (see [`sample_sizes`]).
    #[error("the {part} sample holds {have} bytes but the projection needs {needed}")]
    TooShort {
        /// `"head"`, `"tail"` or `"head+tail"`.
        part: &'static str,
        /// Bytes held.
        have: usize,
        /// Bytes needed.
        needed: usize,
    },
    /// The sampled bytes are not UTF-8 although the stream was reported valid.
    #[error("the sampled bytes are not UTF-8")]
    NotUtf8,
}

/// Sample sizes (head, tail) that serve every budget up to `max_budget`, whole streams included.
pub fn sample_sizes(max_budget: usize) -> (usize, usize) {
    let half = max_budget / 2 + 1;
    (half, half)
}

/// Projects a spooled capture from its samples with the same rules as [`super::head_tail`] on the
/// whole stream; no normalisation or reducers run, so only `truncated` can be set. Not UTF-8 → no
/// text.
pub fn project_sample(sample: &StreamSample<'_>, budget: usize) -> Result<Projection, SampleError> {
    let StreamSample {
        head,
        tail,
        len,
        utf8,
    } = *sample;
    let longest = head.len().max(tail.len());
    if longest as u64 > len {
        return Err(SampleError::Inconsistent { have: longest, len });
    }
    if len == 0 || !utf8 {
        return Ok(Projection::default());
    }
    let text = match usize::try_from(len) {
        Ok(whole) if whole <= budget => Some(whole_text(head, tail, whole)?),
        _ => cut_text(head, tail, budget)?,
    };
    let truncated = u64::try_from(text.as_ref().map_or(0, String::len)) != Ok(len);
    Ok(Projection {
        text,
        truncated,
        ..Projection::default()
    })
}

/// The whole `len`-byte stream reassembled from its samples.
fn whole_text(head: &[u8], tail: &[u8], len: usize) -> Result<String, SampleError> {
    let bytes = if head.len() == len {
        head.to_vec()
    } else if head.len() + tail.len() >= len {
        [head, &tail[head.len() + tail.len() - len..]].concat()
    } else {
        return Err(SampleError::TooShort {
            part: "head+tail",
            have: head.len() + tail.len(),
            needed: len,
        });
    };
    String::from_utf8(bytes).map_err(|_| SampleError::NotUtf8)
}

/// The head/tail cut of a stream longer than `budget`, from its samples.
fn cut_text(head: &[u8], tail: &[u8], budget: usize) -> Result<Option<String>, SampleError> {
    let Some((head_len, tail_len)) = cut_lengths(budget) else {
        return Ok(None);
    };
    // The byte at the cut decides whether it is a char boundary, so the head must reach past it.
    if head.len() <= head_len {
        return Err(SampleError::TooShort {
            part: "head",
            have: head.len(),
            needed: head_len + 1,
        });
    }
    if tail.len() < tail_len {
        return Err(SampleError::TooShort {
            part: "tail",
            have: tail.len(),
            needed: tail_len,
        });
    }
    let mut head_end = head_len;
    while head_end > 0 && is_continuation(head[head_end]) {
        head_end -= 1;
    }
    let mut tail_start = tail.len() - tail_len;
    while tail_start < tail.len() && is_continuation(tail[tail_start]) {
        tail_start += 1;
    }
    let head = std::str::from_utf8(&head[..head_end]).map_err(|_| SampleError::NotUtf8)?;
    let tail = std::str::from_utf8(&tail[tail_start..]).map_err(|_| SampleError::NotUtf8)?;
    Ok(Some([head, SEPARATOR, tail].concat()))
}

/// Whether `b` continues a multibyte UTF-8 character (so no character starts at it).
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

#[cfg(test)]
mod tests;
