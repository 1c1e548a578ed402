//! The six formulas over retained values: `a:[@ref, operands…]` with exact arity.

use super::walk::check_query;
use super::{MIB, path_entry};
use crate::ason::{Atom, Value};
use crate::protocol::caps::OpKind;
use crate::protocol::schema::{
    Loc, Problem, SchemaError, check_bytes, clip, flags, is_key, reference, text, text_bytes, uint,
    uint_in, vector,
};
use std::collections::HashSet;

/// Largest byte window of `/` and `?` (128 MiB).
pub const MAX_WINDOW_BYTES: u64 = 128 << 20;
/// Most lines of `#` and rows of `|`.
pub const MAX_WINDOW_ROWS: u64 = 1_000_000;
/// Most projected columns of `|`.
pub const MAX_PROJECT_COLUMNS: usize = 128;

/// A formula request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Formula {
    /// `/` `[@r,o,n]`: bytes `[o, o+n)` of a retained value.
    Slice {
        /// The retained value.
        source: u64,
        /// Zero-based byte offset.
        offset: u64,
        /// Bytes, 1..=128 MiB.
        len: u64,
    },
    /// `#` `[@r,o,n]`: `n` lines starting at one-based line `o`.
    LineSlice {
        /// The retained value.
        source: u64,
        /// One-based first line (≥1).
        line: u64,
        /// Lines, 1..=1,000,000.
        lines: u64,
    },
    /// `?` `[@r,o,n,q,f]`: every match of `q` inside bytes `[o, o+n)`.
    Find {
        /// The retained value.
        source: u64,
        /// Zero-based byte offset of the window.
        offset: u64,
        /// Window bytes, 1..=128 MiB.
        len: u64,
        /// The query.
        query: String,
        /// Flag bit 0: the query is a regex.
        regex: bool,
        /// Flag bit 1: case-insensitive.
        case_insensitive: bool,
    },
    /// `-` `[@r]`: release a retained value.
    Release {
        /// The retained value.
        source: u64,
    },
    /// `|` `[@r,T,o,n,C…]`: columns `C…` of rows `[o, o+n)` of table field `T`.
    Project {
        /// The retained ASON document.
        source: u64,
        /// The table field key.
        table: String,
        /// Zero-based first row.
        offset: u64,
        /// Rows, 1..=1,000,000.
        rows: u64,
        /// 1..128 unique column keys.
        columns: Vec<String>,
    },
    /// `>` `[@r,path]`: write a retained value to a new workspace file.
    Materialize {
        /// The retained value.
        source: u64,
        /// The new file's logical path.
        path: String,
    },
}

impl Formula {
    /// The operation kind.
    pub fn kind(&self) -> OpKind {
        match self {
            Formula::Slice { .. } => OpKind::Slice,
            Formula::LineSlice { .. } => OpKind::LineSlice,
            Formula::Find { .. } => OpKind::Find,
            Formula::Release { .. } => OpKind::Release,
            Formula::Project { .. } => OpKind::Project,
            Formula::Materialize { .. } => OpKind::Materialize,
        }
    }

    /// The retained value the formula reads.
    pub fn source(&self) -> u64 {
        match self {
            Formula::Slice { source, .. }
            | Formula::LineSlice { source, .. }
            | Formula::Find { source, .. }
            | Formula::Release { source }
            | Formula::Project { source, .. }
            | Formula::Materialize { source, .. } => *source,
        }
    }

    /// Parses the `a` vector of formula `kind`. `kind` must be a formula.
    pub(crate) fn from_value(kind: OpKind, v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("a");
        let list = vector(v, at)?;
        let arity = match kind {
            OpKind::Slice | OpKind::LineSlice => 3,
            OpKind::Find => 5,
            OpKind::Release => 1,
            OpKind::Materialize => 2,
            OpKind::Project => {
                if !(5..=4 + MAX_PROJECT_COLUMNS).contains(&list.len()) {
                    return Err(at.err(Problem::Detail(format!(
                        "formula | takes [{}] with 1..=128 columns, found {} item(s)",
                        operands(kind),
                        list.len()
                    ))));
                }
                list.len()
            }
            _ => return Err(at.err(Problem::Rule("not a formula operation"))),
        };
        if list.len() != arity {
            return Err(at.err(Problem::Detail(format!(
                "formula {} takes exactly [{}], found {} item(s)",
                kind.letter(),
                operands(kind),
                list.len()
            ))));
        }
        let item = |i: usize| at.item(i);
        let source = reference(&list[0], item(0))?;
        let window = |i: usize, max: u64| uint_in(&list[i], item(i), 1, max);
        Ok(match kind {
            OpKind::Slice => Formula::Slice {
                source,
                offset: uint(&list[1], item(1))?,
                len: window(2, MAX_WINDOW_BYTES)?,
            },
            OpKind::LineSlice => Formula::LineSlice {
                source,
                line: match uint(&list[1], item(1))? {
                    0 => {
                        return Err(item(1)
                            .err(Problem::Rule("line numbers are one-based; 0 is not a line")));
                    }
                    line => line,
                },
                lines: window(2, MAX_WINDOW_ROWS)?,
            },
            OpKind::Find => {
                let query = text_bytes(&list[3], item(3), 1, MIB)?.to_owned();
                let bits = flags(&list[4], item(4), 0b11)?;
                let (regex, case_insensitive) = (bits & 1 != 0, bits & 2 != 0);
                check_query(&query, regex, case_insensitive, item(3))?;
                Formula::Find {
                    source,
                    offset: uint(&list[1], item(1))?,
                    len: window(2, MAX_WINDOW_BYTES)?,
                    query,
                    regex,
                    case_insensitive,
                }
            }
            OpKind::Release => Formula::Release { source },
            OpKind::Project => {
                let table = key(&list[1], item(1))?;
                let offset = uint(&list[2], item(2))?;
                let rows = window(3, MAX_WINDOW_ROWS)?;
                let mut seen = HashSet::new();
                let mut columns = Vec::with_capacity(list.len() - 4);
                for (i, a) in list.iter().enumerate().skip(4) {
                    let c = key(a, item(i))?;
                    if !seen.insert(c.clone()) {
                        return Err(item(i).err(Problem::Detail(format!(
                            "column {:?} is listed twice",
                            clip(&c)
                        ))));
                    }
                    columns.push(c);
                }
                Formula::Project {
                    source,
                    table,
                    offset,
                    rows,
                    columns,
                }
            }
            _ => Formula::Materialize {
                source,
                path: path_entry(&list[1], item(1))?,
            },
        })
    }

    pub(crate) fn to_value(&self) -> Value {
        let mut items = vec![Atom::Ref(self.source())];
        match self {
            Formula::Slice { offset, len, .. } => {
                items.extend([Atom::uint(*offset), Atom::uint(*len)]);
            }
            Formula::LineSlice { line, lines, .. } => {
                items.extend([Atom::uint(*line), Atom::uint(*lines)]);
            }
            Formula::Find {
                offset,
                len,
                query,
                regex,
                case_insensitive,
                ..
            } => {
                let bits = u64::from(*regex) | (u64::from(*case_insensitive) << 1);
                items.extend([
                    Atom::uint(*offset),
                    Atom::uint(*len),
                    Atom::text(query.as_str()),
                    Atom::uint(bits),
                ]);
            }
            Formula::Release { .. } => {}
            Formula::Project {
                table,
                offset,
                rows,
                columns,
                ..
            } => {
                items.extend([
                    Atom::text(table.as_str()),
                    Atom::uint(*offset),
                    Atom::uint(*rows),
                ]);
                items.extend(columns.iter().map(|c| Atom::text(c.as_str())));
            }
            Formula::Materialize { path, .. } => items.push(Atom::text(path.as_str())),
        }
        Value::Vector(items)
    }
}

/// The operand list of a formula, for error messages.
fn operands(kind: OpKind) -> &'static str {
    match kind {
        OpKind::Slice | OpKind::LineSlice => "@r,o,n",
        OpKind::Find => "@r,o,n,q,f",
        OpKind::Release => "@r",
        OpKind::Project => "@r,T,o,n,C…",
        _ => "@r,path",
    }
}

/// A valid ASON key (table or column name).
fn key(a: &Atom, at: Loc) -> Result<String, SchemaError> {
    let k = text(a, at)?;
    check_bytes(k, at, 1, 128)?;
    if !is_key(k) {
        return Err(at.err(Problem::Detail(format!(
            "{:?} is not a valid ASON key",
            clip(k)
        ))));
    }
    Ok(k.to_owned())
}
