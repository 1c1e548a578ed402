//! The ASON decoder. Every limit is checked before or while the value it bounds is allocated.

use super::error::{AsonError, SyntaxError};
use super::value::{Atom, Cell, Document, Field, Record, Table, Value};
use std::collections::HashSet;

/// Parser limits (docs/contract/ash-protocol.md §2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum document bytes.
    pub document_bytes: usize,
    /// Maximum LF count.
    pub lines: usize,
    /// Maximum top-level fields.
    pub fields: usize,
    /// Maximum key bytes.
    pub key_bytes: usize,
    /// Maximum columns per record or table.
    pub columns: usize,
    /// Maximum rows per table.
    pub table_rows: usize,
    /// Maximum items per vector.
    pub vector_items: usize,
    /// Maximum decoded bytes of one scalar.
    pub scalar_bytes: usize,
    /// Maximum scalar values in the whole document.
    pub scalars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            document_bytes: 8 * 1024 * 1024,
            lines: 262_144,
            fields: 256,
            key_bytes: 128,
            columns: 128,
            table_rows: 100_000,
            vector_items: 4096,
            scalar_bytes: 1024 * 1024,
            scalars: 1_000_000,
        }
    }
}

impl Limits {
    /// The defaults with a different document ceiling (RPC frames).
    pub fn with_document_bytes(document_bytes: usize) -> Self {
        Limits {
            document_bytes,
            ..Limits::default()
        }
    }
}

/// Decodes a document from bytes under `limits`.
pub fn decode(bytes: &[u8], limits: &Limits) -> Result<Document, AsonError> {
    if bytes.len() > limits.document_bytes {
        return Err(AsonError::TooLarge {
            size: bytes.len(),
            limit: limits.document_bytes,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| AsonError::InvalidUtf8 {
        offset: e.valid_up_to(),
    })?;
    decode_str(text, limits)
}

/// Decodes a document that is already known to be UTF-8.
pub fn decode_str(text: &str, limits: &Limits) -> Result<Document, AsonError> {
    if text.len() > limits.document_bytes {
        return Err(AsonError::TooLarge {
            size: text.len(),
            limit: limits.document_bytes,
        });
    }
    let mut p = Parser {
        text,
        pos: 0,
        line: 0,
        limits,
        scalars: 0,
    };
    p.document()
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    limits: &'a Limits,
    scalars: usize,
}

fn is_key(k: &str, max: usize) -> bool {
    let b = k.as_bytes();
    !b.is_empty()
        && b.len() <= max
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b[1..]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// Whether `c` may appear in bare (unquoted) text.
pub(crate) fn is_bare_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'_' | b'.' | b'/' | b'@' | b'+' | b'-' | b'#' | b'?' | b'|' | b'>'
        )
}

/// Parses canonical unsigned decimal (no leading zeros, fits u64).
pub fn parse_canonical_u64(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    s.parse().ok()
}

impl<'a> Parser<'a> {
    fn err(&self, reason: SyntaxError) -> AsonError {
        AsonError::Syntax {
            line: self.line.max(1),
            reason,
        }
    }

    /// Returns the next line (without LF), or None at end of input.
    fn next_line(&mut self) -> Result<Option<&'a str>, AsonError> {
        if self.pos >= self.text.len() {
            return Ok(None);
        }
        self.line += 1;
        if self.line > self.limits.lines {
            return Err(self.err(SyntaxError::TooManyLines(self.limits.lines)));
        }
        let rest = &self.text[self.pos..];
        let Some(end) = rest.find('\n') else {
            if rest.contains('\r') {
                return Err(self.err(SyntaxError::CarriageReturn));
            }
            return Err(self.err(SyntaxError::MissingFinalNewline));
        };
        let line = &rest[..end];
        self.pos += end + 1;
        if line.contains('\r') {
            return Err(self.err(SyntaxError::CarriageReturn));
        }
        if line.is_empty() {
            return Err(self.err(SyntaxError::BlankLine));
        }
        Ok(Some(line))
    }

    fn document(&mut self) -> Result<Document, AsonError> {
        if self.text.is_empty() {
            return Err(self.err(SyntaxError::Empty));
        }
        let mut fields: Vec<Field> = Vec::new();
        let mut seen: HashSet<&'a str> = HashSet::new();
        while let Some(line) = self.next_line()? {
            if fields.len() == self.limits.fields {
                return Err(self.err(SyntaxError::TooManyFields(self.limits.fields)));
            }
            let colon = line
                .find(':')
                .ok_or_else(|| self.err(SyntaxError::MissingColon))?;
            let (head, rest) = (&line[..colon], &line[colon + 1..]);
            let field = if head.contains(['{', '[']) {
                if !rest.is_empty() {
                    return Err(self.err(SyntaxError::TrailingAfterHeader));
                }
                self.header_field(head)?
            } else {
                self.check_key(head)?;
                let value = if rest.starts_with('[') {
                    Value::Vector(self.vector_value(rest)?)
                } else {
                    Value::Scalar(self.whole_atom(rest)?)
                };
                Field {
                    key: head.to_owned(),
                    value,
                }
            };
            let key = &line[..field.key.len()];
            if !seen.insert(key) {
                return Err(self.err(SyntaxError::DuplicateKey(field.key)));
            }
            fields.push(field);
        }
        Ok(Document { fields })
    }

    fn check_key(&self, key: &str) -> Result<(), AsonError> {
        if is_key(key, self.limits.key_bytes) {
            Ok(())
        } else {
            Err(self.err(SyntaxError::InvalidKey(clip(key))))
        }
    }

    fn header_field(&mut self, head: &'a str) -> Result<Field, AsonError> {
        let brace = head
            .find('{')
            .ok_or_else(|| self.err(SyntaxError::BadHeader("missing '{columns}'")))?;
        if !head.ends_with('}') {
            return Err(self.err(SyntaxError::BadHeader("column list must end with '}'")));
        }
        let (name_part, cols_part) = (&head[..brace], &head[brace + 1..head.len() - 1]);
        let (key, count) = match name_part.find('[') {
            Some(open) => {
                let Some(count) = name_part[open + 1..].strip_suffix(']') else {
                    return Err(self.err(SyntaxError::BadHeader(
                        "row count must be '[N]' directly before '{'",
                    )));
                };
                let n = parse_canonical_u64(count)
                    .ok_or_else(|| self.err(SyntaxError::BadRowCount(clip(count))))?;
                if n > self.limits.table_rows as u64 {
                    return Err(self.err(SyntaxError::TooManyRows {
                        count: n,
                        limit: self.limits.table_rows,
                    }));
                }
                (&name_part[..open], Some(n as usize))
            }
            None => (name_part, None),
        };
        self.check_key(key)?;
        let cols = self.columns(cols_part)?;
        let value = match count {
            None => {
                let row = self.row(cols.len(), 1)?;
                Value::Record(Record { cols, row })
            }
            Some(n) => {
                let mut rows = Vec::with_capacity(n.min(1024));
                for i in 0..n {
                    rows.push(self.row(cols.len(), n - i)?);
                }
                Value::Table(Table { cols, rows })
            }
        };
        Ok(Field {
            key: key.to_owned(),
            value,
        })
    }

    fn columns(&self, list: &str) -> Result<Vec<String>, AsonError> {
        if list.is_empty() {
            return Err(self.err(SyntaxError::BadColumns("at least one column is required")));
        }
        let mut cols: Vec<String> = Vec::new();
        for c in list.split(',') {
            if cols.len() == self.limits.columns {
                return Err(self.err(SyntaxError::BadColumns("more than 128 columns")));
            }
            self.check_key(c)?;
            if cols.iter().any(|x| x == c) {
                return Err(self.err(SyntaxError::BadColumns("duplicate column key")));
            }
            cols.push(c.to_owned());
        }
        Ok(cols)
    }

    fn row(&mut self, expected: usize, remaining: usize) -> Result<Vec<Cell>, AsonError> {
        let line = self
            .next_line()?
            .ok_or_else(|| self.err(SyntaxError::MissingRows(remaining)))?;
        let mut cells = Vec::with_capacity(expected);
        let mut rest = line;
        loop {
            if cells.len() == expected {
                return Err(self.err(SyntaxError::CellCount {
                    found: expected + 1,
                    expected,
                }));
            }
            let (cell, after) = if rest.starts_with('[') {
                let end = vector_end(rest)
                    .ok_or_else(|| self.err(SyntaxError::BadVector("missing ']'")))?;
                (Cell::Vector(self.vector_value(&rest[..end])?), &rest[end..])
            } else {
                let end = atom_end(rest);
                (Cell::Atom(self.whole_atom(&rest[..end])?), &rest[end..])
            };
            cells.push(cell);
            match after.strip_prefix(',') {
                Some(next) => rest = next,
                None if after.is_empty() => break,
                None => return Err(self.err(SyntaxError::BadQuote)),
            }
        }
        if cells.len() != expected {
            return Err(self.err(SyntaxError::CellCount {
                found: cells.len(),
                expected,
            }));
        }
        Ok(cells)
    }

    /// Parses `[a,b,…]` which must be the whole of `s`.
    fn vector_value(&mut self, s: &str) -> Result<Vec<Atom>, AsonError> {
        let inner = s
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .ok_or_else(|| self.err(SyntaxError::BadVector("a vector must end with ']'")))?;
        let mut items = Vec::new();
        if inner.is_empty() {
            return Ok(items);
        }
        let mut rest = inner;
        loop {
            if items.len() == self.limits.vector_items {
                return Err(self.err(SyntaxError::TooManyItems(self.limits.vector_items)));
            }
            if rest.starts_with('[') {
                return Err(self.err(SyntaxError::BadVector("vectors cannot nest")));
            }
            let end = atom_end(rest);
            items.push(self.whole_atom(&rest[..end])?);
            match rest[end..].strip_prefix(',') {
                Some(next) => rest = next,
                None if end == rest.len() => break,
                None => return Err(self.err(SyntaxError::BadQuote)),
            }
        }
        Ok(items)
    }

    fn count_scalar(&mut self) -> Result<(), AsonError> {
        self.scalars += 1;
        if self.scalars > self.limits.scalars {
            return Err(self.err(SyntaxError::TooManyScalars(self.limits.scalars)));
        }
        Ok(())
    }

    /// Parses one atom that must span all of `s`.
    fn whole_atom(&mut self, s: &str) -> Result<Atom, AsonError> {
        self.count_scalar()?;
        if s == "~" {
            return Ok(Atom::Null);
        }
        if let Some(body) = s.strip_prefix('"') {
            return self.quoted(body).map(Atom::Text);
        }
        if s.is_empty() {
            return Err(self.err(SyntaxError::EmptyCell));
        }
        if let Some(pos) = s.bytes().position(|b| !is_bare_byte(b)) {
            // Bytes before `pos` are ASCII, so `pos` is a char boundary.
            let ch = s[pos..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            return Err(self.err(SyntaxError::BareByte(ch)));
        }
        if let Some(digits) = s.strip_prefix('@')
            && !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
        {
            return parse_canonical_u64(digits)
                .map(Atom::Ref)
                .ok_or_else(|| self.err(SyntaxError::BadReference(clip(s))));
        }
        if s.len() > self.limits.scalar_bytes {
            return Err(self.err(SyntaxError::ScalarTooLarge(self.limits.scalar_bytes)));
        }
        Ok(Atom::Text(s.to_owned()))
    }

    /// Decodes the body of a quoted string (after the opening quote, including the closing one).
    fn quoted(&self, body: &str) -> Result<String, AsonError> {
        let inner = body
            .strip_suffix('"')
            .ok_or_else(|| self.err(SyntaxError::BadQuote))?;
        let max = self.limits.scalar_bytes;
        let mut out = String::with_capacity(inner.len().min(max));
        let mut chars = inner.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => return Err(self.err(SyntaxError::BadQuote)),
                '\\' => {
                    let Some((_, e)) = chars.next() else {
                        return Err(self.err(SyntaxError::BadQuote));
                    };
                    match e {
                        '\\' => out.push('\\'),
                        '"' => out.push('"'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let rest = &inner[i + 2..];
                            let close = rest.find('}');
                            let hex = match (rest.strip_prefix('{'), close) {
                                (Some(_), Some(close)) => &rest[1..close],
                                _ => {
                                    return Err(self.err(SyntaxError::BadEscape(clip(&inner[i..]))));
                                }
                            };
                            let ok = (1..=6).contains(&hex.len())
                                && hex.bytes().all(|b| b.is_ascii_hexdigit());
                            let ch = if ok {
                                u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
                            } else {
                                None
                            };
                            let Some(ch) = ch else {
                                return Err(self
                                    .err(SyntaxError::BadEscape(format!("\\u{{{}}}", clip(hex)))));
                            };
                            out.push(ch);
                            // Skip `{hex}`: they are ASCII, one char each.
                            for _ in 0..hex.len() + 2 {
                                chars.next();
                            }
                        }
                        other => return Err(self.err(SyntaxError::BadEscape(format!("\\{other}")))),
                    }
                }
                c if c.is_control() => return Err(self.err(SyntaxError::RawControl(c as u32))),
                c => out.push(c),
            }
            if out.len() > max {
                return Err(self.err(SyntaxError::ScalarTooLarge(max)));
            }
        }
        Ok(out)
    }
}

/// Byte index where the atom starting at `s` ends (at an unquoted `,` or the end of `s`).
/// A quoted atom ends after its closing quote; anything else up to the next comma.
fn atom_end(s: &str) -> usize {
    let b = s.as_bytes();
    if b.first() == Some(&b'"') {
        let mut i = 1;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        b.len()
    } else {
        memchr_comma(b)
    }
}

fn memchr_comma(b: &[u8]) -> usize {
    b.iter().position(|&c| c == b',').unwrap_or(b.len())
}

/// Byte index just past the `]` closing the vector cell that starts at `s[0] == '['`.
fn vector_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += atom_end(&s[i..]);
                continue;
            }
            b']' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Shortens user text quoted in an error message.
fn clip(s: &str) -> String {
    clip_to(s, 64)
}

/// Shortens `s` to at most `max` bytes (on a char boundary) plus `…`, for error messages.
pub(crate) fn clip_to(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
