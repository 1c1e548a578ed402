//! Validation tables for batch, cancel and the six formulas.

use super::{ID, assert_invalid, invalid_cases, request, valid_cases};
use crate::ason::encode_text;
use crate::protocol::*;

const SEARCH: &str = "a{q,p,f}:\nTODO,[src],0\n";
const READ: &str = "a{p,m,o,n}:\n[x],0,0,1\n";

fn node(id: &str, deps: &str, o: &str, args: &str) -> String {
    let mut cell = String::new();
    encode_text(args, &mut cell);
    format!("{id},{deps},{o},{cell}")
}

fn batch(rows: &[String]) -> String {
    format!("a[{}]{{i,d,o,a}}:\n{}", rows.len(), rows.join("\n"))
}

#[test]
fn batch_valid() {
    let reqs = valid_cases(
        "b",
        &[
            (
                "chain",
                &batch(&[node("1", "[]", "g", SEARCH), node("2", "[1]", "r", READ)]),
            ),
            (
                "forward dependency",
                &batch(&[node("1", "[3]", "g", SEARCH), node("3", "[]", "r", READ)]),
            ),
            (
                "diamond",
                &batch(&[
                    node("1", "[]", "r", READ),
                    node("2", "[1]", "r", READ),
                    node("3", "[1]", "r", READ),
                    node("4", "[2,3]", "-", "a:[@1]\n"),
                ]),
            ),
            (
                "formula node",
                &batch(&[node("7", "[]", "|", "a:[@1,d,0,1,p]\n")]),
            ),
        ],
    );
    let Op::Batch(b) = &reqs[1].op else {
        panic!("batch")
    };
    assert_eq!(b.nodes[0].deps, [3]);
    assert_eq!(reqs[2].required_caps(), Caps::READ | Caps::RETAINED);
}

#[test]
fn batch_invalid() {
    let s = |id: &str, deps: &str| node(id, deps, "g", SEARCH);
    let many: Vec<String> = (1..=257).map(|i| s(&i.to_string(), "[]")).collect();
    // Node k depends on every earlier node: 1 + 2 + … + 91 = 4186 edges.
    let dense: Vec<String> = (1..=92u64)
        .map(|k| {
            let deps: Vec<String> = (1..k).map(|d| d.to_string()).collect();
            s(&k.to_string(), &format!("[{}]", deps.join(",")))
        })
        .collect();
    let cases: Vec<(&str, String, &str)> = vec![
        ("no nodes", "a[0]{i,d,o,a}:".into(), "a"),
        ("257 nodes", batch(&many), "a"),
        ("over 4096 edges", batch(&dense), "a row 92, column d"),
        ("record", format!("a{{i,d,o,a}}:\n{}", s("1", "[]")), "a"),
        ("id 0", batch(&[s("0", "[]")]), "a row 1, column i"),
        (
            "ids descending",
            batch(&[s("2", "[]"), s("1", "[]")]),
            "a row 2, column i",
        ),
        (
            "ids repeated",
            batch(&[s("1", "[]"), s("1", "[]")]),
            "a row 2, column i",
        ),
        (
            "deps scalar",
            batch(&[s("1", "2"), s("2", "[]")]),
            "a row 1, column d",
        ),
        (
            "deps unsorted",
            batch(&[s("1", "[]"), s("2", "[]"), s("3", "[2,1]")]),
            "a row 3, column d",
        ),
        (
            "deps repeated",
            batch(&[s("1", "[]"), s("2", "[1,1]")]),
            "a row 2, column d",
        ),
        (
            "dep text",
            batch(&[s("1", "[x]")]),
            "a row 1, column d item 1",
        ),
        (
            "self edge",
            batch(&[s("1", "[]"), s("2", "[2]")]),
            "a row 2, column d",
        ),
        ("missing dep", batch(&[s("1", "[9]")]), "a row 1, column d"),
        ("cycle", batch(&[s("1", "[2]"), s("2", "[1]")]), "a"),
        (
            "long cycle",
            batch(&[s("1", "[3]"), s("2", "[1]"), s("3", "[2]")]),
            "a",
        ),
        (
            "nested batch",
            batch(&[node(
                "1",
                "[]",
                "b",
                "a[1]{i,d,o,a}:\n1,[],-,\"a:[@1]\\n\"\n",
            )]),
            "a row 1, column o",
        ),
        (
            "cancel node",
            batch(&[node("1", "[]", "k", "a{i}:\n3\n")]),
            "a row 1, column o",
        ),
        (
            "unknown op",
            batch(&[node("1", "[]", "z", SEARCH)]),
            "a row 1, column o",
        ),
        (
            "null op",
            batch(&[node("1", "[]", "~", SEARCH)]),
            "a row 1, column o",
        ),
        (
            "args null",
            batch(&["1,[],g,~".into()]),
            "a row 1, column a",
        ),
        (
            "args bare text",
            batch(&["1,[],g,x".into()]),
            "a row 1, column a",
        ),
        (
            "args not canonical",
            batch(&[node("1", "[]", "g", "a{q,p,f}:\n\"TODO\",[src],0\n")]),
            "a row 1, column a",
        ),
        (
            "args no final LF",
            batch(&[node("1", "[]", "g", "a{q,p,f}:\nTODO,[src],0")]),
            "a row 1, column a",
        ),
        (
            "args two fields",
            batch(&[node("1", "[]", "g", "a{q,p,f}:\nTODO,[src],0\nb:1\n")]),
            "a row 1, column a",
        ),
        (
            "args wrong key",
            batch(&[node("1", "[]", "g", "b{q,p,f}:\nTODO,[src],0\n")]),
            "a row 1, column a",
        ),
        (
            "args of another op",
            batch(&[node("1", "[]", "r", SEARCH)]),
            "a row 1, column a (embedded r arguments) → a",
        ),
        (
            "nested rule",
            batch(&[node("1", "[]", "r", "a{p,m,o,n}:\n[x],0,0,0\n")]),
            "a row 1, column a (embedded r arguments) → a.n",
        ),
        (
            "nested fs rule",
            batch(&[node("1", "[]", "f", "a[1]{i,k,p,q,h,v}:\n1,0,a,b,~,x\n")]),
            "a row 1, column a (embedded f arguments) → a row 1, column q",
        ),
    ];
    let cases: Vec<(&str, &str, &str)> = cases
        .iter()
        .map(|(n, a, at)| (*n, a.as_str(), *at))
        .collect();
    invalid_cases("b", &cases);
}

#[test]
fn batch_nodes_must_fit_the_budget() {
    let a = batch(&[node("1", "[]", "g", SEARCH), node("2", "[]", "r", READ)]);
    let with = |u: &str| format!("t:1\ni:{ID}\no:b\n{a}\nu{{tok,rec,ms}}:\n{u}\n");
    super::assert_valid("N = tok = rec", &with("2,2,1"));
    assert_invalid("N > tok", &with("1,2,1"), "a");
    assert_invalid("N > rec", &with("2,1,1"), "a");
}

#[test]
fn cancel_rules() {
    let reqs = valid_cases(
        "k",
        &[
            ("other id", "a{i}:\n4"),
            ("large id", "a{i}:\n18446744073709551615"),
        ],
    );
    assert_eq!(reqs[0].op, Op::Cancel(CancelArgs { target: 4 }));
    assert_eq!(reqs[0].required_caps(), Caps::NONE);
    invalid_cases(
        "k",
        &[
            ("target 0", "a{i}:\n0", "a.i"),
            ("own id", "a{i}:\n5", "a.i"),
            ("null", "a{i}:\n~", "a.i"),
            ("leading zero", "a{i}:\n04", "a.i"),
            ("reference", "a{i}:\n@4", "a.i"),
            ("scalar args", "a:4", "a"),
            ("column", "a{t}:\n4", "a"),
        ],
    );
}

#[test]
fn formulas_valid() {
    let reqs = valid_cases(
        "/",
        &[
            ("slice", "a:[@7,0,134217728]"),
            ("slice offset", "a:[@7,18446744073709551615,1]"),
        ],
    );
    assert_eq!(
        reqs[0].op,
        Op::Formula(Formula::Slice {
            source: 7,
            offset: 0,
            len: 134_217_728
        })
    );
    let reqs = valid_cases("#", &[("lines", "a:[@7,1,1000000]")]);
    assert_eq!(
        reqs[0].op,
        Op::Formula(Formula::LineSlice {
            source: 7,
            line: 1,
            lines: 1_000_000
        })
    );
    let reqs = valid_cases(
        "?",
        &[
            ("find", "a:[@7,0,1,x,0]"),
            ("find regex ci", "a:[@7,3,9,\"a+\",3]"),
        ],
    );
    assert_eq!(
        reqs[1].op,
        Op::Formula(Formula::Find {
            source: 7,
            offset: 3,
            len: 9,
            query: "a+".into(),
            regex: true,
            case_insensitive: true
        })
    );
    valid_cases("-", &[("release", "a:[@7]")]);
    let reqs = valid_cases("|", &[("project", "a:[@7,rows_1,5,1,p,l.x,_t-2]")]);
    assert_eq!(
        reqs[0].op,
        Op::Formula(Formula::Project {
            source: 7,
            table: "rows_1".into(),
            offset: 5,
            rows: 1,
            columns: vec!["p".into(), "l.x".into(), "_t-2".into()]
        })
    );
    let cols: Vec<String> = (0..128).map(|i| format!("c{i}")).collect();
    valid_cases(
        "|",
        &[("128 columns", &format!("a:[@7,d,0,1,{}]", cols.join(",")))],
    );
    let reqs = valid_cases(">", &[("materialize", "a:[@8,out/x.bin]")]);
    assert_eq!(
        reqs[0].op,
        Op::Formula(Formula::Materialize {
            source: 8,
            path: "out/x.bin".into()
        })
    );
}

#[test]
fn formulas_invalid() {
    let cols: Vec<String> = (0..129).map(|i| format!("c{i}")).collect();
    let too_many = format!("a:[@7,d,0,1,{}]", cols.join(","));
    let cases: &[(&str, &str, &str, &str)] = &[
        ("/", "record args", "a{r,o,n}:\n@7,0,1", "a"),
        ("/", "arity 2", "a:[@7,0]", "a"),
        ("/", "arity 4", "a:[@7,0,1,2]", "a"),
        ("/", "empty", "a:[]", "a"),
        ("/", "ref @0", "a:[@0,0,1]", "a item 1"),
        ("/", "ref as text", "a:[\"@7\",0,1]", "a item 1"),
        ("/", "ref null", "a:[~,0,1]", "a item 1"),
        ("/", "n 0", "a:[@7,0,0]", "a item 3"),
        ("/", "n over 128 MiB", "a:[@7,0,134217729]", "a item 3"),
        ("/", "offset leading zero", "a:[@7,00,1]", "a item 2"),
        ("#", "line 0", "a:[@7,0,1]", "a item 2"),
        ("#", "lines 0", "a:[@7,1,0]", "a item 3"),
        ("#", "lines over 1,000,000", "a:[@7,1,1000001]", "a item 3"),
        ("?", "arity 4", "a:[@7,0,1,x]", "a"),
        ("?", "empty query", "a:[@7,0,1,\"\",0]", "a item 4"),
        ("?", "null query", "a:[@7,0,1,~,0]", "a item 4"),
        ("?", "unknown flag", "a:[@7,0,1,x,4]", "a item 5"),
        ("?", "bad regex", "a:[@7,0,1,\"(\",1]", "a item 4"),
        ("?", "window 0", "a:[@7,0,0,x,0]", "a item 3"),
        (
            "?",
            "window over 128 MiB",
            "a:[@7,0,134217729,x,0]",
            "a item 3",
        ),
        ("-", "arity 2", "a:[@7,1]", "a"),
        ("-", "arity 0", "a:[]", "a"),
        ("-", "text", "a:[x]", "a item 1"),
        ("|", "no columns", "a:[@7,d,0,1]", "a"),
        ("|", "129 columns", &too_many, "a"),
        ("|", "duplicate column", "a:[@7,d,0,1,p,p]", "a item 6"),
        ("|", "invalid column key", "a:[@7,d,0,1,1p]", "a item 5"),
        ("|", "null column", "a:[@7,d,0,1,~]", "a item 5"),
        ("|", "invalid table key", "a:[@7,\"d d\",0,1,p]", "a item 2"),
        ("|", "empty table key", "a:[@7,\"\",0,1,p]", "a item 2"),
        ("|", "rows 0", "a:[@7,d,0,0,p]", "a item 4"),
        (
            "|",
            "rows over 1,000,000",
            "a:[@7,d,0,1000001,p]",
            "a item 4",
        ),
        (">", "missing path", "a:[@7]", "a"),
        (">", "empty path", "a:[@7,\"\"]", "a item 2"),
        (">", "null path", "a:[@7,~]", "a item 2"),
        (">", "NUL path", "a:[@7,\"a\\u{0}\"]", "a item 2"),
    ];
    for (o, name, a, at) in cases {
        assert_invalid(name, &request(o, a), at);
    }
}
