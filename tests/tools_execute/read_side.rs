//! read, list, search, snapshot, evidence and get_test_value.

use super::{Harness, hash};
use ansa::tools::execute_get_test_value;

#[test]
fn read_lines_answers_canonical_ason() {
    let mut h = Harness::new(&[("a.txt", "one\ntwo\nthree\n")]);
    let out = h.ok(
        "read",
        r#"{"paths":["a.txt"],"mode":"lines","offset":2,"length":1}"#,
    );
    let digest = hash("one\ntwo\nthree\n");
    assert_eq!(
        out,
        format!(
            "t:3\ni:1\ns:0\np[1]{{i,v}}:\n1,a.txt\nd[1]{{p,o,n,h,t,r}}:\n1,2,1,{digest},\"two\\n\",~\nz:0\nr:~\n"
        )
    );
    assert_eq!(
        h.tools.ledger().digest("a.txt").map(|d| d.to_hex()),
        Some(digest)
    );
}

#[test]
fn read_bytes_reuses_path_ids() {
    let mut h = Harness::new(&[("a.txt", "hello")]);
    h.ok(
        "read",
        r#"{"paths":["a.txt"],"mode":"bytes","offset":0,"length":2}"#,
    );
    let out = h.ok(
        "read",
        r#"{"paths":["a.txt"],"mode":"bytes","offset":1,"length":3}"#,
    );
    let digest = hash("hello");
    assert_eq!(
        out,
        format!("t:3\ni:2\ns:0\nd[1]{{p,o,n,h,t,r}}:\n1,1,3,{digest},ell,~\nz:0\nr:~\n")
    );
}

#[test]
fn list_files() {
    let mut h = Harness::new(&[("a.txt", "x"), ("d/b.txt", "yz")]);
    let out = h.ok(
        "list",
        r#"{"paths":["."],"depth":2,"include_hidden":false,"kind":"files"}"#,
    );
    assert_eq!(
        out,
        "t:3\ni:1\ns:0\np[2]{i,v}:\n1,a.txt\n2,d/b.txt\nd[2]{p,k,z}:\n1,0,1\n2,0,2\nz:0\nr:~\n"
    );
}

#[test]
fn search_literal() {
    let mut h = Harness::new(&[("a.txt", "alpha\nbeta\n"), ("b.txt", "gamma beta\n")]);
    let out = h.ok(
        "search",
        r#"{"query":"beta","paths":["."],"regex":false,"case_insensitive":false,"include_hidden":false}"#,
    );
    assert_eq!(
        out,
        "t:3\ni:1\ns:0\np[2]{i,v}:\n1,a.txt\n2,b.txt\nd[2]{p,l,c,t}:\n1,2,1,beta\n2,1,7,\"gamma beta\"\nz:0\nr:~\n"
    );
}

#[test]
fn snapshot_then_delta_against_baseline() {
    let mut h = Harness::new(&[("a.txt", "x")]);
    let capture = h.ok(
        "snapshot",
        r#"{"paths":["."],"depth":4,"include_hidden":false,"baseline":null}"#,
    );
    assert_eq!(
        capture,
        format!(
            "t:3\ni:1\ns:0\np[2]{{i,v}}:\n1,.\n2,a.txt\nd[2]{{p,c,k,z,h}}:\n1,0,1,0,~\n2,0,0,1,{}\nz:8\nr:@1\n",
            hash("x")
        )
    );
    std::fs::write(h.dir.path().join("b.txt"), "new").expect("write");
    let delta = h.ok(
        "snapshot",
        r#"{"paths":["."],"depth":4,"include_hidden":false,"baseline":"@1"}"#,
    );
    assert_eq!(
        delta,
        format!(
            "t:3\ni:2\ns:0\np[1]{{i,v}}:\n3,b.txt\nd[1]{{p,c,k,z,h}}:\n3,1,0,3,{}\nz:8\nr:@2\n",
            hash("new")
        )
    );
}

#[test]
fn evidence_slices_and_searches_a_retained_result() {
    let long: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    let mut h = Harness::new(&[("big.txt", long.as_str())]);
    let read = h.ok(
        "read",
        r#"{"paths":["big.txt"],"mode":"bytes","offset":0,"length":100000}"#,
    );
    assert_eq!(
        read,
        format!(
            "t:3\ni:1\ns:0\np[1]{{i,v}}:\n1,big.txt\nd[1]{{p,o,n,h,t,r}}:\n1,0,28893,{},~,@1\nz:10\nr:~\n",
            hash(&long)
        )
    );
    let bytes = h.ok(
        "evidence",
        r#"{"ref":"@1","kind":"bytes","offset":0,"length":7,"query":null,"regex":false,"case_insensitive":false}"#,
    );
    assert_eq!(
        bytes,
        format!(
            "t:3\ni:2\ns:0\nd{{o,n,p,h,t,b}}:\n0,7,7,{},\"line 1\\n\",~\nz:8\nr:@1\n",
            hash("line 1\n")
        )
    );
    let lines = h.ok(
        "evidence",
        r#"{"ref":"@1","kind":"lines","offset":3,"length":2,"query":null,"regex":false,"case_insensitive":false}"#,
    );
    assert_eq!(
        lines,
        format!(
            "t:3\ni:3\ns:0\nd{{o,n,p,h,t,b}}:\n3,14,14,{},\"line 3\\nline 4\\n\",~\nz:8\nr:@1\n",
            hash("line 3\nline 4\n")
        )
    );
    let found = h.ok(
        "evidence",
        r#"{"ref":"@1","kind":"search","offset":0,"length":100,"query":"line 1","regex":false,"case_insensitive":false}"#,
    );
    assert_eq!(
        found,
        "t:3\ni:4\ns:0\nd[5]{o,l,c,t}:\n0,1,1,\"line 1\"\n63,10,1,\"line 10\"\n71,11,1,\"line 11\"\n79,12,1,\"line 12\"\n87,13,1,\"line 13\"\nz:8\nr:@1\n"
    );
}

#[test]
fn get_test_value_is_the_pure_executor() {
    let mut h = Harness::new(&[]);
    assert_eq!(
        h.ok("get_test_value", r#"{"key":"k"}"#),
        execute_get_test_value("k")
    );
}

#[test]
fn the_model_sees_changes_not_digests_and_a_large_capture_as_a_count() {
    let files: Vec<(String, String)> = (0..30)
        .map(|n| (format!("src/f{n:02}.txt"), format!("{n}\n")))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let mut h = Harness::new(&refs);
    let capture = h.view(
        "snapshot",
        r#"{"paths":["src"],"depth":4,"include_hidden":false,"baseline":null}"#,
    );
    assert!(
        capture.starts_with("s:ok\nd[0]{p,c,k,z}:\nmore:\"Captured 31 entries (30 files) as @1;"),
        "{capture}"
    );
    assert!(!capture.contains(&hash("1\n")), "{capture}");
    std::fs::write(h.dir.path().join("src/f03.txt"), "changed\n").unwrap();
    let delta = h.view(
        "snapshot",
        r#"{"paths":["src"],"depth":4,"include_hidden":false,"baseline":"@1"}"#,
    );
    assert!(
        delta.starts_with("s:ok\np[1]{i,v}:\n5,src/f03.txt\nd[1]{p,c,k,z}:\n5,modified,file,8\n"),
        "{delta}"
    );
    // The request number is not a retained value: the answer says so in words.
    let wrong = h.view(
        "snapshot",
        r#"{"paths":["src"],"depth":4,"include_hidden":false,"baseline":"@7"}"#,
    );
    assert!(
        wrong.contains("error:unknown_ref\n")
            && wrong.contains("next:\"That @N is not a retained value"),
        "{wrong}"
    );
    // The whole manifest is still there, at the line the note names.
    let call = capture
        .split("evidence ")
        .nth(1)
        .and_then(|rest| rest.split_once('}'))
        .map(|(call, _)| format!("{call}}}").replace("\\\"", "\""))
        .expect("a named call");
    let rows = h.view("evidence", &call);
    assert!(rows.contains("src/f29.txt"), "{rows}");
}

#[test]
fn evidence_searches_to_the_end_without_a_length_and_ignores_case_on_request() {
    let long: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    let mut h = Harness::new(&[("big.txt", long.as_str())]);
    h.ok(
        "read",
        r#"{"paths":["big.txt"],"mode":"bytes","offset":0,"length":100000}"#,
    );
    let found = h.view(
        "evidence",
        r#"{"ref":"@1","kind":"search","offset":0,"length":null,"query":"LINE 2999","regex":false,"case_insensitive":true}"#,
    );
    assert!(found.contains(",2999,1,\"line 2999\""), "{found}");
    let tail = h.view(
        "evidence",
        r#"{"ref":"@1","kind":"lines","offset":2999,"length":null,"query":null,"regex":false,"case_insensitive":false}"#,
    );
    assert!(tail.ends_with(">>>1\nline 2999\nline 3000\n"), "{tail}");
}
