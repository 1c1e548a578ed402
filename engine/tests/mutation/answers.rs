//! An applied change is never answered as a failure: every budget or ceiling check that could
//! refuse a mutation runs before the first byte changes, and a committed mutation whose full
//! answer does not fit is answered with a compact success (`d[0]`, `z:11`, `r` naming the
//! complete result retained as literal-path evidence).

use crate::client::*;

fn patch_one(id: u64, path: &str, digest: &str, tok: u64) -> String {
    format!(
        "t:1\ni:{id}\no:p\na{{p,h,i,o,n,v,f}}:\n[{}],[{digest}],[0],[0],[1],[X],0\nu{{tok,rec,ms}}:\n{tok},16,30000\n",
        cell(path)
    )
}

#[test]
fn a_patch_whose_answer_cannot_fit_changes_nothing() {
    let mut c = Client::new();
    c.write("a.txt", b"abc\n");
    let answer = c.ask(&patch_one(1, "a.txt", &hash(b"abc\n"), 1));
    assert_eq!(answer, error(1, 9, 600, 1, 5));
    assert_eq!(c.read("a.txt"), Some(b"abc\n".to_vec()), "nothing changed");
    assert!(!c.path(".ash/transaction").exists());
}

#[test]
fn a_create_table_larger_than_the_answer_commits_with_a_compact_success() {
    let mut c = Client::new();
    let rows: String = (1..=50)
        .map(|i| format!("{i},0,{},~,~,x\n", cell(&format!("dir-file-{i:02}.txt"))))
        .collect();
    let answer = c.ask(&format!(
        "t:1\ni:5\no:f\na[50]{{i,k,p,q,h,v}}:\n{rows}u{{tok,rec,ms}}:\n50,50,30000\n"
    ));
    assert_eq!(answer, "t:3\ni:5\ns:0\nd[0]{i,k,p,q,s,h}:\nz:11\nr:@1\n");
    for i in 1..=50 {
        assert_eq!(c.read(&format!("dir-file-{i:02}.txt")), Some(b"x".to_vec()));
    }
    let evidence = String::from_utf8(crate::common::retained(&c.session, 1)).expect("utf-8");
    let x = hash(b"x");
    assert!(
        evidence.starts_with(&format!(
            "k:f\nd[50]{{i,k,p,q,s,h}}:\n1,0,dir-file-01.txt,~,0,{x}\n2,0,dir-file-02.txt,~,0,{x}\n"
        )),
        "{evidence}"
    );
    assert!(
        evidence.ends_with(&format!("50,0,dir-file-50.txt,~,0,{x}\n")),
        "{evidence}"
    );
}

#[test]
fn a_patch_that_fits_only_compactly_commits_with_a_compact_success() {
    let mut c = Client::new();
    let name = format!("{}.txt", "long-name-".repeat(8));
    c.write(&name, b"abc\n");
    // The full answer (a 84-byte path twice) is over L = 80; the compact one is not.
    let answer = c.ask(&patch_one(2, &name, &hash(b"abc\n"), 20));
    assert_eq!(answer, "t:3\ni:2\ns:0\nd[0]{p,s,h}:\nz:11\nr:@1\n");
    assert_eq!(c.read(&name), Some(b"Xbc\n".to_vec()));
    let evidence = String::from_utf8(crate::common::retained(&c.session, 1)).expect("utf-8");
    assert_eq!(
        evidence,
        format!("k:p\nd[1]{{p,s,h}}:\n{name},0,{}\n", hash(b"Xbc\n"))
    );
}

#[test]
fn a_batch_of_mutations_never_reports_an_applied_node_as_failed() {
    let mut c = Client::new();
    c.write("a.txt", b"abc\n");
    c.write("b.txt", b"abc\n");
    let h = hash(b"abc\n");
    let node = |path: &str| {
        cell(&format!(
            "a{{p,h,i,o,n,v,f}}:\n[{path}],[{h}],[0],[0],[1],[X],0\n"
        ))
    };
    // Each child gets tok 40 / 2 = 20 (L = 80): a full patch answer (about 110 bytes) does
    // not fit, a compact one does.
    let batch = format!(
        "t:1\ni:9\no:b\na[2]{{i,d,o,a}}:\n1,[],p,{}\n2,[1],p,{}\nu{{tok,rec,ms}}:\n40,8,30000\n",
        node("a.txt"),
        node("b.txt")
    );
    let answer = c.ask(&batch);
    assert!(
        answer.contains("\ns:0\n"),
        "every node committed and says so: {answer}"
    );
    assert_eq!(c.read("a.txt"), Some(b"Xbc\n".to_vec()));
    assert_eq!(c.read("b.txt"), Some(b"Xbc\n".to_vec()));
    // @1 and @2 are the children's evidence, @3 and @4 their answers.
    for alias in [3, 4] {
        let child = String::from_utf8(crate::common::retained(&c.session, alias)).expect("utf-8");
        assert!(
            child.contains("\ns:0\n") && child.contains("z:11"),
            "{child}"
        );
    }
}
