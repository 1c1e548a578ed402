use super::stream::{annotate_gaps, cut_lines};
use super::*;
use ash_engine::protocol::{ErrorCode, ErrorRecord, ReadRow, SearchRow, Status};
use ash_engine::store::StoreQuota;

fn names(pairs: &[(u64, &str)]) -> PathNames {
    let mut names = PathNames::default();
    let mut r = Response::success(1, Data::List(Vec::new()));
    r.paths = pairs.iter().map(|(i, p)| (*i, (*p).to_owned())).collect();
    names.learn(&r);
    names
}

fn view(tool: &'static str, response: &Response, names: &PathNames) -> String {
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
        },
    )
}

#[test]
fn read_drops_envelope_digest_and_default_trailer_and_defines_its_ids() {
    // Id 2 was introduced by an earlier answer: the view defines it again.
    let names = names(&[(1, "a.txt"), (2, "src/app.py")]);
    let mut response = Response::success(
        7,
        Data::Read(vec![ReadRow {
            path: 2,
            offset: 1,
            len: 1,
            digest: ash_engine::protocol::Digest::of(b"x\n"),
            text: Some("x\n".into()),
            reference: None,
        }]),
    );
    response.paths.clear();
    assert_eq!(
        view("read", &response, &names),
        "s:0\np[1]{i,v}:\n2,src/app.py\nd[1]{p,o,n,t,r}:\n2,1,1,\"x\\n\",~\n"
    );
}

#[test]
fn multi_line_texts_are_shown_raw_after_the_answer() {
    let names = names(&[(1, "a.py")]);
    let row = |text: &str| ReadRow {
        path: 1,
        offset: 1,
        len: 2,
        digest: ash_engine::protocol::Digest::of(b""),
        text: Some(text.into()),
        reference: None,
    };
    let response = Response::success(
        2,
        Data::Read(vec![row("print(\"a\")\nx = 1\n"), row("last\nno newline")]),
    );
    assert_eq!(
        view("read", &response, &names),
        "s:0\np[1]{i,v}:\n1,a.py\nd[2]{p,o,n,t,r}:\n1,1,2,>>>1,~\n1,1,2,>>>2,~\n>>>1\nprint(\"a\")\nx = 1\n>>>2\nlast\nno newline\n(no newline at end)\n"
    );
}

#[test]
fn an_error_names_what_to_do_next() {
    let response = Response::error(3, ErrorRecord::typical(ErrorCode::UnknownReference));
    let text = view("snapshot", &response, &names(&[]));
    assert!(
        text.starts_with("s:4\ne{c,q,p,x,a}:\n700,1,2,~,~\nnext:\"That @N is not a retained value"),
        "{text}"
    );
    assert_eq!(response.status, Status::NotFound);
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
    assert!(text.ends_with("z:11\nr:@5\n"), "{text}");
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
