//! Errors of the ASON decoder and the canonicality check.

use thiserror::Error;

/// Why a document failed to decode.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AsonError {
    /// The document exceeds the byte ceiling.
    #[error("document is {size} bytes, over the {limit}-byte limit")]
    TooLarge {
        /// Actual size in bytes.
        size: usize,
        /// The ceiling in bytes.
        limit: usize,
    },
    /// The document is not UTF-8.
    #[error("document is not valid UTF-8 (first invalid byte at offset {offset})")]
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// The document is UTF-8 but breaks the grammar or a parser limit.
    #[error("line {line}: {reason}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What is wrong on that line.
        reason: SyntaxError,
    },
}

/// A grammar or limit violation at a specific line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SyntaxError {
    /// Zero-byte document.
    #[error("empty document (at least one field is required)")]
    Empty,
    /// A CR byte appeared; only LF line ends are allowed.
    #[error("carriage return (CR) byte; ASON uses LF line ends only")]
    CarriageReturn,
    /// The last line lacks its LF.
    #[error("missing final line feed")]
    MissingFinalNewline,
    /// An empty line.
    #[error("blank line")]
    BlankLine,
    /// More LF-terminated lines than allowed.
    #[error("more than {0} lines")]
    TooManyLines(usize),
    /// More top-level fields than allowed.
    #[error("more than {0} top-level fields")]
    TooManyFields(usize),
    /// A field line has no `:`.
    #[error("field line has no ':' separator")]
    MissingColon,
    /// A key is empty, too long or has a byte outside the key alphabet.
    #[error(
        "invalid key {0:?} (keys start with a letter or '_', then letters, digits, '_', '.', '-', at most 128 bytes)"
    )]
    InvalidKey(String),
    /// The same top-level key appears twice.
    #[error("duplicate top-level key {0:?}")]
    DuplicateKey(String),
    /// A header line is malformed.
    #[error("malformed header: {0}")]
    BadHeader(&'static str),
    /// Text follows the `:` of a header line.
    #[error("header line has text after ':'")]
    TrailingAfterHeader,
    /// A table row count is not canonical decimal.
    #[error("table row count {0:?} is not a canonical unsigned decimal")]
    BadRowCount(String),
    /// A table declares more rows than allowed.
    #[error("table declares {count} rows, over the {limit}-row limit")]
    TooManyRows {
        /// Declared rows.
        count: u64,
        /// The limit.
        limit: usize,
    },
    /// A column list is empty, too long or repeats a key.
    #[error("bad column list: {0}")]
    BadColumns(&'static str),
    /// A record or table ended before all its rows.
    #[error("document ends before the {0} expected row line(s)")]
    MissingRows(usize),
    /// A row has a different number of cells than columns.
    #[error("row has {found} cells but the header declares {expected} columns")]
    CellCount {
        /// Cells seen (counting stops one past the expected count).
        found: usize,
        /// Declared columns.
        expected: usize,
    },
    /// An empty unquoted cell.
    #[error("empty cell (write an empty string as \"\")")]
    EmptyCell,
    /// A byte outside the bare-text alphabet in an unquoted cell.
    #[error("byte {0:?} is not allowed in bare text (quote the value)")]
    BareByte(char),
    /// A reference with a leading zero or out of the u64 range.
    #[error("invalid reference {0:?} (canonical decimal u64 without leading zeros)")]
    BadReference(String),
    /// A quoted string is unterminated or its closing quote is not the end of the cell.
    #[error("quoted string must end with '\"' at the end of its cell")]
    BadQuote,
    /// An escape other than `\\ \" \n \r \t \u{H…}`.
    #[error("invalid escape sequence {0:?}")]
    BadEscape(String),
    /// A raw control character inside quotes.
    #[error("raw control character U+{0:04X} inside a quoted string (escape it)")]
    RawControl(u32),
    /// A vector value that does not close with `]` or nests another vector.
    #[error("malformed vector: {0}")]
    BadVector(&'static str),
    /// A vector with too many items.
    #[error("vector has more than {0} items")]
    TooManyItems(usize),
    /// A decoded scalar larger than allowed.
    #[error("decoded scalar is larger than {0} bytes")]
    ScalarTooLarge(usize),
    /// More scalar values in the document than allowed.
    #[error("document has more than {0} scalar values")]
    TooManyScalars(usize),
}

/// Why a document failed the canonical-form check.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CanonicalError {
    /// The document does not decode at all.
    #[error(transparent)]
    Decode(#[from] AsonError),
    /// The document decodes but is not in canonical form.
    #[error("line {line}: not canonical ASON (re-encoding differs; expected {expected:?})")]
    NotCanonical {
        /// First line whose bytes differ.
        line: usize,
        /// The canonical form of that line.
        expected: String,
    },
}
