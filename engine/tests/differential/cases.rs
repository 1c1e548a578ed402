//! The cases: every operation with its status and error codes over the fixture, `ash ason` on
//! valid and invalid documents, and RPC transcripts.

use super::fixture;
use super::run::{Case, Kind, Start};

/// A request document: `a{cols}:` then the row (or `a:` with an inline value when `cols` is
/// empty).
fn req(id: u64, op: char, args: &str, tok: u64, rec: u64, ms: u64) -> String {
    format!("t:1\ni:{id}\no:{op}\n{args}\nu{{tok,rec,ms}}:\n{tok},{rec},{ms}\n")
}

fn run(name: impl Into<String>, doc: String) -> Case {
    Case {
        name: name.into(),
        kind: Kind::Run(doc),
        start: Start::Fixture,
    }
}

/// Every case.
pub fn all() -> Vec<Case> {
    let mut cases = Vec::new();
    reads(&mut cases);
    lists(&mut cases);
    searches(&mut cases);
    execs(&mut cases);
    patches(&mut cases);
    fs_actions(&mut cases);
    snapshots(&mut cases);
    batches(&mut cases);
    formulas_without_a_session(&mut cases);
    envelopes(&mut cases);
    ason(&mut cases);
    rpc(&mut cases);
    user_state_dir(&mut cases);
    cases
}

const READ_PATHS: &[&str] = &[
    "a.txt",
    "crlf.txt",
    "bin.dat",
    "empty.txt",
    "noeol.txt",
    "link-in",
    "link-out",
    "dangling",
    "fifo",
    "sub",
    "missing.txt",
    "big.txt",
    "../x",
    ".hidden",
    "table.ason",
    "sub/b.txt",
];

fn reads(cases: &mut Vec<Case>) {
    for path in READ_PATHS {
        // The reference blocks on a FIFO until the harness kills it: one case shows it.
        if *path == "fifo" {
            let doc = req(1, 'r', "a{p,m,o,n}:\n[fifo],0,0,64", 256, 64, 30000);
            cases.push(run("read fifo", doc));
            continue;
        }
        for (m, o, n) in [(0, 0, 64), (1, 1, 5), (1, 2, 1), (0, 3, 1_000_000)] {
            for tok in [256, 4] {
                let doc = req(
                    1,
                    'r',
                    &format!("a{{p,m,o,n}}:\n[{path}],{m},{o},{n}"),
                    tok,
                    64,
                    30000,
                );
                cases.push(run(format!("read {path} m{m} o{o} n{n} tok{tok}"), doc));
            }
        }
    }
    for (name, args) in [
        ("read two paths", "[a.txt,sub/b.txt],1,1,10"),
        ("read a duplicate path", "[a.txt,a.txt],1,1,1"),
        ("read mode 2", "[a.txt],2,0,1"),
        ("read line 0", "[a.txt],1,0,1"),
        ("read n 0", "[a.txt],0,0,0"),
    ] {
        cases.push(run(
            name,
            req(1, 'r', &format!("a{{p,m,o,n}}:\n{args}"), 256, 64, 30000),
        ));
    }
    // Around the point where a.txt's text stops fitting its budget: the text inline, at the
    // exact fit, and retained.
    for tok in 4..=24 {
        cases.push(run(
            format!("read a.txt whole tok{tok}"),
            req(1, 'r', "a{p,m,o,n}:\n[a.txt],0,0,64", tok, 64, 30000),
        ));
    }
    cases.push(run(
        "read more paths than records",
        req(1, 'r', "a{p,m,o,n}:\n[a.txt,crlf.txt],1,1,1", 256, 1, 30000),
    ));
}

fn lists(cases: &mut Vec<Case>) {
    for root in [".", "sub", "link-dir", "missing", "a.txt", "link-out"] {
        for depth in [0, 2, 65] {
            for flags in [0, 1, 2, 4, 6] {
                let doc = req(
                    2,
                    'l',
                    &format!("a{{p,d,f}}:\n[{root}],{depth},{flags}"),
                    256,
                    128,
                    30000,
                );
                cases.push(run(format!("list {root} d{depth} f{flags}"), doc));
            }
        }
    }
    cases.push(run(
        "list two roots",
        req(2, 'l', "a{p,d,f}:\n[sub,.],1,0", 256, 128, 30000),
    ));
    cases.push(run(
        "list cut by records",
        req(2, 'l', "a{p,d,f}:\n[.],3,1", 256, 3, 30000),
    ));
}

fn searches(cases: &mut Vec<Case>) {
    for (q, f) in [
        ("hello", 0),
        ("h.l+o", 1),
        ("HELLO", 2),
        ("hello", 4),
        ("\"(\"", 1),
        ("zzz", 0),
        ("\"line 1\"", 0),
    ] {
        for root in [".", "sub", "crlf.txt", "bin.dat"] {
            let doc = req(
                3,
                'g',
                &format!("a{{q,p,f}}:\n{q},[{root}],{f}"),
                256,
                64,
                30000,
            );
            cases.push(run(format!("search {q} in {root} f{f}"), doc));
        }
    }
    // A literal whose escaped regex would pass the 16 MiB compiled-size limit: searched as a
    // literal (the limit is the regex flag's), and `100` once it must be compiled to match
    // case-insensitively.
    let long = "ab".repeat(400_000);
    for f in [0, 2] {
        let doc = req(
            3,
            'g',
            &format!("a{{q,p,f}}:\n{long},[.],{f}"),
            256,
            64,
            30000,
        );
        cases.push(run(format!("search an 800 KB literal f{f}"), doc));
    }
}

#[allow(
    clippy::too_many_arguments,
    reason = "each case spells out every exec argument on its line"
)]
fn exec(
    name: &str,
    x: &str,
    v: &str,
    c: &str,
    e: &str,
    input: &str,
    f: u32,
    tok: u64,
    ms: u64,
) -> Case {
    let doc = req(
        4,
        'x',
        &format!("a{{x,v,c,e,in,f}}:\n{x},{v},{c},{e},{input},{f}"),
        tok,
        64,
        ms,
    );
    run(format!("exec {name}"), doc)
}

fn execs(cases: &mut Vec<Case>) {
    cases.push(exec("echo", "echo", "[hi]", ".", "[]", "~", 0, 256, 10000));
    cases.push(exec(
        "exit 3",
        "sh",
        "[-c,\"exit 3\"]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "stderr",
        "sh",
        "[-c,\"echo err >&2\"]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "both streams",
        "sh",
        "[-c,\"echo out; echo err >&2; exit 1\"]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "missing program",
        "no-such-program",
        "[]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "cwd sub", "pwd", "[]", "sub", "[]", "~", 0, 256, 10000,
    ));
    cases.push(exec(
        "cwd a file",
        "pwd",
        "[]",
        "a.txt",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "cwd missing",
        "pwd",
        "[]",
        "nowhere",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "cwd escaping",
        "pwd",
        "[]",
        "../x",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "script",
        "./script.sh",
        "[a,b]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "script by path",
        "script.sh",
        "[]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "env set",
        "sh",
        "[-c,\"echo $GREETING\"]",
        ".",
        "[\"GREETING=hi there\"]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "env cleared",
        "sh",
        "[-c,\"echo ${PATH:-none}\"]",
        ".",
        "[]",
        "~",
        1,
        256,
        10000,
    ));
    cases.push(exec(
        "env bad name",
        "true",
        "[]",
        ".",
        "[\"1X=y\"]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "stdin inline",
        "cat",
        "[]",
        ".",
        "[]",
        "\"fed in\"",
        0,
        256,
        10000,
    ));
    cases.push(exec("timeout", "sleep", "[5]", ".", "[]", "~", 0, 256, 200));
    cases.push(exec(
        "long output cut",
        "seq",
        "[1,5000]",
        ".",
        "[]",
        "~",
        0,
        64,
        10000,
    ));
    cases.push(exec(
        "long stderr cut",
        "sh",
        "[-c,\"seq 1 5000 >&2\"]",
        ".",
        "[]",
        "~",
        0,
        64,
        10000,
    ));
    cases.push(exec(
        "non-utf8 output",
        "printf",
        "[\"\\\\377\\\\376 hello\"]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "non-utf8 output cut",
        "sh",
        "[-c,\"seq 1 3000; printf '\\\\377'\"]",
        ".",
        "[]",
        "~",
        0,
        64,
        10000,
    ));
    cases.push(exec(
        "signal",
        "sh",
        "[-c,\"kill -9 $$\"]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec(
        "absolute program",
        "/bin/echo",
        "[x]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
    cases.push(exec("flag 2", "true", "[]", ".", "[]", "~", 2, 256, 10000));
    cases.push(exec(
        "crlf output",
        "printf",
        "[\"a\\\\r\\\\nb\\\\r\\\\n\"]",
        ".",
        "[]",
        "~",
        0,
        256,
        10000,
    ));
}

fn patches(cases: &mut Vec<Case>) {
    let a = fixture::digest("a.txt");
    let stale = "0".repeat(64);
    let patch = |name: &str, p: &str, h: &str, o: u64, n: u64, v: &str| {
        run(
            format!("patch {name}"),
            req(
                5,
                'p',
                &format!("a{{p,h,i,o,n,v,f}}:\n[{p}],[{h}],[0],[{o}],[{n}],[{v}],0"),
                256,
                64,
                30000,
            ),
        )
    };
    cases.push(patch("valid", "a.txt", &a, 0, 5, "HELLO"));
    cases.push(patch("insert", "a.txt", &a, 6, 0, "\"big \""));
    cases.push(patch("stale digest", "a.txt", &stale, 0, 5, "HELLO"));
    cases.push(patch("past the end", "a.txt", &a, 100, 1, "x"));
    cases.push(patch("missing file", "missing.txt", &a, 0, 1, "x"));
    cases.push(patch("through a symlink", "link-in", &a, 0, 1, "x"));
    cases.push(patch("a fifo", "fifo", &a, 0, 0, "x"));
    cases.push(patch("a directory", "sub", &a, 0, 0, "x"));
    cases.push(patch(
        "uppercase digest",
        "a.txt",
        &a.to_uppercase(),
        0,
        1,
        "x",
    ));
    cases.push(patch("into .ash", ".ash/x", &a, 0, 0, "x"));
    cases.push(run(
        "patch too small tok",
        req(
            5,
            'p',
            &format!("a{{p,h,i,o,n,v,f}}:\n[a.txt],[{a}],[0],[0],[5],[HELLO],0"),
            1,
            64,
            30000,
        ),
    ));
}

fn fs_actions(cases: &mut Vec<Case>) {
    let a = fixture::digest("a.txt");
    let stale = "0".repeat(64);
    let fs = |name: &str, rows: &[String]| {
        run(
            format!("fs {name}"),
            req(
                6,
                'f',
                &format!("a[{}]{{i,k,p,q,h,v}}:\n{}", rows.len(), rows.join("\n")),
                64,
                8,
                30000,
            ),
        )
    };
    cases.push(fs("create", &["1,0,new.txt,~,~,\"fresh\\n\"".into()]));
    cases.push(fs("create existing", &["1,0,a.txt,~,~,x".into()]));
    cases.push(fs("create in sub", &["1,0,sub/new.txt,~,~,x".into()]));
    cases.push(fs(
        "create missing parent",
        &["1,0,no/dir/new.txt,~,~,x".into()],
    ));
    cases.push(fs("create in .ash", &["1,0,.ash/x,~,~,x".into()]));
    cases.push(fs("copy", &[format!("1,1,a.txt,copy.txt,{a},~")]));
    cases.push(fs("move", &[format!("1,2,a.txt,moved.txt,{a},~")]));
    cases.push(fs("remove", &[format!("1,3,a.txt,~,{a},~")]));
    cases.push(fs("remove stale", &[format!("1,3,a.txt,~,{stale},~")]));
    cases.push(fs(
        "copy onto existing",
        &[format!("1,1,a.txt,crlf.txt,{a},~")],
    ));
    cases.push(fs("remove a link", &[format!("1,3,link-in,~,{a},~")]));
    cases.push(fs(
        "two actions",
        &[
            "1,0,one.txt,~,~,1".into(),
            format!("2,1,a.txt,two.txt,{a},~"),
        ],
    ));
    cases.push(fs("bad shape", &["1,0,x.txt,y.txt,~,x".into()]));
}

fn snapshots(cases: &mut Vec<Case>) {
    for (name, args) in [
        ("capture", "[.],2,0,~,0"),
        ("capture hidden", "[.],2,0,~,1"),
        ("capture sub", "[sub],64,0,~,0"),
        ("delta of an unknown baseline", "[.],2,1,@1,0"),
        ("capture with a baseline", "[.],2,0,@1,0"),
        ("unsorted paths", "[sub,.],2,0,~,0"),
    ] {
        cases.push(run(
            format!("snapshot {name}"),
            req(7, 's', &format!("a{{p,d,m,r,f}}:\n{args}"), 512, 64, 30000),
        ));
    }
}

fn batches(cases: &mut Vec<Case>) {
    cases.push(run(
        "batch search then read",
        req(
            8,
            'b',
            "a[2]{i,d,o,a}:\n1,[],g,\"a{q,p,f}:\\nhello,[sub],0\\n\"\n2,[1],r,\"a{p,m,o,n}:\\n[a.txt],0,0,32\\n\"",
            64,
            16,
            30000,
        ),
    ));
    cases.push(run(
        "batch with a failing dependency",
        req(
            8,
            'b',
            "a[2]{i,d,o,a}:\n1,[],r,\"a{p,m,o,n}:\\n[missing.txt],0,0,1\\n\"\n2,[1],r,\"a{p,m,o,n}:\\n[a.txt],0,0,1\\n\"",
            64,
            16,
            30000,
        ),
    ));
    cases.push(run(
        "batch with a cycle",
        req(
            8,
            'b',
            "a[2]{i,d,o,a}:\n1,[2],r,\"a{p,m,o,n}:\\n[a.txt],0,0,1\\n\"\n2,[1],r,\"a{p,m,o,n}:\\n[a.txt],0,0,1\\n\"",
            64,
            16,
            30000,
        ),
    ));
}

fn formulas_without_a_session(cases: &mut Vec<Case>) {
    for (op, a) in [
        ('/', "[@5,0,10]"),
        ('#', "[@5,1,1]"),
        ('?', "[@5,0,10,x,0]"),
        ('-', "[@5]"),
        ('|', "[@5,rows,0,1,name]"),
        ('>', "[@5,out.txt]"),
    ] {
        cases.push(run(
            format!("formula {op} unknown ref"),
            req(9, op, &format!("a:{a}"), 64, 8, 30000),
        ));
    }
}

fn envelopes(cases: &mut Vec<Case>) {
    for (name, doc) in [
        ("unknown op", "t:1\ni:1\no:z\na:1\nu{tok,rec,ms}:\n1,1,1\n".to_owned()),
        ("message type 2", "t:2\ni:1\no:r\na{p,m,o,n}:\n[a.txt],0,0,1\nu{tok,rec,ms}:\n1,1,1\n".to_owned()),
        ("missing budget", "t:1\ni:1\no:r\na{p,m,o,n}:\n[a.txt],0,0,1\n".to_owned()),
        ("leading zero id", "t:1\ni:01\no:k\na{i}:\n5\nu{tok,rec,ms}:\n1,1,1\n".to_owned()),
        ("id 0", "t:1\ni:0\no:k\na{i}:\n5\nu{tok,rec,ms}:\n1,1,1\n".to_owned()),
        ("bad permit", format!("t:1\ni:1\no:k\na{{i}}:\n5\nu{{tok,rec,ms}}:\n1,1,1\nv:{}\n", "z".repeat(96))),
        ("cancel unknown", "t:1\ni:1\no:k\na{i}:\n5\nu{tok,rec,ms}:\n64,1,1000\n".to_owned()),
        ("cancel itself", "t:1\ni:1\no:k\na{i}:\n1\nu{tok,rec,ms}:\n64,1,1000\n".to_owned()),
        ("budget too large", "t:1\ni:1\no:k\na{i}:\n5\nu{tok,rec,ms}:\n2000000,1,1\n".to_owned()),
        ("not ason", "hello\n".to_owned()),
        ("empty input", String::new()),
        ("a handshake on run", "t:0\ni:7\na{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}:\n1,0,0,1,0,0,1048576,65536,1023,15,.,n\n".to_owned()),
    ] {
        cases.push(run(format!("envelope {name}"), doc));
    }
}

fn ason(cases: &mut Vec<Case>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/fixtures/ason");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ason"))
        .collect();
    files.sort();
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        cases.push(Case {
            name: format!("ason {name}"),
            kind: Kind::Ason(bytes),
            start: Start::Fixture,
        });
    }
    for (name, bytes) in [
        ("trailing space", &b"k:v \n"[..]),
        ("no final newline", b"k:v"),
        ("duplicate key", b"k:1\nk:2\n"),
        ("crlf", b"k:1\r\n"),
        ("tab", b"k:\t1\n"),
        ("bom", b"\xef\xbb\xbfk:1\n"),
        ("not utf-8", b"k:\xff\n"),
        ("table width", b"d[2]{a,b}:\n1,2\n3\n"),
        ("table count", b"d[3]{a}:\n1\n2\n"),
        ("leading zero", b"k:007\n"),
        ("negative zero", b"k:-0\n"),
        ("non-canonical quote", b"k:\"plain\"\n"),
        ("empty", b""),
        ("blank line", b"k:1\n\nj:2\n"),
        ("record", b"r{a,b}:\n1,\"two words\"\n"),
        ("vector", b"v:[1,2,\"x y\"]\n"),
        ("nested vector", b"v:[[1],[2]]\n"),
        ("ref", b"r:@3\n"),
        ("null", b"n:~\n"),
        ("unicode", "k:\"héllo ⟦x⟧\"\n".as_bytes()),
    ] {
        cases.push(Case {
            name: format!("ason {name}"),
            kind: Kind::Ason(bytes.to_vec()),
            start: Start::Fixture,
        });
    }
}

fn handshake(id: u64, ops: u32, cap: u32) -> String {
    format!(
        "t:0\ni:{id}\na{{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}}:\n1,0,0,1,0,0,1048576,65536,{ops},{cap},.,nonce-{id}\n"
    )
}

/// A transcript sent in lockstep: each frame after the answer to the one before (a frame
/// followed by a cancel is not waited for, so the cancel finds it running).
fn rpc_case(name: &str, frames: Vec<String>) -> Case {
    Case {
        name: format!("rpc {name}"),
        kind: Kind::Rpc(frames),
        start: Start::Fixture,
    }
}

/// A transcript written all at once.
fn pipelined(name: &str, frames: Vec<String>) -> Case {
    Case {
        name: format!("rpc pipelined {name}"),
        kind: Kind::Pipelined(frames),
        start: Start::Fixture,
    }
}

fn rpc(cases: &mut Vec<Case>) {
    let read = |id: u64, path: &str, tok: u64| {
        req(
            id,
            'r',
            &format!("a{{p,m,o,n}}:\n[{path}],0,0,1000000"),
            tok,
            64,
            30000,
        )
    };
    let formula = |id: u64, op: char, a: &str| req(id, op, &format!("a:{a}"), 256, 64, 30000);
    cases.push(rpc_case("handshake only", vec![handshake(1, 1023, 15)]));
    cases.push(rpc_case("handshake id 0", vec![handshake(0, 1023, 15)]));
    cases.push(rpc_case(
        "handshake bad version",
        vec!["t:0\ni:1\na{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}:\n2,0,0,1,0,0,1048576,65536,1023,15,.,n\n".into()],
    ));
    cases.push(rpc_case(
        "handshake missing root",
        vec!["t:0\ni:1\na{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}:\n1,0,0,1,0,0,1048576,65536,1023,15,nowhere,n\n".into()],
    ));
    cases.push(rpc_case("no handshake", vec![read(1, "a.txt", 256)]));
    cases.push(rpc_case(
        "read",
        vec![handshake(1, 1023, 15), read(2, "a.txt", 256)],
    ));
    cases.push(rpc_case(
        "read without read cap",
        vec![handshake(1, 1023, 2), read(2, "a.txt", 256)],
    ));
    cases.push(rpc_case(
        "second handshake",
        vec![handshake(1, 1023, 15), handshake(2, 1023, 15)],
    ));
    cases.push(rpc_case(
        "retained read then formulas",
        vec![
            handshake(1, 1023, 15),
            read(2, "big.txt", 256),
            formula(3, '/', "[@1,0,20]"),
            formula(4, '#', "[@1,2,2]"),
            formula(5, '?', "[@1,0,200,\"line 3\",0]"),
            formula(6, '?', "[@1,0,100000,line,0]"),
            formula(7, '-', "[@1]"),
            formula(8, '/', "[@1,0,5]"),
        ],
    ));
    cases.push(rpc_case(
        "table projection",
        vec![
            handshake(1, 1023, 15),
            read(2, "table.ason", 24),
            formula(3, '|', "[@1,rows,0,2,name,size]"),
            formula(4, '|', "[@1,rows,1,5,kind]"),
            formula(5, '|', "[@1,missing,0,1,name]"),
            formula(6, '|', "[@1,rows,0,1,nope]"),
        ],
    ));
    cases.push(rpc_case(
        "materialize",
        vec![
            handshake(1, 1023, 15),
            read(2, "big.txt", 256),
            formula(3, '>', "[@1,copy-of-big.txt]"),
            formula(4, '>', "[@1,a.txt]"),
        ],
    ));
    cases.push(pipelined(
        "cancel unknown and duplicate",
        vec![
            handshake(1, 1023, 15),
            req(2, 'k', "a{i}:\n99", 64, 1, 1000),
            req(
                3,
                'x',
                "a{x,v,c,e,in,f}:\nsleep,[0.2],.,[],~,0",
                256,
                64,
                10000,
            ),
            req(3, 'x', "a{x,v,c,e,in,f}:\ntrue,[],.,[],~,0", 256, 64, 10000),
        ],
    ));
    cases.push(rpc_case(
        "cancel a running exec",
        vec![
            handshake(1, 1023, 15),
            req(
                2,
                'x',
                "a{x,v,c,e,in,f}:\nsleep,[5],.,[],~,0",
                256,
                64,
                10000,
            ),
            req(3, 'k', "a{i}:\n2", 64, 1, 1000),
        ],
    ));
    cases.push(rpc_case(
        "snapshot baseline that is not a manifest",
        vec![
            handshake(1, 1023, 15),
            read(2, "big.txt", 256),
            req(3, 's', "a{p,d,m,r,f}:\n[.],2,1,@1,0", 512, 64, 30000),
        ],
    ));
    // One more request than the in-flight window holds while the first ones sleep: the last
    // is 602. The window is 4 per I/O worker, sized from the CPUs as the contract says.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let io_workers = if cpus == 1 {
        1
    } else {
        cpus.div_ceil(4).clamp(2, 8)
    };
    let window = 4 * io_workers;
    let mut frames = vec![handshake(1, 1023, 15)];
    for n in 0..=window as u64 {
        frames.push(req(
            2 + n,
            'x',
            "a{x,v,c,e,in,f}:\nsleep,[0.5],.,[],~,0",
            256,
            64,
            10000,
        ));
    }
    cases.push(pipelined("past the in-flight window", frames));
    cases.push(pipelined(
        "reads and cancels",
        vec![
            handshake(1, 1023, 15),
            read(2, "a.txt", 256),
            req(3, 'k', "a{i}:\n2", 64, 1, 1000),
            read(4, "sub/b.txt", 256),
            req(5, 'k', "a{i}:\n4", 64, 1, 1000),
        ],
    ));
    cases.push(rpc_case(
        "batch",
        vec![
            handshake(1, 1023, 15),
            req(
                2,
                'b',
                "a[2]{i,d,o,a}:\n1,[],g,\"a{q,p,f}:\\nhello,[sub],0\\n\"\n2,[1],r,\"a{p,m,o,n}:\\n[a.txt],0,0,32\\n\"",
                64,
                16,
                30000,
            ),
            formula(3, '/', "[@1,0,40]"),
        ],
    ));
    cases.push(rpc_case(
        "snapshot then delta",
        vec![
            handshake(1, 1023, 15),
            req(2, 's', "a{p,d,m,r,f}:\n[.],2,0,~,0", 512, 64, 30000),
            req(
                3,
                'f',
                "a[1]{i,k,p,q,h,v}:\n1,0,added.txt,~,~,x",
                64,
                8,
                30000,
            ),
            req(4, 's', "a{p,d,m,r,f}:\n[.],2,1,@1,0", 512, 64, 30000),
            req(5, 's', "a{p,d,m,r,f}:\n[sub],2,1,@1,0", 512, 64, 30000),
            req(6, 's', "a{p,d,m,r,f}:\n[.],2,1,@2,0", 512, 64, 30000),
        ],
    ));
}

/// A workspace whose `.ash` is the user's own directory: what reads show of it and what
/// mutations do with it.
fn user_state_dir(cases: &mut Vec<Case>) {
    let a = fixture::digest("a.txt");
    let user = |name: &str, doc: String| Case {
        name: format!("user .ash: {name}"),
        kind: Kind::Run(doc),
        start: Start::UserStateDir,
    };
    cases.push(user(
        "list",
        req(2, 'l', "a{p,d,f}:\n[.],2,1", 256, 128, 30000),
    ));
    cases.push(user(
        "list it",
        req(2, 'l', "a{p,d,f}:\n[.ash],1,1", 256, 128, 30000),
    ));
    cases.push(user(
        "read a file in it",
        req(
            1,
            'r',
            "a{p,m,o,n}:\n[.ash/notes.txt],0,0,64",
            256,
            16,
            30000,
        ),
    ));
    cases.push(user(
        "search",
        req(3, 'g', "a{q,p,f}:\nhello,[.],4", 256, 64, 30000),
    ));
    cases.push(user(
        "patch elsewhere",
        req(
            5,
            'p',
            &format!("a{{p,h,i,o,n,v,f}}:\n[a.txt],[{a}],[0],[0],[5],[HELLO],0"),
            256,
            64,
            30000,
        ),
    ));
    cases.push(user(
        "patch into it",
        req(
            5,
            'p',
            &format!("a{{p,h,i,o,n,v,f}}:\n[.ash/notes.txt],[{a}],[0],[0],[1],[x],0"),
            256,
            64,
            30000,
        ),
    ));
    cases.push(user(
        "fs create elsewhere",
        req(
            6,
            'f',
            "a[1]{i,k,p,q,h,v}:\n1,0,new.txt,~,~,x",
            64,
            8,
            30000,
        ),
    ));
    cases.push(user(
        "fs create in it",
        req(6, 'f', "a[1]{i,k,p,q,h,v}:\n1,0,.ash/x,~,~,x", 64, 8, 30000),
    ));
    cases.push(user(
        "snapshot",
        req(7, 's', "a{p,d,m,r,f}:\n[.],2,0,~,1", 512, 64, 30000),
    ));
}
