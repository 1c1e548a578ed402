//! Word wrap by display width.

use ansa_ui::tui::wrap::{display_width, hard_wrap, wrap_plain, wrap_prefixed, wrap_spans};
use ratatui::style::{Style, Stylize};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::rng::{self, Rng};

fn text(line: &Line<'_>) -> String {
    line.spans
        .iter()
        .map(|span| span.content.as_ref())
        .collect()
}

fn plain(s: &str, width: u16) -> Vec<String> {
    wrap_plain(s, Style::default(), width)
        .iter()
        .map(text)
        .collect()
}

/// The cells ratatui gives the line: grapheme by grapheme, as a buffer lays it out.
fn cells(line: &Line<'_>) -> usize {
    line.spans
        .iter()
        .flat_map(|span| span.styled_graphemes(Style::default()))
        .map(|grapheme| UnicodeWidthStr::width(grapheme.symbol))
        .sum()
}

#[test]
fn ascii_breaks_at_spaces() {
    assert_eq!(
        plain("the quick brown fox jumps over the lazy dog", 10),
        ["the quick", "brown fox", "jumps over", "the lazy", "dog"]
    );
    assert_eq!(plain("exactly ten", 11), ["exactly ten"]);
    assert_eq!(plain("exactly ten", 10), ["exactly", "ten"]);
    // Runs of spaces inside a line stay; at a break they go.
    assert_eq!(plain("a  b     c", 6), ["a  b", "c"]);
    // The first line keeps its indentation, continuations do not get it.
    assert_eq!(
        plain("    indented text here", 12),
        ["    indented", "text here"]
    );
    assert_eq!(plain("trailing   ", 20), ["trailing"]);
}

#[test]
fn newlines_split_and_empty_lines_stay() {
    assert_eq!(plain("a\n\nb", 10), ["a", "", "b"]);
    assert_eq!(plain("a\n", 10), ["a"]);
    assert_eq!(plain("a\n\n", 10), ["a", ""]);
    assert_eq!(plain("", 10), [""]);
    assert_eq!(plain("\n", 10), [""]);
    assert_eq!(plain("one two\nthree", 4), ["one", "two", "thre", "e"]);
}

#[test]
fn tabs_expand_to_stops_of_four() {
    assert_eq!(plain("a\tb", 20), ["a   b"]);
    assert_eq!(plain("\tx", 20), ["    x"]);
    assert_eq!(plain("abcd\te", 20), ["abcd    e"]);
    assert_eq!(plain("ab\tcd\tef", 6), ["ab  cd", "ef"]);
}

#[test]
fn cjk_is_double_width() {
    assert_eq!(display_width("漢字"), 4);
    assert_eq!(plain("漢字漢字漢字", 5), ["漢字", "漢字", "漢字"]);
    assert_eq!(plain("漢字漢字漢字", 4), ["漢字", "漢字", "漢字"]);
    assert_eq!(plain("ab 漢字", 4), ["ab", "漢字"]);
    // A long CJK run fills the rest of the line.
    assert_eq!(plain("ab 漢字漢字", 5), ["ab 漢", "字漢", "字"]);
    // Wider than the whole line: a placeholder, never an overflow.
    assert_eq!(plain("漢a", 1), ["?", "a"]);
}

#[test]
fn emoji_stay_whole() {
    assert_eq!(display_width("🦀"), 2);
    assert_eq!(plain("🦀🦀🦀", 3), ["🦀", "🦀", "🦀"]);
    let family = "👨\u{200d}👩\u{200d}👧";
    assert_eq!(display_width(family), 2);
    assert_eq!(
        plain(&family.repeat(3), 4),
        [family.repeat(2), family.to_owned()]
    );
    assert_eq!(plain("🇫🇮🇸🇪🇳🇴", 4), ["🇫🇮🇸🇪", "🇳🇴"]);
    assert_eq!(plain("👍🏽👍🏽", 2), ["👍🏽", "👍🏽"]);
}

#[test]
fn combining_marks_stay_with_their_base() {
    let e = "e\u{301}";
    assert_eq!(display_width(e), 1);
    assert_eq!(plain(&e.repeat(4), 3), [e.repeat(3), e.to_owned()]);
    assert_eq!(
        plain(&format!("caf{e} caf{e}"), 4),
        [format!("caf{e}"), format!("caf{e}")]
    );
    for line in plain(&e.repeat(7), 2) {
        assert!(line.starts_with('e'), "{line:?}");
    }
}

#[test]
fn a_long_word_is_split_at_the_width() {
    let word = "x".repeat(10_000);
    let lines = plain(&word, 100);
    assert_eq!(lines.len(), 100);
    assert!(lines.iter().all(|line| line.len() == 100));
    assert_eq!(plain("see abcdefghij", 6), ["see ab", "cdefgh", "ij"]);
}

#[test]
fn width_one_and_zero() {
    assert_eq!(plain("ab c", 1), ["a", "b", "c"]);
    assert_eq!(plain("ab c", 0), ["a", "b", "c"]);
    assert_eq!(plain("  x", 1), ["x"]);
    assert_eq!(plain("   xy", 3), [" xy"]);
}

#[test]
fn styles_survive_breaks() {
    let spans = [
        Span::raw("hello wor").bold(),
        Span::raw("ld again").italic(),
    ];
    let lines = wrap_spans(&spans, 6);
    assert_eq!(
        lines.iter().map(text).collect::<Vec<_>>(),
        ["hello", "world", "again"]
    );
    assert_eq!(lines[0].spans, [Span::raw("hello").bold()]);
    assert_eq!(
        lines[1].spans,
        [Span::raw("wor").bold(), Span::raw("ld").italic()]
    );
    assert_eq!(lines[2].spans, [Span::raw("again").italic()]);
}

#[test]
fn prefixes_hang() {
    let spans = [Span::raw("one two three four")];
    let lines = wrap_prefixed(&spans, 10, &[Span::raw("• ")], &[Span::raw("  ")]);
    let lines: Vec<String> = lines.iter().map(text).collect();
    assert_eq!(lines, ["• one two", "  three", "  four"]);
    // A prefix as wide as the line leaves one column.
    let lines = wrap_prefixed(&[Span::raw("ab")], 3, &[Span::raw("> > > ")], &[]);
    assert_eq!(lines.iter().map(text).collect::<Vec<_>>(), ["> a", "b"]);
}

#[test]
fn hard_wrap_keeps_every_space() {
    let code = [Span::raw("    let x = 1;  \n\tfoo(a,  b)")];
    let lines = hard_wrap(&code, 8, &[], &[]);
    let lines: Vec<String> = lines.iter().map(text).collect();
    assert_eq!(lines, ["    let ", "x = 1;  ", "    foo(", "a,  b)"]);
}

#[test]
fn random_text_never_exceeds_the_width() {
    let mut rng = Rng::new(0xdead_beef);
    let styles = [
        Style::default(),
        Style::default().bold(),
        Style::default().italic(),
    ];
    for round in 0..3_000 {
        let width = 1 + rng.below(40) as u16;
        let spans: Vec<Span<'static>> = (0..rng.below(6))
            .map(|_| {
                let pieces = rng.below(30);
                Span::styled(
                    rng::text(&mut rng, pieces, round % 2 == 0),
                    *rng.pick(&styles),
                )
            })
            .collect();
        let hard = round % 3 == 0;
        let lines = if hard {
            hard_wrap(&spans, width, &[], &[])
        } else {
            wrap_spans(&spans, width)
        };
        for line in &lines {
            let shown = text(line);
            assert!(
                display_width(&shown) <= usize::from(width),
                "{shown:?} at {width}"
            );
            assert!(line.width() <= usize::from(width), "{shown:?} at {width}");
            assert!(cells(line) <= usize::from(width), "{shown:?} at {width}");
            assert!(!shown.contains(['\n', '\t', '\r', '\x1b']), "{shown:?}");
        }
        // Nothing is lost or invented but spaces, controls and placeholders.
        if width >= 2 && round % 2 == 1 {
            let keep = |c: &char| !c.is_whitespace() && !c.is_control();
            let input: String = spans
                .iter()
                .flat_map(|s| s.content.chars())
                .filter(keep)
                .collect();
            let output: String = lines
                .iter()
                .flat_map(|l| text(l).chars().collect::<Vec<_>>())
                .filter(keep)
                .collect();
            assert_eq!(input, output, "at {width}");
        }
    }
}
