use ansa_sessions::protocol::{DIFF_LINES, DiffSign, ReportTone, TAIL_LINES};
use ash_engine::protocol::{
    Data, ErrorCode, ErrorRecord, ExecResult, ExitKind, Flags, PatchRow, Response, SearchRow,
    Status,
};

use super::report;
use super::retained::{LineCount, RetainedText, count_real_lines};
use crate::tools::{
    EditArgs, ExecArgs, FileAction, FileActionKind, FileEdits, FilesArgs, SearchArgs, TextEdit,
    ToolArgs,
};

fn exec_args() -> ToolArgs {
    ToolArgs::Exec(ExecArgs {
        program: "cargo".into(),
        args: vec!["test".into()],
        cwd: ".".into(),
        env: Vec::new(),
        stdin: None,
        timeout_ms: None,
        outside_sandbox: false,
    })
}

fn exec(kind: ExitKind, code: Option<i64>, stdout: &str, stderr: &str) -> Response {
    let text = |t: &str| (!t.is_empty()).then(|| t.to_owned());
    let mut response = Response::success(
        1,
        Data::Exec(ExecResult {
            kind,
            code,
            ms: 12_500,
            stdout: text(stdout),
            stderr: text(stderr),
            stdout_ref: None,
            stderr_ref: None,
        }),
    );
    if !(kind == ExitKind::Exited && code == Some(0)) {
        response.status = Status::Failed;
        response.error = Some(ErrorRecord::typical(ErrorCode::ProcessFailed));
    }
    response
}

#[test]
fn exec_says_how_the_command_ended_with_its_last_lines() {
    let ok = report(
        &exec_args(),
        &exec(ExitKind::Exited, Some(0), "a\nb\n\nc\nd\n", ""),
    );
    assert_eq!((ok.tone, ok.summary.as_str()), (ReportTone::Ok, "exit 0"));
    assert_eq!(ok.tail, ["b", "c", "d"], "the last non-empty lines");
    assert_eq!(ok.tail.len(), TAIL_LINES);
    assert_eq!(ok.lines, 4, "every non-empty line of the output is counted");
    assert_eq!(ok.hidden_lines(), 1, "the row says one more line exists");

    let failed = report(
        &exec_args(),
        &exec(
            ExitKind::Exited,
            Some(2),
            "running 3 tests\n",
            "error: 1 failed\n",
        ),
    );
    assert_eq!(
        (failed.tone, failed.summary.as_str()),
        (ReportTone::Warn, "exit 2")
    );
    assert_eq!(
        failed.tail,
        ["error: 1 failed"],
        "a failure shows stderr first"
    );
    assert_eq!(failed.lines, 2, "both streams are counted");

    let cases = [
        (ExitKind::Signaled, Some(9), "killed by signal 9"),
        (ExitKind::TimedOut, None, "timed out after 12 s"),
        (ExitKind::Cancelled, None, "cancelled"),
    ];
    for (kind, code, summary) in cases {
        let r = report(&exec_args(), &exec(kind, code, "", ""));
        assert_eq!((r.tone, r.summary.as_str()), (ReportTone::Warn, summary));
        assert!(r.tail.is_empty());
    }
}

#[test]
fn a_command_that_cannot_start_is_a_failure_with_its_reason() {
    let not_found = Response::error(1, ErrorRecord::typical(ErrorCode::PathNotFound));
    let r = report(&exec_args(), &not_found);
    assert_eq!(r.tone, ReportTone::Error);
    assert_eq!(r.summary, "failed to start: program or cwd not found (201)");
    let spawn = Response::error(1, ErrorRecord::typical(ErrorCode::SpawnFailed));
    assert_eq!(
        report(&exec_args(), &spawn).summary,
        "failed to start (400)"
    );
}

#[test]
fn search_counts_matches_and_files_and_says_when_it_was_cut() {
    let args = ToolArgs::Search(SearchArgs {
        query: "x".into(),
        paths: vec![".".into()],
        regex: false,
        case_insensitive: false,
        include_hidden: false,
    });
    let row = |path, line| SearchRow {
        path,
        line,
        column: 1,
        text: "x".into(),
    };
    let mut response = Response::success(1, Data::Search(vec![row(1, 1), row(1, 9), row(2, 3)]));
    let r = report(&args, &response);
    assert_eq!(r.summary, "3 matches in 2 files");
    assert!(!r.cut);
    response.flags = Flags::TRUNCATED;
    assert!(report(&args, &response).cut);
    let none = Response::success(1, Data::Search(Vec::new()));
    assert_eq!(report(&args, &none).summary, "no matches");
}

fn edit_args(files: &[(&str, &[(&str, &str)])]) -> ToolArgs {
    ToolArgs::Edit(EditArgs {
        files: files
            .iter()
            .map(|(path, edits)| FileEdits {
                path: (*path).into(),
                edits: edits
                    .iter()
                    .map(|(old, new)| TextEdit {
                        old: (*old).into(),
                        new: (*new).into(),
                    })
                    .collect(),
            })
            .collect(),
    })
}

fn patched() -> Response {
    Response::success(1, Data::Patch(Vec::<PatchRow>::new()))
}

#[test]
fn an_edit_is_a_line_diff_counted_per_file() {
    let args = edit_args(&[(
        "src/app.py",
        &[("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 20\nc = 3\nd = 4\n")],
    )]);
    let r = report(&args, &patched());
    assert_eq!((r.tone, r.summary.as_str()), (ReportTone::Ok, "+2 −1"));
    let lines: Vec<(DiffSign, &str)> = r.diffs[0]
        .lines
        .iter()
        .map(|l| (l.sign, l.text.as_str()))
        .collect();
    assert_eq!(
        lines,
        [
            (DiffSign::Removed, "b = 2"),
            (DiffSign::Added, "b = 20"),
            (DiffSign::Added, "d = 4"),
        ],
        "unchanged lines are left out"
    );

    let two = edit_args(&[("a", &[("x", "y")]), ("b", &[("p\nq", "p")])]);
    let r = report(&two, &patched());
    assert_eq!(r.summary, "2 files, +1 −2");
    assert_eq!((r.diffs[1].added, r.diffs[1].removed), (0, 1));
}

#[test]
fn a_long_edit_carries_only_its_first_diff_lines_but_counts_them_all() {
    let old: String = (0..400).map(|n| format!("old {n}\n")).collect();
    let new: String = (0..400).map(|n| format!("new {n}\n")).collect();
    let args = edit_args(&[("big.txt", &[(old.as_str(), new.as_str())])]);
    let r = report(&args, &patched());
    assert_eq!(r.summary, "+400 −400");
    assert_eq!(r.diffs[0].lines.len(), DIFF_LINES);
}

#[test]
fn a_refused_edit_says_why() {
    let args = edit_args(&[("a", &[("x", "y")])]);
    let stale = Response::error(1, ErrorRecord::typical(ErrorCode::ContentConflict));
    let r = report(&args, &stale);
    assert_eq!(r.tone, ReportTone::Error);
    assert_eq!(
        r.summary,
        "the file changed since it was read, or the target exists (501)"
    );
    assert!(r.diffs.is_empty(), "nothing changed, so no diff");
}

#[test]
fn files_lists_its_actions() {
    let action = |kind, path: &str, to: Option<&str>| FileAction {
        kind,
        path: path.into(),
        to: to.map(str::to_owned),
        content: None,
    };
    let args = ToolArgs::Files(FilesArgs {
        actions: vec![
            action(FileActionKind::Create, "notes.md", None),
            action(FileActionKind::Move, "a.txt", Some("b.txt")),
            action(FileActionKind::Remove, "old.log", None),
        ],
    });
    let r = report(&args, &Response::success(1, Data::Fs(Vec::new())));
    assert_eq!(r.summary, "3 actions");
    assert_eq!(
        r.actions,
        ["create notes.md", "move a.txt → b.txt", "remove old.log"]
    );
    let one = ToolArgs::Files(FilesArgs {
        actions: vec![action(FileActionKind::Copy, "a", Some("b"))],
    });
    let r = report(&one, &Response::success(1, Data::Fs(Vec::new())));
    assert_eq!(r.summary, "copy a → b");
}

#[test]
fn the_readable_text_is_what_a_person_reads() {
    use super::readable;
    use crate::tools::execute::PathNames;
    let names = PathNames::default();
    // A command: its line, how it ended, each stream under its header.
    let text = readable(
        &exec_args(),
        &exec(ExitKind::Exited, Some(2), "a\nb\n", "boom\n"),
        &names,
        &|_| RetainedText::Gone,
    )
    .unwrap();
    assert_eq!(
        text,
        "$ cargo test\nexited 2 after 12500 ms\n── stdout\na\nb\n── stderr\nboom\n"
    );
    // A search: `path:line:column: text`, paths by name once the session learnt them.
    let args = ToolArgs::Search(SearchArgs {
        query: "x".into(),
        paths: vec![".".into()],
        regex: false,
        case_insensitive: false,
        include_hidden: false,
    });
    let mut response = Response::success(
        1,
        Data::Search(vec![SearchRow {
            path: 7,
            line: 3,
            column: 5,
            text: "let x = 1;\r".into(),
        }]),
    );
    response.paths = vec![(7, "src/main.rs".into())];
    let mut names = PathNames::default();
    names.learn(&response);
    assert_eq!(
        readable(&args, &response, &names, &|_| RetainedText::Gone).unwrap(),
        "src/main.rs:3:5: let x = 1;\n"
    );
    // An engine error has nothing better than the model's view (its record and hint).
    let failed = Response::error(1, ErrorRecord::typical(ErrorCode::PathNotFound));
    assert_eq!(
        readable(&args, &failed, &names, &|_| RetainedText::Gone),
        None
    );
}

/// A command whose stdout (lines `line 1` … `line 400`) the engine cut in the middle as it does
/// for a budget: `head`, `\n...\n`, `tail`, each half cut inside a line; retained as @3.
fn cut_exec() -> (Response, String) {
    let whole: String = (1..=400).map(|n| format!("line {n}\n")).collect();
    let cut = ash_engine::reduce::head_tail(&whole, 1000)
        .render()
        .unwrap()
        .into_owned();
    let mut response = exec(ExitKind::Exited, Some(0), &cut, "");
    if let Some(Data::Exec(e)) = response.data.as_mut() {
        e.stdout_ref = Some(3);
    }
    (response, whole)
}

#[test]
fn a_cut_output_reads_back_whole_or_says_how_many_lines_are_not_shown() {
    use super::readable;
    let names = crate::tools::execute::PathNames::default();
    let (response, whole) = cut_exec();
    // Read back through the runtime: all of it, in order, nothing garbled.
    let full = |alias: u64| {
        assert_eq!(alias, 3);
        RetainedText::Whole(whole.clone())
    };
    let text = readable(&exec_args(), &response, &names, &full).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for n in 1..=400 {
        let want = format!("line {n}");
        assert_eq!(
            lines.iter().filter(|l| **l == want).count(),
            1,
            "{want}: {text}"
        );
    }
    assert!(!text.contains("\n...\n"), "{text}");
    assert!(text.contains("retained as @3"), "{text}");
    // Too long to show whole: whole lines around a marker that counts the rest.
    let counted = |_| RetainedText::TooLong(Some(LineCount::of(&whole)));
    let text = readable(&exec_args(), &response, &names, &counted).unwrap();
    let body: Vec<&str> = text.lines().skip(3).collect();
    let shown: Vec<&str> = body
        .iter()
        .copied()
        .filter(|l| l.starts_with("line "))
        .collect();
    assert!(
        shown.iter().all(|l| whole.lines().any(|w| w == *l)),
        "only whole lines: {text}"
    );
    let marker = format!("… {} lines not shown (retained as @3)", 400 - shown.len());
    assert!(body.contains(&marker.as_str()), "{marker}: {text}");
    assert!(
        shown.contains(&"line 1") && shown.contains(&"line 400"),
        "{text}"
    );
    // Gone from the store: said so, never silently dropped.
    let text = readable(&exec_args(), &response, &names, &|_| RetainedText::Gone).unwrap();
    assert!(
        text.contains("… part of stdout not shown (retained as @3)"),
        "{text}"
    );
}

#[test]
fn the_rows_hidden_lines_count_the_whole_output_not_the_cut_copy() {
    let (response, whole) = cut_exec();
    let mut r = report(&exec_args(), &response);
    // The cut copy: about 100 lines and the `...` line.
    assert!(r.lines < 150, "{}", r.lines);
    count_real_lines(&mut r, &response, &|_| RetainedText::Whole(whole.clone()));
    assert_eq!(r.lines, 400);
    count_real_lines(&mut r, &response, &|_| {
        RetainedText::TooLong(Some(LineCount {
            all: 90_000,
            non_empty: 80_000,
        }))
    });
    assert_eq!(r.lines, 80_000);
}

#[test]
fn a_read_the_model_got_retained_is_read_back_for_a_person() {
    use super::readable;
    use crate::tools::execute::PathNames;
    use crate::tools::{ReadArgs, ReadMode};
    use ash_engine::protocol::{Digest, ReadRow};
    let args = ToolArgs::Read(ReadArgs {
        paths: vec!["big.txt".into()],
        mode: ReadMode::Lines,
        offset: 1,
        length: Some(5000),
    });
    // Too long for the answer: the engine retains the selection and sends no text (`t: ~`).
    let mut response = Response::success(
        1,
        Data::Read(vec![ReadRow {
            path: 7,
            offset: 1,
            len: 5000,
            digest: Digest([0; 32]),
            text: None,
            reference: Some(4),
        }]),
    );
    response.paths = vec![(7, "big.txt".into())];
    let mut names = PathNames::default();
    names.learn(&response);
    let whole: String = (1..=5000).map(|n| format!("line {n}\n")).collect();
    let full = |alias: u64| {
        assert_eq!(alias, 4);
        RetainedText::Whole(whole.clone())
    };
    let text = readable(&args, &response, &names, &full).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "── big.txt (from 1, 5000 long)");
    for n in [1, 2500, 5000] {
        let want = format!("line {n}");
        assert_eq!(lines.iter().filter(|l| **l == want).count(), 1, "{want}");
    }
    assert!(text.contains("retained as @4"), "{text}");
    // A binary file (bytes replaced on the way back) is not dumped as text.
    let binary = |_| RetainedText::Whole("\u{FFFD}PNG\u{FFFD}".into());
    let text = readable(&args, &response, &names, &binary).unwrap();
    assert!(
        text.contains("(binary, not shown: retained as @4)"),
        "{text}"
    );
    assert!(!text.contains("PNG"), "{text}");
    // Too long to show, or gone: said so with the alias, never an empty view.
    let counted = |_| RetainedText::TooLong(Some(LineCount::of(&whole)));
    let text = readable(&args, &response, &names, &counted).unwrap();
    assert!(
        text.contains("… 5000 lines not shown: too long to show (retained as @4)"),
        "{text}"
    );
    let text = readable(&args, &response, &names, &|_| RetainedText::Gone).unwrap();
    assert!(text.contains("no longer retained (@4)"), "{text}");
}
