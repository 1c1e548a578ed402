//! The sanitiser's rule for a serialised JSON document (a JSONL event, a printed config or
//! status): serde_json escapes C0 controls in strings but writes DEL, the C1 controls, BiDi
//! controls and invisible format characters raw, and a terminal may act on them.

use std::borrow::Cow;

use super::{Class, class};

/// `json` with every character the sanitiser would show (DEL, C1, the `<U+…>` set, U+2028 and
/// U+2029) written as a `\uXXXX` escape (a surrogate pair above U+FFFF). Such characters only
/// occur inside strings, so the document decodes to the same value. `json` is one serialised
/// document; `\n`, `\t` and `\r` are left alone (outside strings they are whitespace, inside
/// them serde_json has escaped them already). Borrows `json` when nothing needs escaping.
pub fn json_line(json: &str) -> Cow<'_, str> {
    let Some(first) = next_escaped(json) else {
        return Cow::Borrowed(json);
    };
    let mut out = String::with_capacity(json.len() + 16);
    out.push_str(&json[..first]);
    for c in json[first..].chars() {
        if needs(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                push_unit(&mut out, *unit);
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `c` is written as an escape.
fn needs(c: char) -> bool {
    !matches!(
        class(c),
        Class::Plain | Class::Newline | Class::Tab | Class::Return
    )
}

/// The offset of the first character [`needs`] escaping; ASCII printable bytes are skipped
/// without decoding.
fn next_escaped(json: &str) -> Option<usize> {
    let bytes = json.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if (0x20..0x7f).contains(&b) {
            i += 1;
            continue;
        }
        // `i` is a character boundary: it only ever advances by whole characters.
        let c = json[i..].chars().next()?;
        if needs(c) {
            return Some(i);
        }
        i += c.len_utf8();
    }
    None
}

/// Appends `\uXXXX` for one UTF-16 code unit.
fn push_unit(out: &mut String, unit: u16) {
    use std::fmt::Write;
    // Writing to a String cannot fail.
    let _ = write!(out, "\\u{unit:04x}");
}
