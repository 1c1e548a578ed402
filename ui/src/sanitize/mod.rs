//! The one sanitiser for text bound for a terminal. Every string that comes from a model, a
//! tool, a file, a server or the user and reaches a terminal goes through it, in every
//! frontend (TUI, line mode, one-shot, the JSONL driver) and in the binary's own messages
//! on stdout and stderr. Its rule: control characters are made **visible, never
//! interpreted**, so nothing can move the cursor, erase or redraw a line, recolour the screen,
//! set the title or the clipboard, open a hyperlink or reorder what is shown — and the reader
//! sees that something odd was there.
//!
//! The visible notation (one for all of ansa):
//!
//! | what | shown as |
//! |---|---|
//! | C0 control U+0000–U+001F (`ESC` included) | its Unicode control picture U+2400–U+241F: `␛`, `␇`, `␈`, `␍`, `␀`, … |
//! | DEL U+007F | `␡` (U+2421) |
//! | C1 control U+0080–U+009F | `<U+009B>` |
//! | BiDi control, invisible format character (below) | `<U+202E>`, `<U+200B>`, … |
//!
//! An escape sequence is never removed or parsed as a whole: its `ESC` becomes `␛` and the
//! rest of it is the printable text it already is (`␛[2K␛[1A`, `␛]52;c;…␇`), so what the
//! sequence would have done is as plain to see as that it was there. The characters named
//! `<U+…>` are the C1 controls, the BiDi embeddings, overrides, isolates and marks (U+202A–
//! U+202E, U+2066–U+2069, U+200E, U+200F, U+061C: Trojan Source), U+2028/U+2029 in exact text,
//! and invisible characters that hide or smuggle text: soft hyphen, zero width space, word
//! joiner and invisible operators, deprecated format controls, byte order mark, Mongolian vowel
//! separator, the Hangul fillers, interlinear annotations, the tag characters ("ASCII
//! smuggling") and the format characters that draw nothing (prepended concatenation marks,
//! the Khitan filler, Egyptian, shorthand and musical format controls). Zero width joiner and non-joiner stay: emoji sequences and many scripts need
//! them.
//!
//! Two forms, for two kinds of text:
//!
//! - [`exact`]: what a user decides on or reads as one line — an approval's summary, argv,
//!   cwd, environment, actions and diff lines, a status line, an error message. Every control
//!   character is shown, `\n` (`␊`), `\t` (`␉`) and colour sequences included, so one string
//!   can never pass for two lines or hide part of itself.
//! - [`flowing`]: text read as a flow — a model's answer, a tool's output, a notice. `\n` and
//!   `\t` keep their meaning (tabs are expanded by the renderer), `\r\n` becomes `\n`, U+2028
//!   and U+2029 become `\n`, and SGR sequences (`ESC [` digits, `;`, `:` `m`: colour and
//!   text attributes only) are dropped silently: colour is all they can do, it is common in
//!   tool output, and `␛[1;31m` around every word would bury the text. Every other control,
//!   a lone `\r` included, is shown as above.
//!
//! [`json_line`] is the same rule for a JSON document: the characters serde_json leaves raw
//! inside strings (DEL, C1, the `<U+…>` set) are written as `\uXXXX` escapes, which decode to
//! the very same string.
//!
//! Both forms borrow the text when nothing needs showing (the common case costs one scan),
//! and their output passes through them unchanged.

mod json;

use std::borrow::Cow;

pub use json::json_line;

/// What a character is, as far as a terminal is concerned.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Printable: shown as itself.
    Plain,
    /// `\n`.
    Newline,
    /// `\t`.
    Tab,
    /// `\r`.
    Return,
    /// `ESC`: may start a sequence.
    Escape,
    /// Any other C0 control, or DEL: shown as its control picture.
    Control,
    /// U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR.
    Separator,
    /// C1 controls, BiDi controls and invisible format characters: shown as `<U+XXXX>`.
    Named,
}

/// Classifies one character. ASCII printable characters never get here on the fast path.
fn class(c: char) -> Class {
    match c {
        '\n' => Class::Newline,
        '\t' => Class::Tab,
        '\r' => Class::Return,
        '\x1b' => Class::Escape,
        '\0'..='\x1f' | '\x7f' => Class::Control,
        '\u{2028}' | '\u{2029}' => Class::Separator,
        '\u{80}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{61c}'
        | '\u{ad}'
        | '\u{200b}'
        | '\u{2060}'..='\u{2064}'
        | '\u{206a}'..='\u{206f}'
        | '\u{feff}'
        | '\u{180e}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{3164}'
        | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}'
        // Format characters (Cf) that draw nothing of their own: the prepended concatenation
        // marks, the Khitan filler, and the Egyptian, shorthand and musical format controls.
        | '\u{600}'..='\u{605}'
        | '\u{6dd}'
        | '\u{70f}'
        | '\u{8e2}'
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{16fe4}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e007f}' => Class::Named,
        _ => Class::Plain,
    }
}

/// Which of the two forms of the module docs a text is shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// What a user decides on or reads as one line: see [`exact`].
    Exact,
    /// Text read as a flow: see [`flowing`].
    Flowing,
}

/// `text` for a user to decide on or read as one line: every control character, `\n` and
/// `\t` included, and every escape sequence shown in the module's visible notation.
/// Borrows `text` when it has none.
pub fn exact(text: &str) -> Cow<'_, str> {
    sanitize(text, Form::Exact)
}

/// `text` read as a flow (an answer, tool output): `\n` and `\t` kept, `\r\n` and U+2028/9
/// made `\n`, SGR colour sequences dropped, every other control shown in the module's visible
/// notation. Borrows `text` when it has none of those.
pub fn flowing(text: &str) -> Cow<'_, str> {
    sanitize(text, Form::Flowing)
}

/// `text` in `form`: [`exact`] or [`flowing`].
pub fn sanitize(text: &str, form: Form) -> Cow<'_, str> {
    let Some(first) = next_unsafe(text, 0, form) else {
        return Cow::Borrowed(text);
    };
    // Each shown character grows by at most a few bytes; most text has few of them.
    let mut out = String::with_capacity(text.len() + 16);
    let mut at = first;
    let mut copied = 0;
    loop {
        out.push_str(&text[copied..at]);
        let Some(c) = text[at..].chars().next() else {
            break;
        };
        let after = at + c.len_utf8();
        copied = after;
        match (class(c), form) {
            (Class::Plain, _) | (Class::Newline | Class::Tab, Form::Flowing) => out.push(c),
            (Class::Return, Form::Flowing) if text.as_bytes().get(after) == Some(&b'\n') => {}
            (Class::Separator, Form::Flowing) => out.push('\n'),
            (Class::Escape, Form::Flowing) => match sgr_end(text, after) {
                Some(end) => copied = end,
                None => out.push(picture(c)),
            },
            (Class::Newline | Class::Tab | Class::Return | Class::Escape | Class::Control, _) => {
                out.push(picture(c));
            }
            (Class::Separator | Class::Named, _) => push_named(&mut out, c),
        }
        match next_unsafe(text, copied, form) {
            Some(next) => at = next,
            None => {
                out.push_str(&text[copied..]);
                break;
            }
        }
    }
    Cow::Owned(out)
}

/// The byte offset of the first character at or after `from` that is not shown as itself.
fn next_unsafe(text: &str, from: usize, form: Form) -> Option<usize> {
    let bytes = text.as_bytes();
    let flowing = form == Form::Flowing;
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if (0x20..0x7f).contains(&b) || (flowing && (b == b'\n' || b == b'\t')) {
                i += 1;
                continue;
            }
            return Some(i);
        }
        // `i` is a character boundary: it only ever advances by whole characters.
        let c = text[i..].chars().next()?;
        if class(c) != Class::Plain {
            return Some(i);
        }
        i += c.len_utf8();
    }
    None
}

/// The offset after an SGR sequence whose `ESC` ends just before `at`: `[`, then only
/// digits, `;` and `:`, then `m`. `None` for any other sequence.
fn sgr_end(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    let mut i = at + 1;
    while let Some(b'0'..=b'9' | b';' | b':') = bytes.get(i) {
        i += 1;
    }
    (bytes.get(i) == Some(&b'm')).then_some(i + 1)
}

/// The Unicode control picture of a C0 control or DEL.
fn picture(c: char) -> char {
    match c {
        '\x7f' => '\u{2421}',
        // U+2400 + the control's code is its picture; `c` is below U+0020 here.
        _ => char::from_u32(0x2400 + u32::from(c)).unwrap_or('\u{fffd}'),
    }
}

/// Appends `<U+XXXX>` (at least four upper-case hex digits).
fn push_named(out: &mut String, c: char) {
    use std::fmt::Write;
    // Writing to a String cannot fail.
    let _ = write!(out, "<U+{:04X}>", u32::from(c));
}

#[cfg(test)]
mod tests;
