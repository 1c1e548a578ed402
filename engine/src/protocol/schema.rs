//! Typed reading of syntax-level ASON values, with errors that name the offending field.

use super::hex::Digest;
use super::wire_enum::WireCode;
use crate::ason::{Atom, CanonicalError, Cell, Document, Value, parse_canonical_u64};
use thiserror::Error;

/// A schema violation: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{at}: {problem}")]
pub struct SchemaError {
    /// The offending field, e.g. `u.tok`, `a.p item 3`, `a row 2, column k`.
    pub at: String,
    /// What is wrong with it.
    pub problem: Problem,
}

impl SchemaError {
    /// An error at a location given as text.
    pub fn new(at: impl Into<String>, problem: Problem) -> Self {
        SchemaError {
            at: at.into(),
            problem,
        }
    }

    /// The same error located inside `outer` (for documents embedded in a cell).
    pub fn within(self, outer: &str) -> Self {
        SchemaError {
            at: format!("{outer} → {}", self.at),
            problem: self.problem,
        }
    }
}

/// The shape of a top-level field value or row cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `key:ATOM` or an atom cell.
    Scalar,
    /// `key:[…]` or a vector cell.
    Vector,
    /// `key{…}:` + one row.
    Record,
    /// `key[N]{…}:` + N rows.
    Table,
}

impl Form {
    /// The form of a field value.
    pub fn of(v: &Value) -> Form {
        match v {
            Value::Scalar(_) => Form::Scalar,
            Value::Vector(_) => Form::Vector,
            Value::Record(_) => Form::Record,
            Value::Table(_) => Form::Table,
        }
    }

    /// The form of a row cell.
    pub fn of_cell(c: &Cell) -> Form {
        match c {
            Cell::Atom(_) => Form::Scalar,
            Cell::Vector(_) => Form::Vector,
        }
    }
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Form::Scalar => "a scalar",
            Form::Vector => "a vector",
            Form::Record => "a record",
            Form::Table => "a table",
        })
    }
}

/// What is wrong with a field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Problem {
    /// A required field is absent.
    #[error("field is missing")]
    Missing,
    /// Top-level fields are not exactly the expected ones in order.
    #[error("fields must be exactly {expected} in this order; found {found}")]
    FieldOrder {
        /// The expected keys, comma-separated.
        expected: String,
        /// The keys present, comma-separated.
        found: String,
    },
    /// The value has the wrong form.
    #[error("must be {expected}, found {found}")]
    Form {
        /// The required form.
        expected: Form,
        /// The form present.
        found: Form,
    },
    /// A record or table has the wrong columns.
    #[error("columns must be {{{expected}}}, found {{{found}}}")]
    Columns {
        /// The expected columns, comma-separated.
        expected: String,
        /// The columns present, comma-separated.
        found: String,
    },
    /// An atom of the wrong kind (null, reference or text).
    #[error("must be {expected}, found {found}")]
    Atom {
        /// What was required.
        expected: &'static str,
        /// The atom present, abbreviated.
        found: String,
    },
    /// Text that should be canonical unsigned decimal.
    #[error("{0:?} is not a canonical unsigned decimal (digits only, no leading zeros)")]
    NotUint(String),
    /// Text that should be canonical signed decimal.
    #[error("{0:?} is not a canonical signed decimal")]
    NotInt(String),
    /// A number outside its allowed range.
    #[error("{value} is outside the allowed range {min}..={max}")]
    Range {
        /// The number present.
        value: u64,
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A wire enum number that names nothing.
    #[error("{value} is not a defined {what}")]
    UnknownCode {
        /// The number present.
        value: u64,
        /// What it should name.
        what: &'static str,
    },
    /// Flag bits outside the defined mask.
    #[error("flags {value} set undefined bits {unknown:#x} (defined mask {allowed:#x})")]
    UnknownFlags {
        /// The flags present.
        value: u64,
        /// The undefined bits among them.
        unknown: u64,
        /// The defined mask.
        allowed: u64,
    },
    /// `@0`, which no alias ever is.
    #[error("@0 is not a valid reference (aliases start at 1)")]
    ZeroReference,
    /// Hex text of the wrong length or case.
    #[error("{value:?} is not exactly {digits} lowercase hex digits")]
    Hex {
        /// The text present, abbreviated.
        value: String,
        /// Required digit count.
        digits: usize,
    },
    /// Text of the wrong byte length.
    #[error("is {len} bytes; allowed {min}..={max}")]
    Bytes {
        /// Byte length present.
        len: usize,
        /// Smallest allowed.
        min: usize,
        /// Largest allowed.
        max: usize,
    },
    /// A vector or table with the wrong number of entries.
    #[error("has {count} entries; allowed {min}..={max}")]
    Count {
        /// Entries present.
        count: usize,
        /// Smallest allowed.
        min: usize,
        /// Largest allowed.
        max: usize,
    },
    /// Text containing a NUL byte.
    #[error("contains a NUL byte")]
    Nul,
    /// A fixed rule of the operation is violated.
    #[error("{0}")]
    Rule(&'static str),
    /// A rule violation whose explanation names values from the request.
    #[error("{0}")]
    Detail(String),
    /// An unknown `o` letter.
    #[error("{0:?} is not an operation letter (x r l g p f b / # ? - | > s k)")]
    UnknownOp(String),
    /// A message type other than the one expected.
    #[error("message type {found} is not accepted here (expected {expected})")]
    MessageType {
        /// The `t` value present.
        found: u64,
        /// The `t` value required.
        expected: u64,
    },
    /// A document embedded in a cell is not canonical ASON.
    #[error("embedded document is not canonical ASON: {0}")]
    Embedded(CanonicalError),
    /// A search pattern does not compile.
    #[error("invalid regular expression: {0}")]
    Regex(String),
}

/// A location inside a document, rendered only when an error is reported.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Loc<'a> {
    field: &'a str,
    row: Option<usize>,
    col: Option<&'a str>,
    item: Option<usize>,
}

impl<'a> Loc<'a> {
    /// A top-level field.
    pub(crate) const fn field(field: &'a str) -> Self {
        Loc {
            field,
            row: None,
            col: None,
            item: None,
        }
    }

    /// A column of a record, or of the current row of a table.
    pub(crate) const fn col(self, col: &'a str) -> Self {
        Loc {
            col: Some(col),
            ..self
        }
    }

    /// A zero-based table row.
    pub(crate) const fn row(self, row: usize) -> Self {
        Loc {
            row: Some(row),
            ..self
        }
    }

    /// A zero-based vector item.
    pub(crate) const fn item(self, item: usize) -> Self {
        Loc {
            item: Some(item),
            ..self
        }
    }

    /// An error at this location.
    pub(crate) fn err(self, problem: Problem) -> SchemaError {
        SchemaError::new(self.render(), problem)
    }

    /// The location as text, e.g. `a row 2, column k`.
    pub(crate) fn render(self) -> String {
        let mut s = self.field.to_owned();
        match (self.row, self.col) {
            (Some(r), Some(c)) => s.push_str(&format!(" row {}, column {c}", r + 1)),
            (Some(r), None) => s.push_str(&format!(" row {}", r + 1)),
            (None, Some(c)) => s.push_str(&format!(".{c}")),
            (None, None) => {}
        }
        if let Some(i) = self.item {
            s.push_str(&format!(" item {}", i + 1));
        }
        s
    }
}

/// Requires the top-level keys of `doc` to be exactly `expected`, in order.
pub(crate) fn field_order(doc: &Document, expected: &[&str]) -> Result<(), SchemaError> {
    let same = doc.fields.len() == expected.len()
        && doc.fields.iter().zip(expected).all(|(f, k)| f.key == *k);
    if same {
        return Ok(());
    }
    let found: Vec<&str> = doc.fields.iter().map(|f| f.key.as_str()).collect();
    Err(SchemaError::new(
        "document",
        Problem::FieldOrder {
            expected: expected.join(","),
            found: found.join(","),
        },
    ))
}

/// The value of field `key`, or `Missing`.
pub(crate) fn get<'d>(doc: &'d Document, key: &'static str) -> Result<&'d Value, SchemaError> {
    doc.get(key)
        .ok_or_else(|| Loc::field(key).err(Problem::Missing))
}

fn form_error(at: Loc, expected: Form, found: Form) -> SchemaError {
    at.err(Problem::Form { expected, found })
}

/// The atom of a scalar field.
pub(crate) fn scalar<'d>(v: &'d Value, at: Loc) -> Result<&'d Atom, SchemaError> {
    match v {
        Value::Scalar(a) => Ok(a),
        other => Err(form_error(at, Form::Scalar, Form::of(other))),
    }
}

/// The items of a vector field.
pub(crate) fn vector<'d>(v: &'d Value, at: Loc) -> Result<&'d [Atom], SchemaError> {
    match v {
        Value::Vector(items) => Ok(items),
        other => Err(form_error(at, Form::Vector, Form::of(other))),
    }
}

fn check_columns(found: &[String], expected: &[&str], at: Loc) -> Result<(), SchemaError> {
    if found.len() == expected.len() && found.iter().zip(expected).all(|(f, e)| f == e) {
        return Ok(());
    }
    Err(at.err(Problem::Columns {
        expected: expected.join(","),
        found: found.join(","),
    }))
}

fn width_error(at: Loc) -> SchemaError {
    at.err(Problem::Rule("row width differs from the column count"))
}

/// The row of a record field with exactly the columns `cols`.
pub(crate) fn record<'d, const N: usize>(
    v: &'d Value,
    at: Loc,
    cols: [&str; N],
) -> Result<&'d [Cell; N], SchemaError> {
    let Value::Record(r) = v else {
        return Err(form_error(at, Form::Record, Form::of(v)));
    };
    check_columns(&r.cols, &cols, at)?;
    r.row.as_slice().try_into().map_err(|_| width_error(at))
}

/// The rows of a table field with exactly the columns `cols`.
pub(crate) fn table<'d, const N: usize>(
    v: &'d Value,
    at: Loc,
    cols: [&str; N],
) -> Result<Vec<&'d [Cell; N]>, SchemaError> {
    let Value::Table(t) = v else {
        return Err(form_error(at, Form::Table, Form::of(v)));
    };
    check_columns(&t.cols, &cols, at)?;
    t.rows
        .iter()
        .enumerate()
        .map(|(i, r)| r.as_slice().try_into().map_err(|_| width_error(at.row(i))))
        .collect()
}

/// The atom of a scalar cell.
pub(crate) fn atom<'d>(c: &'d Cell, at: Loc) -> Result<&'d Atom, SchemaError> {
    match c {
        Cell::Atom(a) => Ok(a),
        Cell::Vector(_) => Err(form_error(at, Form::Scalar, Form::Vector)),
    }
}

/// The items of a vector cell.
pub(crate) fn items<'d>(c: &'d Cell, at: Loc) -> Result<&'d [Atom], SchemaError> {
    match c {
        Cell::Vector(v) => Ok(v),
        Cell::Atom(_) => Err(form_error(at, Form::Vector, Form::Scalar)),
    }
}

/// A short rendering of an atom for error messages.
pub(crate) fn show(a: &Atom) -> String {
    match a {
        Atom::Null => "~".to_owned(),
        Atom::Ref(n) => format!("@{n}"),
        Atom::Text(t) => format!("text {:?}", clip(t)),
    }
}

/// Shortens request text quoted in an error message.
pub(crate) fn clip(s: &str) -> String {
    crate::ason::clip_to(s, 48)
}

fn wrong_atom(a: &Atom, at: Loc, expected: &'static str) -> SchemaError {
    at.err(Problem::Atom {
        expected,
        found: show(a),
    })
}

/// Text (not null, not a reference).
pub(crate) fn text<'d>(a: &'d Atom, at: Loc) -> Result<&'d str, SchemaError> {
    match a {
        Atom::Text(t) => Ok(t),
        other => Err(wrong_atom(other, at, "text")),
    }
}

/// Text or null.
pub(crate) fn opt_text<'d>(a: &'d Atom, at: Loc) -> Result<Option<&'d str>, SchemaError> {
    match a {
        Atom::Null => Ok(None),
        Atom::Text(t) => Ok(Some(t)),
        other => Err(wrong_atom(other, at, "text or ~")),
    }
}

/// Text of `min..=max` bytes.
pub(crate) fn text_bytes<'d>(
    a: &'d Atom,
    at: Loc,
    min: usize,
    max: usize,
) -> Result<&'d str, SchemaError> {
    let t = text(a, at)?;
    check_bytes(t, at, min, max)?;
    Ok(t)
}

/// Requires `min <= t.len() <= max`.
pub(crate) fn check_bytes(t: &str, at: Loc, min: usize, max: usize) -> Result<(), SchemaError> {
    if (min..=max).contains(&t.len()) {
        Ok(())
    } else {
        Err(at.err(Problem::Bytes {
            len: t.len(),
            min,
            max,
        }))
    }
}

/// Requires `min <= n <= max` entries.
pub(crate) fn check_count(n: usize, at: Loc, min: usize, max: usize) -> Result<(), SchemaError> {
    if (min..=max).contains(&n) {
        Ok(())
    } else {
        Err(at.err(Problem::Count { count: n, min, max }))
    }
}

/// Canonical unsigned decimal.
pub(crate) fn uint(a: &Atom, at: Loc) -> Result<u64, SchemaError> {
    match a {
        Atom::Text(t) => parse_canonical_u64(t).ok_or_else(|| at.err(Problem::NotUint(clip(t)))),
        other => Err(wrong_atom(other, at, "an unsigned decimal")),
    }
}

/// Canonical unsigned decimal or null.
pub(crate) fn opt_uint(a: &Atom, at: Loc) -> Result<Option<u64>, SchemaError> {
    match a {
        Atom::Null => Ok(None),
        other => uint(other, at).map(Some),
    }
}

/// Canonical unsigned decimal within `min..=max`.
pub(crate) fn uint_in(a: &Atom, at: Loc, min: u64, max: u64) -> Result<u64, SchemaError> {
    let value = uint(a, at)?;
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(at.err(Problem::Range { value, min, max }))
    }
}

/// Parses canonical signed decimal: optional `-`, then canonical digits, never `-0`.
pub(crate) fn parse_canonical_i64(t: &str) -> Option<i64> {
    match t.strip_prefix('-') {
        Some(digits) => {
            let magnitude = parse_canonical_u64(digits)?;
            if magnitude == 0 {
                return None;
            }
            0i64.checked_sub_unsigned(magnitude)
        }
        None => i64::try_from(parse_canonical_u64(t)?).ok(),
    }
}

/// Canonical signed decimal or null.
pub(crate) fn opt_int(a: &Atom, at: Loc) -> Result<Option<i64>, SchemaError> {
    match a {
        Atom::Null => Ok(None),
        Atom::Text(t) => parse_canonical_i64(t)
            .map(Some)
            .ok_or_else(|| at.err(Problem::NotInt(clip(t)))),
        other => Err(wrong_atom(other, at, "a signed decimal or ~")),
    }
}

/// Flags in canonical decimal with no bit outside `allowed`.
pub(crate) fn flags(a: &Atom, at: Loc, allowed: u64) -> Result<u64, SchemaError> {
    let value = uint(a, at)?;
    let unknown = value & !allowed;
    if unknown == 0 {
        Ok(value)
    } else {
        Err(at.err(Problem::UnknownFlags {
            value,
            unknown,
            allowed,
        }))
    }
}

/// A `0`/`1` boolean.
pub(crate) fn boolean(a: &Atom, at: Loc) -> Result<bool, SchemaError> {
    Ok(uint_in(a, at, 0, 1)? == 1)
}

/// A wire enum number.
pub(crate) fn code<T: WireCode>(a: &Atom, at: Loc) -> Result<T, SchemaError> {
    let value = uint(a, at)?;
    T::from_wire(value).ok_or_else(|| {
        at.err(Problem::UnknownCode {
            value,
            what: T::WHAT,
        })
    })
}

/// A wire enum number or null.
pub(crate) fn opt_code<T: WireCode>(a: &Atom, at: Loc) -> Result<Option<T>, SchemaError> {
    match a {
        Atom::Null => Ok(None),
        other => code(other, at).map(Some),
    }
}

/// A nonzero reference `@N`.
pub(crate) fn reference(a: &Atom, at: Loc) -> Result<u64, SchemaError> {
    match a {
        Atom::Ref(0) => Err(at.err(Problem::ZeroReference)),
        Atom::Ref(n) => Ok(*n),
        other => Err(wrong_atom(other, at, "a reference @N")),
    }
}

/// A nonzero reference or null.
pub(crate) fn opt_ref(a: &Atom, at: Loc) -> Result<Option<u64>, SchemaError> {
    match a {
        Atom::Null => Ok(None),
        other => reference(other, at).map(Some),
    }
}

/// Exactly 64 lowercase hex digits.
pub(crate) fn digest(a: &Atom, at: Loc) -> Result<Digest, SchemaError> {
    let t = text(a, at)?;
    Digest::from_hex(t).ok_or_else(|| {
        at.err(Problem::Hex {
            value: clip(t),
            digits: 64,
        })
    })
}

/// A digest or null.
pub(crate) fn opt_digest(a: &Atom, at: Loc) -> Result<Option<Digest>, SchemaError> {
    match a {
        Atom::Null => Ok(None),
        other => digest(other, at).map(Some),
    }
}

/// Whether `k` is a valid ASON key (letter or `_`, then alphanumerics, `_`, `.`, `-`; ≤128 bytes).
pub(crate) fn is_key(k: &str) -> bool {
    let b = k.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b[1..]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}
