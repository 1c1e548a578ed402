//! From the engine's restore types to the protocol's: the plan a frontend shows and the reason
//! a path is not restorable.

use ansa_sessions::protocol::{
    ChangedNotRestored, NotRestorable, PathKind, PlannedPath, RewindPlan,
};
use ansa_sessions::{RequestId, RewindScope};
use ash_engine::checkpoint::Unrestorable;
use ash_engine::checkpoint::restore::{EntryKind, Plan, PlannedFile};

/// Why a path was kept without its content, in words for the plan screen.
pub fn reason(u: &Unrestorable) -> String {
    match u {
        Unrestorable::Ignored => "ignored by .gitignore".to_owned(),
        Unrestorable::Excluded => "matches the config's exclude".to_owned(),
        Unrestorable::StateDir => "ansa's or the engine's own state".to_owned(),
        Unrestorable::TooLarge { limit } => format!(
            "larger than checkpoint_max_file_bytes ({})",
            crate::runtime::rewind::bytes(*limit)
        ),
        Unrestorable::OverBudget => "not kept: the checkpoint store's budget was spent".to_owned(),
        Unrestorable::Unreadable { reason } => format!("could not be read: {reason}"),
        Unrestorable::Special => "not a file, directory or symlink".to_owned(),
    }
}

fn planned(files: &[PlannedFile]) -> Vec<PlannedPath> {
    files
        .iter()
        .map(|f| PlannedPath {
            path: f.path.clone(),
            kind: match f.kind {
                EntryKind::File => PathKind::File,
                EntryKind::Dir => PathKind::Dir,
                EntryKind::Symlink => PathKind::Symlink,
            },
            added: f.added_lines,
            removed: f.removed_lines,
        })
        .collect()
}

/// The `rewind_plan` event for `plan` (an empty plan for a conversation-only rewind).
pub fn plan_event(
    target: RequestId,
    scope: RewindScope,
    plan: &Plan,
    rewound: Vec<RequestId>,
) -> RewindPlan {
    RewindPlan {
        target,
        scope,
        restore: planned(&plan.restore),
        recreate: planned(&plan.recreate),
        delete: planned(&plan.delete),
        conflicts: plan.conflicts.clone(),
        // ansa's and the engine's own state directories are never the user's files.
        not_restorable: plan
            .not_restorable
            .iter()
            .filter(|(_, why)| *why != Unrestorable::StateDir)
            .map(|(path, why)| NotRestorable {
                path: path.clone(),
                reason: reason(why),
            })
            .collect(),
        unkept: plan.unkept.clone(),
        rewound,
        changed_not_restored: plan
            .changed_not_restored
            .iter()
            .map(|(path, paths)| ChangedNotRestored {
                path: path.clone(),
                paths: *paths,
            })
            .collect(),
    }
}
