//! The canonical ASON encoder: the only form ash ever emits.

use super::decode::is_bare_byte;
use super::value::{Atom, Cell, Document, Value};
use std::fmt::Write as _;

/// Encodes a document canonically.
pub fn encode(doc: &Document) -> String {
    let mut out = String::new();
    encode_into(doc, &mut out);
    out
}

/// Appends the canonical encoding of `doc` to `out`.
pub fn encode_into(doc: &Document, out: &mut String) {
    for f in &doc.fields {
        out.push_str(&f.key);
        match &f.value {
            Value::Scalar(a) => {
                out.push(':');
                atom(a, out);
            }
            Value::Vector(items) => {
                out.push(':');
                vector(items, out);
            }
            Value::Record(r) => {
                columns(&r.cols, out);
                out.push_str(":\n");
                row(&r.row, out);
            }
            Value::Table(t) => {
                let _ = write!(out, "[{}]", t.rows.len());
                columns(&t.cols, out);
                out.push(':');
                for r in &t.rows {
                    out.push('\n');
                    row(r, out);
                }
            }
        }
        out.push('\n');
    }
}

fn columns(cols: &[String], out: &mut String) {
    out.push('{');
    for (i, c) in cols.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(c);
    }
    out.push('}');
}

fn row(cells: &[Cell], out: &mut String) {
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match c {
            Cell::Atom(a) => atom(a, out),
            Cell::Vector(v) => vector(v, out),
        }
    }
}

fn vector(items: &[Atom], out: &mut String) {
    out.push('[');
    for (i, a) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        atom(a, out);
    }
    out.push(']');
}

/// Appends one atom in canonical form.
pub fn atom(a: &Atom, out: &mut String) {
    match a {
        Atom::Null => out.push('~'),
        Atom::Ref(n) => {
            let _ = write!(out, "@{n}");
        }
        Atom::Text(t) => text(t, out),
    }
}

/// Whether text may be emitted without quotes.
pub fn is_bare(t: &str) -> bool {
    !t.is_empty()
        && t.bytes().all(is_bare_byte)
        && !t
            .strip_prefix('@')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Appends text, bare when allowed, otherwise quoted with canonical escapes.
///
/// Runs of bytes that need no escape are copied whole: the escapes are `\\`, `\"`, `\n`,
/// `\r`, `\t` and `\u{..}` for the other control characters (C0, DEL and C1), and every one of
/// them starts at an ASCII byte or at the lead byte 0xC2 of U+0080..=U+009F, so a run always
/// ends on a character boundary.
pub fn text(t: &str, out: &mut String) {
    if is_bare(t) {
        out.push_str(t);
        return;
    }
    out.reserve(t.len() + 2);
    out.push('"');
    let bytes = t.as_bytes();
    if starts_no_escape(bytes) {
        out.push_str(t);
        out.push('"');
        return;
    }
    let mut run = 0;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let (escape, width): (Escape, usize) = match byte {
            b'\\' => (Escape::Short("\\\\"), 1),
            b'"' => (Escape::Short("\\\""), 1),
            b'\n' => (Escape::Short("\\n"), 1),
            b'\r' => (Escape::Short("\\r"), 1),
            b'\t' => (Escape::Short("\\t"), 1),
            0..0x20 | 0x7f => (Escape::Code(u32::from(byte)), 1),
            // U+0080..=U+009F: the code point equals its continuation byte.
            0xc2 => match bytes.get(at + 1) {
                Some(&next @ 0x80..=0x9f) => (Escape::Code(u32::from(next)), 2),
                _ => (Escape::None, 1),
            },
            _ => (Escape::None, 1),
        };
        match escape {
            Escape::None => {}
            Escape::Short(s) => {
                out.push_str(&t[run..at]);
                out.push_str(s);
                run = at + width;
            }
            Escape::Code(code) => {
                out.push_str(&t[run..at]);
                let _ = write!(out, "\\u{{{code:x}}}");
                run = at + width;
            }
        }
        at += width;
    }
    out.push_str(&t[run..]);
    out.push('"');
}

/// Whether no byte of `bytes` can start an escape (see [`text`]; every 0xC2 counts, not only
/// those of U+0080..=U+009F). Most quoted text has none, and this check, without an early exit,
/// compiles to vector compares where the escaping loop goes a byte at a time.
fn starts_no_escape(bytes: &[u8]) -> bool {
    bytes.iter().fold(true, |clean, &b| {
        clean & (b >= 0x20) & (b != b'"') & (b != b'\\') & (b != 0x7f) & (b != 0xc2)
    })
}

/// How [`text`] writes one byte sequence.
enum Escape {
    /// Copied as it is.
    None,
    /// A two-character escape.
    Short(&'static str),
    /// `\u{..}` with the code point in hex.
    Code(u32),
}
