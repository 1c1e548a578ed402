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
    let mut c = Client::new();
    c.write("a.txt", b"a");
    let r = c.retain(b"x");
    assert!(
        c.ask(&request(1, '>', &format!("a:[@{r},x.txt]\n")))
            .contains("s:0")
    );
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
