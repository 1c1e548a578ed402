//! A foreign change between the kill and the recovery: `ash run` is killed at the first cut
//! point where the journaled action stands as wanted, someone changes the workspace (or the
//! journal), and a fresh process recovers. Recovery must never delete or overwrite what it
//! cannot prove is its own: what it can prove it rolls back, and anything else it refuses with
//! `502`, leaving journal and files untouched for inspection.

use super::{ash, hash, killed, probe_request, request};
use std::path::Path;
use tempfile::TempDir;

/// The probe's answer once recovery went through (the probe itself then fails resolution).
const RECOVERED: &str = "t:3\ni:7\ns:4\ne{c,q,p,x,a}:\n201,1,2,~,~\nz:0\nr:~\n";

const JOURNAL: &str = ".ash/transaction";
const STAGE: &str = ".ash/transaction/stage/00000000";
const REMOVED: &str = ".ash/transaction/removed/00000000";

/// Runs `req` on fresh workspaces made by `setup`, killing it at cut point 1, 2, … until the
/// killed run leaves `wanted` true; returns that workspace.
fn crashed_where(setup: fn(&Path), req: &str, wanted: fn(&Path) -> bool) -> TempDir {
    for k in 1..200 {
        let ws = tempfile::tempdir().expect("temp workspace");
        setup(ws.path());
        let out = ash(ws.path(), req, &[("ASH_CRASH_AT", k)]);
        assert!(
            killed(&out),
            "the transaction finished without passing the wanted state: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        if wanted(ws.path()) {
            return ws;
        }
    }
    panic!("no cut point leaves the wanted state");
}

/// A published journal that is not committed: recovery must classify its actions.
fn pending(ws: &Path) -> bool {
    ws.join(JOURNAL).join("MANIFEST").is_file() && !ws.join(JOURNAL).join("COMMITTED").exists()
}

fn present(ws: &Path, p: &str) -> bool {
    ws.join(p).symlink_metadata().is_ok()
}

fn read(ws: &Path, p: &str) -> Option<Vec<u8>> {
    std::fs::read(ws.join(p)).ok()
}

fn write(ws: &Path, p: &str, bytes: &[u8]) {
    std::fs::write(ws.join(p), bytes).expect("foreign write");
}

/// Runs the recovering probe; true when recovery went through, false on a `502` refusal.
fn recover(ws: &Path) -> bool {
    let out = ash(ws, &probe_request(), &[]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if text == RECOVERED {
        assert!(!present(ws, JOURNAL), "a recovered journal is deleted");
        return true;
    }
    assert!(
        text.contains("e{c,q,p,x,a}:\n502,"),
        "neither recovered nor refused: {text}"
    );
    assert!(present(ws, JOURNAL), "a refused journal is kept");
    false
}

fn fs_row(kind: u8, path: &str, dest: &str, digest: &str, value: &str) -> String {
    request(
        'f',
        &format!("a[1]{{i,k,p,q,h,v}}:\n1,{kind},{path},{dest},{digest},{value}\n"),
    )
}

fn source(ws: &Path) {
    write(ws, "a.txt", b"original\n");
}

fn create_request() -> String {
    fs_row(0, "new.txt", "~", "~", "ours")
}

fn move_request() -> String {
    fs_row(2, "a.txt", "b.txt", &hash(b"original\n"), "~")
}

fn remove_request() -> String {
    fs_row(3, "a.txt", "~", &hash(b"original\n"), "~")
}

fn replace_request() -> String {
    request(
        'p',
        &format!(
            "a{{p,h,i,o,n,v,f}}:\n[a.txt],[{}],[0],[0],[8],[REPLACED],0\n",
            hash(b"original\n")
        ),
    )
}

#[test]
fn a_file_created_where_an_unapplied_create_goes_is_kept() {
    let ws = crashed_where(
        |_| {},
        &create_request(),
        |ws| pending(ws) && present(ws, STAGE) && !present(ws, "new.txt"),
    );
    let ws = ws.path();
    write(ws, "new.txt", b"theirs\n");
    assert!(recover(ws), "nothing of ours was applied: a clean rollback");
    assert_eq!(read(ws, "new.txt"), Some(b"theirs\n".to_vec()));
}

#[test]
fn an_applied_create_overwritten_by_someone_else_is_refused_and_kept() {
    let ws = crashed_where(
        |_| {},
        &create_request(),
        |ws| pending(ws) && !present(ws, STAGE) && present(ws, "new.txt"),
    );
    let ws = ws.path();
    write(ws, "new.txt", b"theirs now\n");
    assert!(!recover(ws), "the file is no longer provably ours");
    assert_eq!(read(ws, "new.txt"), Some(b"theirs now\n".to_vec()));
}

#[test]
fn a_stage_that_is_no_longer_a_file_is_refused() {
    let ws = crashed_where(
        |_| {},
        &create_request(),
        |ws| pending(ws) && present(ws, STAGE) && !present(ws, "new.txt"),
    );
    let ws = ws.path();
    std::fs::remove_file(ws.join(STAGE)).expect("drop the stage");
    std::fs::create_dir(ws.join(STAGE)).expect("a directory in its place");
    assert!(!recover(ws), "a directory stage proves nothing");
    assert!(!present(ws, "new.txt"));
}

#[test]
fn a_destination_created_beside_an_unapplied_move_is_kept() {
    let ws = crashed_where(source, &move_request(), |ws| {
        pending(ws) && present(ws, "a.txt") && !present(ws, "b.txt")
    });
    let ws = ws.path();
    write(ws, "b.txt", b"theirs\n");
    assert!(recover(ws), "the source is untouched: nothing to undo");
    assert_eq!(read(ws, "a.txt"), Some(b"original\n".to_vec()));
    assert_eq!(read(ws, "b.txt"), Some(b"theirs\n".to_vec()));
}

#[test]
fn an_unapplied_move_whose_source_and_destination_both_changed_is_refused() {
    let ws = crashed_where(source, &move_request(), |ws| {
        pending(ws) && present(ws, "a.txt") && !present(ws, "b.txt")
    });
    let ws = ws.path();
    write(ws, "a.txt", b"edited\n");
    write(ws, "b.txt", b"theirs\n");
    assert!(!recover(ws), "neither name holds what the journal knows");
    assert_eq!(read(ws, "a.txt"), Some(b"edited\n".to_vec()));
    assert_eq!(read(ws, "b.txt"), Some(b"theirs\n".to_vec()));
}

#[test]
fn an_applied_move_overwritten_at_its_destination_is_refused_and_kept() {
    let ws = crashed_where(source, &move_request(), |ws| {
        pending(ws) && !present(ws, "a.txt") && present(ws, "b.txt")
    });
    let ws = ws.path();
    write(ws, "b.txt", b"theirs now\n");
    assert!(!recover(ws));
    assert!(!present(ws, "a.txt"), "their content is not moved back");
    assert_eq!(read(ws, "b.txt"), Some(b"theirs now\n".to_vec()));
}

#[test]
fn a_file_created_where_an_applied_remove_was_is_refused_and_the_copy_kept() {
    let ws = crashed_where(source, &remove_request(), |ws| {
        pending(ws) && !present(ws, "a.txt") && present(ws, REMOVED)
    });
    let ws = ws.path();
    write(ws, "a.txt", b"theirs\n");
    assert!(!recover(ws), "two different files: no rename window");
    assert_eq!(read(ws, "a.txt"), Some(b"theirs\n".to_vec()));
    assert_eq!(
        read(ws, REMOVED),
        Some(b"original\n".to_vec()),
        "the only copy of the removed file survives"
    );
}

#[test]
fn an_applied_remove_whose_saved_copy_changed_is_refused() {
    let ws = crashed_where(source, &remove_request(), |ws| {
        pending(ws) && !present(ws, "a.txt") && present(ws, REMOVED)
    });
    let ws = ws.path();
    write(ws, REMOVED, b"tampered\n");
    assert!(!recover(ws), "the saved copy is not what was removed");
    assert!(!present(ws, "a.txt"), "the tampered copy is not restored");
}

#[test]
fn an_applied_replace_whose_saved_preimage_changed_is_refused() {
    let ws = crashed_where(source, &replace_request(), |ws| {
        pending(ws) && read(ws, "a.txt") == Some(b"REPLACED\n".to_vec())
    });
    let ws = ws.path();
    write(ws, REMOVED, b"tampered\n");
    assert!(!recover(ws), "the saved preimage is not what was replaced");
    assert_eq!(read(ws, "a.txt"), Some(b"REPLACED\n".to_vec()));
}

#[test]
fn an_applied_replace_changed_again_by_someone_else_is_refused_and_kept() {
    let ws = crashed_where(source, &replace_request(), |ws| {
        pending(ws) && read(ws, "a.txt") == Some(b"REPLACED\n".to_vec())
    });
    let ws = ws.path();
    write(ws, "a.txt", b"theirs\n");
    assert!(!recover(ws));
    assert_eq!(read(ws, "a.txt"), Some(b"theirs\n".to_vec()));
    assert_eq!(read(ws, REMOVED), Some(b"original\n".to_vec()));
}

/// The temp name recovery removes belongs to replace actions only: a file that happens to
/// carry the journal's tagged temp name beside another kind of action is not ours.
#[test]
fn a_tagged_temp_name_beside_a_create_is_not_removed() {
    let ws = crashed_where(
        |_| {},
        &create_request(),
        |ws| pending(ws) && present(ws, STAGE) && !present(ws, "new.txt"),
    );
    let ws = ws.path();
    let manifest = std::fs::read(ws.join(JOURNAL).join("MANIFEST")).expect("manifest");
    let name = temp_name(&manifest, 0);
    write(ws, &name, b"mine\n");
    assert!(recover(ws));
    assert_eq!(read(ws, &name), Some(b"mine\n".to_vec()));
}

/// The journal's temp name for action `i` beside a top-level path: `.ash-<tag>-<i>.tmp`, the
/// tag being the first 8 of the manifest's last 32 bytes in lower hex.
fn temp_name(manifest: &[u8], i: usize) -> String {
    let check = &manifest[manifest.len().saturating_sub(32)..];
    let tag: String = check[..check.len().min(8)]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!(".ash-{tag}-{i:08x}.tmp")
}

#[test]
fn the_tagged_temp_name_is_the_one_a_replace_uses() {
    let ws = crashed_where(source, &replace_request(), |ws| {
        pending(ws)
            && std::fs::read(ws.join(JOURNAL).join("MANIFEST"))
                .is_ok_and(|m| present(ws, &temp_name(&m, 0)))
    });
    let ws = ws.path();
    let manifest = std::fs::read(ws.join(JOURNAL).join("MANIFEST")).expect("manifest");
    assert!(present(ws, &temp_name(&manifest, 0)));
}

#[test]
fn an_applied_create_deleted_by_someone_else_is_already_rolled_back() {
    let ws = crashed_where(
        |_| {},
        &create_request(),
        |ws| pending(ws) && !present(ws, STAGE) && present(ws, "new.txt"),
    );
    let ws = ws.path();
    std::fs::remove_file(ws.join("new.txt")).expect("foreign delete");
    assert!(recover(ws), "no file at all is the create's pre-state");
    assert!(!present(ws, "new.txt"));
}

#[test]
fn a_temp_name_that_cannot_be_removed_stops_the_rollback() {
    let ws = crashed_where(source, &replace_request(), |ws| {
        pending(ws) && read(ws, "a.txt") == Some(b"original\n".to_vec())
    });
    let ws = ws.path();
    let manifest = std::fs::read(ws.join(JOURNAL).join("MANIFEST")).expect("manifest");
    let temp = temp_name(&manifest, 0);
    let _ = std::fs::remove_file(ws.join(&temp));
    std::fs::create_dir(ws.join(&temp)).expect("a directory at the temp name");
    std::fs::write(ws.join(&temp).join("inside"), b"theirs\n").expect("write inside");
    assert!(
        !recover(ws),
        "a temp name it cannot remove is not ours to ignore"
    );
    assert_eq!(
        read(ws, &format!("{temp}/inside")),
        Some(b"theirs\n".to_vec())
    );
    assert_eq!(read(ws, "a.txt"), Some(b"original\n".to_vec()));
}
