//! Markdown answers: snapshots of the rendered lines with style markers, and the width and
//! safety guarantees on random input.

use ansa_ui::tui::Theme;
use ansa_ui::tui::markdown::render_markdown;
use ansa_ui::tui::theme::MINT;
use ansa_ui::tui::wrap::display_width;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use unicode_width::UnicodeWidthStr;

use crate::rng::{self, Rng};

const COLOUR: Theme = Theme { plain: false };
const PLAIN: Theme = Theme { plain: true };

/// Style markers of a span: `[accent+b]text[/]`; unstyled text stays bare.
fn markers(style: Style) -> String {
    let mut tags = Vec::new();
    match style.fg {
        Some(MINT) => tags.push("accent"),
        Some(Color::Cyan) => tags.push("code"),
        Some(Color::Red) => tags.push("error"),
        Some(_) => tags.push("fg?"),
        None => {}
    }
    for (modifier, tag) in [
        (Modifier::BOLD, "b"),
        (Modifier::ITALIC, "i"),
        (Modifier::DIM, "dim"),
        (Modifier::CROSSED_OUT, "s"),
        (Modifier::UNDERLINED, "u"),
    ] {
        if style.add_modifier.contains(modifier) {
            tags.push(tag);
        }
    }
    tags.join("+")
}

/// The lines as text with style markers, each ended by `|` so trailing spaces show.
fn show(lines: &[Line<'_>]) -> String {
    let mut out = String::new();
    for line in lines {
        let mut runs: Vec<(Style, String)> = Vec::new();
        for span in &line.spans {
            match runs.last_mut() {
                Some((style, text)) if *style == span.style => text.push_str(&span.content),
                _ => runs.push((span.style, span.content.to_string())),
            }
        }
        for (style, text) in runs {
            let tags = markers(style);
            if tags.is_empty() {
                out.push_str(&text);
            } else {
                out.push_str(&format!("[{tags}]{text}[/]"));
            }
        }
        out.push_str("|\n");
    }
    out
}

/// Renders, checks the width of every line, and shows the result.
fn render(text: &str, width: u16) -> String {
    let lines = render_markdown(text, width, COLOUR);
    check(&lines, width);
    show(&lines)
}

fn check(lines: &[Line<'_>], width: u16) {
    for line in lines {
        let shown: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(
            display_width(&shown) <= usize::from(width.max(1)),
            "{shown:?} at {width}"
        );
        assert!(
            line.width() <= usize::from(width.max(1)),
            "{shown:?} at {width}"
        );
        let cells: usize = line
            .spans
            .iter()
            .flat_map(|span| span.styled_graphemes(Style::default()))
            .map(|grapheme| UnicodeWidthStr::width(grapheme.symbol))
            .sum();
        assert!(cells <= usize::from(width.max(1)), "{shown:?} at {width}");
        if let Some(c) = shown
            .chars()
            .find(|&c| rng::forbidden(c) || c == '\t' || c == '\n')
        {
            panic!("{c:?} in {shown:?}");
        }
    }
}

#[test]
fn headings() {
    let text = "# Title\n\nSome text.\n\n## Second *level*\n### Third\nSetext\n======\n";
    insta::assert_snapshot!(render(text, 40));
}

#[test]
fn paragraphs_and_breaks() {
    let text = "First paragraph with a soft\nbreak that becomes a space and enough words to wrap.\n\n\
                Second one ends with a hard break  \nafter two spaces, and\\\nafter a backslash.\n";
    insta::assert_snapshot!(render(text, 30));
}

#[test]
fn lists() {
    let text = "- one\n- two is a longer item that has to wrap onto a second line\n- three\n\n\
                3. third\n4. fourth\n10. tenth\n\n-\n- after an empty item\n";
    insta::assert_snapshot!(render(text, 30));
}

#[test]
fn nested_lists() {
    let tight = "- fruit\n  - apple\n  - pear, which is a long item that wraps\n    1. first\n    \
                 2. second\n- vegetables\n- - nested at once\n";
    let loose = "- one\n\n  A second paragraph in a loose item.\n- two\n  - nested\n";
    insta::assert_snapshot!(format!("{}---\n{}", render(tight, 32), render(loose, 32)));
}

#[test]
fn code_blocks() {
    let text = "Before:\n\n```rust\nfn main() {\n\tlet x = 1; // a tab\n    println!(\"{x} and a very long line that does not fit at all\");\n}\n```\n\n    indented code\n      keeps  spaces\n\nAfter `inline code` here.\n\n- item\n\n  ```\n  in a list\n  ```\n";
    insta::assert_snapshot!(render(text, 36));
}

#[test]
fn quotes() {
    let text = "> A quote that is long enough to wrap in a narrow terminal.\n>\n> Second paragraph.\n> > Nested quote.\n> - a list in a quote\n\nAfter.\n";
    insta::assert_snapshot!(render(text, 30));
}

#[test]
fn links_and_images() {
    let text = "See [the docs](https://example.com/docs \"title\") and <https://example.com>.\n\
                Mail <me@example.com>. [Same](https://same.example) vs [https://same.example](https://same.example).\n\
                A [reference][ref] and ![a crab](crab.png). [broken][nope]\n\n[ref]: https://example.com/ref\n";
    insta::assert_snapshot!(render(text, 40));
}

#[test]
fn mixed_emphasis_and_rules() {
    let text = "*italic* **bold** ***both*** ~~struck~~ **bold with *italic* and `code`** _x_\n\n---\n\n\
                Text with <b>raw html</b> inline.\n\n<div>\nraw block\n</div>\n";
    insta::assert_snapshot!(render(text, 30));
}

#[test]
fn escape_sequences_from_the_model_never_pass() {
    let text = "# Ti\x1b[2Jtle\n\nText \x1b[31mred\x1b[0m and a \x1b]8;;http://evil\x07link\x1b]8;;\x07, \
                \u{9b}31mC1 too, a \u{202e}reversed\u{202c} word, a\rreturn, an entity &#x1b;[1m and &#155;2J.\n\n\
                ```\ncode \x1b]52;c;cm0gLXJm\x07 with\x1bPq#0~\x1b\\ sequences\t\x1b[H\n```\n\n\
                [link](http://x\x1b[31m/&#x1b;) `inline \x1b[K code`\n";
    insta::assert_snapshot!(render(text, 40));
}

#[test]
fn a_very_long_line() {
    let word = "a".repeat(95);
    let text = format!(
        "{} {word}\n\n```\n{}\n```\n\n- {}\n",
        "word ".repeat(30),
        "x".repeat(90),
        "long ".repeat(20)
    );
    insta::assert_snapshot!(render(&text, 40));
}

#[test]
fn plain_theme_has_no_styles() {
    let text = "# Title\n\n*a* **b** `c` ~~d~~ [e](http://f)\n\n> g\n\n- h\n\n```\ni\n```\n";
    let lines = render_markdown(text, 30, PLAIN);
    check(&lines, 30);
    assert!(
        lines
            .iter()
            .flat_map(|l| &l.spans)
            .all(|s| s.style == Style::default())
    );
    let styled: Vec<String> = render_markdown(text, 30, COLOUR)
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    let plain: Vec<String> = lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    assert_eq!(styled, plain);
}

#[test]
fn random_markdown_stays_within_the_width_and_safe() {
    const MARKUP: &[&str] = &[
        "\n",
        "\n\n",
        "# ",
        "## ",
        "- ",
        "  - ",
        "1. ",
        "> ",
        "```\n",
        "    ",
        "*",
        "**",
        "~~",
        "`",
        "[",
        "](http://x)",
        "![",
        "<b>",
        "&#x1b;",
        "&#155;",
        "---\n",
        "\\\n",
        "  \n",
        "<https://a.b>",
    ];
    let mut rng = Rng::new(0x00c0_ffee);
    for _ in 0..2_000 {
        let mut text = String::new();
        for _ in 0..rng.below(40) {
            match rng.below(3) {
                0 => text.push_str(rng.pick::<&str>(MARKUP)),
                _ => text.push_str(&rng::text(&mut rng, 3, true)),
            }
        }
        let width = rng.below(50) as u16;
        let lines = render_markdown(&text, width, COLOUR);
        check(&lines, width);
    }
}

const TABLE: &str = "Results:\n\n| Test | Status | Time (ms) |\n|:-----|:------:|----------:|\n| parse the last line of a file that has no newline | **pass** | 12 |\n| reject `..` in paths | fail | 7 |\n\nAfter.\n";

#[test]
fn tables_align_their_columns_at_full_width() {
    insta::assert_snapshot!(render(TABLE, 80));
}

#[test]
fn tables_reflow_to_a_narrow_terminal_and_stay_inside_it() {
    insta::assert_snapshot!(render(TABLE, 40));
    for width in [1, 5, 12, 20, 33] {
        render(TABLE, width);
    }
}
