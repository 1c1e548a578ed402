//! `diff` (issue 43): what this session changed in the workspace, from the session's first
//! checkpoint to a capture of the tree now. Both sides come from the checkpoint store (the
//! capture keeps today's content there too), so what is compared is exactly what a rewind
//! would restore; a path whose content either side did not keep is named, not diffed.

mod lines;

use ansa_sessions::protocol::{DiffFile, DiffOmitted, DiffStatus, WORKSPACE_DIFF_LINES};
use ash_engine::checkpoint::{ChangeKind, Entry, Manifest, Node, Store, Unrestorable};

use super::rewind::user_changes;

/// The changed paths from `base` to `now`, their contents read from `store`, with at most
/// [`WORKSPACE_DIFF_LINES`] diff lines over all files; also how many lines were left out.
pub fn files(base: &Manifest, now: &Manifest, store: &Store) -> (Vec<DiffFile>, u64) {
    let mut budget = WORKSPACE_DIFF_LINES;
    let mut left_out = 0u64;
    let mut out = Vec::new();
    for change in user_changes(base, now) {
        let old = base.get(&change.path);
        let new = now.get(&change.path);
        let status = match change.kind {
            ChangeKind::Added => DiffStatus::Added,
            ChangeKind::Removed => DiffStatus::Deleted,
            ChangeKind::Modified | ChangeKind::ModeChanged | ChangeKind::TypeChanged => {
                DiffStatus::Modified
            }
        };
        // A directory coming or going is told by the files in it.
        if matches!(change.kind, ChangeKind::Added | ChangeKind::Removed)
            && old.or(new).is_some_and(|e| e.state == Ok(Node::Dir))
        {
            continue;
        }
        let mut file = DiffFile {
            path: change.path.clone(),
            status,
            added: 0,
            removed: 0,
            omitted: None,
            note: None,
            lines: Vec::new(),
        };
        match change.kind {
            ChangeKind::ModeChanged => file.omitted = Some(DiffOmitted::ModeOnly),
            ChangeKind::TypeChanged => file.omitted = Some(DiffOmitted::NotAFile),
            ChangeKind::Added | ChangeKind::Removed | ChangeKind::Modified => {
                match (side(old, store), side(new, store)) {
                    (Ok(a), Ok(b)) => {
                        let diff = lines::unified(&a, &b);
                        file.added = diff.added;
                        file.removed = diff.removed;
                        if diff.lines.len() <= budget {
                            budget -= diff.lines.len();
                            file.lines = diff.lines;
                        } else {
                            left_out += diff.lines.len() as u64;
                            file.omitted = Some(DiffOmitted::TooLong);
                        }
                    }
                    (Err(why), _) | (_, Err(why)) => {
                        file.omitted = Some(why.0);
                        file.note = why.1;
                    }
                }
            }
        }
        out.push(file);
    }
    (out, left_out)
}

/// Why one side of a file has no text: the kind and, for a file not kept, the reason.
type NoText = (DiffOmitted, Option<String>);

/// One side's text: empty when the path is not there on that side.
fn side(entry: Option<&Entry>, store: &Store) -> Result<String, NoText> {
    let Some(entry) = entry else {
        return Ok(String::new());
    };
    match &entry.state {
        Ok(Node::File { digest, .. }) => {
            let bytes = store
                .object(digest)
                .map_err(|e| (DiffOmitted::NotRestorable, Some(e.to_string())))?;
            match String::from_utf8(bytes) {
                Ok(text) if !text.contains('\0') => Ok(text),
                _ => Err((DiffOmitted::Binary, None)),
            }
        }
        Ok(Node::Dir | Node::Symlink { .. }) => Err((DiffOmitted::NotAFile, None)),
        Err(why) => Err((DiffOmitted::NotRestorable, Some(reason(why)))),
    }
}

/// The checkpoint's reason for not keeping a file, for a person.
fn reason(why: &Unrestorable) -> String {
    match why {
        Unrestorable::Ignored => "ignored by a .gitignore".to_owned(),
        Unrestorable::Excluded => "excluded by the config's `exclude`".to_owned(),
        Unrestorable::StateDir => "ansa's own state".to_owned(),
        Unrestorable::TooLarge { limit } => format!(
            "larger than the checkpoint limit of {}",
            super::rewind::bytes(*limit)
        ),
        Unrestorable::OverBudget => "the checkpoint store's budget was spent".to_owned(),
        Unrestorable::Unreadable { reason } => format!("unreadable: {reason}"),
        Unrestorable::Special => "not a file, directory or symlink".to_owned(),
    }
}
