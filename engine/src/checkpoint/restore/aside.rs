//! What a rollback does when a concurrent writer took a path back: the writer's version stays
//! at the path, and the version the restore had moved away is set aside next to it under
//! `NAME.ansa-rewind-conflict-N` (the first free `N`), so the rollback finishes, the journal
//! goes, and no write is lost.
//!
//! Each set-aside is announced before it happens by a record in the journal's `conflicts/`
//! directory (`r<i>`: change `i`'s removed entry, `s<i>`: a writer's version the rollback had
//! taken back into change `i`'s stage), holding the chosen `N`. A crash between the record
//! and the rename is finished by the next recovery from the record; a crash after it is told
//! apart by the removed or staged entry being gone. The records are also what the report of a
//! recovered rollback lists, and what maps the children of a directory set aside to its new
//! name.

use super::journal::PUBLISHED;
use super::{RestoreError, RollbackConflict, crash, fsops};
use crate::files::workspace::Workspace;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read};

/// The suffix before the number of a set-aside version.
pub const SUFFIX: &str = ".ansa-rewind-conflict-";

/// Longest file name Linux accepts (`NAME_MAX`).
const NAME_MAX: usize = 255;

/// Free numbers tried before a rollback gives up on a path (and leaves the journal).
const MAX_TRIES: u32 = 1000;

/// Which entry of a change was set aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Slot {
    /// The version the restore moved into `removed/` (what was there before the restore).
    Removed,
    /// A writer's version the rollback had moved into `stage/` and could not put back.
    Staged,
}

impl Slot {
    fn letter(self) -> char {
        match self {
            Slot::Removed => 'r',
            Slot::Staged => 's',
        }
    }
}

fn records_dir(journal: &str) -> String {
    format!("{journal}/conflicts")
}

fn record(slot: Slot, i: usize) -> String {
    format!("{}/{}{i:08x}", records_dir(PUBLISHED), slot.letter())
}

/// `dir/name.ansa-rewind-conflict-n` for the logical `path`, the name cut (at a character
/// boundary) so the whole stays within `NAME_MAX`.
pub(crate) fn side(path: &str, n: u32) -> String {
    let (dir, name) = match path.rsplit_once('/') {
        Some((d, n)) => (Some(d), n),
        None => (None, path),
    };
    let tail = format!("{SUFFIX}{n}");
    let mut end = name.len().min(NAME_MAX - tail.len());
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    let base = format!("{}{tail}", &name[..end]);
    match dir {
        Some(d) => format!("{d}/{base}"),
        None => base,
    }
}

/// The set-asides the records of the journal directory `journal` announce:
/// `(slot, change index) → N`.
pub(crate) fn read_records(
    ws: &Workspace,
    journal: &str,
) -> Result<BTreeMap<(Slot, usize), u32>, RestoreError> {
    let mut out = BTreeMap::new();
    let dir = records_dir(journal);
    let fd = match ws.open_dir(&dir) {
        Ok(fd) => fd,
        Err(e) if fsops::missing(&e) => return Ok(out),
        Err(e) => return Err(broken(&dir, &e.to_string())),
    };
    let entries = rustix::fs::Dir::read_from(&fd).map_err(|e| broken(&dir, &e.to_string()))?;
    for entry in entries {
        let entry = entry.map_err(|e| broken(&dir, &e.to_string()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "." || name == ".." || name.ends_with(".new") {
            continue;
        }
        let slot = match name.as_bytes().first() {
            Some(b'r') => Slot::Removed,
            Some(b's') => Slot::Staged,
            _ => return Err(broken(&dir, &format!("unexpected entry {name:?}"))),
        };
        let i = usize::from_str_radix(&name[1..], 16)
            .map_err(|_| broken(&dir, &format!("unexpected entry {name:?}")))?;
        let path = format!("{dir}/{name}");
        let mut text = String::new();
        ws.locate(&path)
            .and_then(|at| at.open_read())
            .and_then(|f| f.take(16).read_to_string(&mut text))
            .map_err(|e| broken(&path, &e.to_string()))?;
        let n: u32 = text
            .trim_end()
            .parse()
            .ok()
            .filter(|n| (1..=MAX_TRIES).contains(n))
            .ok_or_else(|| broken(&path, "not a conflict number"))?;
        out.insert((slot, i), n);
    }
    Ok(out)
}

fn broken(path: &str, why: &str) -> RestoreError {
    RestoreError::Recovery(format!(
        "the restore journal's conflict record {path} cannot be read ({why}); the journal and the files are left as they are"
    ))
}

fn step(what: &str, path: &str, e: &io::Error) -> RestoreError {
    RestoreError::Recovery(format!("{what} {path} during rollback: {e}"))
}

/// Moves `from` (change `i`'s `slot` entry) next to `path` under the first free conflict
/// name, announcing the number in a record first; `known` is the number a record already
/// announced (a crash came between it and the rename). Returns the name it now has and its
/// number. A name the journal's own changes use is never taken (its version comes back there).
pub(crate) struct Move<'a> {
    /// Which entry of the change.
    pub slot: Slot,
    /// The change's index in the journal.
    pub i: usize,
    /// Where that entry is now.
    pub from: &'a str,
    /// The path it is set aside next to.
    pub path: &'a str,
    /// The number a record announced before a crash, if any.
    pub known: Option<u32>,
}

/// Carries out `m`; `reserved` are the journal's change paths.
pub(crate) fn set_aside(
    ws: &Workspace,
    m: &Move<'_>,
    reserved: &BTreeSet<&str>,
) -> Result<(String, u32), RestoreError> {
    let Move {
        slot,
        i,
        from,
        path,
        known,
    } = *m;
    let mut n = known.unwrap_or(1);
    let mut announced = known;
    for _ in 0..MAX_TRIES {
        let to = side(path, n);
        let free = !reserved.contains(to.as_str())
            && fsops::lstat(ws, &to)
                .map_err(|e| step("inspecting", &to, &e))?
                .is_none();
        if free {
            if announced != Some(n) {
                announce(ws, slot, i, n)?;
                announced = Some(n);
                crash::recovery();
            }
            match fsops::rename_new(ws, from, &to) {
                Ok(()) => {
                    crate::txn::fsx::sync_parent(ws, &to)
                        .and_then(|()| crate::txn::fsx::sync_parent(ws, from))
                        .map_err(|e| step("syncing", &to, &e))?;
                    crash::recovery();
                    return Ok((to, n));
                }
                // Taken between the look and the rename: try the next number.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(step("setting aside", from, &e)),
            }
        }
        n += 1;
        if n > MAX_TRIES {
            break;
        }
    }
    Err(RestoreError::Recovery(format!(
        "cannot find a free name next to {path} for the version the restore moved away; the journal in {PUBLISHED} and the files are left as they are"
    )))
}

/// Durably records that change `i`'s `slot` entry goes to conflict number `n`.
fn announce(ws: &Workspace, slot: Slot, i: usize, n: u32) -> Result<(), RestoreError> {
    let dir = records_dir(PUBLISHED);
    match fsops::mkdir(ws, &dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(step("creating", &dir, &e)),
    }
    let rec = record(slot, i);
    let tmp = format!("{rec}.new");
    match crate::txn::fsx::unlink(ws, &tmp) {
        Ok(()) => {}
        Err(e) if fsops::missing(&e) => {}
        Err(e) => return Err(step("removing", &tmp, &e)),
    }
    fsops::write_new(ws, &tmp, format!("{n}\n").as_bytes(), 0o600)
        .and_then(|()| fsops::rename_over(ws, &tmp, &rec))
        .and_then(|()| crate::txn::fsx::sync_dir(ws, &dir))
        .and_then(|()| crate::txn::fsx::sync_dir(ws, PUBLISHED))
        .map_err(|e| step("recording", &rec, &e))
}

/// Where change `path`'s removed entry goes back to: below the name a directory above it
/// was set aside as, if one was (`aside` maps a change's path to its conflict number).
pub(crate) fn mapped(path: &str, aside: &BTreeMap<String, u32>) -> String {
    let mut cut = path;
    while let Some((parent, _)) = cut.rsplit_once('/') {
        if let Some(n) = aside.get(parent) {
            let rest = &path[parent.len()..];
            return format!("{}{rest}", side(&mapped(parent, aside), *n));
        }
        cut = parent;
    }
    path.to_owned()
}

/// What the records of a finished rollback's journal (`journal`, holding `changes`) set aside,
/// sorted: the report of a rollback a crash interrupted after it was done.
pub(crate) fn recorded(
    ws: &Workspace,
    journal: &str,
    changes: &[super::desired::Change],
) -> Vec<RollbackConflict> {
    let Ok(records) = read_records(ws, journal) else {
        return Vec::new();
    };
    let dirs: BTreeMap<String, u32> = records
        .iter()
        .filter(|((slot, _), _)| *slot == Slot::Removed)
        .filter_map(|((_, i), n)| Some((changes.get(*i)?.path.clone(), *n)))
        .collect();
    let found = records
        .iter()
        .filter_map(|((slot, i), n)| {
            let path = &changes.get(*i)?.path;
            let near = match slot {
                Slot::Removed => mapped(path, &dirs),
                Slot::Staged => path.clone(),
            };
            Some(RollbackConflict {
                path: path.clone(),
                set_aside: side(&near, *n),
            })
        })
        .collect();
    report(found)
}

/// The report of the set-asides, sorted by path.
pub(crate) fn report(mut conflicts: Vec<RollbackConflict>) -> Vec<RollbackConflict> {
    conflicts.sort_by(|a, b| a.path.cmp(&b.path).then(a.set_aside.cmp(&b.set_aside)));
    conflicts.dedup();
    conflicts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_name_stays_next_to_the_path_and_within_name_max() {
        assert_eq!(side("a/b.txt", 1), "a/b.txt.ansa-rewind-conflict-1");
        assert_eq!(side("f", 12), "f.ansa-rewind-conflict-12");
        let long = format!("d/{}", "é".repeat(200));
        let s = side(&long, 3);
        let name = s.rsplit_once('/').unwrap().1;
        assert!(name.len() <= NAME_MAX, "{}", name.len());
        assert!(name.ends_with(".ansa-rewind-conflict-3"));
    }

    #[test]
    fn children_of_a_directory_set_aside_follow_it() {
        let aside = BTreeMap::from([("d".to_owned(), 2), ("d/e".to_owned(), 1)]);
        assert_eq!(mapped("x/y", &aside), "x/y");
        assert_eq!(mapped("d/f", &aside), "d.ansa-rewind-conflict-2/f");
        assert_eq!(
            mapped("d/e/g", &aside),
            "d.ansa-rewind-conflict-2/e.ansa-rewind-conflict-1/g"
        );
    }
}
