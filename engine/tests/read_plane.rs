//! Behaviour of read (`r`), list (`l`) and search (`g`) through [`Session`] on real temporary
//! workspaces: every validation rule and status/error code of ASH1.md §3.3–§3.4, the budgets,
//! row-prefix truncation and retained evidence of §5, the path dictionary, capability denial and
//! the output ceiling.
//!
//! Every answer goes through [`Client::ask`], which also checks the invariants that hold for all
//! answers: the encoding decodes back to the same typed response, a success fits the presentation
//! limit L and is charged to the output ceiling (a failure is not), and the `p` delta introduces
//! only paths new to the session with consecutive ids.

use ash_engine::ason::{self, Limits};
use ash_engine::compute::ComputePlane;
use ash_engine::protocol::{Caps, Data, Request, Response, Status};
use ash_engine::session::store::StoreQuota;
use ash_engine::session::{Session, SessionConfig};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// A generous budget: tok, rec.
const BIG: (u64, u64) = (100_000, 10_000);

/// A session plus the client-side view of its path dictionary.
struct Client {
    session: Session,
    names: HashMap<u64, String>,
    next_id: u64,
}

/// One answered request.
struct Answer {
    text: String,
    response: Response,
}

impl Client {
    fn new(root: &Path) -> Client {
        Client::with(root, SessionConfig::run())
    }

    fn with(root: &Path, config: SessionConfig) -> Client {
        let plane = Arc::new(ComputePlane::new(2).expect("compute plane"));
        Client {
            session: Session::open(root, config, plane).expect("open session"),
            names: HashMap::new(),
            next_id: 1,
        }
    }

    fn ask(&mut self, request: &str) -> Answer {
        let doc = ason::decode_canonical(request.as_bytes(), &Limits::default())
            .expect("test requests are canonical ASON");
        let tok = Request::from_document(&doc).map(|r| r.budget.tok).ok();
        let before = self.session.remaining_output();
        let (response, text) = self
            .session
            .answer_document(&doc)
            .expect("test requests carry a usable id");
        assert_eq!(
            response.encode(),
            text,
            "the text is the response's encoding"
        );
        let decoded = Response::decode(text.as_bytes(), &Limits::default())
            .expect("answers are valid responses");
        assert_eq!(decoded, response, "answer round-trips: {text}");
        let after = self.session.remaining_output();
        if response.status == Status::Success {
            let tok = tok.expect("a successful request was valid");
            let limit = before.min(tok * 4);
            assert!(
                text.len() as u64 <= limit,
                "answer of {} bytes exceeds L = {limit}:\n{text}",
                text.len()
            );
            assert_eq!(after, before - text.len() as u64, "a success is charged");
        } else {
            assert_eq!(after, before, "a failure is not charged");
            assert!(
                response.paths.is_empty(),
                "a failure introduces no path ids"
            );
        }
        for (id, path) in &response.paths {
            assert_eq!(
                *id, self.next_id,
                "ids are consecutive across the session: {text}"
            );
            assert!(
                !self.names.values().any(|known| known == path),
                "{path} was already introduced: {text}"
            );
            self.names.insert(*id, path.clone());
            self.next_id += 1;
        }
        Answer { text, response }
    }

    fn name(&self, id: u64) -> String {
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| panic!("path id {id} was never introduced"))
    }

    /// `(path, kind, size)` of each list row.
    fn list_rows(&self, a: &Answer) -> Vec<(String, u8, Option<u64>)> {
        match &a.response.data {
            Some(Data::List(rows)) => rows
                .iter()
                .map(|r| (self.name(r.path), r.kind.as_u8(), r.size))
                .collect(),
            _ => panic!("not a list answer: {}", a.text),
        }
    }

    /// `(path, line, column, text)` of each search row.
    fn search_rows(&self, a: &Answer) -> Vec<(String, u64, u64, String)> {
        match &a.response.data {
            Some(Data::Search(rows)) => rows
                .iter()
                .map(|r| (self.name(r.path), r.line, r.column, r.text.clone()))
                .collect(),
            _ => panic!("not a search answer: {}", a.text),
        }
    }

    /// The bytes behind a reference.
    fn retained(&self, alias: u64) -> Vec<u8> {
        self.session
            .store()
            .get(alias)
            .unwrap_or_else(|| panic!("@{alias} is not retained"))
            .read_all()
            .expect("retained value reads")
    }
}

/// A temporary workspace holding `files` (parents created as needed).
fn tree(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    for (path, content) in files {
        let abs = dir.path().join(path);
        if let Some(parent) = abs.parent() {
            std::fs::create_dir_all(parent).expect("create parent directories");
        }
        std::fs::write(&abs, content).expect("write test file");
    }
    dir
}

#[cfg(unix)]
fn symlink(dir: &TempDir, target: impl AsRef<Path>, link: &str) {
    std::os::unix::fs::symlink(target, dir.path().join(link)).expect("create symlink");
}

fn cell(text: &str) -> String {
    let mut out = String::new();
    ason::encode_text(text, &mut out);
    out
}

fn paths_cell(paths: &[&str]) -> String {
    let items: Vec<String> = paths.iter().map(|p| cell(p)).collect();
    format!("[{}]", items.join(","))
}

fn read_req(
    id: u64,
    paths: &[&str],
    mode: u8,
    offset: u64,
    count: u64,
    (tok, rec): (u64, u64),
) -> String {
    format!(
        "t:1\ni:{id}\no:r\na{{p,m,o,n}}:\n{},{mode},{offset},{count}\nu{{tok,rec,ms}}:\n{tok},{rec},30000\n",
        paths_cell(paths)
    )
}

fn list_req(id: u64, paths: &[&str], depth: u64, flags: u64, (tok, rec): (u64, u64)) -> String {
    format!(
        "t:1\ni:{id}\no:l\na{{p,d,f}}:\n{},{depth},{flags}\nu{{tok,rec,ms}}:\n{tok},{rec},30000\n",
        paths_cell(paths)
    )
}

fn search_req(id: u64, query: &str, paths: &[&str], flags: u64, (tok, rec): (u64, u64)) -> String {
    format!(
        "t:1\ni:{id}\no:g\na{{q,p,f}}:\n{},{},{flags}\nu{{tok,rec,ms}}:\n{tok},{rec},30000\n",
        cell(query),
        paths_cell(paths)
    )
}

/// The exact encoding of an error answer without references.
fn error(id: u64, status: u8, code: u16, retry: u8, stage: u8) -> String {
    format!("t:3\ni:{id}\ns:{status}\ne{{c,q,p,x,a}}:\n{code},{retry},{stage},~,~\nz:0\nr:~\n")
}

fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

fn owned<const N: usize>(rows: [(&str, u8, Option<u64>); N]) -> Vec<(String, u8, Option<u64>)> {
    rows.into_iter()
        .map(|(p, k, z)| (p.to_owned(), k, z))
        .collect()
}

fn hits<const N: usize>(rows: [(&str, u64, u64, &str); N]) -> Vec<(String, u64, u64, String)> {
    rows.into_iter()
        .map(|(p, l, c, t)| (p.to_owned(), l, c, t.to_owned()))
        .collect()
}

/// One request of each read-side operation naming `path`.
fn each_op(path: &str) -> [(&'static str, String); 3] {
    [
        ("read", read_req(1, &[path], 0, 0, 10, BIG)),
        ("list", list_req(1, &[path], 1, 0, BIG)),
        ("search", search_req(1, "needle", &[path], 0, BIG)),
    ]
}

// ---------------------------------------------------------------------------------------------
// §3.3 shared rules: path syntax, escapes, missing paths, wrong types, reserved .ash, caps
// ---------------------------------------------------------------------------------------------

#[test]
fn invalid_logical_paths_are_invalid_arguments() {
    // Every one of these would name an existing file if the syntax were not checked first.
    let ws = tree(&[("x", b"needle\n"), ("a/b", b"needle\n")]);
    for path in [
        "../x", "/etc/x", "a//b", "C:/x", "a/./b", "./x", "a/../x", "a/", "a\\b", "", "a/b/..",
    ] {
        for (op, request) in each_op(path) {
            let mut c = Client::new(ws.path());
            assert_eq!(
                c.ask(&request).text,
                error(1, 1, 100, 1, 1),
                "{op} {path:?}"
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn escaping_symlinks_are_workspace_escapes() {
    let outside = tree(&[("secret", b"needle\n")]);
    let ws = tree(&[("inside.txt", b"no match here\n")]);
    symlink(&ws, outside.path().join("secret"), "out");
    symlink(&ws, outside.path(), "outdir");
    symlink(&ws, "..", "up");
    for path in ["out", "outdir", "outdir/secret", "up"] {
        for (op, request) in each_op(path) {
            let mut c = Client::new(ws.path());
            assert_eq!(c.ask(&request).text, error(1, 3, 200, 0, 3), "{op} {path}");
        }
    }
    // Walks list escaping links without following them, so nothing outside is searched.
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 1, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, None),
            ("inside.txt", 0, Some(14)),
            ("out", 2, Some(0)),
            ("outdir", 2, Some(0)),
            ("up", 2, Some(0)),
        ])
    );
    let a = c.ask(&search_req(2, "needle", &["."], 0, BIG));
    assert_eq!(a.text, "t:3\ni:2\ns:0\nd[0]{p,l,c,t}:\nz:0\nr:~\n");
}

#[test]
fn missing_paths_are_not_found() {
    let ws = tree(&[("file.txt", b"needle\n")]);
    for path in ["nope", "nope/deeper", "file.txt/child", "NOPE.txt"] {
        for (op, request) in each_op(path) {
            let mut c = Client::new(ws.path());
            assert_eq!(c.ask(&request).text, error(1, 4, 201, 1, 2), "{op} {path}");
        }
    }
    #[cfg(unix)]
    {
        symlink(&ws, "nowhere", "dangling");
        let mut c = Client::new(ws.path());
        assert_eq!(
            c.ask(&read_req(1, &["dangling"], 0, 0, 1, BIG)).text,
            error(1, 4, 201, 1, 2)
        );
    }
}

#[test]
fn reading_a_directory_is_a_filesystem_error() {
    let ws = tree(&[("dir/f.txt", b"x")]);
    for path in [".", "dir"] {
        let mut c = Client::new(ws.path());
        assert_eq!(
            c.ask(&read_req(1, &[path], 0, 0, 1, BIG)).text,
            error(1, 5, 500, 2, 4),
            "{path}"
        );
        let mut c = Client::new(ws.path());
        assert_eq!(
            c.ask(&read_req(1, &[path], 1, 1, 1, BIG)).text,
            error(1, 5, 500, 2, 4),
            "{path}"
        );
    }
    // One bad path fails the whole read, and nothing is introduced.
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["dir/f.txt", "dir"], 0, 0, 1, BIG))
            .text,
        error(1, 5, 500, 2, 4)
    );
    let a = c.ask(&read_req(2, &["dir/f.txt"], 0, 0, 1, BIG));
    assert_eq!(a.response.paths, vec![(1, "dir/f.txt".to_owned())]);
}

const MARKER: &[u8] = b"ash-workspace-state-v1\n";

#[test]
fn a_marked_ash_directory_is_reserved() {
    let ws = tree(&[
        (".ash/FORMAT", MARKER),
        (".ash/notes.txt", b"needle\n"),
        (".ashes/notes.txt", b"needle\n"),
        ("src/a.txt", b"needle\n"),
    ]);
    for path in [".ash", ".ash/notes.txt", ".ash/FORMAT", ".ash/missing"] {
        for (op, request) in each_op(path) {
            let mut c = Client::new(ws.path());
            assert_eq!(c.ask(&request).text, error(1, 3, 300, 0, 3), "{op} {path}");
        }
    }
    // Walks skip .ash at depth 1 even with hidden entries; .ashes is an ordinary hidden dir.
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 2, 1, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, None),
            (".ashes", 1, None),
            (".ashes/notes.txt", 0, Some(7)),
            ("src", 1, None),
            ("src/a.txt", 0, Some(7)),
        ])
    );
    let a = c.ask(&search_req(2, "needle", &["."], 4, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            (".ashes/notes.txt", 1, 1, "needle"),
            ("src/a.txt", 1, 1, "needle")
        ])
    );
    #[cfg(unix)]
    {
        // A symlink into the state directory is no back door.
        symlink(&ws, ".ash", "state");
        let mut c = Client::new(ws.path());
        assert_eq!(
            c.ask(&read_req(1, &["state/notes.txt"], 0, 0, 9, BIG)).text,
            error(1, 3, 300, 0, 3)
        );
    }
}

#[test]
fn an_unmarked_ash_directory_stays_readable() {
    for format in [
        None,
        Some(&b"ash-workspace-state-v1"[..]),
        Some(&b"ash-workspace-state-v1\n\n"[..]),
        Some(&b"ash-workspace-state-v2\n"[..]),
    ] {
        let ws = tree(&[(".ash/notes.txt", b"needle\n")]);
        if let Some(content) = format {
            std::fs::write(ws.path().join(".ash/FORMAT"), content).expect("write FORMAT");
        }
        let mut c = Client::new(ws.path());
        let a = c.ask(&read_req(1, &[".ash/notes.txt"], 0, 0, 100, BIG));
        assert_eq!(
            a.text,
            format!(
                "t:3\ni:1\ns:0\np[1]{{i,v}}:\n1,.ash/notes.txt\nd[1]{{p,o,n,h,t,r}}:\n1,0,7,{},\"needle\\n\",~\nz:0\nr:~\n",
                hash(b"needle\n")
            ),
            "FORMAT {format:?}"
        );
        let a = c.ask(&search_req(2, "needle", &[".ash"], 0, BIG));
        assert_eq!(
            c.search_rows(&a),
            hits([(".ash/notes.txt", 1, 1, "needle")])
        );
        // Still skipped by walks from the workspace root.
        let a = c.ask(&list_req(3, &["."], 1, 1, BIG));
        assert_eq!(c.list_rows(&a), owned([(".", 1, None)]));
    }
}

#[cfg(unix)]
#[test]
fn a_symlinked_ash_is_not_a_state_directory() {
    let ws = tree(&[("real/FORMAT", MARKER), ("real/notes.txt", b"needle\n")]);
    symlink(&ws, "real", ".ash");
    let mut c = Client::new(ws.path());
    let a = c.ask(&read_req(1, &[".ash/notes.txt"], 0, 0, 6, BIG));
    assert_eq!(a.response.status, Status::Success, "{}", a.text);
    assert_eq!(a.response.paths, vec![(1, ".ash/notes.txt".to_owned())]);
}

#[test]
fn capabilities_are_checked_first() {
    let ws = tree(&[("a.txt", b"needle\n")]);
    let without_read = Caps::WRITE.union(Caps::PROCESS).union(Caps::RETAINED);
    for caps in [Caps::NONE, without_read] {
        let config = SessionConfig {
            caps,
            ..SessionConfig::run()
        };
        for path in ["a.txt", "missing", "../x"] {
            for (op, request) in each_op(path) {
                let mut c = Client::with(ws.path(), config);
                assert_eq!(
                    c.ask(&request).text,
                    error(1, 3, 300, 0, 3),
                    "{op} {path} caps {}",
                    caps.bits()
                );
            }
        }
    }
    let config = SessionConfig {
        caps: Caps::READ,
        ..SessionConfig::run()
    };
    let mut c = Client::with(ws.path(), config);
    for (op, request) in each_op("a.txt") {
        assert_eq!(
            c.ask(&request).response.status,
            Status::Success,
            "{op} with the read capability"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Hidden entries
// ---------------------------------------------------------------------------------------------

fn hidden_tree() -> TempDir {
    tree(&[
        (".env", b"needle\n"),
        (".git/config", b"needle\n"),
        ("dir/.hidden", b"needle\n"),
        ("vis.txt", b"needle\n"),
    ])
}

#[test]
fn hidden_entries_need_the_flag_but_roots_are_never_filtered() {
    let ws = hidden_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 2, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([(".", 1, None), ("dir", 1, None), ("vis.txt", 0, Some(7))])
    );
    let a = c.ask(&list_req(2, &["."], 2, 1, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, None),
            (".env", 0, Some(7)),
            (".git", 1, None),
            (".git/config", 0, Some(7)),
            ("dir", 1, None),
            ("dir/.hidden", 0, Some(7)),
            ("vis.txt", 0, Some(7)),
        ])
    );
    // A hidden root is listed; its non-hidden children too.
    let a = c.ask(&list_req(3, &[".git", ".env"], 1, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".env", 0, Some(7)),
            (".git", 1, None),
            (".git/config", 0, Some(7))
        ])
    );

    let a = c.ask(&search_req(4, "needle", &["."], 0, BIG));
    assert_eq!(c.search_rows(&a), hits([("vis.txt", 1, 1, "needle")]));
    let a = c.ask(&search_req(5, "needle", &["."], 4, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            (".env", 1, 1, "needle"),
            (".git/config", 1, 1, "needle"),
            ("dir/.hidden", 1, 1, "needle"),
            ("vis.txt", 1, 1, "needle"),
        ])
    );
    let a = c.ask(&search_req(6, "needle", &[".env", "dir"], 0, BIG));
    assert_eq!(c.search_rows(&a), hits([(".env", 1, 1, "needle")]));

    let a = c.ask(&read_req(7, &[".env"], 0, 0, 100, BIG));
    assert_eq!(a.response.status, Status::Success);
}

// ---------------------------------------------------------------------------------------------
// List: depth, kind filters, byte order, merging, symlinks
// ---------------------------------------------------------------------------------------------

fn list_tree() -> TempDir {
    tree(&[
        ("a/x", b"1"),
        ("a-b", b"22"),
        ("a.txt", b"333"),
        ("b/c.txt", b"hello\n"),
        ("b/d/e.txt", b"e"),
        ("B.txt", b""),
        ("\u{e9}.txt", "\u{e9}".as_bytes()),
    ])
}

#[test]
fn list_depth_zero_is_the_root_alone() {
    let ws = list_tree();
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&list_req(1, &["."], 0, 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,.\nd[1]{p,k,z}:\n1,1,~\nz:0\nr:~\n"
    );
    assert_eq!(
        c.ask(&list_req(2, &["a.txt"], 0, 0, BIG)).text,
        "t:3\ni:2\ns:0\np[1]{i,v}:\n2,a.txt\nd[1]{p,k,z}:\n2,0,3\nz:0\nr:~\n"
    );
}

#[test]
fn list_sorts_by_path_bytes_to_the_requested_depth() {
    let ws = list_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 1, 0, BIG));
    assert_eq!(
        a.text,
        "t:3\ni:1\ns:0\np[7]{i,v}:\n1,.\n2,B.txt\n3,a\n4,a-b\n5,a.txt\n6,b\n7,\"\u{e9}.txt\"\n\
         d[7]{p,k,z}:\n1,1,~\n2,0,0\n3,1,~\n4,0,2\n5,0,3\n6,1,~\n7,0,2\nz:0\nr:~\n"
    );
    // `a.txt` < `a/x` because '.' (0x2e) < '/' (0x2f): byte order, not tree order.
    let a = c.ask(&list_req(2, &["."], 2, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, None),
            ("B.txt", 0, Some(0)),
            ("a", 1, None),
            ("a-b", 0, Some(2)),
            ("a.txt", 0, Some(3)),
            ("a/x", 0, Some(1)),
            ("b", 1, None),
            ("b/c.txt", 0, Some(6)),
            ("b/d", 1, None),
            ("\u{e9}.txt", 0, Some(2)),
        ])
    );
    let a = c.ask(&list_req(3, &["."], 64, 0, BIG));
    let rows = c.list_rows(&a);
    assert_eq!(rows.len(), 11);
    assert_eq!(rows[9], ("b/d/e.txt".to_owned(), 0, Some(1)));
}

#[test]
fn list_kind_filters() {
    let ws = list_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 64, 2, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            ("B.txt", 0, Some(0)),
            ("a-b", 0, Some(2)),
            ("a.txt", 0, Some(3)),
            ("a/x", 0, Some(1)),
            ("b/c.txt", 0, Some(6)),
            ("b/d/e.txt", 0, Some(1)),
            ("\u{e9}.txt", 0, Some(2)),
        ])
    );
    let a = c.ask(&list_req(2, &["."], 64, 4, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, None),
            ("a", 1, None),
            ("b", 1, None),
            ("b/d", 1, None)
        ])
    );
    // A file root under "directories only" yields an empty table.
    assert_eq!(
        c.ask(&list_req(3, &["a.txt"], 0, 4, BIG)).text,
        "t:3\ni:3\ns:0\nd[0]{p,k,z}:\nz:0\nr:~\n"
    );
}

#[test]
fn list_argument_rules() {
    let ws = list_tree();
    for (name, request) in [
        ("files and dirs only", list_req(1, &["."], 1, 6, BIG)),
        ("unknown flag bit", list_req(1, &["."], 1, 8, BIG)),
        ("depth 65", list_req(1, &["."], 65, 0, BIG)),
    ] {
        let mut c = Client::new(ws.path());
        assert_eq!(c.ask(&request).text, error(1, 1, 100, 1, 1), "{name}");
    }
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&list_req(1, &["."], 64, 5, BIG)).response.status,
        Status::Success
    );
}

#[test]
fn list_merges_roots_and_drops_duplicates() {
    let ws = list_tree();
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["b", ".", "b/d"], 1, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, None),
            ("B.txt", 0, Some(0)),
            ("a", 1, None),
            ("a-b", 0, Some(2)),
            ("a.txt", 0, Some(3)),
            ("b", 1, None),
            ("b/c.txt", 0, Some(6)),
            ("b/d", 1, None),
            ("b/d/e.txt", 0, Some(1)),
            ("\u{e9}.txt", 0, Some(2)),
        ])
    );
    assert_eq!(
        c.ask(&list_req(2, &["b/c.txt", "b/c.txt"], 0, 0, BIG)).text,
        "t:3\ni:2\ns:0\nd[1]{p,k,z}:\n7,0,6\nz:0\nr:~\n"
    );
}

#[cfg(unix)]
#[test]
fn symlinks_are_listed_not_followed() {
    let ws = list_tree();
    symlink(&ws, "b", "link");
    symlink(&ws, "a.txt", "flink");
    symlink(&ws, "nowhere", "dangling");
    let mut c = Client::new(ws.path());
    let a = c.ask(&list_req(1, &["."], 2, 0, BIG));
    assert_eq!(
        c.list_rows(&a),
        owned([
            (".", 1, None),
            ("B.txt", 0, Some(0)),
            ("a", 1, None),
            ("a-b", 0, Some(2)),
            ("a.txt", 0, Some(3)),
            ("a/x", 0, Some(1)),
            ("b", 1, None),
            ("b/c.txt", 0, Some(6)),
            ("b/d", 1, None),
            ("dangling", 2, Some(0)),
            ("flink", 2, Some(0)),
            ("link", 2, Some(0)),
            ("\u{e9}.txt", 0, Some(2)),
        ])
    );
    // Files only: symlinks are not regular files.
    let a = c.ask(&list_req(2, &["."], 1, 2, BIG));
    assert!(
        c.list_rows(&a).iter().all(|(_, kind, _)| *kind == 0),
        "{}",
        a.text
    );
    // Search does not descend through `link` either.
    let a = c.ask(&search_req(3, "hello", &["."], 0, BIG));
    assert_eq!(c.search_rows(&a), hits([("b/c.txt", 1, 1, "hello")]));
}

#[cfg(unix)]
#[test]
fn a_symlinked_root_walks_its_canonical_target() {
    let ws = list_tree();
    symlink(&ws, "b", "link");
    symlink(&ws, "a.txt", "flink");
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&list_req(1, &["link"], 1, 0, BIG)).text,
        "t:3\ni:1\ns:0\np[3]{i,v}:\n1,b\n2,b/c.txt\n3,b/d\nd[3]{p,k,z}:\n1,1,~\n2,0,6\n3,1,~\nz:0\nr:~\n"
    );
    assert_eq!(
        c.ask(&list_req(2, &["flink"], 0, 0, BIG)).text,
        "t:3\ni:2\ns:0\np[1]{i,v}:\n4,a.txt\nd[1]{p,k,z}:\n4,0,3\nz:0\nr:~\n"
    );
    let a = c.ask(&search_req(3, "hello", &["link"], 0, BIG));
    assert_eq!(
        a.text,
        "t:3\ni:3\ns:0\nd[1]{p,l,c,t}:\n2,1,1,hello\nz:0\nr:~\n"
    );
    // Read reports the requested name.
    let a = c.ask(&read_req(4, &["flink"], 0, 0, 10, BIG));
    assert_eq!(
        a.text,
        format!(
            "t:3\ni:4\ns:0\np[1]{{i,v}}:\n5,flink\nd[1]{{p,o,n,h,t,r}}:\n5,0,3,{},333,~\nz:0\nr:~\n",
            hash(b"333")
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------------------------

#[test]
fn search_reports_the_first_match_of_each_line_with_byte_columns() {
    let ws = tree(&[(
        "m.txt",
        "h\u{e9}llo needle needle\nno match\nneedle\nlast needle".as_bytes(),
    )]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["m.txt"], 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,m.txt\nd[3]{p,l,c,t}:\n\
         1,1,8,\"h\u{e9}llo needle needle\"\n1,3,1,needle\n1,4,6,\"last needle\"\nz:0\nr:~\n"
    );
    // A multibyte match: the column counts bytes before it.
    let a = c.ask(&search_req(2, "\u{e9}llo", &["."], 0, BIG));
    assert_eq!(
        a.text,
        "t:3\ni:2\ns:0\nd[1]{p,l,c,t}:\n1,1,2,\"h\u{e9}llo needle needle\"\nz:0\nr:~\n"
    );
    // No match: an empty table.
    let a = c.ask(&search_req(3, "absent", &["."], 0, BIG));
    assert_eq!(a.text, "t:3\ni:3\ns:0\nd[0]{p,l,c,t}:\nz:0\nr:~\n");
}

#[test]
fn search_rows_are_sorted_by_path_bytes_then_line() {
    let ws = tree(&[
        ("b.txt", b"needle\n"),
        ("a/z.txt", b"x\nneedle\n"),
        ("a.txt", b"needle\nneedle\n"),
        ("Z.txt", b"needle\n"),
    ]);
    let mut c = Client::new(ws.path());
    let a = c.ask(&search_req(1, "needle", &["b.txt", "."], 0, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            ("Z.txt", 1, 1, "needle"),
            ("a.txt", 1, 1, "needle"),
            ("a.txt", 2, 1, "needle"),
            ("a/z.txt", 2, 1, "needle"),
            ("b.txt", 1, 1, "needle"),
        ])
    );
    // One dictionary row per file.
    assert_eq!(a.response.paths.len(), 4);
}

#[test]
fn search_literal_regex_and_case_flags() {
    let ws = tree(&[(
        "t.txt",
        b"Needle\nnEEDLE\nneedle\nnedle\nneeedle\na.b\naxb\nsay \"needle\"\n",
    )]);
    let mut c = Client::new(ws.path());
    // Case-sensitive by default: no line holds `NEEDLE`.
    let a = c.ask(&search_req(1, "NEEDLE", &["."], 0, BIG));
    assert_eq!(a.text, "t:3\ni:1\ns:0\nd[0]{p,l,c,t}:\nz:0\nr:~\n");
    let a = c.ask(&search_req(2, "NEEDLE", &["."], 2, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            ("t.txt", 1, 1, "Needle"),
            ("t.txt", 2, 1, "nEEDLE"),
            ("t.txt", 3, 1, "needle"),
            ("t.txt", 8, 6, "say \"needle\""),
        ])
    );
    let a = c.ask(&search_req(3, "ne+dle", &["."], 1, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            ("t.txt", 3, 1, "needle"),
            ("t.txt", 4, 1, "nedle"),
            ("t.txt", 5, 1, "neeedle"),
            ("t.txt", 8, 6, "say \"needle\""),
        ])
    );
    let a = c.ask(&search_req(4, "^NE+DLE$", &["."], 3, BIG));
    assert_eq!(
        c.search_rows(&a),
        hits([
            ("t.txt", 1, 1, "Needle"),
            ("t.txt", 2, 1, "nEEDLE"),
            ("t.txt", 3, 1, "needle"),
            ("t.txt", 4, 1, "nedle"),
            ("t.txt", 5, 1, "neeedle"),
        ])
    );
    // A literal query is not a pattern.
    let a = c.ask(&search_req(5, "a.b", &["."], 0, BIG));
    assert_eq!(c.search_rows(&a), hits([("t.txt", 6, 1, "a.b")]));
    // The text cell is escaped.
    let a = c.ask(&search_req(6, "say", &["."], 0, BIG));
    assert_eq!(
        a.text,
        "t:3\ni:6\ns:0\nd[1]{p,l,c,t}:\n1,8,1,\"say \\\"needle\\\"\"\nz:0\nr:~\n"
    );
}

#[test]
fn search_argument_rules() {
    let ws = tree(&[("t.txt", b"needle\n")]);
    for (name, request) in [
        ("unbalanced group", search_req(1, "(", &["."], 1, BIG)),
        ("unknown class", search_req(1, "\\p{Nope}", &["."], 1, BIG)),
        (
            "case-insensitive bad regex",
            search_req(1, "[z-a]", &["."], 3, BIG),
        ),
        ("unknown flag bit", search_req(1, "needle", &["."], 8, BIG)),
        ("empty query", search_req(1, "", &["."], 0, BIG)),
    ] {
        let mut c = Client::new(ws.path());
        assert_eq!(c.ask(&request).text, error(1, 1, 100, 1, 1), "{name}");
    }
    // `(` is fine as a literal.
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "(", &["."], 0, BIG)).text,
        "t:3\ni:1\ns:0\nd[0]{p,l,c,t}:\nz:0\nr:~\n"
    );
}

#[test]
fn crlf_files_set_the_normalized_bit_even_without_rows() {
    let ws = tree(&[
        ("crlf.txt", b"alpha\r\nbeta\r\n"),
        ("plain.txt", b"needle\n"),
    ]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,plain.txt\nd[1]{p,l,c,t}:\n1,1,1,needle\nz:4\nr:~\n"
    );
    assert_eq!(
        c.ask(&search_req(2, "absent", &["."], 0, BIG)).text,
        "t:3\ni:2\ns:0\nd[0]{p,l,c,t}:\nz:4\nr:~\n"
    );
    // The CR is stripped from the text, and `$` matches before it.
    assert_eq!(
        c.ask(&search_req(3, "^beta$", &["crlf.txt"], 1, BIG)).text,
        "t:3\ni:3\ns:0\np[1]{i,v}:\n2,crlf.txt\nd[1]{p,l,c,t}:\n2,2,1,beta\nz:4\nr:~\n"
    );
    // Files outside the roots do not count.
    assert_eq!(
        c.ask(&search_req(4, "needle", &["plain.txt"], 0, BIG)).text,
        "t:3\ni:4\ns:0\nd[1]{p,l,c,t}:\n1,1,1,needle\nz:0\nr:~\n"
    );
    // A lone CR is not a line end: kept in the text, no normalized bit.
    let ws = tree(&[("cr.txt", b"a\rb needle\n")]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,cr.txt\nd[1]{p,l,c,t}:\n1,1,5,\"a\\rb needle\"\nz:0\nr:~\n"
    );
}

#[test]
fn non_utf8_files_are_skipped_as_partial() {
    let ws = tree(&[("bin.dat", b"needle \xff\n"), ("ok.txt", b"needle\n")]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, BIG)).text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,ok.txt\nd[1]{p,l,c,t}:\n1,1,1,needle\nz:16\nr:~\n"
    );
    assert_eq!(
        c.ask(&search_req(2, "needle", &["bin.dat"], 0, BIG)).text,
        "t:3\ni:2\ns:0\nd[0]{p,l,c,t}:\nz:16\nr:~\n"
    );
    std::fs::write(ws.path().join("crlf.txt"), b"x\r\n").expect("write crlf.txt");
    assert_eq!(
        c.ask(&search_req(3, "needle", &["."], 0, BIG)).text,
        "t:3\ni:3\ns:0\nd[1]{p,l,c,t}:\n1,1,1,needle\nz:20\nr:~\n"
    );
}

#[test]
fn search_file_ceiling_is_601() {
    let ws = tree(&[("ok.txt", b"needle\n")]);
    let big = std::fs::File::create(ws.path().join("big.bin")).expect("create big.bin");
    big.set_len(64 * 1024 * 1024 + 1)
        .expect("sparse 64 MiB + 1");
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&search_req(1, "needle", &["."], 0, BIG)).text,
        error(1, 9, 601, 1, 4)
    );
}

// ---------------------------------------------------------------------------------------------
// Read
// ---------------------------------------------------------------------------------------------

/// `t:3 i s:0 [p…] d[1]{p,o,n,h,t,r}: <row> z r:~` for a single read row.
fn read_answer(id: u64, delta: &str, row: &str, z: u8) -> String {
    format!("t:3\ni:{id}\ns:0\n{delta}d[1]{{p,o,n,h,t,r}}:\n{row}\nz:{z}\nr:~\n")
}

#[test]
fn read_byte_mode_clamps_to_the_file() {
    let content = b"hello world\n";
    let h = hash(content);
    let ws = tree(&[("h.txt", content)]);
    let mut c = Client::new(ws.path());
    let cases: [(u64, u64, &str); 6] = [
        (6, 5, "6,5,{h},world,~"),
        (6, 100, "6,6,{h},\"world\\n\",~"),
        (0, 1, "0,1,{h},h,~"),
        (0, 12, "0,12,{h},\"hello world\\n\",~"),
        (12, 5, "12,0,{h},\"\",~"),
        (100, 5, "12,0,{h},\"\",~"),
    ];
    for (i, (offset, count, row)) in cases.into_iter().enumerate() {
        let id = i as u64 + 1;
        let delta = if id == 1 { "p[1]{i,v}:\n1,h.txt\n" } else { "" };
        let row = format!("1,{}", row.replace("{h}", &h));
        assert_eq!(
            c.ask(&read_req(id, &["h.txt"], 0, offset, count, BIG)).text,
            read_answer(id, delta, &row, 0),
            "o={offset} n={count}"
        );
    }
}

#[test]
fn read_line_mode_counts_lf_terminated_lines() {
    let content = b"one\ntwo\nthree";
    let h = hash(content);
    let ws = tree(&[
        ("l.txt", content),
        ("empty.txt", b""),
        ("crlf.txt", b"a\r\nb\r\n"),
    ]);
    let mut c = Client::new(ws.path());
    let cases: [(u64, u64, &str); 6] = [
        (1, 1, "1,1,{h},\"one\\n\",~"),
        (2, 1, "2,1,{h},\"two\\n\",~"),
        (2, 5, "2,2,{h},\"two\\nthree\",~"),
        (3, 1, "3,1,{h},three,~"),
        (1, 3, "1,3,{h},\"one\\ntwo\\nthree\",~"),
        (4, 1, "4,0,{h},\"\",~"),
    ];
    for (i, (offset, count, row)) in cases.into_iter().enumerate() {
        let id = i as u64 + 1;
        let delta = if id == 1 { "p[1]{i,v}:\n1,l.txt\n" } else { "" };
        let row = format!("1,{}", row.replace("{h}", &h));
        assert_eq!(
            c.ask(&read_req(id, &["l.txt"], 1, offset, count, BIG)).text,
            read_answer(id, delta, &row, 0),
            "o={offset} n={count}"
        );
    }
    let empty = hash(b"");
    assert_eq!(
        c.ask(&read_req(10, &["empty.txt"], 1, 1, 1, BIG)).text,
        read_answer(
            10,
            "p[1]{i,v}:\n2,empty.txt\n",
            &format!("2,1,0,{empty},\"\",~"),
            0
        )
    );
    assert_eq!(
        c.ask(&read_req(11, &["empty.txt"], 0, 0, 1, BIG)).text,
        read_answer(11, "", &format!("2,0,0,{empty},\"\",~"), 0)
    );
    // Read does not normalise line ends.
    assert_eq!(
        c.ask(&read_req(12, &["crlf.txt"], 1, 2, 1, BIG)).text,
        read_answer(
            12,
            "p[1]{i,v}:\n3,crlf.txt\n",
            &format!("3,2,1,{},\"b\\r\\n\",~", hash(b"a\r\nb\r\n")),
            0
        )
    );
}

#[test]
fn read_argument_rules() {
    let ws = tree(&[("a.txt", b"abc\n")]);
    for (name, request) in [
        ("count 0", read_req(1, &["a.txt"], 0, 0, 0, BIG)),
        ("line 0", read_req(1, &["a.txt"], 1, 0, 1, BIG)),
        ("mode 2", read_req(1, &["a.txt"], 2, 0, 1, BIG)),
        ("no paths", read_req(1, &[], 0, 0, 1, BIG)),
    ] {
        let mut c = Client::new(ws.path());
        assert_eq!(c.ask(&request).text, error(1, 1, 100, 1, 1), "{name}");
    }
    // Byte offset 0 is fine.
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["a.txt"], 0, 0, 1, BIG))
            .response
            .status,
        Status::Success
    );
}

#[test]
fn duplicate_read_paths_share_one_id() {
    let ws = tree(&[("h.txt", b"hi\n"), ("l.txt", b"lo\n")]);
    let (hh, hl) = (hash(b"hi\n"), hash(b"lo\n"));
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["h.txt", "l.txt", "h.txt"], 0, 0, 2, BIG))
            .text,
        format!(
            "t:3\ni:1\ns:0\np[2]{{i,v}}:\n1,h.txt\n2,l.txt\nd[3]{{p,o,n,h,t,r}}:\n\
             1,0,2,{hh},hi,~\n2,0,2,{hl},lo,~\n1,0,2,{hh},hi,~\nz:0\nr:~\n"
        )
    );
}

#[test]
fn non_utf8_selections_are_retained_exactly() {
    let content = b"ab\xffcd\xc3\xa9";
    let h = hash(content);
    let ws = tree(&[("bin.dat", content)]);
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["bin.dat"], 0, 1, 3, BIG)).text,
        read_answer(1, "p[1]{i,v}:\n1,bin.dat\n", &format!("1,1,3,{h},~,@1"), 10)
    );
    assert_eq!(c.retained(1), b"b\xffc");
    // A valid slice of the same file is inline.
    assert_eq!(
        c.ask(&read_req(2, &["bin.dat"], 0, 3, 2, BIG)).text,
        read_answer(2, "", &format!("1,3,2,{h},cd,~"), 0)
    );
    // Half a character is not UTF-8.
    assert_eq!(
        c.ask(&read_req(3, &["bin.dat"], 0, 5, 1, BIG)).text,
        read_answer(3, "", &format!("1,5,1,{h},~,@2"), 10)
    );
    assert_eq!(c.retained(2), b"\xc3");
    // The whole character is text.
    assert_eq!(
        c.ask(&read_req(4, &["bin.dat"], 0, 5, 2, BIG)).text,
        read_answer(4, "", &format!("1,5,2,{h},\"\u{e9}\",~"), 0)
    );
    // Line mode too; the whole file is one unterminated line.
    assert_eq!(
        c.ask(&read_req(5, &["bin.dat"], 1, 1, 1, BIG)).text,
        read_answer(5, "", &format!("1,1,1,{h},~,@3"), 10)
    );
    assert_eq!(c.retained(3), content);
}

#[test]
fn text_over_half_the_limit_is_retained() {
    // tok 100 → L = 400 → inline budget 200 encoded bytes.
    let budget = (100, 10);
    let x200 = "x".repeat(200);
    let x201 = "x".repeat(201);
    let lf99 = "\n".repeat(99);
    let lf100 = "\n".repeat(100);
    let ws = tree(&[
        ("x200", x200.as_bytes()),
        ("x201", x201.as_bytes()),
        ("lf99", lf99.as_bytes()),
        ("lf100", lf100.as_bytes()),
    ]);
    let mut c = Client::new(ws.path());
    let a = c.ask(&read_req(1, &["x200"], 0, 0, 1000, budget));
    assert_eq!(
        a.text,
        read_answer(
            1,
            "p[1]{i,v}:\n1,x200\n",
            &format!("1,0,200,{},{x200},~", hash(x200.as_bytes())),
            0
        )
    );
    let a = c.ask(&read_req(2, &["x201"], 0, 0, 1000, budget));
    assert_eq!(
        a.text,
        read_answer(
            2,
            "p[1]{i,v}:\n2,x201\n",
            &format!("2,0,201,{},~,@1", hash(x201.as_bytes())),
            10
        )
    );
    assert_eq!(c.retained(1), x201.as_bytes());
    // The budget counts encoded bytes: 99 LFs encode to 2 + 198 = 200 bytes, 100 LFs to 202.
    let a = c.ask(&read_req(3, &["lf99"], 0, 0, 1000, budget));
    assert_eq!(a.response.status, Status::Success);
    assert!(
        matches!(&a.response.data, Some(Data::Read(rows)) if rows[0].text.as_deref() == Some(lf99.as_str()))
    );
    let a = c.ask(&read_req(4, &["lf100"], 0, 0, 1000, budget));
    assert_eq!(
        a.text,
        read_answer(
            4,
            "p[1]{i,v}:\n4,lf100\n",
            &format!("4,0,100,{},~,@2", hash(lf100.as_bytes())),
            10
        )
    );
    assert_eq!(c.retained(2), lf100.as_bytes());
}

#[test]
fn inline_text_is_budgeted_cumulatively_in_request_order() {
    let budget = (150, 10); // L = 600, inline budget 300
    let a200 = "a".repeat(200);
    let b200 = "b".repeat(200);
    let ws = tree(&[
        ("a", a200.as_bytes()),
        ("b", b200.as_bytes()),
        ("c", b"small"),
    ]);
    let (ha, hb, hc) = (hash(a200.as_bytes()), hash(b200.as_bytes()), hash(b"small"));
    let mut c = Client::new(ws.path());
    // `a` fits (200), `b` would make 400 and is retained; `c` still fits beside `a` (205).
    assert_eq!(
        c.ask(&read_req(1, &["a", "b", "c"], 0, 0, 1000, budget))
            .text,
        format!(
            "t:3\ni:1\ns:0\np[3]{{i,v}}:\n1,a\n2,b\n3,c\nd[3]{{p,o,n,h,t,r}}:\n\
             1,0,200,{ha},{a200},~\n2,0,200,{hb},~,@1\n3,0,5,{hc},small,~\nz:10\nr:~\n"
        )
    );
    assert_eq!(c.retained(1), b200.as_bytes());
}

#[test]
fn inline_text_moves_out_last_row_first_until_the_answer_fits() {
    // tok 120: L = 480, inline budget 240. `a` and `c` are inline by the budget, but the answer
    // would be 511 bytes (with 20-digit references), so `c` and then `a` are retained too.
    // Aliases still follow the rows.
    let a200 = "a".repeat(200);
    let b200 = "b".repeat(200);
    let ws = tree(&[
        ("a", a200.as_bytes()),
        ("b", b200.as_bytes()),
        ("c", b"small"),
    ]);
    let (ha, hb, hc) = (hash(a200.as_bytes()), hash(b200.as_bytes()), hash(b"small"));
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["a", "b", "c"], 0, 0, 1000, (120, 10)))
            .text,
        format!(
            "t:3\ni:1\ns:0\np[3]{{i,v}}:\n1,a\n2,b\n3,c\nd[3]{{p,o,n,h,t,r}}:\n\
             1,0,200,{ha},~,@1\n2,0,200,{hb},~,@2\n3,0,5,{hc},~,@3\nz:10\nr:~\n"
        )
    );
    assert_eq!(c.retained(1), a200.as_bytes());
    assert_eq!(c.retained(2), b200.as_bytes());
    assert_eq!(c.retained(3), b"small");
}

#[test]
fn retained_rows_get_aliases_in_row_order_and_share_identical_content() {
    let ws = tree(&[("n1", b"\xff1"), ("n2", b"\xff2")]);
    let (h1, h2) = (hash(b"\xff1"), hash(b"\xff2"));
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["n2", "n1", "n2"], 0, 0, 10, BIG)).text,
        format!(
            "t:3\ni:1\ns:0\np[2]{{i,v}}:\n1,n2\n2,n1\nd[3]{{p,o,n,h,t,r}}:\n\
             1,0,2,{h2},~,@1\n2,0,2,{h1},~,@2\n1,0,2,{h2},~,@1\nz:10\nr:~\n"
        )
    );
    assert_eq!(c.retained(1), b"\xff2");
    assert_eq!(c.retained(2), b"\xff1");
    assert_eq!(c.session.store().len(), 2);
}

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
    // Budget checks come before any file is opened.
    assert_eq!(
        c.ask(&read_req(
            1,
            &["a.txt", "b.txt", "missing"],
            0,
            0,
            2,
            (1000, 2)
        ))
        .text,
        budget_error
    );
    assert_eq!(
        c.ask(&read_req(1, &["a.txt"], 0, 0, 2, (10, 10))).text,
        budget_error
    );
    assert_eq!(
        c.ask(&read_req(1, &["missing"], 0, 0, 2, (10, 10))).text,
        budget_error
    );
    // Exactly `rec` paths is fine.
    let a = c.ask(&read_req(2, &["a.txt", "b.txt"], 0, 0, 2, (1000, 2)));
    assert_eq!(a.response.status, Status::Success);
}

#[test]
fn read_file_ceiling_is_601() {
    let ws = tree(&[]);
    let big = std::fs::File::create(ws.path().join("huge.bin")).expect("create huge.bin");
    big.set_len(128 * 1024 * 1024 + 1)
        .expect("sparse 128 MiB + 1");
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&read_req(1, &["huge.bin"], 0, 0, 1, BIG)).text,
        error(1, 9, 601, 1, 4)
    );
}

// ---------------------------------------------------------------------------------------------
// §5 row-prefix truncation and retained evidence
// ---------------------------------------------------------------------------------------------

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

fn ten_files() -> TempDir {
    let names: Vec<String> = (1..=10).map(|n| format!("f{n:02}.txt")).collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    tree(&files)
}

fn list_evidence() -> String {
    let rows: String = (1..=10).map(|n| format!("f{n:02}.txt,0,1\n")).collect();
    format!("k:l\nd[11]{{p,k,z}}:\n.,1,~\n{rows}")
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
         d[4]{p,k,z}:\n1,1,~\n2,0,1\n3,0,1\n4,0,1\nz:11\nr:@1\n"
    );
    assert_eq!(
        String::from_utf8(c.retained(1)).expect("UTF-8 evidence"),
        list_evidence()
    );
    // L = 272 → 3 rows; the same evidence is the same reference.
    assert_eq!(
        c.ask(&list_req(2, &["."], 1, 0, (68, 1000))).text,
        "t:3\ni:2\ns:0\nd[3]{p,k,z}:\n1,1,~\n2,0,1\n3,0,1\nz:11\nr:@1\n"
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
        "t:3\ni:1\ns:0\np[2]{i,v}:\n1,.\n2,f01.txt\nd[2]{p,k,z}:\n1,1,~\n2,0,1\nz:11\nr:@1\n"
    );
    assert_eq!(
        String::from_utf8(c.retained(1)).expect("UTF-8 evidence"),
        list_evidence()
    );
}

// ---------------------------------------------------------------------------------------------
// Path dictionary and output ceiling
// ---------------------------------------------------------------------------------------------

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
            (".", 1, None),
            ("src", 1, None),
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
    };
    let mut c = Client::with(ws.path(), config);
    let full = |id: u64| format!("t:3\ni:{id}\ns:0\nd[1]{{p,k,z}}:\n1,1,~\nz:0\nr:~\n");
    let first = c.ask(&list_req(1, &["."], 0, 0, BIG));
    assert_eq!(
        first.text,
        "t:3\ni:1\ns:0\np[1]{i,v}:\n1,.\nd[1]{p,k,z}:\n1,1,~\nz:0\nr:~\n"
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
    assert_eq!(c.retained(1), b"k:l\nd[1]{p,k,z}:\n.,1,~\n");
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
    assert_eq!(
        c.ask(&read_req(7, &["."], 0, 0, 1, BIG)).text,
        error(7, 9, 600, 1, 5)
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
    let fits = "t:3\ni:1\ns:0\np[1]{i,v}:\n1,.\nd[1]{p,k,z}:\n1,1,~\nz:0\nr:~\n";
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
