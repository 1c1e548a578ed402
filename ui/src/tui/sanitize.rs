//! Removal of everything a terminal would interpret, so that no text from the model, a tool
//! or the user can move the cursor, recolour the screen, set the clipboard, open hyperlinks
//! or reorder what is shown.
//!
//! [`sanitize`] keeps printable text, `\n` and `\t`. Tabs are left for the renderer: the
//! wrapping functions in [`super::wrap`] expand each tab to spaces up to the next multiple of
//! four columns, so no tab ever reaches the terminal.

use std::borrow::Cow;

/// What [`sanitize`] does with one character.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    /// Printable (or `\n` / `\t`): kept as is.
    Keep,
    /// Removed on its own.
    Drop,
    /// Replaced by `\n` (U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR).
    Newline,
    /// `ESC`: starts an escape sequence, removed as a whole.
    Escape,
    /// C1 `CSI` (U+009B): a control sequence up to its final byte.
    Csi,
    /// C1 `DCS`, `SOS`, `OSC`, `PM`, `APC`: a control string up to its terminator.
    String,
}

/// Classifies one character. ASCII printable characters never get here on the fast path.
fn action(c: char) -> Action {
    match c {
        '\n' | '\t' => Action::Keep,
        '\x1b' => Action::Escape,
        // The rest of C0 (including a lone `\r`, so `\r\n` becomes `\n`) and DEL.
        '\0'..='\x1f' | '\x7f' => Action::Drop,
        '\u{9b}' => Action::Csi,
        '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => Action::String,
        // The rest of C1.
        '\u{80}'..='\u{9f}' => Action::Drop,
        '\u{2028}' | '\u{2029}' => Action::Newline,
        // BiDi embeddings, overrides, isolates and marks (Trojan Source).
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}' => {
            Action::Drop
        }
        // Invisible format characters that hide or smuggle text: soft hyphen (rendered
        // inconsistently by terminals), zero width space, word joiner and invisible
        // operators, deprecated format controls, byte order mark, Mongolian vowel separator,
        // interlinear annotations and the tag characters (“ASCII smuggling”). Zero width
        // joiner and non-joiner stay: emoji sequences and many scripts need them.
        '\u{ad}'
        | '\u{200b}'
        | '\u{2060}'..='\u{2064}'
        | '\u{206a}'..='\u{206f}'
        | '\u{feff}'
        | '\u{180e}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}' => Action::Drop,
        _ => Action::Keep,
    }
}

/// Returns `text` without anything a terminal would interpret:
///
/// - C0 control characters except `\n` and `\t` (a lone `\r` is dropped, so `\r\n` becomes
///   `\n` and `\r` cannot overwrite a line), and DEL;
/// - whole escape sequences: CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`, the control strings
///   DCS/SOS/PM/APC `ESC P|X|^|_ … ST`, `ESC` + intermediates + final (`ESC ( B`) and the
///   two-character `ESC x`; a sequence interrupted by a control character ends there;
/// - C1 controls (U+0080–U+009F), with C1 `CSI`/`OSC`/`DCS`/`SOS`/`PM`/`APC` removed together
///   with their sequence;
/// - Unicode BiDi controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) and other
///   invisible format characters that can spoof text (soft hyphen, zero width space, word
///   joiner, BOM, tag characters, …); U+2028 and U+2029 become `\n`.
///
/// A control string (OSC, DCS, …) without a terminator ends at the end of its line, so a stray
/// `ESC ]` cannot swallow the rest of an answer (what follows is plain text by then).
///
/// Borrows `text` when nothing needs removing.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    let Some(first) = next_unsafe(text, 0) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    let mut at = first;
    let mut copied = 0;
    loop {
        out.push_str(&text[copied..at]);
        let Some(c) = text[at..].chars().next() else {
            break;
        };
        let after = at + c.len_utf8();
        copied = match action(c) {
            Action::Keep | Action::Drop => after,
            Action::Newline => {
                out.push('\n');
                after
            }
            Action::Escape => skip_escape(text, after),
            Action::Csi => skip_csi(text, after),
            Action::String => skip_string(text, after),
        };
        match next_unsafe(text, copied) {
            Some(next) => at = next,
            None => {
                out.push_str(&text[copied..]);
                break;
            }
        }
    }
    Cow::Owned(out)
}

/// The byte offset of the first character at or after `from` that is not kept as is.
fn next_unsafe(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t' {
                i += 1;
                continue;
            }
            return Some(i);
        }
        // `i` is a character boundary: it only ever advances by whole characters.
        let c = text[i..].chars().next()?;
        if action(c) != Action::Keep {
            return Some(i);
        }
        i += c.len_utf8();
    }
    None
}

/// Skips what follows an `ESC` at `at`; returns the offset after the sequence.
fn skip_escape(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    match bytes.get(at) {
        Some(b'[') => skip_csi(text, at + 1),
        Some(b']' | b'P' | b'X' | b'^' | b'_') => skip_string(text, at + 1),
        Some(0x20..=0x2f) => {
            // nF: intermediates, then one final byte.
            let mut i = at;
            while let Some(0x20..=0x2f) = bytes.get(i) {
                i += 1;
            }
            match bytes.get(i) {
                Some(0x30..=0x7e) => i + 1,
                _ => i,
            }
        }
        // Two characters: `ESC 7`, `ESC c`, `ESC =`, …
        Some(0x30..=0x7e) => at + 1,
        // `ESC` before a control, DEL, a non-ASCII character or the end: only `ESC` goes.
        _ => at,
    }
}

/// Skips the body of a control sequence (after `ESC [` or C1 `CSI`): parameter and
/// intermediate bytes, then the final byte. Anything else ends the sequence unconsumed.
fn skip_csi(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = at;
    while let Some(0x20..=0x3f) = bytes.get(i) {
        i += 1;
    }
    match bytes.get(i) {
        Some(0x40..=0x7e) => i + 1,
        _ => i,
    }
}

/// Skips the body of a control string (OSC, DCS, SOS, PM, APC) up to and including its
/// terminator: BEL, `ESC \`, C1 ST (U+009C), or CAN/SUB (which abort it). An `ESC` that does
/// not start ST ends the string and is handled as a new sequence; a `\n` or the end of the
/// text ends an unterminated string (the `\n` is kept).
fn skip_string(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = at;
    while let Some(&b) = bytes.get(i) {
        match b {
            0x07 | 0x18 | 0x1a => return i + 1,
            b'\n' => return i,
            0x1b => {
                return if bytes.get(i + 1) == Some(&b'\\') {
                    i + 2
                } else {
                    i
                };
            }
            // U+009C in UTF-8.
            0xc2 if bytes.get(i + 1) == Some(&0x9c) => return i + 2,
            _ => i += 1,
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_is_borrowed() {
        let text = "plain\ttext\nwith ünïcödé, 漢字 and 🦀";
        assert!(matches!(sanitize(text), Cow::Borrowed(_)));
    }

    #[test]
    fn sequences_go_as_a_whole() {
        assert_eq!(sanitize("a\x1b[1;31mred\x1b[0m b"), "ared b");
        assert_eq!(sanitize("\x1b]8;;http://x\x07link\x1b]8;;\x1b\\"), "link");
        assert_eq!(sanitize("x\u{9b}2Jy"), "xy");
        assert_eq!(sanitize("a\x1b(Bb\x1b7c"), "abc");
        assert_eq!(sanitize("1\r\n2\r3"), "1\n23");
        assert_eq!(sanitize("a\u{2028}b"), "a\nb");
    }
}
