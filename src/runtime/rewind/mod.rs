//! Rewind (issue 41): checkpoints of the workspace taken at turn boundaries, and what a rewind
//! needs besides the engine's restore — which paths changed from outside since a turn
//! (`history`), and the plan and reasons in protocol terms (`wire`). When checkpoints are
//! taken is the worker's (`worker/checkpoint.rs`); a rewind's steps are `worker/rewind.rs`.

use ash_engine::checkpoint::{Change, Manifest, Unrestorable, diff};

mod checkpointer;
mod history;
mod no_model;
mod recover;
mod wire;

pub use checkpointer::{Checkpointer, Taken};
pub use history::external_since;
pub use no_model::RewindOnly;
pub use recover::recover;
pub use wire::plan_event;

/// What changed from `old` to `new` that is the user's: the engine's and ansa's own state
/// directories coming and going (`.ash` appears with the first edit) is left out.
pub fn user_changes(old: &Manifest, new: &Manifest) -> Vec<Change> {
    let state: Vec<&str> = old
        .entries
        .iter()
        .chain(&new.entries)
        .filter(|e| e.state == Err(Unrestorable::StateDir))
        .map(|e| e.path.as_str())
        .collect();
    let within = |path: &str, dir: &str| {
        path == dir
            || path
                .strip_prefix(dir)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    let mut changes = diff(old, new);
    changes.retain(|c| !state.iter().any(|d| within(&c.path, d)));
    changes
}

/// A byte count for a person: `16 MiB`, `1.0 GiB`, `512 B`.
pub fn bytes(n: u64) -> String {
    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    match n {
        n if n >= GIB => format!("{:.1} GiB", n as f64 / GIB as f64),
        n if n >= MIB && n % MIB == 0 => format!("{} MiB", n / MIB),
        n if n >= MIB => format!("{:.1} MiB", n as f64 / MIB as f64),
        n if n >= KIB => format!("{} KiB", n / KIB),
        n => format!("{n} B"),
    }
}
