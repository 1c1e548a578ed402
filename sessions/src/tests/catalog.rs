//! The catalog: summaries kept at durable boundaries, listing, safe names, deleting under the lock.

use std::path::Path;

use super::submit;
use crate::catalog::{self, ListedState, RemoveError, Summary};
use crate::*;

fn home() -> (tempfile::TempDir, SessionStore) {
    let t = tempfile::tempdir().expect("tempdir");
    let store = SessionStore::at(t.path());
    (t, store)
}

fn create(store: &SessionStore) -> Session {
    Session::create_in_home(
        store,
        Path::new("/work/project"),
        Profile::Offline,
        JournalOptions::default(),
    )
    .expect("create")
}

#[test]
fn the_summary_follows_every_sync_and_says_when_the_session_is_closed() {
    let (_t, store) = home();
    let mut s = create(&store);
    let dir = s.dir().to_path_buf();
    let opened = Summary::read(&dir).expect("written at open");
    assert!(opened.open);
    assert_eq!(opened.turns, 0);
    submit(&mut s, "c1", "  fix\n the   parser ").expect("submit");
    let after = Summary::read(&dir).expect("summary");
    assert_eq!(after.turns, 1);
    assert_eq!(after.first_prompt.as_deref(), Some("fix the parser"));
    assert!(after.end.still_at(&dir));
    let rows = catalog::list(&store).expect("list");
    assert_eq!(
        rows[0].state,
        ListedState::RunningElsewhere,
        "this handle holds it, its task queued"
    );
    drop(s);
    assert!(!Summary::read(&dir).expect("summary").open);
    let rows = catalog::list(&store).expect("list");
    assert_eq!(
        rows[0].state,
        ListedState::Interrupted,
        "queued when its process stopped"
    );
}

#[test]
fn bad_names_are_refused_and_a_busy_session_is_kept() {
    let (_t, store) = home();
    let a = create(&store);
    let b = create(&store);
    let (ida, idb) = (a.id().clone(), b.id().clone());
    drop(b);
    for bad in ["..", ".", "", "../x", "/etc", "A", "2026 1"] {
        assert!(
            matches!(
                catalog::resolve(&store, bad),
                Err(RemoveError::NotAnId { .. })
            ),
            "{bad:?}"
        );
    }
    let common: String = ida
        .as_str()
        .chars()
        .zip(idb.as_str().chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect();
    assert!(matches!(
        catalog::resolve(&store, &common),
        Err(RemoveError::Ambiguous { .. })
    ));
    assert!(matches!(
        catalog::resolve(&store, "19990101"),
        Err(RemoveError::Unknown { .. })
    ));
    assert_eq!(catalog::resolve(&store, idb.as_str()).expect("exact"), idb);
    assert!(matches!(
        catalog::remove(&store, &ida, &[]),
        Err(RemoveError::Busy { .. })
    ));
    assert!(
        a.dir().join("session.json").exists(),
        "never deleted under its holder"
    );
    drop(a);
    catalog::remove(&store, &ida, &[]).expect("remove once closed");
    assert!(!store.session_dir(&ida).exists());
    let ids: Vec<SessionId> = catalog::list(&store)
        .expect("list")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, [idb]);
}

#[test]
fn a_summary_is_read_across_several_reads_and_an_oversized_one_is_rebuilt() {
    let (_t, store) = home();
    let mut s = create(&store);
    submit(&mut s, "c1", "fix the parser").expect("submit");
    let dir = s.dir().to_path_buf();
    drop(s);
    let path = dir.join(catalog::SUMMARY_FILE);
    let json = std::fs::read(&path).expect("summary");
    let written = Summary::read(&dir).expect("summary");
    // Whitespace is valid JSON padding: past the first read's 8 KiB it takes several reads.
    let padded = |spaces: usize| {
        let mut v = vec![b' '; spaces];
        v.extend_from_slice(&json);
        v
    };
    for spaces in [8 * 1024 - json.len(), 8 * 1024, 20 * 1024] {
        std::fs::write(&path, padded(spaces)).expect("pad");
        assert_eq!(Summary::read(&dir).as_ref(), Some(&written), "{spaces}");
    }
    // Bigger than any summary ansa writes: not read whole, rebuilt from the journal instead.
    std::fs::write(&path, padded(70 * 1024)).expect("pad");
    assert_eq!(Summary::read(&dir), None);
    let rows = catalog::list(&store).expect("list");
    assert_eq!(rows[0].turns, 1);
    let saved = Summary::read(&dir).expect("saved again");
    assert_eq!(
        (saved.turns, saved.first_prompt, saved.end),
        (written.turns, written.first_prompt, written.end)
    );
}
