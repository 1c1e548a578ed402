//! The batch scheduler: runs ready nodes concurrently, starts a node only when every
//! dependency succeeded, and leaves every other node unrun (skipped, transitively).

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;

/// How a node that ran ended, as far as its dependents care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Succeeded: dependents may start.
    Ok,
    /// Did not succeed: dependents are skipped.
    NotOk,
}

/// The dependency graph by node index (indices follow the table's node order).
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    deps: Vec<usize>,
    dependents: Vec<Vec<usize>>,
}

impl Plan {
    /// A plan from each node's dependency indices. The request layer already checked that
    /// they exist and form no cycle.
    pub fn new(deps: &[Vec<usize>]) -> Plan {
        let mut dependents = vec![Vec::new(); deps.len()];
        for (i, ds) in deps.iter().enumerate() {
            for &d in ds {
                if let Some(list) = dependents.get_mut(d) {
                    list.push(i);
                }
            }
        }
        Plan {
            deps: deps.iter().map(Vec::len).collect(),
            dependents,
        }
    }

    /// Runs the graph with at most `parallel` nodes at once. `run` executes node `i`,
    /// `outcome` classifies its result and `panicked` stands in for a node whose run panicked.
    /// Returns each node's result in node order; `None` marks a skipped node.
    pub fn run<R, F, O, P>(
        &self,
        parallel: usize,
        run: F,
        outcome: O,
        panicked: P,
    ) -> Vec<Option<R>>
    where
        R: Send,
        F: Fn(usize) -> R + Sync,
        O: Fn(&R) -> Outcome,
        P: Fn(usize) -> R + Sync,
    {
        let n = self.deps.len();
        let mut waiting = self.deps.clone();
        let mut results: Vec<Option<R>> = (0..n).map(|_| None).collect();
        // Lowest index first, so start order (and so the order in which nodes queue for the
        // process governor and the journal lock) does not depend on completion order.
        let mut ready: BTreeSet<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
        let (tx, rx) = mpsc::channel::<(usize, R)>();
        let (run, panicked) = (&run, &panicked);
        std::thread::scope(|scope| {
            let mut running = 0usize;
            loop {
                while running < parallel.max(1) {
                    let Some(i) = ready.pop_first() else { break };
                    let tx = tx.clone();
                    scope.spawn(move || {
                        let r = catch_unwind(AssertUnwindSafe(|| run(i)))
                            .unwrap_or_else(|_| panicked(i));
                        // The receiver outlives every node thread of this scope.
                        let _ = tx.send((i, r));
                    });
                    running += 1;
                }
                if running == 0 {
                    break;
                }
                // Every running thread sends exactly once and this scope holds `tx`, so the
                // channel cannot close while a node is running.
                let Ok((i, r)) = rx.recv() else { break };
                running -= 1;
                if outcome(&r) == Outcome::Ok {
                    for &d in &self.dependents[i] {
                        waiting[d] -= 1;
                        if waiting[d] == 0 {
                            ready.insert(d);
                        }
                    }
                }
                results[i] = Some(r);
            }
        });
        results
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Which nodes are skipped when `failing` nodes fail, by brute-force reachability.
    fn expected_skips(deps: &[Vec<usize>], failing: u32) -> Vec<bool> {
        let n = deps.len();
        let mut ran = vec![false; n];
        let mut ok = vec![false; n];
        // Index order is a topological order for these graphs (deps point backwards).
        for i in 0..n {
            if deps[i].iter().all(|&d| ok[d]) {
                ran[i] = true;
                ok[i] = failing & (1 << i) == 0;
            }
        }
        ran.iter().map(|r| !r).collect()
    }

    fn graphs() -> Vec<Vec<Vec<usize>>> {
        vec![
            // diamond: 0 → 1, 0 → 2, {1,2} → 3
            vec![vec![], vec![0], vec![0], vec![1, 2]],
            // chain 0 → 1 → 2 plus an independent 3
            vec![vec![], vec![0], vec![1], vec![]],
            // two roots joined: {0,1} → 2, 1 → 3
            vec![vec![], vec![], vec![0, 1], vec![1]],
            // no edges
            vec![vec![], vec![], vec![], vec![]],
        ]
    }

    #[test]
    fn every_failure_mask_of_four_nodes_skips_exactly_the_transitive_dependents() {
        for deps in graphs() {
            let plan = Plan::new(&deps);
            for failing in 0u32..16 {
                let runs = AtomicUsize::new(0);
                let results = plan.run(
                    3,
                    |i| {
                        runs.fetch_add(1, Ordering::SeqCst);
                        failing & (1 << i) == 0
                    },
                    |&ok| if ok { Outcome::Ok } else { Outcome::NotOk },
                    |_| false,
                );
                let skipped: Vec<bool> = results.iter().map(Option::is_none).collect();
                let want = expected_skips(&deps, failing);
                assert_eq!(skipped, want, "graph {deps:?}, failing mask {failing:04b}");
                for (i, r) in results.iter().enumerate() {
                    if let Some(ok) = r {
                        assert_eq!(*ok, failing & (1 << i) == 0);
                    }
                }
                let ran = want.iter().filter(|s| !**s).count();
                assert_eq!(runs.load(Ordering::SeqCst), ran);
            }
        }
    }

    #[test]
    fn ready_siblings_run_at_the_same_time() {
        use std::sync::{Arc, Barrier};
        // Three independent nodes meet at a barrier: only concurrent execution gets past it.
        let barrier = Arc::new(Barrier::new(3));
        let plan = Plan::new(&[vec![], vec![], vec![], vec![0, 1, 2]]);
        let results = plan.run(
            4,
            |i| {
                if i < 3 {
                    barrier.wait();
                }
                i
            },
            |_| Outcome::Ok,
            |i| i,
        );
        assert_eq!(results, vec![Some(0), Some(1), Some(2), Some(3)]);
    }

    #[test]
    fn a_panicking_node_counts_as_failed_and_skips_its_dependents() {
        let plan = Plan::new(&[vec![], vec![0], vec![]]);
        let results = plan.run(
            2,
            |i| {
                if i == 0 {
                    panic!("node 0 breaks");
                }
                true
            },
            |&ok| if ok { Outcome::Ok } else { Outcome::NotOk },
            |_| false,
        );
        assert_eq!(results, vec![Some(false), None, Some(true)]);
    }
}
