//! When and how the reducers use the compute plane.

use std::ops::Range;

use rayon::prelude::*;

use crate::compute::ComputePlane;

/// Inputs at least this large are reduced inside the compute plane; smaller ones on the caller's
/// thread, where a pool hand-off would cost more than it saves.
pub const PARALLEL_MIN_BYTES: usize = 64 * 1024;

/// Whether an input of `len` bytes is worth the compute plane.
pub(crate) fn worth_parallel(len: usize) -> bool {
    len >= PARALLEL_MIN_BYTES
}

/// Runs `work` inside `plane` when `parallel`, otherwise on the calling thread.
pub(crate) fn on_plane<R, F>(plane: &ComputePlane, parallel: bool, work: F) -> R
where
    R: Send,
    F: FnOnce() -> R + Send,
{
    if parallel {
        plane.install(work)
    } else {
        work()
    }
}

/// Maps `f` over the consecutive ranges of `chunk` items that cover `0..len`, results in range
/// order; on the current Rayon pool when `parallel`, so the result never depends on worker count.
pub(crate) fn map_ranges<T, F>(len: usize, chunk: usize, parallel: bool, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(Range<usize>) -> T + Sync + Send,
{
    let chunk = chunk.max(1);
    let count = len.div_ceil(chunk);
    let range = |c: usize| c * chunk..((c + 1) * chunk).min(len);
    if parallel && count > 1 {
        (0..count).into_par_iter().map(|c| f(range(c))).collect()
    } else {
        (0..count).map(|c| f(range(c))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_in_order() {
        for parallel in [false, true] {
            let got = map_ranges(10, 4, parallel, |r| (r.start, r.end));
            assert_eq!(got, vec![(0, 4), (4, 8), (8, 10)]);
            assert!(map_ranges(0, 4, parallel, |r| r.len()).is_empty());
        }
    }
}
