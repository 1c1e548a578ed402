//! Validation tables for exec, read, list, search and snapshot arguments.

use super::{assert_invalid_doc, invalid_cases, request_doc, valid_cases};
use crate::ason::{Atom, Cell, Value};
use crate::protocol::*;

const EXEC: &str = "a{x,v,c,e,in,f}:";

fn exec(row: &str) -> String {
    format!("{EXEC}\n{row}")
}

#[test]
fn exec_valid() {
    let reqs = valid_cases(
        "x",
        &[
            ("bare name", &exec("cargo,[test],.,[],~,0")),
            ("workspace path", &exec("scripts/run.sh,[],src,[],~,0")),
            ("dot path left to resolution", &exec("./run,[],.,[],~,0")),
            ("clear env", &exec("ls,[],.,[],~,1")),
            (
                "env forms",
                &exec(r#"ls,[],.,["A=",-B,"_x=1=2","C=a b"],~,0"#),
            ),
            ("empty argv item", &exec(r#"echo,[""],.,[],~,0"#)),
            ("inline stdin", &exec(r#"cat,[],.,[],"hi\n",0"#)),
            ("empty inline stdin", &exec(r#"cat,[],.,[],"",0"#)),
            ("stdin ref", &exec("cat,[],.,[],@3,0")),
        ],
    );
    let Op::Exec(a) = &reqs[4].op else {
        panic!("exec")
    };
    assert_eq!(
        a.env,
        vec![
            EnvChange::Set {
                name: "A".into(),
                value: String::new()
            },
            EnvChange::Remove("B".into()),
            EnvChange::Set {
                name: "_x".into(),
                value: "1=2".into()
            },
            EnvChange::Set {
                name: "C".into(),
                value: "a b".into()
            },
        ]
    );
    let Op::Exec(a) = &reqs[1].op else {
        panic!("exec")
    };
    assert_eq!(a.program_kind(), Program::Path("scripts/run.sh"));
    let Op::Exec(a) = &reqs[0].op else {
        panic!("exec")
    };
    assert_eq!(a.program_kind(), Program::Name("cargo"));
    let Op::Exec(a) = &reqs[8].op else {
        panic!("exec")
    };
    assert_eq!(a.stdin, Stdin::Ref(3));
}

#[test]
fn exec_invalid() {
    let long = "x".repeat(4097);
    let many_args = format!("ls,[{}],.,[],~,0", vec!["a"; 1025].join(","));
    let many_env: Vec<String> = (0..257).map(|i| format!("\"V{i}=1\"")).collect();
    let many_env = format!("ls,[],.,[{}],~,0", many_env.join(","));
    let big_env = format!("ls,[],.,[\"A={}\"],~,0", "v".repeat(32 * 1024 - 1));
    let cases: Vec<(&str, String, &str)> = vec![
        ("args as vector", "a:[ls]".into(), "a"),
        (
            "args as table",
            "a[1]{x,v,c,e,in,f}:\nls,[],.,[],~,0".into(),
            "a",
        ),
        (
            "column order",
            "a{v,x,c,e,in,f}:\n[],ls,.,[],~,0".into(),
            "a",
        ),
        ("missing column", "a{x,v,c,e,f}:\nls,[],.,[],0".into(), "a"),
        ("empty executable", exec(r#""",[],.,[],~,0"#), "a.x"),
        (
            "executable too long",
            exec(&format!("{long},[],.,[],~,0")),
            "a.x",
        ),
        ("backslash", exec(r#""a\\b",[],.,[],~,0"#), "a.x"),
        ("colon", exec(r#""C:x",[],.,[],~,0"#), "a.x"),
        ("absolute", exec("/bin/ls,[],.,[],~,0"), "a.x"),
        ("NUL", exec(r#""l\u{0}s",[],.,[],~,0"#), "a.x"),
        ("null executable", exec("~,[],.,[],~,0"), "a.x"),
        ("reference executable", exec("@1,[],.,[],~,0"), "a.x"),
        ("executable vector", exec("[ls],[],.,[],~,0"), "a.x"),
        ("argv scalar", exec("ls,a,.,[],~,0"), "a.v"),
        ("argv null item", exec("ls,[~],.,[],~,0"), "a.v item 1"),
        ("argv ref item", exec("ls,[a,@2],.,[],~,0"), "a.v item 2"),
        ("argv 1025 items", exec(&many_args), "a.v"),
        ("cwd null", exec("ls,[],~,[],~,0"), "a.c"),
        ("cwd vector", exec("ls,[],[.],[],~,0"), "a.c"),
        ("env scalar", exec(r#"ls,[],.,"A=1",~,0"#), "a.e"),
        ("env without =", exec("ls,[],.,[FOO],~,0"), "a.e item 1"),
        (
            "env empty name",
            exec(r#"ls,[],.,["=x"],~,0"#),
            "a.e item 1",
        ),
        (
            "env digit first",
            exec(r#"ls,[],.,["1A=x"],~,0"#),
            "a.e item 1",
        ),
        (
            "env remove bad name",
            exec("ls,[],.,[-1A],~,0"),
            "a.e item 1",
        ),
        ("env remove empty", exec("ls,[],.,[-],~,0"), "a.e item 1"),
        (
            "env dash in name",
            exec(r#"ls,[],.,["A-B=x"],~,0"#),
            "a.e item 1",
        ),
        (
            "env remove with value",
            exec(r#"ls,[],.,["-A=x"],~,0"#),
            "a.e item 1",
        ),
        (
            "env non-ASCII name",
            exec(r#"ls,[],.,["Ä=x"],~,0"#),
            "a.e item 1",
        ),
        ("env empty entry", exec(r#"ls,[],.,[""],~,0"#), "a.e item 1"),
        ("env null entry", exec("ls,[],.,[~],~,0"), "a.e item 1"),
        (
            "env set twice",
            exec(r#"ls,[],.,["A=1","A=2"],~,0"#),
            "a.e item 2",
        ),
        (
            "env set and remove",
            exec(r#"ls,[],.,["A=1",-A],~,0"#),
            "a.e item 2",
        ),
        (
            "env removed twice",
            exec("ls,[],.,[-A,-A],~,0"),
            "a.e item 2",
        ),
        ("env 257 entries", exec(&many_env), "a.e"),
        ("env entry over 32 KiB", exec(&big_env), "a.e item 1"),
        ("stdin @0", exec("cat,[],.,[],@0,0"), "a.in"),
        ("stdin vector", exec("cat,[],.,[],[a],0"), "a.in"),
        ("flags 2", exec("ls,[],.,[],~,2"), "a.f"),
        ("flags 3", exec("ls,[],.,[],~,3"), "a.f"),
        ("flags leading zero", exec("ls,[],.,[],~,01"), "a.f"),
        ("flags null", exec("ls,[],.,[],~,~"), "a.f"),
        ("flags text", exec("ls,[],.,[],~,yes"), "a.f"),
    ];
    let cases: Vec<(&str, &str, &str)> = cases
        .iter()
        .map(|(n, a, at)| (*n, a.as_str(), *at))
        .collect();
    invalid_cases("x", &cases);
}

#[test]
fn exec_inline_ceilings() {
    let row = |argv: Vec<Atom>, stdin: Atom| {
        Value::record(
            &["x", "v", "c", "e", "in", "f"],
            vec![
                Cell::Atom(Atom::text("cat")),
                Cell::Vector(argv),
                Cell::Atom(Atom::text(".")),
                Cell::Vector(vec![]),
                Cell::Atom(stdin),
                Cell::Atom(Atom::uint(0)),
            ],
        )
    };
    let mib = "x".repeat(MIB);
    let over = "x".repeat(MIB + 1);
    let ok = request_doc(
        "x",
        row(vec![Atom::text(mib.as_str())], Atom::text(mib.as_str())),
    );
    assert!(Request::from_document(&ok).is_ok());
    let big_stdin = request_doc("x", row(vec![], Atom::text(over.as_str())));
    assert_invalid_doc("stdin over 1 MiB", &big_stdin, "a.in");
    let big_arg = request_doc("x", row(vec![Atom::text(over.as_str())], Atom::Null));
    assert_invalid_doc("argv item over 1 MiB", &big_arg, "a.v item 1");
}

#[test]
fn read_rules() {
    let reqs = valid_cases(
        "r",
        &[
            ("bytes from 0", "a{p,m,o,n}:\n[a],0,0,1"),
            ("lines from 1", "a{p,m,o,n}:\n[a],1,1,1"),
            (
                "duplicate paths",
                "a{p,m,o,n}:\n[a,a],0,5,18446744073709551615",
            ),
            (
                "256 paths",
                &format!("a{{p,m,o,n}}:\n[{}],0,0,1", vec!["a"; 256].join(",")),
            ),
        ],
    );
    assert_eq!(
        reqs[1].op,
        Op::Read(ReadArgs {
            paths: vec!["a".into()],
            mode: ReadMode::Lines,
            offset: 1,
            count: 1
        })
    );
    let nul = r#"a{p,m,o,n}:
["a\u{0}"],0,0,1"#;
    let too_many = format!("a{{p,m,o,n}}:\n[{}],0,0,1", vec!["a"; 257].join(","));
    let long = format!("a{{p,m,o,n}}:\n[{}],0,0,1", "a".repeat(4097));
    invalid_cases(
        "r",
        &[
            ("paths scalar", "a{p,m,o,n}:\na,0,0,1", "a.p"),
            ("no paths", "a{p,m,o,n}:\n[],0,0,1", "a.p"),
            ("257 paths", &too_many, "a.p"),
            ("empty path", "a{p,m,o,n}:\n[a,\"\"],0,0,1", "a.p item 2"),
            ("path over 4096 bytes", &long, "a.p item 1"),
            ("path with NUL", nul, "a.p item 1"),
            ("null path", "a{p,m,o,n}:\n[~],0,0,1", "a.p item 1"),
            ("reference path", "a{p,m,o,n}:\n[@1],0,0,1", "a.p item 1"),
            ("mode 2", "a{p,m,o,n}:\n[a],2,0,1", "a.m"),
            ("mode null", "a{p,m,o,n}:\n[a],~,0,1", "a.m"),
            ("count 0", "a{p,m,o,n}:\n[a],0,0,0", "a.n"),
            ("line 0", "a{p,m,o,n}:\n[a],1,0,1", "a.o"),
            ("offset leading zero", "a{p,m,o,n}:\n[a],0,00,1", "a.o"),
            (
                "count overflow",
                "a{p,m,o,n}:\n[a],0,0,18446744073709551616",
                "a.n",
            ),
            ("columns", "a{p,o,m,n}:\n[a],0,0,1", "a"),
        ],
    );
}

#[test]
fn list_rules() {
    let reqs = valid_cases(
        "l",
        &[
            ("depth 0", "a{p,d,f}:\n[.],0,0"),
            ("depth 64 hidden", "a{p,d,f}:\n[.],64,1"),
            ("files only", "a{p,d,f}:\n[.],1,2"),
            ("dirs only hidden", "a{p,d,f}:\n[.,src],1,5"),
        ],
    );
    let filters: Vec<(bool, ListFilter)> = reqs
        .iter()
        .map(|r| match &r.op {
            Op::List(l) => (l.hidden, l.filter),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        filters,
        [
            (false, ListFilter::All),
            (true, ListFilter::All),
            (false, ListFilter::FilesOnly),
            (true, ListFilter::DirsOnly)
        ]
    );
    invalid_cases(
        "l",
        &[
            ("depth 65", "a{p,d,f}:\n[.],65,0", "a.d"),
            ("negative depth", "a{p,d,f}:\n[.],-1,0", "a.d"),
            ("files and dirs", "a{p,d,f}:\n[.],1,6", "a.f"),
            ("all three bits", "a{p,d,f}:\n[.],1,7", "a.f"),
            ("unknown bit", "a{p,d,f}:\n[.],1,8", "a.f"),
            ("no paths", "a{p,d,f}:\n[],1,0", "a.p"),
        ],
    );
}

#[test]
fn search_rules() {
    valid_cases(
        "g",
        &[
            ("literal", "a{q,p,f}:\nTODO,[src],0"),
            ("literal paren", "a{q,p,f}:\n\"(\",[src],0"),
            ("insensitive literal paren", "a{q,p,f}:\n\"(\",[src],2"),
            ("regex", "a{q,p,f}:\n\"fn \\\\w+\",[src],1"),
            ("all flags", "a{q,p,f}:\nx,[src],7"),
        ],
    );
    invalid_cases(
        "g",
        &[
            ("empty query", "a{q,p,f}:\n\"\",[src],0", "a.q"),
            ("null query", "a{q,p,f}:\n~,[src],0", "a.q"),
            ("bad regex", "a{q,p,f}:\n\"(\",[src],1", "a.q"),
            (
                "bad regex insensitive",
                "a{q,p,f}:\n\"[z-a]\",[src],3",
                "a.q",
            ),
            ("unknown flag", "a{q,p,f}:\nx,[src],8", "a.f"),
            ("no paths", "a{q,p,f}:\nx,[],0", "a.p"),
        ],
    );
    let d = request_doc(
        "g",
        Value::record(
            &["q", "p", "f"],
            vec![
                Cell::Atom(Atom::text("x".repeat(MIB + 1))),
                Cell::Vector(vec![Atom::text(".")]),
                Cell::Atom(Atom::uint(0)),
            ],
        ),
    );
    assert_invalid_doc("query over 1 MiB", &d, "a.q");
}

#[test]
fn snapshot_rules() {
    let reqs = valid_cases(
        "s",
        &[
            ("capture", "a{p,d,m,r,f}:\n[.],64,0,~,0"),
            ("delta hidden", "a{p,d,m,r,f}:\n[a,b],0,1,@3,1"),
        ],
    );
    assert_eq!(
        reqs[1].op,
        Op::Snapshot(SnapshotArgs {
            paths: vec!["a".into(), "b".into()],
            depth: 0,
            mode: SnapshotMode::Delta(3),
            hidden: true
        })
    );
    invalid_cases(
        "s",
        &[
            ("unsorted", "a{p,d,m,r,f}:\n[b,a],1,0,~,0", "a.p item 2"),
            ("duplicate", "a{p,d,m,r,f}:\n[a,a],1,0,~,0", "a.p item 2"),
            ("byte order", "a{p,d,m,r,f}:\n[a,B],1,0,~,0", "a.p item 2"),
            ("depth 65", "a{p,d,m,r,f}:\n[.],65,0,~,0", "a.d"),
            ("mode 2", "a{p,d,m,r,f}:\n[.],1,2,~,0", "a.m"),
            (
                "capture with baseline",
                "a{p,d,m,r,f}:\n[.],1,0,@1,0",
                "a.r",
            ),
            (
                "delta without baseline",
                "a{p,d,m,r,f}:\n[.],1,1,~,0",
                "a.r",
            ),
            ("delta @0", "a{p,d,m,r,f}:\n[.],1,1,@0,0", "a.r"),
            ("delta text baseline", "a{p,d,m,r,f}:\n[.],1,1,x,0", "a.r"),
            ("flag 2", "a{p,d,m,r,f}:\n[.],1,0,~,2", "a.f"),
            ("no paths", "a{p,d,m,r,f}:\n[],1,0,~,0", "a.p"),
        ],
    );
}
