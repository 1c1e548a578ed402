//! Which paths something other than this session changed after a point of the session: the
//! differences between the state each turn (or rewind) left and the state the next checkpoint
//! found, and between the last such state and now.

use std::collections::BTreeSet;

use ansa_sessions::{CheckpointPhase, ManifestHex, Seq, SessionState};
use ash_engine::checkpoint::Manifest;
use ash_engine::checkpoint::restore::external_changes;

/// The paths changed from outside after journal position `from`, given the workspace `now`.
/// `load` reads a manifest from the store; one it cannot read contributes nothing, which
/// under-reports conflicts for that gap only, and says so through `unreadable`.
pub fn external_since(
    state: &SessionState,
    from: Seq,
    now: &Manifest,
    load: &dyn Fn(&ManifestHex) -> Result<Manifest, String>,
    unreadable: &mut Vec<String>,
) -> BTreeSet<String> {
    // Positions where the workspace was known to be as this session left it (`ours`), and
    // positions where a checkpoint looked at it again (`looked`), in journal order.
    enum Point<'a> {
        Ours(&'a ManifestHex),
        Looked(&'a ManifestHex),
    }
    let mut points: Vec<(Seq, Point<'_>)> = Vec::new();
    for (seq, c) in state.checkpoints() {
        if *seq <= from {
            continue;
        }
        let point = match c.phase {
            CheckpointPhase::After => Point::Ours(&c.manifest),
            CheckpointPhase::Before | CheckpointPhase::BeforeRewind => Point::Looked(&c.manifest),
        };
        points.push((*seq, point));
    }
    for (seq, r) in state.rewinds() {
        if *seq > from
            && let Some(m) = &r.restored_to
        {
            points.push((*seq, Point::Ours(m)));
        }
    }
    points.sort_by_key(|(seq, _)| *seq);
    let mut pairs: Vec<(ManifestHex, Option<ManifestHex>)> = Vec::new();
    let mut ours: Option<&ManifestHex> = None;
    for (_, point) in &points {
        match point {
            Point::Ours(m) => ours = Some(m),
            Point::Looked(m) => {
                if let Some(o) = ours.take() {
                    pairs.push(((*o).clone(), Some((*m).clone())));
                }
            }
        }
    }
    if let Some(o) = ours {
        pairs.push((o.clone(), None));
    }
    let mut loaded: Vec<(Manifest, Option<Manifest>)> = Vec::new();
    for (a, b) in pairs {
        let a = match load(&a) {
            Ok(m) => m,
            Err(e) => {
                unreadable.push(e);
                continue;
            }
        };
        let b = match b.map(|b| load(&b)).transpose() {
            Ok(m) => m,
            Err(e) => {
                unreadable.push(e);
                continue;
            }
        };
        loaded.push((a, b));
    }
    let refs: Vec<(&Manifest, &Manifest)> = loaded
        .iter()
        .map(|(a, b)| (a, b.as_ref().unwrap_or(now)))
        .collect();
    external_changes(&refs)
}
