//! Budgets and §5: `tok`/`rec` limits (600), row-prefix truncation with retained evidence, the
//! path dictionary across answers, the session output ceiling and the store quota.

use crate::client::*;
use ash_engine::protocol::{Caps, Status};
use ash_engine::session::SessionConfig;
use ash_engine::store::StoreQuota;
use tempfile::TempDir;

#[test]
fn read_budgets_answer_600() {
    let ws = tree(&[("a.txt", b"a\n"), ("b.txt", b"b\n"), ("c.txt", b"c\n")]);
    let budget_error = error(1, 9, 600, 1, 5);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(
            1,
            &["a.txt", "b.txt", "c.txt"],
            0,
            0,
            2,
            (1000, 2)
        ))
        .text,
        budget_error
    );
    // A path error answers before the budget does (as in the reference).
    assert!(
        c.ask(&read_req(
            1,
            &["a.txt", "b.txt", "missing"],
            0,
            0,
            2,
            (1000, 2)
        ))
        .text
        .contains("201,1,2"),
    );
    assert_eq!(
        c.ask(&read_req(1, &["a.txt"], 0, 0, 2, (10, 10))).text,
        budget_error
    );
    assert!(
        c.ask(&read_req(1, &["missing"], 0, 0, 2, (10, 10)))
            .text
            .contains("201,1,2")
    );
    // Exactly `rec` paths is fine.
    let a = c.ask(&read_req(2, &["a.txt", "b.txt"], 0, 0, 2, (1000, 2)));
    assert_eq!(a.response.status, Status::Success);
}

fn twenty_matches() -> TempDir {
    let notes: String = (1..=20).map(|n| format!("needle line {n:02}\n")).collect();
    tree(&[("notes.txt", notes.as_bytes())])
}

fn search_evidence() -> String {
    let rows: String = (1..=20)
        .map(|n| format!("notes.txt,{n},1,\"needle line {n:02}\"\n"))
        .collect();
    format!("k:g\nd[20]{{p,l,c,t}}:\n{rows}")
}

#[test]
fn the_spec_example_truncates_search_to_no_rows() {
    // 20 matches, tok 32 (L = 128), rec 20.
    let ws = twenty_matches();
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, (32, 20))).text,
        "t:3\ni:1\ns:0\nd[0]{p,l,c,t}:\nz:11\nr:@1\n"
    );
    assert_eq!(
        String::from_utf8(c.retained(1)).expect("UTF-8 evidence"),
        search_evidence()
    );
    // No ids were introduced by the truncated answer.
    let a = c.ask(&search_req(2, "line 20", &["."], 0, BIG));
    assert_eq!(a.response.paths, vec![(1, "notes.txt".to_owned())]);
}

#[test]
fn rec_caps_search_rows() {
    let ws = twenty_matches();
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, (1000, 3))).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,notes.txt\nd[3]{p,l,c,t}:\n\
         1,1,1,\"needle line 01\"\n1,2,1,\"needle line 02\"\n1,3,1,\"needle line 03\"\nz:11\nr:@1\n"
    );
    assert_eq!(
        String::from_utf8(c.retained(1)).expect("UTF-8 evidence"),
        search_evidence()
    );
    // Exactly rec matches: no truncation.
    let a = c.ask(&search_req(2, "needle", &["."], 0, (1000, 20)));
    assert_eq!((a.response.flags.bits(), a.response.reference), (0, None));
    assert_eq!(c.search_rows(&a).len(), 20);
}

#[test]
fn truncated_search_keeps_its_own_bits() {
    let ws = tree(&[
        ("a.txt", b"needle\r\nneedle\r\n"),
        ("b.bin", b"needle\xff\n"),
        ("c.txt", b"needle\n"),
    ]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, (1000, 1))).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,a.txt\nd[1]{p,l,c,t}:\n1,1,1,needle\nz:31\nr:@1\n"
    );
    assert_eq!(
        String::from_utf8(c.retained(1)).expect("UTF-8 evidence"),
        "k:g\nd[3]{p,l,c,t}:\na.txt,1,1,needle\na.txt,2,1,needle\nc.txt,1,1,needle\n"
    );
}

/// Searches `needle` with `rec 2`, which must cut the answer and retain the result as `@1`.
fn search_cut_to_two_rows(c: &mut Client) {
    let a = c.ask(&search_req(1, "needle", &["."], 0, (1000, 2)));
    assert_eq!(
        (a.response.flags.bits(), a.response.reference),
        (11, Some(1)),
        "{}",
        a.text
    );
}

#[test]
fn search_evidence_past_the_resident_size_is_spooled_and_retained_whole() {
    // 80,000 rows of about 60 bytes: past the 4 MiB kept in memory, so the rows move to a
    // spool file partway through and the retained document must still be every row, in order.
    let lines: String = (1..=80_000)
        .map(|n| format!("needle {n:06} and enough filler to make the row long\n"))
        .collect();
    let ws = tree(&[("big.txt", lines.as_bytes())]);
    let mut c = Client::new(ws.path());
    search_cut_to_two_rows(&mut c);
    let rows: String = (1..=80_000)
        .map(|n| {
            format!("big.txt,{n},1,\"needle {n:06} and enough filler to make the row long\"\n")
        })
        .collect();
    let expected = format!("k:g\nd[80000]{{p,l,c,t}}:\n{rows}");
    assert!(
        expected.len() > 4 << 20,
        "the evidence must pass the resident size"
    );
    assert!(
        String::from_utf8(c.retained(1)).expect("UTF-8 evidence") == expected,
        "the spooled evidence differs from the full result"
    );
}

#[test]
fn a_cut_search_over_thousands_of_files_retains_every_row_in_order() {
    // 3,000 files with two long matching lines each: the files scanned during the walk fill
    // its match budget, the rest go through the chunk pipeline after the answer is known to
    // be cut, and those keep only their encoded rows. The evidence must still be every row.
    let filler = "x".repeat(200);
    let files: Vec<(String, String)> = (0..3_000)
        .map(|n| {
            let path = format!("d{:02}/f{n:04}.txt", n % 30);
            let body = format!(
                "plain line\n    needle {n} first, {filler}\nplain\n\tneedle {n} \"second\"\n"
            );
            (path, body)
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(path, body)| (path.as_str(), body.as_bytes()))
        .collect();
    let ws = tree(&refs);
    let mut c = Client::new(ws.path());
    search_cut_to_two_rows(&mut c);
    let mut sorted: Vec<&(String, String)> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let rows: String = sorted
        .iter()
        .map(|(path, body)| {
            let n = body
                .split("needle ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .expect("file number");
            format!(
                "{path},2,5,\"    needle {n} first, {filler}\"\n{path},4,2,\"\\tneedle {n} \\\"second\\\"\"\n"
            )
        })
        .collect();
    let expected = format!("k:g\nd[6000]{{p,l,c,t}}:\n{rows}");
    let got = String::from_utf8(c.retained(1)).expect("UTF-8 evidence");
    assert!(
        got == expected,
        "the evidence differs from the full result: {} bytes against {}",
        got.len(),
        expected.len()
    );
}

fn ten_files() -> TempDir {
    let names: Vec<String> = (1..=10).map(|n| format!("f{n:02}.txt")).collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    tree(&files)
}

fn list_evidence() -> String {
    let rows: String = (1..=10).map(|n| format!("f{n:02}.txt,0,1\n")).collect();
    format!("k:l\nd[11]{{p,k,z}}:\n.,1,0\n{rows}")
}

#[test]
fn a_partially_truncated_list_retains_every_row() {
    // Worst case of k truncated rows (20-digit ids, 20-digit reference, z:11):
    //   envelope 63 + 2·digits(k), `.` 48 bytes, each fNN.txt 54 bytes
    //   → k=3: 221, k=4: 275, k=5: 329; untruncated (11 rows): 638.
    let ws = ten_files();
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&list_req(1, &["."], 1, 0, (70, 1000))).text, // L = 280 → 4 rows
        "t:3\ni:1\ns:0\np[4]{i,v}:\n1,.\n2,f01.txt\n3,f02.txt\n4,f03.txt\n\
         d[4]{p,k,z}:\n1,1,0\n2,0,1\n3,0,1\n4,0,1\nz:11\nr:@1\n"
    );
    assert_eq!(
        String::from_utf8(c.retained(1)).expect("UTF-8 evidence"),
        list_evidence()
    );
    // L = 272 → 3 rows; the same evidence is the same reference.
    assert_eq!(
        c.ask(&list_req(2, &["."], 1, 0, (68, 1000))).text,
        "t:3\ni:2\ns:0\nd[3]{p,k,z}:\n1,1,0\n2,0,1\n3,0,1\nz:11\nr:@1\n"
    );
    // The rest of the listing introduces only the paths not projected before.
    let a = c.ask(&list_req(3, &["."], 1, 0, BIG));
    let expected_delta: Vec<(u64, String)> =
        (4..=10).map(|n| (n + 1, format!("f{n:02}.txt"))).collect();
    assert_eq!(a.response.paths, expected_delta);
    assert_eq!(c.list_rows(&a).len(), 11);
    assert_eq!((a.response.flags.bits(), a.response.reference), (0, None));
}

#[test]
fn rec_caps_list_rows() {
    let ws = ten_files();
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&list_req(1, &["."], 1, 0, (1000, 2))).text,
        "t:3\ni:1\ns:0\np[2]{i,v}:\n1,.\n2,f01.txt\nd[2]{p,k,z}:\n1,1,0\n2,0,1\nz:11\nr:@1\n"
    );
    assert_eq!(
        String::from_utf8(c.retained(1)).expect("UTF-8 evidence"),
        list_evidence()
    );
}
#[test]
fn later_answers_introduce_only_new_paths() {
    let ws = tree(&[("src/a.rs", b"fn a() {}\n"), ("src/b.rs", b"fn b() {}\n")]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["src/a.rs"], 1, 1, 1, BIG)).text,
        read_answer(
            1,
            "p[1]{i,v}:\n1,src/a.rs\n",
            &format!("1,1,1,{},\"fn a() {{}}\\n\",~", hash(b"fn a() {}\n")),
            0
        )
    );
    assert_eq!(
        c.ask(&list_req(2, &["src"], 1, 2, BIG)).text,
        "t:3\ni:2\ns:0\np[1]{i,v}:\n2,src/b.rs\nd[2]{p,k,z}:\n1,0,10\n2,0,10\nz:0\nr:~\n"
    );
    assert_eq!(
        c.ask(&search_req(3, "fn", &["src"], 0, BIG)).text,
        "t:3\ni:3\ns:0\nd[2]{p,l,c,t}:\n1,1,1,\"fn a() {}\"\n2,1,1,\"fn b() {}\"\nz:0\nr:~\n"
    );
    // Failures consume no ids, even when the paths before the failing one were new.
    std::fs::write(ws.path().join("src/c.rs"), b"c").expect("write src/c.rs");
    assert_eq!(
        c.ask(&read_req(4, &["src/c.rs", "src/zz.rs"], 0, 0, 1, BIG))
            .text,
        error(4, 4, 201, 1, 2)
    );
    assert_eq!(
        c.ask(&read_req(5, &["src/c.rs"], 0, 0, 1, (10, 10))).text,
        error(5, 9, 600, 1, 5)
    );
    let a = c.ask(&list_req(6, &["."], 2, 0, BIG));
    assert_eq!(
        a.response.paths,
        vec![
            (3, ".".to_owned()),
            (4, "src".to_owned()),
            (5, "src/c.rs".to_owned())
        ]
    );
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, Some(0)),
            ("src", 1, Some(0)),
            ("src/a.rs", 0, Some(10)),
            ("src/b.rs", 0, Some(10)),
            ("src/c.rs", 0, Some(1)),
        ])
    );
}

#[test]
fn the_output_ceiling_is_charged_after_each_success() {
    // list `.` at depth 0: worst case 92 bytes untruncated, 54 truncated to no rows; the real
    // answers are 54 bytes (new path), 39 bytes (known path) and 35 bytes (truncated).
    let ws = tree(&[]);
    let config = SessionConfig {
        output_ceiling: 200,
        caps: Caps::ALL,
        store: StoreQuota::default(),
        hardening: Default::default(),
        hidden: None,
        withheld_env: Vec::new(),
        spool_base: None,
    };
    let mut c = Client::with(ws.path(), config);
    let full = |id: u64| format!("t:3\ni:{id}\ns:0\nd[1]{{p,k,z}}:\n1,1,0\nz:0\nr:~\n");
    let first = c.ask(&list_req(1, &["."], 0, 0, BIG));
    assert_eq!(
        first.text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,.\nd[1]{p,k,z}:\n1,1,0\nz:0\nr:~\n"
    );
    assert_eq!(c.session.remaining_output(), 146);
    assert_eq!(c.ask(&list_req(2, &["."], 0, 0, BIG)).text, full(2));
    assert_eq!(c.session.remaining_output(), 107);
    assert_eq!(c.ask(&list_req(3, &["."], 0, 0, BIG)).text, full(3));
    assert_eq!(c.session.remaining_output(), 68);
    // 68 < 92: the row no longer fits in the worst case, so the listing is truncated.
    assert_eq!(
        c.ask(&list_req(4, &["."], 0, 0, BIG)).text,
        "t:3\ni:4\ns:0\nd[0]{p,k,z}:\nz:11\nr:@1\n"
    );
    assert_eq!(c.retained(1), b"k:l\nd[1]{p,k,z}:\n.,1,0\n");
    assert_eq!(c.session.remaining_output(), 33);
    // 33 < 54: nothing fits any more.
    assert_eq!(
        c.ask(&list_req(5, &["."], 0, 0, BIG)).text,
        error(5, 9, 600, 1, 5)
    );
    assert_eq!(
        c.ask(&search_req(6, "x", &["."], 0, BIG)).text,
        error(6, 9, 600, 1, 5)
    );
    // Reading `.` (a directory): the path error answers before the budget, as in the reference.
    assert_eq!(
        c.ask(&read_req(7, &["."], 0, 0, 1, BIG)).text,
        error(7, 5, 500, 2, 4)
    );
    assert_eq!(c.session.remaining_output(), 33);
}

#[test]
fn the_worst_case_boundary_is_exact() {
    // The same list under L = 92 (fits), 91 (truncated) and 53 (nothing fits), once through
    // the output ceiling and once through tok.
    let ws = tree(&[]);
    let ceiling = |out: u64| SessionConfig {
        output_ceiling: out,
        ..SessionConfig::run()
    };
    let fits = "t:3\ni:1\ns:0\np[1]{i,v}:\n1,.\nd[1]{p,k,z}:\n1,1,0\nz:0\nr:~\n";
    let truncated = "t:3\ni:1\ns:0\nd[0]{p,k,z}:\nz:11\nr:@1\n";
    let over = error(1, 9, 600, 1, 5);
    let request = list_req(1, &["."], 0, 0, BIG);
    assert_eq!(
        Client::with(ws.path(), ceiling(92)).ask(&request).text,
        fits
    );
    assert_eq!(
        Client::with(ws.path(), ceiling(91)).ask(&request).text,
        truncated
    );
    assert_eq!(
        Client::with(ws.path(), ceiling(54)).ask(&request).text,
        truncated
    );
    assert_eq!(
        Client::with(ws.path(), ceiling(53)).ask(&request).text,
        over
    );
    assert_eq!(
        Client::new(ws.path())
            .ask(&list_req(1, &["."], 0, 0, (23, 10)))
            .text,
        fits
    );
    assert_eq!(
        Client::new(ws.path())
            .ask(&list_req(1, &["."], 0, 0, (22, 10)))
            .text,
        truncated
    );
    assert_eq!(
        Client::new(ws.path())
            .ask(&list_req(1, &["."], 0, 0, (13, 10)))
            .text,
        over
    );
}

#[test]
fn a_full_store_is_a_storage_budget_failure() {
    let ws = twenty_matches();
    std::fs::write(ws.path().join("bin.dat"), b"\xff\xfe").expect("write bin.dat");
    let config = SessionConfig {
        store: StoreQuota {
            bytes: 1,
            entries: 4096,
        },
        ..SessionConfig::run()
    };
    let mut c = Client::with(ws.path(), config);
    // Retaining 2 bytes (a non-UTF-8 selection) or the evidence of a truncated search would
    // exceed the 1-byte quota: 601 at the retain stage, and no ids are introduced.
    assert_eq!(
        c.ask(&read_req(1, &["bin.dat"], 0, 0, 2, BIG)).text,
        error(1, 9, 601, 1, 6)
    );
    assert_eq!(
        c.ask(&search_req(2, "needle", &["."], 0, (1000, 3))).text,
        error(2, 9, 601, 1, 6)
    );
    assert!(c.session.store().is_empty());
    // Answers that retain nothing are unaffected.
    let a = c.ask(&search_req(3, "needle", &["."], 0, BIG));
    assert_eq!(a.response.paths, vec![(1, "notes.txt".to_owned())]);
}
