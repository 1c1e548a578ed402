//! Changes that land between preflight and apply (right after the journal is published, through
//! the `crash-points` test hook): the apply-time re-checks see them, nothing is overwritten,
//! and the answer says what happened.

use crate::client::*;
use ash_engine::txn::on_published;

#[test]
fn a_file_changed_after_preflight_is_not_overwritten() {
    let mut c = Client::new();
    c.write("a.txt", b"abc\n");
    let target = c.path("a.txt");
    on_published(move || std::fs::write(&target, b"someone else\n").expect("concurrent write"));
    let answer = c.ask(&format!(
        "t:1\ni:1\no:p\na{{p,h,i,o,n,v,f}}:\n[a.txt],[{}],[0],[0],[1],[X],0\nu{{tok,rec,ms}}:\n1000,16,30000\n",
        hash(b"abc\n")
    ));
    assert!(answer.contains("\ns:8\n"), "a conflict: {answer}");
    assert!(
        answer.contains(&hash(b"someone else\n")),
        "it names what is there now: {answer}"
    );
    assert_eq!(c.read("a.txt"), Some(b"someone else\n".to_vec()));
    assert!(!c.path(".ash/transaction").exists(), "the journal is gone");
}

#[test]
fn a_destination_created_after_preflight_is_a_conflict_and_left_alone() {
    let mut c = Client::new();
    let target = c.path("new.txt");
    on_published(move || std::fs::write(&target, b"theirs\n").expect("concurrent create"));
    let answer = c.ask(
        "t:1\ni:2\no:f\na[1]{i,k,p,q,h,v}:\n1,0,new.txt,~,~,ours\nu{tok,rec,ms}:\n1000,16,30000\n",
    );
    assert!(answer.contains("\ns:8\n"), "a conflict: {answer}");
    assert!(answer.contains(&hash(b"theirs\n")), "{answer}");
    assert_eq!(c.read("new.txt"), Some(b"theirs\n".to_vec()));
}

#[test]
fn a_destination_directory_removed_after_preflight_is_an_io_failure_not_a_conflict() {
    let mut c = Client::new();
    std::fs::create_dir(c.path("dir")).expect("mkdir");
    let dir = c.path("dir");
    on_published(move || std::fs::remove_dir(&dir).expect("concurrent rmdir"));
    let answer = c.ask(
        "t:1\ni:3\no:f\na[1]{i,k,p,q,h,v}:\n1,0,dir/new.txt,~,~,ours\nu{tok,rec,ms}:\n1000,16,30000\n",
    );
    assert_eq!(answer, error(3, 5, 500, 2, 4), "{answer}");
    assert!(!c.path("dir").exists());
}

#[test]
fn a_conflict_at_the_second_action_rolls_the_first_back() {
    let mut c = Client::new();
    let target = c.path("b.txt");
    on_published(move || std::fs::write(&target, b"theirs\n").expect("concurrent create"));
    let answer = c.ask(
        "t:1\ni:4\no:f\na[2]{i,k,p,q,h,v}:\n1,0,a.txt,~,~,ours\n2,0,b.txt,~,~,ours\nu{tok,rec,ms}:\n1000,16,30000\n",
    );
    assert!(answer.contains("\ns:8\n"), "a conflict: {answer}");
    // Row 1 rolled back (state 2), row 2 the conflict (state 1) with what is there now.
    assert!(answer.contains("\n1,0,1,~,2,~\n"), "{answer}");
    assert!(
        answer.contains(&format!("\n2,0,2,~,1,{}\n", hash(b"theirs\n"))),
        "{answer}"
    );
    assert_eq!(c.read("a.txt"), None, "the first create was rolled back");
    assert_eq!(c.read("b.txt"), Some(b"theirs\n".to_vec()));
}
