//! The inline terminal's byte stream, parsed by `vt100` with scrollback: committed dialog
//! reaches the terminal's scrollback exactly once, in order, wrapped as rendered; the live
//! region never leaks into it; the alternate screen is never used.

use std::num::NonZeroU16;

use ansa_sessions::protocol::{PreviewState, ToolPhase};
use ansa_sessions::{RequestId, TurnState};
use crossterm::event::KeyCode;

use super::super::terminal::{InlineTerminal, render};
use super::super::view;
use super::{Harness, exchanges, line_text};

const ALT_SCREEN: [&[u8]; 3] = [b"\x1b[?1049h", b"\x1b[?47h", b"\x1b[?1047h"];

fn nz(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap()
}

/// A real `InlineTerminal` writing into a buffer that a `vt100` terminal parses.
pub(super) struct Rig {
    pub h: Harness,
    pub term: InlineTerminal<Vec<u8>>,
    pub parser: vt100::Parser,
    pub bytes: Vec<u8>,
    /// Every line committed so far, as rendered.
    pub expected: Vec<String>,
    pub frames: usize,
    /// The screen was resized and the application not told yet (`resize_screen`).
    pub untold: bool,
}

impl Rig {
    pub(super) fn new(width: u16, height: u16) -> Self {
        let mut parser = vt100::Parser::new(nz(height), nz(width), 100_000);
        parser.process(b"$ ansa\r\n");
        let (row, col) = parser.screen().cursor_position();
        let term = InlineTerminal::new(Vec::new(), (width, height), Some((col, row)));
        let h = Harness::raw(width, height, false);
        Rig {
            h,
            term,
            parser,
            bytes: Vec::new(),
            expected: vec!["$ ansa".to_owned()],
            frames: 0,
            untold: false,
        }
    }

    fn flush_bytes(&mut self) {
        let out = std::mem::take(self.term.writer_mut());
        self.parser.process(&out);
        self.bytes.extend(out);
    }

    /// One frame of the real driver: commits into scrollback, then the live region.
    pub(super) fn frame(&mut self) {
        let width = self.term.width();
        for entry in &self.h.app.commits {
            let lines = view::entry_lines(&self.h.app, entry, width);
            self.expected
                .extend(lines.iter().map(|l| line_text(l).trim_end().to_owned()));
        }
        render(&mut self.term, &mut self.h.app).unwrap();
        self.flush_bytes();
        self.frames += 1;
        if self.untold {
            // Laid out for a size the screen no longer has: where the cursor ends is the
            // terminal's business until the application learns the size.
            return;
        }
        // The terminal's cursor is parked, hidden, at the region's top; the input's cursor is
        // a reversed cell.
        let live = view::live(&self.h.app);
        let screen = self.parser.screen();
        assert_eq!(
            screen.cursor_position(),
            (self.term.top(), 0),
            "cursor parked"
        );
        assert!(screen.hide_cursor(), "the terminal's cursor is hidden");
        if let Some((x, y)) = live.cursor {
            let cell = screen
                .cell(self.term.top() + y, x)
                .expect("the caret is on screen");
            assert!(cell.inverse(), "the caret is drawn at the input");
        }
    }

    pub(super) fn resize(&mut self, width: u16, height: u16) {
        self.parser.screen_mut().set_size(nz(height), nz(width));
        let (row, col) = self.parser.screen().cursor_position();
        self.term.resize((width, height), Some((col, row)));
        self.h.app.resize(width, height);
    }

    /// A resize on a terminal that reflows its rows the way tmux does (see `reflow.rs`).
    pub(super) fn resize_reflowing(&mut self, width: u16, height: u16) {
        self.parser = super::reflow::resize(&mut self.parser, width, height);
        let (row, col) = self.parser.screen().cursor_position();
        self.term.resize((width, height), Some((col, row)));
        self.h.app.resize(width, height);
    }

    /// The screen (reflowing as tmux does) takes `width`×`height` but the application is
    /// told only at [`Self::tell_size`]: tmux resizes its screen at once and the pty (what
    /// the application reads, and its SIGWINCH) up to 250 ms later, so frames laid out for
    /// the old size are drawn on the new screen meanwhile.
    pub(super) fn resize_screen(&mut self, width: u16, height: u16) {
        self.parser = super::reflow::resize(&mut self.parser, width, height);
        self.untold = true;
    }

    /// The application learns the screen's size as it does before a frame: the size, then
    /// the cursor's position asked of the terminal.
    pub(super) fn tell_size(&mut self) {
        let (height, width) = self.parser.screen().size();
        let (row, col) = self.parser.screen().cursor_position();
        self.term
            .resize((width.get(), height.get()), Some((col, row)));
        self.h.app.resize(width.get(), height.get());
        self.untold = false;
    }

    /// Exit: last commits, then the live region is erased.
    pub(super) fn finish(&mut self) -> Vec<String> {
        self.h.app.exit_after_task = false;
        let width = self.term.width();
        let commits = self.h.app.take_commits();
        let lines: Vec<_> = commits
            .iter()
            .flat_map(|e| view::entry_lines(&self.h.app, e, width))
            .collect();
        self.expected
            .extend(lines.iter().map(|l| line_text(l).trim_end().to_owned()));
        self.term.insert(&lines).unwrap();
        self.term.clear().unwrap();
        self.flush_bytes();
        all_lines(&mut self.parser)
    }
}

/// Scrollback (oldest first) and then the screen, trailing blanks and blank lines removed.
pub(super) fn all_lines(parser: &mut vt100::Parser) -> Vec<String> {
    let screen = parser.screen_mut();
    let (rows, cols) = screen.size();
    let rows = usize::from(rows.get());
    screen.set_scrollback(usize::MAX);
    let mut offset = screen.scrollback();
    let mut lines = Vec::new();
    while offset > 0 {
        screen.set_scrollback(offset);
        let n = rows.min(offset);
        lines.extend(screen.rows(0, cols.get()).take(n));
        offset -= n;
    }
    screen.set_scrollback(0);
    lines.extend(screen.rows(0, cols.get()));
    let mut lines: Vec<String> = lines.into_iter().map(|l| l.trim_end().to_owned()).collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

pub(super) fn typing(rig: &mut Rig, text: &str) {
    for c in text.chars() {
        if c == '\n' {
            rig.h.ctrl('j');
        } else {
            rig.h.press(KeyCode::Char(c));
        }
        rig.frame();
    }
}

pub(super) fn assert_no_alternate_screen(rig: &Rig) {
    for seq in ALT_SCREEN {
        assert!(
            !rig.bytes.windows(seq.len()).any(|w| w == seq),
            "alternate screen sequence {seq:?} in the output"
        );
    }
    assert!(!rig.parser.screen().alternate_screen());
}

fn answer_text(i: u64) -> String {
    format!(
        "Answer {i}: the quick brown fox jumps over the lazy dog and keeps running far away\n\n\
         - item **{i}**\n- second item"
    )
}

/// One full task: typing (many redraws), tools, a growing preview, the answer.
fn task(rig: &mut Rig, i: u64, preview_lines: usize) -> RequestId {
    typing(rig, &format!("task {i}"));
    if i.is_multiple_of(2) {
        typing(rig, "\nwith a second line");
    }
    rig.h.press(KeyCode::Enter);
    rig.frame();
    let request = rig.h.submit_accepted("", i + 10);
    rig.frame();
    rig.h.at(i as f64);
    rig.h.tool(request, "c1", "search", ToolPhase::Started);
    rig.frame();
    rig.h.at(i as f64 + 0.3);
    rig.frame();
    rig.h.tool(request, "c1", "search", ToolPhase::Finished);
    rig.frame();
    let mut text = String::new();
    for k in 1..=preview_lines {
        text.push_str(&format!("preview line {k}\n\n"));
        rig.h.preview(request, &text, PreviewState::Preview);
        rig.frame();
    }
    for _ in 0..5 {
        rig.frame();
    }
    request
}

#[test]
fn committed_lines_reach_scrollback_once_in_order_and_wrapped() {
    let mut rig = Rig::new(40, 12);
    rig.frame();
    rig.h.open(exchanges(2));
    rig.frame();
    for i in 1..=6 {
        // Task 3's preview is taller than the screen; task 5 is cancelled mid-stream.
        let preview = if i == 3 { 20 } else { 3 };
        let request = task(&mut rig, i, preview);
        if i == 5 {
            rig.h.ctrl('c');
            rig.frame();
            rig.h
                .preview(request, "preview line 1\n\n", PreviewState::Discarded);
            rig.h.turn_state(request, TurnState::Cancelled, None);
        } else {
            rig.h.answer(request, &answer_text(i));
        }
        rig.frame();
        for _ in 0..3 {
            rig.frame();
        }
    }
    typing(&mut rig, "left in the input");
    let lines = rig.finish();
    assert!(rig.frames > 200, "{} frames", rig.frames);
    assert_eq!(lines, rig.expected, "scrollback + screen after exit");
    for i in 1..=6 {
        let question = format!("› task {i}");
        assert_eq!(
            lines.iter().filter(|l| **l == question).count(),
            1,
            "{question}"
        );
    }
    for i in [1, 2, 3, 4, 6] {
        let first = format!("Answer {i}: the quick brown fox jumps over");
        let at = lines.iter().position(|l| *l == first).expect(&first);
        assert_eq!(lines[at + 1], "the lazy dog and keeps running far away");
        assert_eq!(lines[at + 3], format!("• item {i}"));
    }
    assert_eq!(lines.iter().filter(|l| *l == "(unfinished)").count(), 1);
    assert!(!lines.iter().any(|l| l.contains("left in the input")));
    assert!(
        !lines.iter().any(|l| l.contains("Ctrl+")),
        "no footer leaked"
    );
    assert_no_alternate_screen(&rig);
}

#[test]
fn resizing_reflows_the_live_region_without_duplicates() {
    let mut rig = Rig::new(30, 10);
    rig.frame();
    rig.h.open(exchanges(1));
    rig.frame();
    let request = task(&mut rig, 1, 2);
    rig.resize(50, 10);
    rig.frame();
    let live: Vec<String> = rig.parser.screen().rows(0, 50).collect();
    assert!(
        live.iter().any(|l| l.trim_end() == "─".repeat(50)),
        "the rule spans the new width: {live:#?}"
    );
    rig.h.answer(request, &answer_text(1));
    rig.frame();
    rig.resize(50, 7);
    rig.frame();
    let _ = task(&mut rig, 2, 2);
    let lines = rig.finish();
    assert_eq!(lines, rig.expected);
    assert_no_alternate_screen(&rig);
}

#[test]
fn the_first_frame_starts_below_existing_output_and_leaves_it_alone() {
    let mut parser_text = String::new();
    for i in 0..30 {
        parser_text.push_str(&format!("shell line {i}\r\n"));
    }
    let mut rig = Rig::new(40, 12);
    rig.parser.process(parser_text.as_bytes());
    let (row, col) = rig.parser.screen().cursor_position();
    rig.term = InlineTerminal::new(Vec::new(), (40, 12), Some((col, row)));
    rig.expected = std::iter::once("$ ansa".to_owned())
        .chain((0..30).map(|i| format!("shell line {i}")))
        .collect();
    rig.frame();
    rig.h.open(vec![]);
    rig.frame();
    let lines = rig.finish();
    assert_eq!(lines, rig.expected);
}

#[test]
fn resizing_while_an_answer_streams_leaves_no_ghost_lines() {
    let mut rig = Rig::new(100, 20);
    rig.frame();
    rig.h.open(vec![]);
    rig.frame();
    typing(&mut rig, "explain");
    rig.h.press(KeyCode::Enter);
    rig.frame();
    let request = rig.h.submit_accepted("", 1);
    rig.frame();
    let sentence = |n: usize| {
        format!(
            "Sentence {n} is long enough to fill most of a wide terminal row, and then some more words."
        )
    };
    let mut text = String::new();
    let widths = [(80, 20), (60, 20), (120, 20), (100, 14)];
    for n in 1..=16 {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&sentence(n));
        rig.h.preview(request, &text, PreviewState::Preview);
        rig.frame();
        if n % 4 == 0 {
            let (w, h) = widths[n / 4 - 1];
            rig.resize(w, h);
            rig.frame();
        }
    }
    rig.h.preview(request, &text, PreviewState::Committed);
    rig.h.answer(request, &text);
    rig.frame();
    let lines = rig.finish();
    // A terminal that does not reflow cuts the rows on screen when it narrows (vt100 does, like
    // xterm): such a line shows as a long prefix of what was committed. Anything else must be
    // exactly the committed lines, in order, once; a ghost would be an extra line.
    assert_eq!(lines.len(), rig.expected.len(), "{lines:#?}");
    for (got, want) in lines.iter().zip(&rig.expected) {
        let cut = !got.is_empty() && want.starts_with(got.as_str()) && got.chars().count() >= 50;
        assert!(got == want || cut, "{got:?} where {want:?} was committed");
    }
    for n in 1..=16 {
        let start = format!("Sentence {n} is long");
        assert_eq!(
            lines.iter().filter(|l| l.starts_with(&start)).count(),
            1,
            "{start}: {lines:#?}"
        );
    }
    assert_no_alternate_screen(&rig);
}
