//! The state directory: marker, lock file, a foreign `.ash`, and reserved paths afterwards.

use crate::client::*;

#[test]
fn first_mutation_creates_the_state_directory() {
    let mut c = Client::new();
    let r = c.retain(b"x");
    let answer = c.ask(&request(1, '>', &format!("a:[@{r},x.txt]\n")));
    assert!(answer.contains("s:0"), "{answer}");
    let ash = c.path(".ash");
    assert_eq!(
        std::fs::read(ash.join("FORMAT")).expect("marker"),
        b"ash-workspace-state-v1\n"
    );
    assert!(ash.join("LOCK").is_file());
    let mut names: Vec<String> = std::fs::read_dir(&ash)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["FORMAT", "LOCK"]);
    // Now `.ash` is reserved for reads too.
    let read = request(2, 'r', "a{p,m,o,n}:\n[.ash/FORMAT],0,0,10\n");
    assert_eq!(c.ask(&read), error(2, 3, 300, 0, 3));
}

#[test]
fn a_patch_that_fails_makes_no_state_directory() {
    let mut c = Client::new();
    c.write("a.txt", b"hello");
    c.write("sub/b.txt", b"b");
    std::os::unix::fs::symlink("a.txt", c.path("link")).expect("symlink");
    let h = hash(b"hello");
    let stale = "0".repeat(64);
    let before = c.files();
    let failing = [
        patch(1, &[("a.txt", &stale)], &[(0, 0, 1, "x")]),
        patch(2, &[("a.txt", &h)], &[(0, 100, 1, "x")]),
        patch(3, &[("missing.txt", &h)], &[(0, 0, 1, "x")]),
        patch(4, &[("link", &h)], &[(0, 0, 1, "x")]),
        patch(5, &[("sub", &h)], &[(0, 0, 1, "x")]),
        patch(
            6,
            &[("a.txt", &h), ("sub/b.txt", &stale)],
            &[(0, 0, 1, "x")],
        ),
        // The answer cannot fit `tok` 1.
        format!(
            "t:1\ni:7\no:p\na{{p,h,i,o,n,v,f}}:\n[a.txt],[{h}],[0],[0],[1],[x],0\nu{{tok,rec,ms}}:\n1,16,30000\n"
        ),
    ];
    for request in &failing {
        let answer = c.ask(request);
        assert!(!answer.contains("\ns:0\n"), "{request} -> {answer}");
        assert!(!c.path(".ash").exists(), "{request} made .ash");
    }
    assert_eq!(c.files(), before);
    // The first patch that commits makes it, preflighted again under the locks.
    let answer = c.ask(&patch(8, &[("a.txt", &h)], &[(0, 0, 1, "J")]));
    assert!(answer.contains("\ns:0\n"), "{answer}");
    assert_eq!(c.read("a.txt"), Some(b"Jello".to_vec()));
    assert!(c.path(".ash/FORMAT").is_file());
}

#[test]
fn a_foreign_ash_is_never_taken_over() {
    let mut c = Client::new();
    c.write(".ash/notes.txt", b"mine");
    c.write("a.txt", b"a");
    let before = c.files();
    let r = c.retain(b"x");
    assert_eq!(
        c.ask(&request(1, '>', &format!("a:[@{r},x.txt]\n"))),
        error(1, 3, 300, 0, 3)
    );
    assert_eq!(
        c.ask(&patch(2, &[("a.txt", &hash(b"a"))], &[(0, 0, 1, "b")])),
        error(2, 3, 300, 0, 3)
    );
    assert_eq!(c.files(), before);
    assert!(!c.path(".ash/FORMAT").exists());
    assert_eq!(c.read(".ash/notes.txt"), Some(b"mine".to_vec()));
}

#[test]
fn a_corrupt_journal_answers_502_and_is_left_alone() {
    let mut c = with_state_dir();
    let journal = c.path(".ash/transaction");
    std::fs::create_dir(&journal).expect("mkdir");
    std::fs::write(journal.join("MANIFEST"), b"garbage").expect("write");
    let answer = c.ask(&patch(2, &[("a.txt", &hash(b"a"))], &[(0, 0, 1, "b")]));
    assert_eq!(
        answer,
        format!(
            "t:3\ni:2\ns:5\n{}d[1]{{p,s,h}}:\n2,3,~\ne{{c,q,p,x,a}}:\n502,3,4,~,~\nz:16\nr:~\n",
            dict(&[(2, "a.txt")])
        )
    );
    assert_eq!(
        std::fs::read(journal.join("MANIFEST")).expect("kept"),
        b"garbage"
    );
    assert_eq!(c.read("a.txt"), Some(b"a".to_vec()));
}

/// A workspace whose `.ash` is ours (made by a first mutation) and whose `a.txt` holds `a`.
fn with_state_dir() -> Client {
    let mut c = Client::new();
    c.write("a.txt", b"a");
    let r = c.retain(b"x");
    assert!(
        c.ask(&request(1, '>', &format!("a:[@{r},x.txt]\n")))
            .contains("s:0")
    );
    c
}

/// A patch of `a.txt`: `true` when it committed, `false` when it answered 502 and left the
/// file and the journal alone.
fn patch_commits(c: &mut Client, id: u64) -> bool {
    let answer = c.ask(&patch(id, &[("a.txt", &hash(b"a"))], &[(0, 0, 1, "b")]));
    if answer.contains("\ns:0\n") {
        assert_eq!(c.read("a.txt"), Some(b"b".to_vec()));
        assert!(
            !c.path(".ash/transaction").exists(),
            "the old journal was cleaned up"
        );
        true
    } else {
        assert!(answer.contains("\n502,3,4,~,~\n"), "{answer}");
        assert_eq!(c.read("a.txt"), Some(b"a".to_vec()));
        assert!(
            c.path(".ash/transaction").exists(),
            "the journal is left for inspection"
        );
        false
    }
}

#[test]
fn a_published_journal_that_is_a_file_is_not_recoverable() {
    let mut c = with_state_dir();
    std::fs::write(c.path(".ash/transaction"), b"not a directory").expect("write");
    assert!(!patch_commits(&mut c, 2));
}

#[test]
fn an_empty_published_journal_is_finished_and_removed() {
    let mut c = with_state_dir();
    std::fs::create_dir(c.path(".ash/transaction")).expect("mkdir");
    assert!(patch_commits(&mut c, 2));
}

#[test]
fn a_committed_journal_is_only_cleaned_up() {
    let mut c = with_state_dir();
    let journal = c.path(".ash/transaction");
    std::fs::create_dir(&journal).expect("mkdir");
    std::fs::write(journal.join("COMMITTED"), b"committed\n").expect("write");
    std::fs::write(journal.join("MANIFEST"), b"garbage").expect("write");
    assert!(
        patch_commits(&mut c, 2),
        "a valid marker makes the manifest irrelevant"
    );
}

#[test]
fn commit_markers_and_manifests_that_cannot_be_read_right_are_not_recoverable() {
    for (what, setup) in [
        (
            "an invalid marker",
            &(|j: &std::path::Path| {
                std::fs::write(j.join("COMMITTED"), b"garbage\n").expect("write");
            }) as &dyn Fn(&std::path::Path),
        ),
        ("a marker with more after it", &|j: &std::path::Path| {
            std::fs::write(j.join("COMMITTED"), b"committed\nextra").expect("write");
        }),
        ("a marker that is a directory", &|j: &std::path::Path| {
            std::fs::create_dir(j.join("COMMITTED")).expect("mkdir");
        }),
        ("a manifest that is a directory", &|j: &std::path::Path| {
            std::fs::create_dir(j.join("MANIFEST")).expect("mkdir");
        }),
        (
            "a committed journal whose manifest cannot be deleted",
            &|j: &std::path::Path| {
                std::fs::write(j.join("COMMITTED"), b"committed\n").expect("write");
                std::fs::create_dir(j.join("MANIFEST")).expect("mkdir");
            },
        ),
    ] {
        let mut c = with_state_dir();
        let journal = c.path(".ash/transaction");
        std::fs::create_dir(&journal).expect("mkdir");
        setup(&journal);
        assert!(!patch_commits(&mut c, 2), "{what}");
    }
}
