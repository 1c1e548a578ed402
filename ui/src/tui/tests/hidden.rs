//! Tool rows say what they leave out: a command's cut tail says how many lines came before it
//! (`… 47 more lines (Ctrl+O)`), and a failed call's long reason wraps under the row instead
//! of being cut at the width — through the real inline terminal parsed by `vt100`, at 60×20,
//! 100×32 and 120×40.

use ansa_sessions::protocol::{ReportTone, ToolReport};

use super::scrollback::{Rig, all_lines, assert_no_alternate_screen};

fn command_report() -> ToolReport {
    let mut report = ToolReport::new(ReportTone::Ok, "exit 0");
    report.tail = vec![
        "test result: ok. 48 passed".to_owned(),
        "finished in 3.2 s".to_owned(),
        "done".to_owned(),
    ];
    report.lines = 50;
    report
}

/// A reason far wider than any terminal, with a marker word at its end.
fn long_reason() -> String {
    let mut reason =
        String::from("edits[0].old was not found in src/server/config.rs as last read;");
    for n in 1..=12 {
        reason.push_str(&format!(" hint{n} says what to try next,"));
    }
    reason.push_str(" read the file again and retry ENDMARK");
    reason
}

#[test]
fn rows_say_how_many_lines_are_hidden_and_failures_wrap() {
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let mut rig = Rig::new(width, height);
        rig.frame();
        rig.h.open(vec![]);
        rig.frame();
        let request = rig.h.submit_accepted("run the tests", 1);
        rig.frame();
        rig.h
            .tool_call(request, "c1", "exec", Some("cargo test"), command_report());
        rig.frame();
        let reason = long_reason();
        rig.h.tool_call(
            request,
            "c2",
            "edit",
            Some("src/server/config.rs"),
            ToolReport::failed(&reason),
        );
        rig.frame();
        let lines = rig.finish();
        assert_eq!(lines, rig.expected, "{width}×{height}");
        let at = lines
            .iter()
            .position(|l| l.contains("exec cargo test"))
            .unwrap_or_else(|| panic!("the exec row at {width}: {lines:#?}"));
        assert_eq!(
            lines[at + 1].trim(),
            "… 47 more lines (Ctrl+O)",
            "{lines:#?}"
        );
        assert_eq!(lines[at + 2].trim(), "test result: ok. 48 passed");
        // Every word of the reason is on screen, in order, none cut with `…`.
        let row = lines
            .iter()
            .position(|l| l.contains("✗ edit"))
            .unwrap_or_else(|| panic!("the edit row at {width}: {lines:#?}"));
        let shown: Vec<&str> = lines[row..]
            .iter()
            .take_while(|l| !l.is_empty())
            .flat_map(|l| l.split_whitespace())
            .collect();
        let words: Vec<&str> = reason.split_whitespace().collect();
        let start = shown
            .iter()
            .position(|w| *w == words[0])
            .unwrap_or_else(|| panic!("{width}: {shown:?}"));
        assert_eq!(
            &shown[start..start + words.len()],
            &words[..],
            "{width}×{height}"
        );
        assert!(lines.iter().all(|l| !l.contains("ENDMARK…")));
        assert!(
            all_lines(&mut rig.parser)
                .iter()
                .all(|l| l.chars().count() <= usize::from(width))
        );
        assert_no_alternate_screen(&rig);
    }
}
