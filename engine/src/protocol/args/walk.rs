//! Arguments of the read-side operations: read, list, search and snapshot.

use super::{MIB, path_vector, strictly_sorted};
use crate::ason::{Atom, Cell, Value};
use crate::protocol::emit;
use crate::protocol::schema::{
    Loc, Problem, SchemaError, atom, code, flags, items, record, text_bytes, uint, uint_in,
};

/// Deepest walk allowed for list and snapshot.
pub const MAX_DEPTH: u8 = 64;

wire_enum! {
    /// Read mode `m`.
    pub enum ReadMode: u8, "read mode", as_u8, from_u8 {
        /// 0: zero-based byte offset and byte count.
        Bytes = 0,
        /// 1: one-based line number and line count.
        Lines = 1,
    }
}

/// `r` read: `a{p,m,o,n}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadArgs {
    /// `p`: files to read, in order (duplicates allowed).
    pub paths: Vec<String>,
    /// `m`: bytes or lines.
    pub mode: ReadMode,
    /// `o`: zero-based byte offset, or one-based line (≥1).
    pub offset: u64,
    /// `n`: bytes or lines to read (≥1).
    pub count: u64,
}

impl ReadArgs {
    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("a");
        let [p, m, o, n] = record(v, at, ["p", "m", "o", "n"])?;
        let paths = path_vector(items(p, at.col("p"))?, at.col("p"))?;
        let mode: ReadMode = code(atom(m, at.col("m"))?, at.col("m"))?;
        let offset = uint(atom(o, at.col("o"))?, at.col("o"))?;
        let count = uint(atom(n, at.col("n"))?, at.col("n"))?;
        if count == 0 {
            return Err(at.col("n").err(Problem::Rule("count must be at least 1")));
        }
        if mode == ReadMode::Lines && offset == 0 {
            return Err(at.col("o").err(Problem::Rule(
                "line mode offsets are one-based; 0 is not a line",
            )));
        }
        Ok(ReadArgs {
            paths,
            mode,
            offset,
            count,
        })
    }

    pub(crate) fn to_value(&self) -> Value {
        Value::record(
            &["p", "m", "o", "n"],
            vec![
                emit::texts(&self.paths),
                emit::uint(self.mode.as_u8()),
                emit::uint(self.offset),
                emit::uint(self.count),
            ],
        )
    }
}

/// Which entry kinds a listing keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListFilter {
    /// Every kind.
    All,
    /// Flag bit 1: regular files only.
    FilesOnly,
    /// Flag bit 2: directories only.
    DirsOnly,
}

/// `l` list: `a{p,d,f}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ListArgs {
    /// `p`: walk roots.
    pub paths: Vec<String>,
    /// `d`: depth below each root, 0..=64.
    pub depth: u8,
    /// Flag bit 0: include hidden entries.
    pub hidden: bool,
    /// Flag bits 1–2: kind filter.
    pub filter: ListFilter,
}

impl ListArgs {
    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("a");
        let [p, d, f] = record(v, at, ["p", "d", "f"])?;
        let paths = path_vector(items(p, at.col("p"))?, at.col("p"))?;
        let depth = depth(d, at.col("d"))?;
        let bits = flags(atom(f, at.col("f"))?, at.col("f"), 0b111)?;
        let filter = match bits & 0b110 {
            0 => ListFilter::All,
            0b010 => ListFilter::FilesOnly,
            0b100 => ListFilter::DirsOnly,
            _ => {
                return Err(at.col("f").err(Problem::Rule(
                    "flags 2 (files only) and 4 (directories only) exclude each other",
                )));
            }
        };
        Ok(ListArgs {
            paths,
            depth,
            hidden: bits & 1 != 0,
            filter,
        })
    }

    pub(crate) fn to_value(&self) -> Value {
        Value::record(
            &["p", "d", "f"],
            vec![
                emit::texts(&self.paths),
                emit::uint(self.depth),
                emit::bits(&[
                    (self.hidden, 1),
                    (self.filter == ListFilter::FilesOnly, 2),
                    (self.filter == ListFilter::DirsOnly, 4),
                ]),
            ],
        )
    }
}

fn depth(c: &Cell, at: Loc) -> Result<u8, SchemaError> {
    let d = uint_in(atom(c, at)?, at, 0, u64::from(MAX_DEPTH))?;
    // In range 0..=64, so the conversion cannot fail.
    Ok(u8::try_from(d).unwrap_or(MAX_DEPTH))
}

/// Checks a query's syntax, mapping failure to a schema error. Only the syntax is checked here:
/// the executing operation compiles the pattern once (where the 16 MiB compiled-size limit also
/// answers 100), so validation does not pay for a second compilation.
pub(crate) fn check_query(
    query: &str,
    regex: bool,
    case_insensitive: bool,
    at: Loc,
) -> Result<(), SchemaError> {
    // A literal is escaped before compiling, so it is always valid syntax.
    if !regex {
        return Ok(());
    }
    regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .build()
        .parse(query)
        .map(drop)
        .map_err(|e| at.err(Problem::Regex(e.to_string())))
}

/// `g` search: `a{q,p,f}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SearchArgs {
    /// `q`: the query, 1 byte..1 MiB.
    pub query: String,
    /// `p`: walk roots.
    pub paths: Vec<String>,
    /// Flag bit 0: the query is a regex.
    pub regex: bool,
    /// Flag bit 1: case-insensitive.
    pub case_insensitive: bool,
    /// Flag bit 2: include hidden entries.
    pub hidden: bool,
}

impl SearchArgs {
    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("a");
        let [q, p, f] = record(v, at, ["q", "p", "f"])?;
        let query = text_bytes(atom(q, at.col("q"))?, at.col("q"), 1, MIB)?.to_owned();
        let paths = path_vector(items(p, at.col("p"))?, at.col("p"))?;
        let bits = flags(atom(f, at.col("f"))?, at.col("f"), 0b111)?;
        let args = SearchArgs {
            query,
            paths,
            regex: bits & 1 != 0,
            case_insensitive: bits & 2 != 0,
            hidden: bits & 4 != 0,
        };
        check_query(&args.query, args.regex, args.case_insensitive, at.col("q"))?;
        Ok(args)
    }

    pub(crate) fn to_value(&self) -> Value {
        Value::record(
            &["q", "p", "f"],
            vec![
                emit::text(&self.query),
                emit::texts(&self.paths),
                emit::bits(&[
                    (self.regex, 1),
                    (self.case_insensitive, 2),
                    (self.hidden, 4),
                ]),
            ],
        )
    }
}

/// Snapshot mode `m` with its baseline `r`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SnapshotMode {
    /// `m:0`, `r:~`: capture a manifest.
    Capture,
    /// `m:1`, `r:@n`: compare against the retained manifest `@n`.
    Delta(u64),
}

/// `s` snapshot: `a{p,d,m,r,f}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SnapshotArgs {
    /// `p`: walk roots, strictly sorted by bytes.
    pub paths: Vec<String>,
    /// `d`: depth, 0..=64.
    pub depth: u8,
    /// `m` and `r`.
    pub mode: SnapshotMode,
    /// Flag bit 0: include hidden entries.
    pub hidden: bool,
}

impl SnapshotArgs {
    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("a");
        let [p, d, m, r, f] = record(v, at, ["p", "d", "m", "r", "f"])?;
        let paths = path_vector(items(p, at.col("p"))?, at.col("p"))?;
        strictly_sorted(&paths, at.col("p"))?;
        let depth = depth(d, at.col("d"))?;
        let mode_bit = uint_in(atom(m, at.col("m"))?, at.col("m"), 0, 1)?;
        let baseline = atom(r, at.col("r"))?;
        let mode = match (mode_bit, baseline) {
            (0, Atom::Null) => SnapshotMode::Capture,
            (0, _) => {
                return Err(at.col("r").err(Problem::Rule(
                    "a capture (m:0) takes no baseline; r must be ~",
                )));
            }
            (_, Atom::Ref(0)) => return Err(at.col("r").err(Problem::ZeroReference)),
            (_, Atom::Ref(n)) => SnapshotMode::Delta(*n),
            _ => {
                return Err(at.col("r").err(Problem::Rule(
                    "a delta (m:1) needs the baseline manifest as a reference @n",
                )));
            }
        };
        let bits = flags(atom(f, at.col("f"))?, at.col("f"), 1)?;
        Ok(SnapshotArgs {
            paths,
            depth,
            mode,
            hidden: bits == 1,
        })
    }

    pub(crate) fn to_value(&self) -> Value {
        let (m, r) = match self.mode {
            SnapshotMode::Capture => (0u64, None),
            SnapshotMode::Delta(n) => (1, Some(n)),
        };
        Value::record(
            &["p", "d", "m", "r", "f"],
            vec![
                emit::texts(&self.paths),
                emit::uint(self.depth),
                emit::uint(m),
                emit::opt_ref(r),
                emit::boolean(self.hidden),
            ],
        )
    }
}
