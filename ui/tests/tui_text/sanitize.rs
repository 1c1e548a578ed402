//! `ansa_ui::sanitize`: nothing a terminal would interpret survives, and everything but
//! colour in flowing text is shown in the visible notation.

use std::borrow::Cow;

use ansa_ui::sanitize::{exact, flowing};

use crate::rng::{self, Rng};

#[test]
fn colour_goes_and_every_other_csi_is_shown() {
    assert_eq!(flowing("\x1b[1;31mred\x1b[0m plain"), "red plain");
    assert_eq!(flowing("\x1b[38;2;255;0;0mtrue\x1b[m"), "true");
    assert_eq!(flowing("a\x1b[2J\x1b[Hb\x1b[3J"), "a␛[2J␛[Hb␛[3J");
    assert_eq!(
        flowing("up\x1b[5Aleft\x1b[10D\x1b[10;20Hat"),
        "up␛[5Aleft␛[10D␛[10;20Hat"
    );
    assert_eq!(flowing("\x1b[?1049h\x1b[?25lalt"), "␛[?1049h␛[?25lalt");
    assert_eq!(flowing("\x1b[6n\x1b[>c\x1b[ q"), "␛[6n␛[>c␛[ q");
    // Two-character and nF escapes: save/restore cursor, reset, charset switches.
    assert_eq!(
        flowing("\x1b7a\x1b8b\x1bcc\x1b(0d\x1b(Be\x1b#8"),
        "␛7a␛8b␛cc␛(0d␛(Be␛#8"
    );
    // In exact text even colour is shown.
    assert_eq!(exact("\x1b[1;31mred\x1b[0m"), "␛[1;31mred␛[0m");
}

#[test]
fn osc_hyperlinks_titles_and_clipboard_are_shown() {
    let link = "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\";
    assert_eq!(
        flowing(link),
        "␛]8;;https://evil.example/␛\\click me␛]8;;␛\\"
    );
    assert_eq!(
        flowing("a\x1b]52;c;cm0gLXJmIH4=\x07b"),
        "a␛]52;c;cm0gLXJmIH4=␇b"
    );
    assert_eq!(flowing("\x1b]0;owned\x07x"), "␛]0;owned␇x");
    // C1 OSC terminated by C1 ST.
    assert_eq!(
        flowing("a\u{9d}0;title\u{9c}b"),
        "a<U+009D>0;title<U+009C>b"
    );
}

#[test]
fn dcs_sos_pm_apc_are_shown() {
    assert_eq!(flowing("a\x1bPq#0~\x1b\\b"), "a␛Pq#0~␛\\b");
    assert_eq!(
        flowing("\x1bXsos\x1b\\\x1b^pm\x1b\\\x1b_apc\x1b\\"),
        "␛Xsos␛\\␛^pm␛\\␛_apc␛\\"
    );
    assert_eq!(flowing("a\u{90}dcs\u{9c}"), "a<U+0090>dcs<U+009C>");
    assert_eq!(flowing("a\x1b]0;t\x18b\x1a"), "a␛]0;t␘b␚");
}

#[test]
fn c1_controls_are_named() {
    assert_eq!(
        flowing("a\u{9b}31mred\u{9b}0m"),
        "a<U+009B>31mred<U+009B>0m"
    );
    assert_eq!(
        flowing("a\u{85}b\u{8d}c\u{80}\u{9f}"),
        "a<U+0085>b<U+008D>c<U+0080><U+009F>"
    );
}

#[test]
fn bidi_overrides_and_invisible_characters_are_named() {
    // Trojan Source: the comment appears to close the string.
    let line = "if access_level != \"user\u{202e} \u{2066}// Check if admin\u{2069} \u{2066}\" {";
    assert_eq!(
        flowing(line),
        "if access_level != \"user<U+202E> <U+2066>// Check if admin<U+2069> <U+2066>\" {"
    );
    assert_eq!(
        exact("\u{200e}x\u{200f}y\u{61c}z"),
        "<U+200E>x<U+200F>y<U+061C>z"
    );
    assert_eq!(
        flowing("p\u{200b}a\u{ad}y\u{feff}\u{2060}"),
        "p<U+200B>a<U+00AD>y<U+FEFF><U+2060>"
    );
    assert_eq!(flowing("ok\u{e0069}"), "ok<U+E0069>");
    // Joiners stay: emoji and scripts need them.
    assert_eq!(flowing("👨\u{200d}👩"), "👨\u{200d}👩");
    assert_eq!(flowing("a\u{2028}b\u{2029}c"), "a\nb\nc");
    assert_eq!(exact("a\u{2028}b"), "a<U+2028>b");
}

#[test]
fn carriage_return_and_backspace_tricks_are_shown() {
    assert_eq!(
        flowing("echo safe\r\x1b[Krm -rf ~"),
        "echo safe␍␛[Krm -rf ~"
    );
    assert_eq!(flowing("line one\r\nline two\r\n"), "line one\nline two\n");
    assert_eq!(flowing("ok\x08\x08no"), "ok␈␈no");
    assert_eq!(
        flowing("tab\tkept\nnewline kept"),
        "tab\tkept\nnewline kept"
    );
    assert_eq!(
        flowing("bell\x07 vt\x0b ff\x0c nul\0 del\x7f"),
        "bell␇ vt␋ ff␌ nul␀ del␡"
    );
    assert_eq!(exact("one\r\ntwo\tthree"), "one␍␊two␉three");
}

#[test]
fn the_approval_spoof_is_plain_to_see() {
    // Erase the line, move up, erase again, then draw a harmless command.
    let arg = "touch PWNED; #\x1b[2K\x1b[1A\x1b[2Kansa: approve? run echo hello";
    assert_eq!(
        exact(arg),
        "touch PWNED; #␛[2K␛[1A␛[2Kansa: approve? run echo hello"
    );
    let arg = "touch PWNED\nansa: approve? run echo hello";
    assert_eq!(exact(arg), "touch PWNED␊ansa: approve? run echo hello");
}

#[test]
fn broken_sequences_are_shown_as_they_are() {
    assert_eq!(flowing("end\x1b"), "end␛");
    assert_eq!(flowing("end\x1b["), "end␛[");
    assert_eq!(flowing("\x1b[12"), "␛[12");
    assert_eq!(flowing("\x1b[3\n1m"), "␛[3\n1m");
    assert_eq!(flowing("\x1b\x1b[31mx"), "␛x");
    assert_eq!(flowing("\x1bé"), "␛é");
}

#[test]
fn clean_text_is_borrowed_even_when_long() {
    let line = "fn main() { println!(\"héllo, 世界 🦀\"); }\t// ok\n".repeat(20_000);
    assert!(matches!(flowing(&line), Cow::Borrowed(_)));
    let one = "run cargo test -p ansa — héllo 世界 🦀 ".repeat(20_000);
    assert!(matches!(exact(&one), Cow::Borrowed(_)));
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
    assert_eq!(flowing(&text), expected);
    let osc = format!("\x1b]52;c;{}\x07after", "A".repeat(1_000_000));
    assert_eq!(
        flowing(&osc),
        format!("␛]52;c;{}␇after", "A".repeat(1_000_000))
    );
}

#[test]
fn random_hostile_text_never_survives() {
    let mut rng = Rng::new(0x5eed_1234);
    for _ in 0..5_000 {
        let pieces = rng.below(60);
        let text = rng::text(&mut rng, pieces, true);
        let clean = flowing(&text);
        if let Some(c) = clean.chars().find(|&c| rng::forbidden(c)) {
            panic!("{c:?} survived in {clean:?} from {text:?}");
        }
        // Sanitized text is stable and borrowed the second time.
        assert!(matches!(flowing(&clean), Cow::Borrowed(_)), "{text:?}");
        let line = exact(&text);
        if let Some(c) = line
            .chars()
            .find(|&c| rng::forbidden(c) || c == '\n' || c == '\t')
        {
            panic!("{c:?} survived in {line:?} from {text:?}");
        }
        assert!(matches!(exact(&line), Cow::Borrowed(_)), "{text:?}");
        // Nothing is hidden: every ESC of the input is shown.
        let escapes = text.matches('\x1b').count();
        assert_eq!(line.matches('␛').count(), escapes, "{text:?}");
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
        let clean = flowing(&text);
        assert!(!clean.chars().any(rng::forbidden), "{text:?} -> {clean:?}");
        let line = exact(&text);
        assert!(
            !line.chars().any(|c| c.is_control()),
            "{text:?} -> {line:?}"
        );
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
    for round in 0..1_000 {
        let mut parser =
            vt100::Parser::new_with_callbacks(size(400), size(80), 0, Witness::default());
        parser.process(b"KEEP\r\n");
        let text = rng::text(&mut rng, 80, true);
        let clean = if round % 2 == 0 {
            flowing(&text).replace('\t', "    ").replace('\n', "\r\n")
        } else {
            exact(&text).into_owned()
        };
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
