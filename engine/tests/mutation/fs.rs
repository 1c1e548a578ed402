//! `f` fs.

use crate::client::*;

fn create(path: &str, content: &str) -> String {
    format!("0,{},~,~,{}", cell(path), value(content))
}
fn copy(from: &str, to: &str, h: &str) -> String {
    format!("1,{},{},{h},~", cell(from), cell(to))
}
fn mv(from: &str, to: &str, h: &str) -> String {
    format!("2,{},{},{h},~", cell(from), cell(to))
}
fn remove(path: &str, h: &str) -> String {
    format!("3,{},~,{h},~", cell(path))
}

#[test]
fn fixture_shape_create_and_copy() {
    let mut c = Client::new();
    let cargo = b"[package]\nname = \"x\"\n";
    c.write("Cargo.toml", cargo);
    let h = hash(cargo);
    let req = format!(
        "t:1\ni:84\no:f\na[2]{{i,k,p,q,h,v}}:\n1,0,new.txt,~,~,\"hello\\n\"\n2,1,Cargo.toml,Cargo.copy.toml,{h},~\nu{{tok,rec,ms}}:\n64,8,30000\n"
    );
    assert_eq!(
        c.ask(&req),
        format!(
            "t:3\ni:84\ns:0\np[3]{{i,v}}:\n1,new.txt\n2,Cargo.toml\n3,Cargo.copy.toml\nd[2]{{i,k,p,q,s,h}}:\n1,0,1,~,0,{}\n2,1,2,3,0,{h}\nz:0\nr:~\n",
            hash(b"hello\n")
        )
    );
    assert_eq!(c.read("new.txt"), Some(b"hello\n".to_vec()));
    assert_eq!(c.read("Cargo.copy.toml"), Some(cargo.to_vec()));
    assert_eq!(c.read("Cargo.toml"), Some(cargo.to_vec()));
}

#[test]
fn all_four_kinds_in_one_transaction() {
    let mut c = Client::new();
    c.write("m.txt", b"move me");
    c.write("r.txt", b"remove me");
    c.write("dir/keep.txt", b"keep");
    let r = c.retain(b"from the store");
    let rows = [
        create("dir/new.txt", &format!("@{r}")),
        copy("dir/keep.txt", "keep2.txt", &hash(b"keep")),
        mv("m.txt", "dir/moved.txt", &hash(b"move me")),
        remove("r.txt", &hash(b"remove me")),
    ];
    let answer = c.ask(&fs(1, &rows));
    assert_eq!(
        answer,
        format!(
            "t:3\ni:1\ns:0\n{}d[4]{{i,k,p,q,s,h}}:\n1,0,1,~,0,{}\n2,1,2,3,0,{}\n3,2,4,5,0,{}\n4,3,6,~,0,{}\nz:0\nr:~\n",
            dict(&[
                (1, "dir/new.txt"),
                (2, "dir/keep.txt"),
                (3, "keep2.txt"),
                (4, "m.txt"),
                (5, "dir/moved.txt"),
                (6, "r.txt")
            ]),
            hash(b"from the store"),
            hash(b"keep"),
            hash(b"move me"),
            hash(b"remove me")
        )
    );
    let files = c.files();
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["dir/keep.txt", "dir/moved.txt", "dir/new.txt", "keep2.txt"]
    );
    assert_eq!(files["dir/new.txt"], b"from the store");
}

#[test]
fn conflicts_touch_nothing() {
    let mut c = Client::new();
    c.write("a.txt", b"a");
    c.write("b.txt", b"b");
    let before = c.files();
    // Existing destination: the offending row shows the destination's digest.
    let answer = c.ask(&fs(
        1,
        &[create("new.txt", "n"), copy("a.txt", "b.txt", &hash(b"a"))],
    ));
    assert_eq!(
        answer,
        format!(
            "t:3\ni:1\ns:8\n{}d[2]{{i,k,p,q,s,h}}:\n1,0,1,~,4,~\n2,1,2,3,1,{}\n{}",
            dict(&[(1, "new.txt"), (2, "a.txt"), (3, "b.txt")]),
            hash(b"b"),
            conflict_tail()
        )
    );
    assert_eq!(c.files(), before);
    // Stale source digest: the row shows the actual digest; later rows are skipped.
    let answer = c.ask(&fs(
        2,
        &[mv("a.txt", "c.txt", &hash(b"x")), create("new.txt", "n")],
    ));
    assert_eq!(
        answer,
        format!(
            "t:3\ni:2\ns:8\n{}d[2]{{i,k,p,q,s,h}}:\n1,2,2,4,1,{}\n2,0,1,~,4,~\n{}",
            dict(&[(4, "c.txt")]),
            hash(b"a"),
            conflict_tail()
        )
    );
    // Stale remove and existing create target.
    let answer = c.ask(&fs(3, &[remove("a.txt", &hash(b"zz"))]));
    assert!(answer.starts_with("t:3\ni:3\ns:8\n"), "{answer}");
    assert!(
        answer.contains(&format!("1,3,2,~,1,{}", hash(b"a"))),
        "{answer}"
    );
    let answer = c.ask(&fs(4, &[create("b.txt", "new")]));
    assert!(
        answer.contains(&format!("1,0,3,~,1,{}", hash(b"b"))),
        "{answer}"
    );
    assert_eq!(c.files(), before);
}

#[test]
fn resolution_and_validation_errors() {
    let mut c = Client::new();
    c.write("a.txt", b"a");
    c.write("dir/x", b"x");
    std::os::unix::fs::symlink(c.path("dir"), c.path("ln")).expect("symlink");
    std::os::unix::fs::symlink(c.path("a.txt"), c.path("fl")).expect("symlink");
    let h = hash(b"a");
    let before = c.files();
    let cases = [
        (create("nodir/new.txt", "x"), error(1, 4, 201, 1, 2)),
        (copy("missing.txt", "b.txt", &h), error(1, 4, 201, 1, 2)),
        (remove("missing.txt", &h), error(1, 4, 201, 1, 2)),
        (create("ln/new.txt", "x"), error(1, 5, 202, 1, 2)),
        (create("dir", "x"), error(1, 5, 202, 1, 2)),
        (create(".", "x"), error(1, 5, 202, 1, 2)),
        (remove("fl", &h), error(1, 5, 202, 1, 2)),
        (mv("a.txt", "dir", &h), error(1, 5, 202, 1, 2)),
        (create("a.txt/x", "x"), error(1, 5, 202, 1, 2)),
        (create(".ash/x", "x"), error(1, 3, 300, 0, 3)),
        (copy("a.txt", ".ash/y", &h), error(1, 3, 300, 0, 3)),
        (create("new.txt", "@77"), error(1, 4, 700, 1, 2)),
        (create("../x", "x"), invalid(1)),
        (copy("a.txt", "b.txt", &h.to_uppercase()), invalid(1)),
        // Wrong shapes.
        (format!("0,new.txt,~,{h},x"), invalid(1)),
        (format!("1,a.txt,~,{h},~"), invalid(1)),
        (format!("3,a.txt,b.txt,{h},~"), invalid(1)),
        (format!("4,a.txt,~,{h},~"), invalid(1)),
    ];
    for (row, expected) in cases {
        assert_eq!(c.ask(&fs(1, std::slice::from_ref(&row))), expected, "{row}");
    }
    // Distinct paths across the table; N over rec.
    assert_eq!(
        c.ask(&fs(1, &[create("n.txt", "x"), copy("a.txt", "n.txt", &h)])),
        invalid(1)
    );
    let over = fs(1, &[create("n1", "x"), create("n2", "x")]).replace("100000,10000", "100000,1");
    assert_eq!(c.ask(&over), invalid(1));
    assert_eq!(c.files(), before);
}
