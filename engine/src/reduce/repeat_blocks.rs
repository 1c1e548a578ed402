//! ×N#K: N consecutive copies of a K-line block collapse to the block plus `×N#K`.
//!
//! Speed: lines are first reduced to 64-bit fingerprints (on the compute plane for large inputs).
//! For each K the scan keeps the end of the current fingerprint match `id[j] == id[j+K]`, which
//! only moves forward, so all block counts at all positions cost O(32 · lines) in total instead of
//! comparing blocks again at every position; a vectorised pre-check (parallel for large inputs)
//! skips the per-K work at lines whose fingerprint does not recur within 32 lines.
//!
//! Fingerprints only propose: the chosen candidate's omitted blocks are compared byte for byte,
//! and a collision lowers that candidate to its true count before the choice is made again, so
//! the result is exactly the byte-defined one.

use std::borrow::Cow;

use rayon::prelude::*;

use super::lines::Lines;
use super::marker::{block_marker, block_marker_len};
use super::parallel::{map_ranges, on_plane, worth_parallel};
use super::splice::Splice;
use crate::compute::ComputePlane;

/// Largest block size K.
const MAX_K: usize = 32;
/// Fewest complete lines for which blocks are considered.
const MIN_LINES: usize = 4;
/// Lines per parallel task of the partner pre-check.
const PAIRING_CHUNK_LINES: usize = 16 * 1024;
/// Omitted bytes from which the byte verification runs on the compute plane.
const PARALLEL_VERIFY_BYTES: usize = 1024 * 1024;

/// Applies ×N#K (meant for ×N's output) to the complete lines, left to right: at each line the
/// candidate with the greatest saving wins (ties: smaller K, then larger N) and the scan jumps
/// past its N·K lines; without a candidate one line is kept. Needs at least 4 complete lines.
/// Returns `Cow::Borrowed` when nothing collapsed.
pub fn repeat_blocks<'a>(plane: &ComputePlane, text: &'a str) -> Cow<'a, str> {
    let parallel = worth_parallel(text.len());
    on_plane(plane, parallel, || {
        let lines = Lines::split(text, parallel);
        let complete = lines.complete();
        if complete < MIN_LINES {
            return Cow::Borrowed(text);
        }
        let ids = lines.fingerprints(complete, parallel);
        collapse_blocks(&lines, &ids, parallel)
    })
}

/// A block candidate at the scan position: `n` copies of a `k`-line block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Candidate {
    k: usize,
    n: usize,
    saving: usize,
    /// The count was confirmed on the bytes (otherwise it is a fingerprint upper bound).
    verified: bool,
}

impl Candidate {
    /// Whether `self` beats `other`: greater saving, then smaller K, then larger N.
    fn beats(&self, other: &Candidate) -> bool {
        (self.saving, std::cmp::Reverse(self.k), self.n)
            > (other.saving, std::cmp::Reverse(other.k), other.n)
    }
}

/// The scan over the first `ids.len()` (complete) lines, given their fingerprints.
fn collapse_blocks<'a>(lines: &Lines<'a>, ids: &[u64], parallel: bool) -> Cow<'a, str> {
    let total = ids.len();
    let paired = map_ranges(total, PAIRING_CHUNK_LINES, parallel, |range| {
        range.map(|i| has_partner(ids, i)).collect::<Vec<bool>>()
    })
    .concat();
    let mut splice = Splice::new(lines.text());
    // match_end[k]: first j ≥ (its start) with ids[j] != ids[j+k]; valid for every position ≤ it.
    let mut match_end = [0usize; MAX_K + 1];
    let mut proposals: Vec<Candidate> = Vec::with_capacity(MAX_K);
    let mut i = 0;
    while total - i >= MIN_LINES {
        if !paired[i] {
            i += 1;
            continue;
        }
        let k_max = MAX_K.min((total - i) / 2);
        proposals.clear();
        for (k, end) in match_end.iter_mut().enumerate().take(k_max + 1).skip(2) {
            if *end < i {
                *end = i;
            }
            while *end + k < total && ids[*end] == ids[*end + k] {
                *end += 1;
            }
            let n = 1 + (*end - i) / k;
            if let Some(candidate) = candidate(lines, i, k, n, false) {
                proposals.push(candidate);
            }
        }
        match choose(lines, i, &mut proposals, parallel) {
            Some(best) => {
                let omitted = lines.bytes_of(i + best.k..i + best.n * best.k);
                splice.replace(omitted.start, omitted.end, &block_marker(best.n, best.k));
                i += best.n * best.k;
            }
            None => i += 1,
        }
    }
    splice.finish()
}

/// Whether line `i` has an equal fingerprint 2..=32 lines further on, without which no block
/// starts at it. Branch-free so it vectorises: it runs for every line, while the per-K scan only
/// runs where this holds.
fn has_partner(ids: &[u64], i: usize) -> bool {
    let window = &ids[(i + 2).min(ids.len())..(i + MAX_K + 1).min(ids.len())];
    window.iter().fold(false, |hit, &id| hit | (id == ids[i]))
}

/// The candidate for `n` copies of the `k`-line block at line `i`, if it exists (N ≥ 2 and the
/// marker is shorter than the omitted blocks).
fn candidate(lines: &Lines<'_>, i: usize, k: usize, n: usize, verified: bool) -> Option<Candidate> {
    if n < 2 {
        return None;
    }
    let block = lines.bytes_of(i..i + k).len();
    let omitted = (n - 1) * block;
    let marker = block_marker_len(n, k);
    (marker < omitted).then(|| Candidate {
        k,
        n,
        saving: omitted - marker,
        verified,
    })
}

/// Picks the best proposal whose count survives byte verification. Proposals are upper bounds,
/// so once the best one is verified at its proposed count no other can beat it.
fn choose(
    lines: &Lines<'_>,
    i: usize,
    proposals: &mut Vec<Candidate>,
    parallel: bool,
) -> Option<Candidate> {
    loop {
        let (index, best) = proposals
            .iter()
            .copied()
            .enumerate()
            .reduce(|a, b| if b.1.beats(&a.1) { b } else { a })?;
        if best.verified {
            return Some(best);
        }
        let n = verified_count(lines, i, best.k, best.n, parallel);
        if n == best.n {
            return Some(best);
        }
        match candidate(lines, i, best.k, n, true) {
            Some(lowered) => proposals[index] = lowered,
            None => {
                proposals.swap_remove(index);
            }
        }
    }
}

/// How many of the `n` proposed copies of the `k`-line block at line `i` are byte-equal to it.
fn verified_count(lines: &Lines<'_>, i: usize, k: usize, n: usize, parallel: bool) -> usize {
    let text = lines.text().as_bytes();
    let first = &text[lines.bytes_of(i..i + k)];
    let copy_differs = |b: usize| {
        let start = i + b * k;
        text[lines.bytes_of(start..start + k)] != *first
    };
    let mismatch = if parallel && (n - 1) * first.len() >= PARALLEL_VERIFY_BYTES {
        (1..n).into_par_iter().find_first(|&b| copy_differs(b))
    } else {
        (1..n).find(|&b| copy_differs(b))
    };
    mismatch.unwrap_or(n)
}

#[cfg(test)]
pub(crate) mod tests;
