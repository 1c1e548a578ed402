//! Finding sessions through the home index (`--continue`).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::*;

#[test]
fn continue_finds_the_newest_session_of_this_cwd_and_profile() {
    let t = tempfile::tempdir().expect("tempdir");
    let home = SessionStore::at(t.path().join("home"));
    let a = Path::new("/work/a");
    let b = Path::new("/work/b");
    let opts = JournalOptions::default();
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(
            Session::create_in_home(&home, a, Profile::Offline, opts)
                .expect("create")
                .id()
                .clone(),
        );
    }
    let other_cwd = Session::create_in_home(&home, b, Profile::Offline, opts)
        .expect("b")
        .id()
        .clone();
    let live = Session::create_in_home(&home, a, Profile::Live, opts)
        .expect("live")
        .id()
        .clone();
    let found = Session::continue_latest(&home, a, Profile::Offline, opts)
        .expect("lookup")
        .expect("some");
    assert_eq!(found.id(), &ids[2]);
    assert_eq!(found.dir(), home.session_dir(&ids[2]));
    drop(found);
    let found = Session::continue_latest(&home, a, Profile::Live, opts)
        .expect("lookup")
        .expect("some");
    assert_eq!(found.id(), &live);
    drop(found);
    assert!(
        Session::continue_latest(&home, Path::new("/nowhere"), Profile::Offline, opts)
            .expect("lookup")
            .is_none()
    );
    // A stale pointer (newest session removed) falls back to a scan and repairs the pointer.
    fs::remove_dir_all(home.session_dir(&ids[2])).expect("rm");
    let found = Session::continue_latest(&home, a, Profile::Offline, opts)
        .expect("lookup")
        .expect("some");
    assert_eq!(found.id(), &ids[1]);
    let dir_mode = fs::metadata(home.sessions_dir().join(ids[1].as_str()))
        .expect("m")
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    assert_ne!(other_cwd, ids[1]);
}
