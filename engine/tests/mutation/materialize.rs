//! `>` materialize.

use crate::client::*;

fn materialize(id: u64, source: u64, path: &str) -> String {
    request(id, '>', &format!("a:[@{source},{}]\n", cell(path)))
}

#[test]
fn writes_a_new_file_and_names_the_source() {
    let mut c = Client::new();
    std::fs::create_dir(c.path("artifacts")).expect("mkdir");
    let r = c.retain(b"abc");
    assert_eq!(
        c.ask(&materialize(45, r, "artifacts/out.bin")),
        format!(
            "t:3\ni:45\ns:0\np[1]{{i,v}}:\n1,artifacts/out.bin\nd{{p,s,z,h}}:\n1,0,3,{}\nz:8\nr:@{r}\n",
            hash(b"abc")
        )
    );
    assert_eq!(c.read("artifacts/out.bin"), Some(b"abc".to_vec()));
    // The value stays retained.
    assert_eq!(c.session.store().len(), 1);
}

#[test]
/// The conflict row carries the value's size and the existing file's digest (as the
/// reference reports it).
fn existing_target_is_a_conflict_with_its_digest() {
    let mut c = Client::new();
    c.write("out.bin", b"older!");
    let r = c.retain(b"abc");
    assert_eq!(
        c.ask(&materialize(2, r, "out.bin")),
        format!(
            "t:3\ni:2\ns:8\np[1]{{i,v}}:\n1,out.bin\nd{{p,s,z,h}}:\n1,1,3,{}\ne{{c,q,p,x,a}}:\n501,1,4,~,~\nz:8\nr:@{r}\n",
            hash(b"older!")
        )
    );
    assert_eq!(c.read("out.bin"), Some(b"older!".to_vec()));
}

#[test]
fn errors() {
    let mut c = Client::new();
    c.write("d/x", b"x");
    let r = c.retain(b"abc");
    let cases = [
        (materialize(1, 9, "out"), error(1, 4, 700, 1, 2)),
        (materialize(1, r, "nodir/out"), error(1, 4, 201, 1, 2)),
        (materialize(1, r, "d"), error(1, 5, 202, 1, 2)),
        (materialize(1, r, ".ash/out"), error(1, 3, 300, 0, 3)),
        (materialize(1, r, "../out"), invalid(1)),
    ];
    for (req, expected) in cases {
        assert_eq!(c.ask(&req), expected, "{req}");
    }
}
