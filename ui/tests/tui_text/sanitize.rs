//! `sanitize`: nothing a terminal would interpret survives.

use std::borrow::Cow;

use ansa_ui::tui::sanitize::sanitize;

use crate::rng::{self, Rng};

#[test]
fn csi_colour_cursor_and_clear_screen_go() {
    assert_eq!(sanitize("\x1b[1;31mred\x1b[0m plain"), "red plain");
    assert_eq!(sanitize("\x1b[38;2;255;0;0mtrue\x1b[m"), "true");
    assert_eq!(sanitize("a\x1b[2J\x1b[Hb\x1b[3J"), "ab");
    assert_eq!(sanitize("up\x1b[5Aleft\x1b[10D\x1b[10;20Hat"), "upleftat");
    assert_eq!(sanitize("\x1b[?1049h\x1b[?25lalt"), "alt");
    assert_eq!(sanitize("\x1b[6n\x1b[>c\x1b[ q"), "");
    // Two-character and nF escapes: save/restore cursor, reset, charset switches.
    assert_eq!(sanitize("\x1b7a\x1b8b\x1bcc\x1b(0d\x1b(Be\x1b#8"), "abcde");
}

#[test]
fn osc_hyperlinks_titles_and_clipboard_go() {
    let link = "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\";
    assert_eq!(sanitize(link), "click me");
    let link_bel = "\x1b]8;id=1;https://evil.example/\x07here\x1b]8;;\x07";
    assert_eq!(sanitize(link_bel), "here");
    assert_eq!(sanitize("a\x1b]52;c;cm0gLXJmIH4=\x07b"), "ab");
    assert_eq!(sanitize("a\x1b]52;c;?\x1b\\b"), "ab");
    assert_eq!(sanitize("\x1b]0;owned\x07\x1b]2;title\x1b\\x"), "x");
    // C1 OSC terminated by C1 ST.
    assert_eq!(sanitize("a\u{9d}0;title\u{9c}b"), "ab");
    // An ESC inside a string ends it and is removed with its own sequence.
    assert_eq!(sanitize("\x1b]0;t\x1b[31mred"), "red");
}

#[test]
fn dcs_sos_pm_apc_go() {
    assert_eq!(sanitize("a\x1bPq#0;2;0;0;0#0~~@@\x1b\\b"), "ab");
    assert_eq!(sanitize("a\x1bP$qm\x1b\\b"), "ab");
    assert_eq!(
        sanitize("a\x1bXsos\x1b\\b\x1b^pm\x1b\\c\x1b_apc\x1b\\d"),
        "abcd"
    );
    assert_eq!(sanitize("a\u{90}dcs\u{9c}b\u{9f}apc\u{9c}c"), "abc");
    // CAN and SUB abort a string.
    assert_eq!(sanitize("a\x1b]0;t\x18b\x1bPx\x1ac"), "abc");
}

#[test]
fn c1_controls_go_with_their_sequences() {
    assert_eq!(sanitize("a\u{9b}31mred\u{9b}0m"), "ared");
    assert_eq!(sanitize("\u{9b}2J\u{9b}Hx"), "x");
    assert_eq!(sanitize("a\u{85}b\u{8d}c\u{80}\u{9f}"), "abc");
}

#[test]
fn bidi_overrides_go() {
    // Trojan Source: the comment appears to close the string.
    let line = "if access_level != \"user\u{202e} \u{2066}// Check if admin\u{2069} \u{2066}\" {";
    assert_eq!(
        sanitize(line),
        "if access_level != \"user // Check if admin \" {"
    );
    assert_eq!(sanitize("a\u{202a}b\u{202b}c\u{202c}d\u{202d}e"), "abcde");
    assert_eq!(
        sanitize("\u{200e}x\u{200f}y\u{61c}z\u{2067}\u{2068}"),
        "xyz"
    );
    // Invisible characters that hide text.
    assert_eq!(sanitize("p\u{200b}a\u{ad}y\u{feff}\u{2060}"), "pay");
    assert_eq!(sanitize("ok\u{e0069}\u{e0067}\u{e006e}"), "ok");
    // Joiners stay: emoji and scripts need them.
    assert_eq!(sanitize("👨\u{200d}👩"), "👨\u{200d}👩");
    assert_eq!(sanitize("a\u{2028}b\u{2029}c"), "a\nb\nc");
}

#[test]
fn carriage_return_and_backspace_tricks_go() {
    assert_eq!(sanitize("echo safe\r\x1b[Krm -rf ~"), "echo saferm -rf ~");
    assert_eq!(sanitize("line one\r\nline two\r\n"), "line one\nline two\n");
    assert_eq!(sanitize("ok\x08\x08no"), "okno");
    assert_eq!(
        sanitize("tab\tkept\nnewline kept"),
        "tab\tkept\nnewline kept"
    );
    assert_eq!(
        sanitize("bell\x07 vt\x0b ff\x0c nul\0 del\x7f"),
        "bell vt ff nul del"
    );
}

#[test]
fn broken_sequences_leave_harmless_text() {
    assert_eq!(sanitize("end\x1b"), "end");
    assert_eq!(sanitize("end\x1b["), "end");
    assert_eq!(sanitize("\x1b[12"), "");
    // An unterminated string stops at the end of its line.
    assert_eq!(sanitize("a\x1b]8;;http://x\nnext line"), "a\nnext line");
    // A control inside a CSI ends it; the rest is plain text.
    assert_eq!(sanitize("\x1b[3\n1m"), "\n1m");
    assert_eq!(sanitize("\x1b\x1b[31mx"), "x");
    assert_eq!(sanitize("\x1bé"), "é");
}

#[test]
fn clean_text_is_borrowed_even_when_long() {
    let line = "fn main() { println!(\"héllo, 世界 🦀\"); }\t// ok\n".repeat(20_000);
    assert!(matches!(sanitize(&line), Cow::Borrowed(_)));
}

#[test]
fn very_long_lines_keep_their_text() {
    let mut text = String::new();
    let mut expected = String::new();
    for i in 0..50_000 {
        text.push_str("\x1b[3");
        text.push(char::from(b'0' + (i % 8) as u8));
        text.push_str("mword ");
        expected.push_str("word ");
    }
    assert_eq!(sanitize(&text), expected);
    let osc = format!("\x1b]52;c;{}\x07after", "A".repeat(1_000_000));
    assert_eq!(sanitize(&osc), "after");
}

#[test]
fn random_hostile_text_never_survives() {
    let mut rng = Rng::new(0x5eed_1234);
    for _ in 0..5_000 {
        let pieces = rng.below(60);
        let text = rng::text(&mut rng, pieces, true);
        let clean = sanitize(&text);
        if let Some(c) = clean.chars().find(|&c| rng::forbidden(c)) {
            panic!("{c:?} survived in {clean:?} from {text:?}");
        }
        // Sanitized text is stable and borrowed the second time.
        assert!(matches!(sanitize(&clean), Cow::Borrowed(_)), "{text:?}");
    }
}

#[test]
fn random_bytes_never_survive() {
    let mut rng = Rng::new(42);
    for _ in 0..5_000 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len)
            .map(|_| match rng.below(4) {
                0 => 0x1b,
                1 => (rng.below(0x20)) as u8,
                _ => (rng.below(0x100)) as u8,
            })
            .collect();
        let text = String::from_utf8_lossy(&bytes);
        let clean = sanitize(&text);
        assert!(!clean.chars().any(rng::forbidden), "{text:?} -> {clean:?}");
    }
}

/// Records everything a terminal would do beyond printing text.
#[derive(Default)]
struct Witness(Vec<String>);

impl vt100::Callbacks for Witness {
    fn audible_bell(&mut self, _: &mut vt100::Screen) {
        self.0.push("bell".into());
    }
    fn visual_bell(&mut self, _: &mut vt100::Screen) {
        self.0.push("visual bell".into());
    }
    fn resize(&mut self, _: &mut vt100::Screen, _: (u16, u16)) {
        self.0.push("resize".into());
    }
    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, _: &[u8]) {
        self.0.push("icon name".into());
    }
    fn set_window_title(&mut self, _: &mut vt100::Screen, _: &[u8]) {
        self.0.push("title".into());
    }
    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _: &[u8], _: &[u8]) {
        self.0.push("clipboard".into());
    }
    fn paste_from_clipboard(&mut self, _: &mut vt100::Screen, _: &[u8]) {
        self.0.push("paste".into());
    }
    fn unhandled_control(&mut self, _: &mut vt100::Screen, b: u8) {
        self.0.push(format!("control {b:#x}"));
    }
    fn unhandled_escape(&mut self, _: &mut vt100::Screen, _: Option<u8>, _: Option<u8>, b: u8) {
        self.0.push(format!("escape {b:#x}"));
    }
    fn unhandled_csi(
        &mut self,
        _: &mut vt100::Screen,
        _: Option<u8>,
        _: Option<u8>,
        _: &[&[u16]],
        c: char,
    ) {
        self.0.push(format!("csi {c}"));
    }
    fn unhandled_osc(&mut self, _: &mut vt100::Screen, _: &[&[u8]]) {
        self.0.push("osc".into());
    }
}

#[test]
fn a_terminal_only_prints_sanitized_text() {
    let mut rng = Rng::new(7);
    let size = |n| std::num::NonZeroU16::new(n).unwrap_or(std::num::NonZeroU16::MIN);
    for _ in 0..500 {
        let mut parser =
            vt100::Parser::new_with_callbacks(size(400), size(80), 0, Witness::default());
        parser.process(b"KEEP\r\n");
        let text = rng::text(&mut rng, 80, true);
        let clean = sanitize(&text).replace('\t', "    ").replace('\n', "\r\n");
        parser.process(clean.as_bytes());
        let screen = parser.screen();
        assert_eq!(parser.callbacks().0, Vec::<String>::new(), "{text:?}");
        assert_eq!(
            screen.cell(0, 0).map(|c| c.contents()),
            Some("K"),
            "{text:?}"
        );
        assert!(screen.cursor_position().0 >= 1, "{text:?}");
        assert!(
            !screen.alternate_screen() && !screen.hide_cursor(),
            "{text:?}"
        );
        assert_eq!(screen.fgcolor(), vt100::Color::Default, "{text:?}");
        assert!(
            !screen.bold() && !screen.inverse() && !screen.underline(),
            "{text:?}"
        );
    }
}
