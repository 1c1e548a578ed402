use super::stream::{END_LINES, annotate_gaps, cut_lines};
use super::*;
use ash_engine::protocol::{
    Content, Digest, Edit, ErrorCode, ErrorRecord, MutationState, PatchArgs, PatchFile, PatchRow,
    ReadArgs, ReadMode, ReadRow, SearchArgs, SearchRow, Status,
};
use ash_engine::store::StoreQuota;

fn names(pairs: &[(u64, &str)]) -> PathNames {
    let mut names = PathNames::default();
    let mut r = Response::success(1, Data::List(Vec::new()));
    r.paths = pairs.iter().map(|(i, p)| (*i, (*p).to_owned())).collect();
    names.learn(&r);
    names
}

fn view(tool: &'static str, response: &Response, names: &PathNames) -> String {
    view_of(tool, response, names, None, &[])
}

fn view_of(
    tool: &'static str,
    response: &Response,
    names: &PathNames,
    op: Option<&Op>,
    preimages: &[CurrentFile],
) -> String {
    let store = RetainedStore::new(StoreQuota::default());
    let plane = ComputePlane::new(1).unwrap();
    render(
        response,
        &ViewContext {
            tool,
            names,
            store: &store,
            plane: &plane,
            exec_limit: 16384,
            sandbox_refused: false,
            op,
            preimages,
        },
    )
}

#[test]
fn read_names_each_file_and_numbers_its_lines() {
    // Id 2 was introduced by an earlier answer: the row names the file itself.
    let names = names(&[(1, "a.txt"), (2, "src/app.py")]);
    let row = |path, text: &str| ReadRow {
        path,
        offset: 41,
        len: 2,
        digest: Digest::of(b"x\n"),
        text: Some(text.into()),
        reference: None,
    };
    let mut response = Response::success(
        7,
        Data::Read(vec![row(2, "x = 1\ny = 2\n"), row(1, "last\nno newline")]),
    );
    response.paths.clear();
    assert_eq!(
        view("read", &response, &names),
        "s:ok\nd[2]{file,text}:\nsrc/app.py,>>>1\na.txt,>>>2\n>>>1 src/app.py\n41\tx = 1\n42\ty = 2\n>>>2 a.txt\n41\tlast\n42\tno newline\n(no newline at end)\n"
    );
}

#[test]
fn a_read_numbers_its_first_and_last_lines_and_every_fifth() {
    let names = names(&[(1, "a.txt")]);
    let text: String = (3..=16).map(|n| format!("line {n}\n")).collect();
    let response = Response::success(
        1,
        Data::Read(vec![ReadRow {
            path: 1,
            offset: 3,
            len: 14,
            digest: Digest::of(b""),
            text: Some(text),
            reference: None,
        }]),
    );
    let shown = view("read", &response, &names);
    let block = shown
        .split_once("\n>>>1\n")
        .map(|(_, b)| b)
        .unwrap_or_default();
    let numbers: Vec<&str> = block
        .lines()
        .map(|l| l.split_once('\t').map_or("?", |(n, _)| n))
        .collect();
    assert_eq!(
        numbers,
        [
            "3", "", "5", "", "", "", "", "10", "", "", "", "", "15", "16"
        ],
        "{shown}"
    );
    assert!(block.lines().all(|l| l.contains("\tline ")), "{shown}");
}

#[test]
fn a_read_in_bytes_is_not_numbered() {
    let names = names(&[(1, "a.txt")]);
    let response = Response::success(
        1,
        Data::Read(vec![ReadRow {
            path: 1,
            offset: 0,
            len: 4,
            digest: Digest::of(b""),
            text: Some("ab\ncd\n".into()),
            reference: None,
        }]),
    );
    let op = Op::Read(ReadArgs {
        paths: vec!["a.txt".into()],
        mode: ReadMode::Bytes,
        offset: 0,
        count: 4,
    });
    let text = view_of("read", &response, &names, Some(&op), &[]);
    assert!(
        text.starts_with("s:ok\nd[1]{file,from,count,text}:\na.txt,0,4,>>>1\n"),
        "bytes keep their offset and count: {text}"
    );
    assert!(text.ends_with(",>>>1\n>>>1\nab\ncd\n"), "{text}");
}

#[test]
fn an_error_is_a_word_with_what_to_do_next() {
    let response = Response::error(3, ErrorRecord::typical(ErrorCode::UnknownReference));
    let text = view("snapshot", &response, &names(&[]));
    assert!(
        text.starts_with("s:not_found\nerror:unknown_ref\nnext:\"That @N is not a retained value"),
        "{text}"
    );
    assert!(!text.contains("e{"), "no numeric error record: {text}");
    assert_eq!(response.status, Status::NotFound);
}

#[test]
fn flags_are_words() {
    let mut response = Response::success(2, Data::Search(Vec::new()));
    response.flags = Flags::TRUNCATED | Flags::REDUCED | Flags::RETAINED | Flags::NORMALIZED;
    response.reference = Some(5);
    let text = view("search", &response, &names(&[]));
    assert!(
        text.contains("flags:[cut,reduced,crlf_as_lf,retained]\nr:@5\n"),
        "{text}"
    );
    assert!(!text.contains("z:"), "{text}");
}

#[test]
fn search_lists_lines_under_their_file_and_counts_every_match() {
    let names = names(&[(1, "a.py"), (2, "b.py")]);
    let row = |path, line, text: &str| SearchRow {
        path,
        line,
        column: 1,
        text: text.into(),
    };
    let response = Response::success(
        2,
        Data::Search(vec![
            row(1, 3, "old(old(x))"),
            row(1, 9, "old"),
            row(2, 1, "old = 1"),
        ]),
    );
    let op = Op::Search(SearchArgs {
        query: "old".into(),
        paths: vec![".".into()],
        regex: false,
        case_insensitive: false,
        hidden: false,
    });
    assert_eq!(
        view_of("search", &response, &names, Some(&op), &[]),
        "s:ok\nd{files,lines,matches,text}:\n2,3,4,>>>1\n>>>1\na.py\n3 (2 matches)\told(old(x))\n9\told\nb.py\n1\told = 1\n"
    );
}

#[test]
fn an_edit_says_what_it_added_removed_and_where() {
    let names = names(&[(1, "a.py")]);
    let before = "one\ntwo\nthree\nfour\nfive\n";
    let edit = |offset: u64, delete: u64, text: &str| Edit {
        offset,
        delete,
        insert: Content::Text(text.into()),
    };
    // "two" becomes two lines; "four\n" goes.
    let op = Op::Patch(PatchArgs {
        files: vec![PatchFile {
            path: "a.py".into(),
            digest: Digest::of(before.as_bytes()),
            edits: vec![edit(4, 4, "TWO\n2b\n"), edit(14, 5, "")],
        }],
    });
    let preimages = [CurrentFile {
        path: "a.py".into(),
        digest: Digest::of(before.as_bytes()),
        bytes: before.as_bytes().to_vec(),
    }];
    let response = Response::success(
        4,
        Data::Patch(vec![PatchRow {
            path: 1,
            state: MutationState::Committed,
            digest: Some(Digest::of(b"")),
        }]),
    );
    assert_eq!(
        view_of("edit", &response, &names, Some(&op), &preimages),
        "s:ok\nd[1]{file,state,added,removed,at}:\na.py,committed,2,2,[2-3,5+0]\n"
    );
}

#[test]
fn a_cut_search_says_where_the_other_rows_are() {
    let names = names(&[(1, "a.txt")]);
    let mut response = Response::success(
        2,
        Data::Search(vec![SearchRow {
            path: 1,
            line: 4,
            column: 1,
            text: "hit".into(),
        }]),
    );
    response.flags = Flags::TRUNCATED | Flags::REDUCED | Flags::RETAINED;
    response.reference = Some(5);
    let text = view("search", &response, &names);
    assert!(text.contains("\"offset\\\":4"), "{text}");
    assert!(
        text.contains("flags:[cut,reduced,retained]\nr:@5\n>>>1\na.txt\n4\thit\n"),
        "{text}"
    );
}

#[test]
fn a_line_cut_keeps_whole_lines_and_names_the_gap() {
    let text: String = (1..=1000).map(|n| format!("line {n}\n")).collect();
    let mut with_error = text.clone();
    with_error = with_error.replace("line 500\n", "error: boom at 500\n");
    let view = cut_lines(&with_error, 200, true, "stdout", 3);
    assert!(view.text.starts_with("line 1\n"), "{}", view.text);
    assert!(view.text.ends_with("line 1000\n"), "{}", view.text);
    for line in view.text.lines() {
        assert!(
            line.starts_with("line ") || line.starts_with("⋯ lines "),
            "{line}"
        );
    }
    // The stated rule: the first and last END_LINES lines when they fit.
    let big = cut_lines(&text, 4000, false, "stdout", 3);
    assert!(big.text.starts_with("line 1\n"), "{}", big.text);
    assert!(
        big.text.contains(&format!(
            "line {END_LINES}\n⋯ lines {}-960 of stdout left out",
            END_LINES + 1
        )),
        "{}",
        big.text
    );
    assert!(
        big.note
            .contains(&format!("kept lines 1-{END_LINES} and 961-1000 of 1000")),
        "{}",
        big.note
    );
    let first: usize = view.text.lines().count();
    assert!(first > 10, "{}", view.text);
    assert!(
        view.note.contains("\"ref\":\"@3\",\"kind\":\"lines\""),
        "{}",
        view.note
    );
    assert!(
        view.note.contains("500: error: boom at 500"),
        "{}",
        view.note
    );
}

#[test]
fn gap_markers_name_the_retained_lines_they_stand_for() {
    // 2 lines, ⋯3, a line repeated 4 times (×4), a 2-line block 3 times (×3#2), ⋯2, 1 line:
    // 2 + 3 + 4 + 6 + 2 + 1 = 18 raw lines.
    let shown = "a\nb\n⋯3\nerror x\n×4\np\nq\n×3#2\n⋯2\nz\n";
    assert_eq!(
        annotate_gaps(shown, 18).as_deref(),
        Some("a\nb\n⋯3 (lines 3-5)\nerror x\n×4\np\nq\n×3#2\n⋯2 (lines 16-17)\nz\n")
    );
    assert_eq!(
        annotate_gaps(shown, 19),
        None,
        "a count that does not add up"
    );
    assert_eq!(annotate_gaps("a\n×2\n", 2), None, "nothing to annotate");
}
