//! Taking a checkpoint: walk the workspace (`walk`: every entry's stat, nothing read that the
//! previous manifest already vouches for), then read the files left to read in path order
//! (`read`), keep new contents in the store, and keep the manifest.
//!
//! Contents are read in chunks of files, in parallel within a chunk; a chunk's new contents are
//! admitted one by one in path order (so which contents a tight budget keeps does not depend on
//! thread timing, and the manifest's bytes are the same for the same tree and store), then made
//! durable and renamed into the store together. The first content that does not fit the budget ends
//! keeping new contents for the rest of the capture (`over_budget`).
//!
//! A file whose status changed less than two clock ticks before it was read is "racy" in git's
//! sense: a write in the same tick would leave size and times as they were, and the next
//! capture would reuse a digest of older bytes. Such files are read again once the clock has
//! moved past, so every stamp a manifest records is one a later change must alter.

mod ignore;
mod read;
mod walk;

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;

use crate::checkpoint::error::CheckpointError;
use crate::checkpoint::exclude::Exclude;
use crate::checkpoint::manifest::{Entry, Manifest, ManifestId, Node, Unrestorable};
use crate::checkpoint::store::{Commit, Staged, Store};
use crate::files::workspace::Workspace;
use crate::protocol::Digest;

use read::{Outcome, Reader};
use walk::{Context, Walked};

/// Default per-file limit (16 MiB, the issue's `checkpoint_max_file_bytes` default).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 << 20;

/// Files read in parallel before their contents are committed.
const CHUNK_FILES: usize = 4096;

/// Bytes (by size at the walk) of one chunk: bounds what a capture stages past the budget.
const CHUNK_BYTES: u64 = 128 << 20;

/// Longest wait for the clock to pass racy files' change times (a clock far behind a file's
/// time, as on a skewed network mount, is not waited for).
const MAX_RACY_WAIT: Duration = Duration::from_millis(100);

/// Rounds of re-reading a file whose content another read claimed and then dropped.
const MAX_RETRY_ROUNDS: usize = 3;

/// What a capture keeps and leaves out besides `.gitignore`d paths and state directories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureRules {
    /// Files larger than this are recorded `TooLarge` without being read.
    pub max_file_bytes: u64,
    /// The config's `exclude` globs (see `exclude.rs` for how they match).
    pub exclude: Vec<String>,
}

impl Default for CaptureRules {
    fn default() -> Self {
        CaptureRules {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            exclude: Vec::new(),
        }
    }
}

/// A checkpoint taken and kept.
#[derive(Debug, Clone)]
pub struct Captured {
    /// The manifest.
    pub manifest: Manifest,
    /// Its id in the store.
    pub id: ManifestId,
    /// Some content was not kept because the store's budget was spent.
    pub over_budget: bool,
    /// What the capture did.
    pub stats: CaptureStats,
}

/// Counts of one capture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Entries of the manifest.
    pub entries: u64,
    /// Entries recorded without their content (any `Unrestorable`; a state directory counts
    /// once, not with the paths listed below it).
    pub not_restorable: u64,
    /// Files whose content was read.
    pub files_read: u64,
    /// Of those, files read a second time because they changed within a clock tick of the
    /// first read (see the module docs).
    pub racy_rereads: u64,
    /// Bytes of content read.
    pub bytes_read: u64,
    /// Files whose digest was taken from the previous manifest without reading them.
    pub files_reused: u64,
    /// New objects kept in the store.
    pub objects_written: u64,
    /// Bytes those objects take in the store.
    pub bytes_written: u64,
}

/// Takes a checkpoint of `ws` into `store`. `previous` is the last manifest taken of this
/// workspace in this store: files whose stamp and mode it matches are not read again.
pub fn capture(
    ws: &Workspace,
    store: &Store,
    previous: Option<&Manifest>,
    rules: &CaptureRules,
) -> Result<Captured, CheckpointError> {
    capture_with(ws, store, previous, rules, None)
}

/// [`capture`] of the workspace a restore to `target` will change: a directory `target` kept
/// that is ignored or excluded now is listed too (by stat only, nothing of it read or kept),
/// so the restore can put the kept paths below it back and name what else it holds.
pub fn capture_for_restore(
    ws: &Workspace,
    store: &Store,
    previous: Option<&Manifest>,
    rules: &CaptureRules,
    target: &Manifest,
) -> Result<Captured, CheckpointError> {
    let kept_dirs: std::collections::BTreeSet<&str> = target
        .entries
        .iter()
        .filter(|e| matches!(e.state, Ok(Node::Dir)))
        .map(|e| e.path.as_str())
        .collect();
    capture_with(ws, store, previous, rules, Some(&kept_dirs))
}

fn capture_with(
    ws: &Workspace,
    store: &Store,
    previous: Option<&Manifest>,
    rules: &CaptureRules,
    kept_dirs: Option<&std::collections::BTreeSet<&str>>,
) -> Result<Captured, CheckpointError> {
    let exclude = Exclude::new(&rules.exclude)?;
    let _one_at_a_time = store
        .capturing
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let cx = Context {
        ws,
        store,
        previous,
        exclude: &exclude,
        max_file_bytes: rules.max_file_bytes,
        kept_dirs,
    };
    let (walked, counts) = walk::walk(&cx)?;
    let mut run = Run {
        ws,
        store,
        max_file_bytes: rules.max_file_bytes,
        walked,
        gone: HashSet::new(),
        over_budget: false,
        racy_ns: racy_window_ns(),
        stats: CaptureStats {
            files_reused: counts.reused,
            ..CaptureStats::default()
        },
    };
    let todo: Vec<usize> = (0..run.walked.len())
        .filter(|&i| run.walked[i].read)
        .collect();
    let racy = run.read_all(&todo)?;
    if !racy.is_empty() {
        run.wait_past(&racy);
        let before = run.stats.files_read;
        run.read_all(&racy)?;
        run.stats.racy_rereads = run.stats.files_read - before;
        run.stats.files_read = before;
    }
    let Run {
        walked,
        gone,
        over_budget,
        mut stats,
        ..
    } = run;
    let entries: Vec<_> = walked
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !gone.contains(i))
        .map(|(_, w)| w.entry)
        .collect();
    stats.entries = entries.len() as u64;
    stats.not_restorable = not_restorable(&entries);
    let manifest = Manifest { entries };
    let id = store.put_manifest(&manifest)?;
    Ok(Captured {
        manifest,
        id,
        over_budget,
        stats,
    })
}

/// The state of one capture's second pass.
struct Run<'a> {
    ws: &'a Workspace,
    store: &'a Store,
    max_file_bytes: u64,
    walked: Vec<Walked>,
    /// Entries whose file vanished before it could be read.
    gone: HashSet<usize>,
    over_budget: bool,
    racy_ns: i128,
    stats: CaptureStats,
}

impl Run<'_> {
    /// Reads the files of `indices` (ascending) chunk by chunk; returns the racy ones.
    fn read_all(&mut self, indices: &[usize]) -> Result<Vec<usize>, CheckpointError> {
        let mut racy = Vec::new();
        let mut start = 0;
        while start < indices.len() {
            let mut end = start;
            let mut bytes = 0u64;
            while end < indices.len()
                && end - start < CHUNK_FILES
                && (end == start || bytes < CHUNK_BYTES)
            {
                bytes += self.walked[indices[end]].entry.stamp.size;
                end += 1;
            }
            let mut chunk = indices[start..end].to_vec();
            for _ in 0..MAX_RETRY_ROUNDS {
                let retry = self.read_chunk(&chunk, &mut racy)?;
                if retry.is_empty() {
                    break;
                }
                chunk = retry;
            }
            start = end;
        }
        racy.sort_unstable();
        Ok(racy)
    }

    /// Reads one chunk in parallel and commits it in order; returns the entries whose content
    /// was claimed by a read that then dropped it (read again).
    fn read_chunk(
        &mut self,
        chunk: &[usize],
        racy: &mut Vec<usize>,
    ) -> Result<Vec<usize>, CheckpointError> {
        let claimed = Mutex::new(HashSet::new());
        let reader = Reader {
            ws: self.ws,
            store: self.store,
            max_file_bytes: self.max_file_bytes,
            stage: !self.over_budget,
            claimed: &claimed,
        };
        let walked = &self.walked;
        let outcomes: Vec<Result<Outcome, CheckpointError>> = chunk
            .par_iter()
            .map(|&i| reader.read(&walked[i].entry.path))
            .collect();
        let mut staged: HashMap<Digest, Staged> = HashMap::new();
        let mut results = Vec::with_capacity(outcomes.len());
        let mut failure = None;
        for outcome in outcomes {
            match outcome {
                Ok(Outcome::Content {
                    digest,
                    size,
                    stamp,
                    mode,
                    staged: Some(object),
                }) => {
                    staged.insert(digest, object);
                    results.push(Some(Outcome::Content {
                        digest,
                        size,
                        stamp,
                        mode,
                        staged: None,
                    }));
                }
                Ok(other) => results.push(Some(other)),
                Err(e) => {
                    failure.get_or_insert(e);
                    results.push(None);
                }
            }
        }
        if let Some(e) = failure {
            for (_, object) in staged {
                self.store.discard(object);
            }
            return Err(e);
        }
        let now = now_ns();
        let mut retry = Vec::new();
        let mut admitted = Vec::new();
        for (&i, outcome) in chunk.iter().zip(results) {
            self.stats.files_read += 1;
            let entry = &mut self.walked[i].entry;
            match outcome {
                None | Some(Outcome::Gone) => {
                    self.gone.insert(i);
                }
                Some(Outcome::NotKept(why, status)) => {
                    if let Some((stamp, mode)) = status {
                        entry.stamp = stamp;
                        entry.mode = mode;
                    }
                    entry.state = Err(why);
                }
                Some(Outcome::Content {
                    digest,
                    size,
                    stamp,
                    mode,
                    ..
                }) => {
                    self.stats.bytes_read += size;
                    entry.stamp = stamp;
                    entry.mode = mode;
                    let kept = if self.store.contains(&digest) {
                        true
                    } else if let Some(object) = staged.remove(&digest) {
                        let decision = if self.over_budget {
                            Commit::OverBudget
                        } else {
                            self.store.admit(&digest, object.stored_bytes)
                        };
                        match decision {
                            Commit::Kept => {
                                self.stats.objects_written += 1;
                                self.stats.bytes_written += object.stored_bytes;
                                admitted.push((object, digest));
                                true
                            }
                            Commit::AlreadyThere => {
                                self.store.discard(object);
                                true
                            }
                            Commit::OverBudget => {
                                self.store.discard(object);
                                false
                            }
                        }
                    } else if self.over_budget || !reader.stage {
                        false
                    } else {
                        retry.push(i);
                        continue;
                    };
                    entry.state = if kept {
                        Ok(Node::File { digest, size })
                    } else {
                        self.over_budget = true;
                        Err(Unrestorable::OverBudget)
                    };
                    if stamp.ctime_ns.max(stamp.mtime_ns) + self.racy_ns > now {
                        racy.push(i);
                    }
                }
            }
        }
        for (_, object) in staged {
            self.store.discard(object);
        }
        self.store.publish(admitted)?;
        Ok(retry)
    }

    /// Sleeps until the clock is a racy window past the newest change time of `racy`
    /// (at most [`MAX_RACY_WAIT`]).
    fn wait_past(&self, racy: &[usize]) {
        let newest = racy
            .iter()
            .map(|&i| {
                let stamp = &self.walked[i].entry.stamp;
                stamp.ctime_ns.max(stamp.mtime_ns)
            })
            .max()
            .unwrap_or(0);
        let started = Instant::now();
        while now_ns() <= newest + self.racy_ns && started.elapsed() < MAX_RACY_WAIT {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

/// Two ticks of the clock file times are taken from (the coarse real-time clock), at least
/// 1 ms and at most 50 ms.
fn racy_window_ns() -> i128 {
    let tick = nix::time::clock_getres(nix::time::ClockId::CLOCK_REALTIME_COARSE)
        .map_or(10_000_000, |res| {
            i128::from(res.tv_sec()) * 1_000_000_000 + i128::from(res.tv_nsec())
        });
    (2 * tick).clamp(1_000_000, 50_000_000)
}

/// Entries without content, a state directory's listed contents left out.
fn not_restorable(entries: &[Entry]) -> u64 {
    let state: HashSet<&str> = entries
        .iter()
        .filter(|e| e.state == Err(Unrestorable::StateDir))
        .map(|e| e.path.as_str())
        .collect();
    let below_state = |path: &str| {
        let mut p = path;
        while let Some((parent, _)) = p.rsplit_once('/') {
            if state.contains(parent) {
                return true;
            }
            p = parent;
        }
        false
    };
    entries
        .iter()
        .filter(|e| e.state.is_err() && !below_state(&e.path))
        .count() as u64
}
