//! The snapshot manifest: the ASON document a snapshot retains and a delta compares against.
//!
//! ```text
//! k:s
//! v:1
//! q{p,d,f}:
//! [<roots>],<depth>,<flags>
//! d[N]{p,k,z,h}:
//! <literal path>,<kind>,<size or ~>,<digest or ~>
//! ```

use super::Entry;
use crate::ason::{Atom, Cell, Limits, Value, decode, encode_text, parse_canonical_u64};
use crate::files::walk::SNAPSHOT_MAX_ENTRIES;
use crate::protocol::{Digest, EntryKind};

/// The first bytes of every manifest; anything else is rejected without decoding.
pub const MANIFEST_MAGIC: &[u8] = b"k:s\nv:1\nq{p,d,f}:\n";

/// What a snapshot covers: `q{p,d,f}`. A delta requires the baseline's scope to be equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// `p`: the roots, strictly sorted.
    pub paths: Vec<String>,
    /// `d`: the walk depth.
    pub depth: u8,
    /// `f` bit 0: hidden entries included.
    pub hidden: bool,
}

/// A scope and its entries, sorted strictly by path bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// `q`.
    pub scope: Scope,
    /// `d`.
    pub entries: Vec<Entry>,
}

/// A retained value that is not a snapshot manifest (202).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the retained value is not a snapshot manifest: {0}")]
pub struct NotManifest(pub &'static str);

impl Manifest {
    /// The canonical ASON encoding (literal paths).
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(64 + self.entries.len() * 112);
        out.push_str("k:s\nv:1\nq{p,d,f}:\n[");
        for (i, path) in self.scope.paths.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            encode_text(path, &mut out);
        }
        let flags = u8::from(self.scope.hidden);
        out.push_str(&format!(
            "],{},{flags}\nd[{}]{{p,k,z,h}}:\n",
            self.scope.depth,
            self.entries.len()
        ));
        for e in &self.entries {
            encode_text(&e.path, &mut out);
            out.push(',');
            out.push_str(&e.kind.as_u8().to_string());
            out.push(',');
            match e.size {
                Some(size) => out.push_str(&size.to_string()),
                None => out.push('~'),
            }
            out.push(',');
            match &e.digest {
                Some(digest) => out.push_str(&digest.to_hex()),
                None => out.push('~'),
            }
            out.push('\n');
        }
        out
    }

    /// Parses a manifest: the four fields in order, typed cells, paths strictly ascending.
    pub fn decode(bytes: &[u8]) -> Result<Manifest, NotManifest> {
        if !bytes.starts_with(MANIFEST_MAGIC) {
            return Err(NotManifest("it does not start with k:s, v:1 and q{p,d,f}"));
        }
        // Our own manifests exceed the request-sized document ceiling long before the row limit.
        let limits = Limits {
            document_bytes: bytes.len(),
            table_rows: SNAPSHOT_MAX_ENTRIES,
            ..Limits::default()
        };
        let doc = decode(bytes, &limits).map_err(|_| NotManifest("it is not valid ASON"))?;
        let [k, v, q, d] = doc.fields.as_slice() else {
            return Err(NotManifest(
                "it does not have exactly the fields k, v, q, d",
            ));
        };
        let header = [(k, "k", "s"), (v, "v", "1")];
        for (field, key, want) in header {
            if field.key != key || field.value != Value::Scalar(Atom::text(want)) {
                return Err(NotManifest("k must be s and v must be 1"));
            }
        }
        if q.key != "q" || d.key != "d" {
            return Err(NotManifest("the fields are not k, v, q, d in order"));
        }
        let scope = scope(&q.value)?;
        let entries = entries(&d.value)?;
        Ok(Manifest { scope, entries })
    }
}

fn scope(v: &Value) -> Result<Scope, NotManifest> {
    const BAD: NotManifest = NotManifest("q is not a record {p,d,f} of roots, depth and flags");
    let Value::Record(r) = v else {
        return Err(BAD);
    };
    let [Cell::Vector(p), Cell::Atom(d), Cell::Atom(f)] = r.row.as_slice() else {
        return Err(BAD);
    };
    if r.cols != ["p", "d", "f"] {
        return Err(BAD);
    }
    let paths = p
        .iter()
        .map(|a| text(a).map(str::to_owned))
        .collect::<Option<Vec<String>>>()
        .ok_or(BAD)?;
    let depth = uint(d)
        .and_then(|d| u8::try_from(d).ok())
        .filter(|d| *d <= crate::protocol::MAX_DEPTH)
        .ok_or(BAD)?;
    let hidden = match uint(f) {
        Some(0) => false,
        Some(1) => true,
        _ => return Err(BAD),
    };
    Ok(Scope {
        paths,
        depth,
        hidden,
    })
}

fn entries(v: &Value) -> Result<Vec<Entry>, NotManifest> {
    const BAD: NotManifest = NotManifest("d is not a table {p,k,z,h} of typed entries");
    let Value::Table(t) = v else {
        return Err(BAD);
    };
    if t.cols != ["p", "k", "z", "h"] {
        return Err(BAD);
    }
    let mut entries: Vec<Entry> = Vec::with_capacity(t.rows.len());
    for row in &t.rows {
        let [Cell::Atom(p), Cell::Atom(k), Cell::Atom(z), Cell::Atom(h)] = row.as_slice() else {
            return Err(BAD);
        };
        let path = text(p).ok_or(BAD)?;
        if entries
            .last()
            .is_some_and(|last| last.path.as_str() >= path)
        {
            return Err(NotManifest("d is not sorted strictly by path"));
        }
        let kind = uint(k)
            .and_then(|k| u8::try_from(k).ok())
            .and_then(EntryKind::from_u8)
            .ok_or(BAD)?;
        let size = match z {
            Atom::Null => None,
            z => Some(uint(z).ok_or(BAD)?),
        };
        let digest = match h {
            Atom::Null => None,
            h => Some(text(h).and_then(Digest::from_hex).ok_or(BAD)?),
        };
        entries.push(Entry {
            path: path.to_owned(),
            kind,
            size,
            digest,
        });
    }
    Ok(entries)
}

/// A non-empty text atom.
fn text(a: &Atom) -> Option<&str> {
    match a {
        Atom::Text(t) if !t.is_empty() => Some(t),
        _ => None,
    }
}

/// A canonical unsigned integer atom.
fn uint(a: &Atom) -> Option<u64> {
    text(a).and_then(parse_canonical_u64)
}
