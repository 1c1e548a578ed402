//! The syntax-level ASON value model: documents, fields, atoms, vectors, records and tables.
//!
//! ASON has no type inference: numbers, booleans and enums are text. Typed layers
//! (`crate::protocol`) interpret atoms.

/// One scalar cell: null (`~`), a reference (`@N`) or text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Atom {
    /// `~`
    Null,
    /// `@N` with canonical decimal N.
    Ref(u64),
    /// Bare or quoted text (the decoded string).
    Text(String),
}

impl Atom {
    /// Text atom from anything string-like.
    pub fn text(s: impl Into<String>) -> Self {
        Atom::Text(s.into())
    }

    /// Text atom holding the canonical decimal form of an unsigned integer.
    pub fn uint(n: u64) -> Self {
        Atom::Text(n.to_string())
    }

    /// Text atom holding the canonical decimal form of a signed integer.
    pub fn int(n: i64) -> Self {
        Atom::Text(n.to_string())
    }

    /// `Ref(n)` when `Some(n)`, otherwise null.
    pub fn opt_ref(r: Option<u64>) -> Self {
        r.map_or(Atom::Null, Atom::Ref)
    }

    /// Text when `Some`, otherwise null.
    pub fn opt_text(s: Option<impl Into<String>>) -> Self {
        s.map_or(Atom::Null, |s| Atom::Text(s.into()))
    }

    /// Unsigned integer text when `Some`, otherwise null.
    pub fn opt_uint(n: Option<u64>) -> Self {
        n.map_or(Atom::Null, Atom::uint)
    }
}

/// One cell of a record or table row: an atom or a single-level vector.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Cell {
    /// A scalar cell.
    Atom(Atom),
    /// A vector cell `[a,b,…]`.
    Vector(Vec<Atom>),
}

impl From<Atom> for Cell {
    fn from(a: Atom) -> Self {
        Cell::Atom(a)
    }
}

/// A record: column keys and exactly one row.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Record {
    /// Column keys.
    pub cols: Vec<String>,
    /// The single row; same length as `cols`.
    pub row: Vec<Cell>,
}

/// A table: column keys and N rows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Table {
    /// Column keys.
    pub cols: Vec<String>,
    /// Rows; each the same length as `cols`.
    pub rows: Vec<Vec<Cell>>,
}

/// The value of a top-level field.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// `key:ATOM`
    Scalar(Atom),
    /// `key:[ATOM,…]`
    Vector(Vec<Atom>),
    /// `key{cols}:` + one row
    Record(Record),
    /// `key[N]{cols}:` + N rows
    Table(Table),
}

/// A top-level field.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    /// The field key.
    pub key: String,
    /// The field value.
    pub value: Value,
}

/// An ASON document: an ordered list of top-level fields with unique keys.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Document {
    /// Fields in document order.
    pub fields: Vec<Field>,
}

impl Document {
    /// An empty document (not encodable until a field is added).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a field (builder style).
    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.push(key, value);
        self
    }

    /// Appends a field.
    pub fn push(&mut self, key: &str, value: Value) {
        self.fields.push(Field {
            key: key.to_owned(),
            value,
        });
    }

    /// Looks up a field by key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.iter().find(|f| f.key == key).map(|f| &f.value)
    }
}

impl Value {
    /// A scalar field value.
    pub fn atom(a: Atom) -> Self {
        Value::Scalar(a)
    }

    /// A record from column names and cells.
    pub fn record(cols: &[&str], row: Vec<Cell>) -> Self {
        Value::Record(Record {
            cols: cols.iter().map(|c| (*c).to_owned()).collect(),
            row,
        })
    }

    /// A table from column names and rows.
    pub fn table(cols: &[&str], rows: Vec<Vec<Cell>>) -> Self {
        Value::Table(Table {
            cols: cols.iter().map(|c| (*c).to_owned()).collect(),
            rows,
        })
    }
}
