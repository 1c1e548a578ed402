//! The compute plane: one fixed Rayon pool for walking, hashing and searching.
//!
//! Every parallel result is collected in input order and then stably sorted, so callers get the
//! same bytes whatever the worker count.

mod heap;

pub use heap::pad_heap_growth;

use std::num::NonZeroUsize;
use std::sync::OnceLock;
use std::thread;

use thiserror::Error;

/// The compute pool could not be started.
#[derive(Debug, Error)]
#[error("cannot start the compute pool with {workers} workers: {message}")]
pub struct ComputeError {
    /// The requested worker count.
    pub workers: usize,
    /// Rayon's error text.
    pub message: String,
}

/// A fixed-size Rayon pool that owns all CPU-bound work of the engine.
#[derive(Debug)]
pub struct ComputePlane {
    /// Built at once by [`ComputePlane::new`], on the first [`ComputePlane::install`] for
    /// [`ComputePlane::host`]; `None` when that late start failed.
    pool: OnceLock<Option<rayon::ThreadPool>>,
    /// Set by [`ComputePlane::new`]; for [`ComputePlane::host`], read from the host on first
    /// use (the cgroup files `available_parallelism` reads are a dozen syscalls).
    workers: OnceLock<usize>,
}

impl ComputePlane {
    /// Starts a pool with `workers` threads (0 is treated as 1).
    pub fn new(workers: usize) -> Result<ComputePlane, ComputeError> {
        let workers = workers.max(1);
        let pool = build(workers)?;
        Ok(ComputePlane {
            pool: OnceLock::from(Some(pool)),
            workers: OnceLock::from(workers),
        })
    }

    /// A pool sized by `available_parallelism()` (1 if unknown) whose threads start with the
    /// first work that needs them, so a process that only answers cheap requests never starts
    /// them (nor asks the host how many it may run).
    pub fn host() -> ComputePlane {
        ComputePlane {
            pool: OnceLock::new(),
            workers: OnceLock::new(),
        }
    }

    /// The number of worker threads.
    pub fn workers(&self) -> usize {
        *self.workers.get_or_init(host_parallelism)
    }

    /// Runs `work` inside the pool, so Rayon parallel iterators in it use this pool; blocks until
    /// done. Should a late start fail, `work` runs on the calling thread (its parallel iterators
    /// then use Rayon's global pool); results are the same bytes either way, since every
    /// parallel result is put in input order.
    pub fn install<R, F>(&self, work: F) -> R
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        match self.pool.get_or_init(|| build(self.workers()).ok()) {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }
}

fn build(workers: usize) -> Result<rayon::ThreadPool, ComputeError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(|index| format!("ash-compute-{index}"))
        .build()
        .map_err(|err| ComputeError {
            workers,
            message: err.to_string(),
        })
}

/// The host's available parallelism, 1 when it cannot be determined.
pub fn host_parallelism() -> usize {
    thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    use super::*;

    #[test]
    fn worker_counts() {
        for (requested, expected) in [(0, 1), (1, 1), (2, 2), (4, 4)] {
            let plane = ComputePlane::new(requested).map_err(|e| e.to_string());
            assert_eq!(
                plane.map(|p| p.workers()),
                Ok(expected),
                "requested {requested}"
            );
        }
    }

    #[test]
    fn install_runs_on_the_pool_and_keeps_order() {
        for workers in [1, 2, 4] {
            let Ok(plane) = ComputePlane::new(workers) else {
                panic!("pool with {workers} workers");
            };
            let (threads, squares) = plane.install(|| {
                let squares: Vec<u64> = (0..1000u64).into_par_iter().map(|x| x * x).collect();
                (rayon::current_num_threads(), squares)
            });
            assert_eq!(threads, workers);
            assert_eq!(squares, (0..1000u64).map(|x| x * x).collect::<Vec<_>>());
        }
    }

    #[test]
    fn host_has_at_least_one_worker() {
        let plane = ComputePlane::host();
        // The threads start with the first work, and the host is asked only then.
        assert!(plane.pool.get().is_none());
        assert!(plane.workers.get().is_none());
        assert_eq!(
            plane.install(rayon::current_num_threads),
            host_parallelism()
        );
        assert!(plane.pool.get().is_some());
        assert!(plane.workers() >= 1);
    }
}
