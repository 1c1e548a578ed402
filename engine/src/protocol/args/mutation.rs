//! Arguments of the mutating operations: `p` patch and `f` fs.

use super::{Content, MIB, content, path_entry, strictly_sorted};
use crate::ason::{Atom, Cell, Value};
use crate::protocol::emit;
use crate::protocol::hex::Digest;
use crate::protocol::schema::{
    Loc, Problem, SchemaError, atom, check_count, clip, code, digest, flags, items, record, table,
    uint,
};
use std::collections::HashSet;

/// Most edits in one patch.
pub const MAX_EDITS: usize = 1024;
/// Most files in one patch: each is one action of the transaction journal, which holds at most
/// 256 (ASH/1 contract §6), so a larger patch could never be recovered after a crash.
pub const MAX_PATCH_FILES: usize = 256;
/// Most actions in one fs request.
pub const MAX_FS_ACTIONS: usize = 256;
/// Total inline bytes across one patch or fs request.
pub const MAX_INLINE_TOTAL: usize = 8 * MIB;

/// One edit of a file: replace `delete` bytes at `offset` of the original with `insert`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Edit {
    /// `o`: byte offset in the original file.
    pub offset: u64,
    /// `n`: bytes to delete.
    pub delete: u64,
    /// `v`: replacement text or `@ref`.
    pub insert: Content,
}

/// One patched file with its expected digest and its edits in offset order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PatchFile {
    /// The logical path.
    pub path: String,
    /// The BLAKE3 digest the file must currently have.
    pub digest: Digest,
    /// At least one edit, sorted by offset, non-overlapping.
    pub edits: Vec<Edit>,
}

/// `p` patch: `a{p,h,i,o,n,v,f}`, with edits grouped by file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PatchArgs {
    /// Files, strictly sorted by path bytes.
    pub files: Vec<PatchFile>,
}

impl PatchArgs {
    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("a");
        let [p, h, i, o, n, vv, f] = record(v, at, ["p", "h", "i", "o", "n", "v", "f"])?;
        let (ap, ah) = (at.col("p"), at.col("h"));
        let paths = items(p, ap)?;
        check_count(paths.len(), ap, 1, MAX_PATCH_FILES)?;
        let paths: Vec<String> = paths
            .iter()
            .enumerate()
            .map(|(k, a)| path_entry(a, ap.item(k)))
            .collect::<Result<_, _>>()?;
        strictly_sorted(&paths, ap)?;
        let digests = items(h, ah)?;
        if digests.len() != paths.len() {
            return Err(ah.err(Problem::Rule("h must hold exactly one digest per path")));
        }
        let digests: Vec<Digest> = digests
            .iter()
            .enumerate()
            .map(|(k, a)| digest(a, ah.item(k)))
            .collect::<Result<_, _>>()?;

        let (ai, ao, an, av) = (at.col("i"), at.col("o"), at.col("n"), at.col("v"));
        let (fi, fo, fn_, fv) = (items(i, ai)?, items(o, ao)?, items(n, an)?, items(vv, av)?);
        check_count(fi.len(), ai, 1, MAX_EDITS)?;
        if fo.len() != fi.len() || fn_.len() != fi.len() || fv.len() != fi.len() {
            return Err(at.err(Problem::Rule(
                "edit vectors i, o, n and v must have equal lengths",
            )));
        }
        let mut files: Vec<PatchFile> = paths
            .into_iter()
            .zip(digests)
            .map(|(path, digest)| PatchFile {
                path,
                digest,
                edits: Vec::new(),
            })
            .collect();
        let mut inline_total = 0usize;
        let mut prev: Option<(usize, u64, u64)> = None;
        for k in 0..fi.len() {
            let file = uint(&fi[k], ai.item(k))?;
            let file = usize::try_from(file)
                .ok()
                .filter(|&f| f < files.len())
                .ok_or_else(|| {
                    ai.item(k).err(Problem::Detail(format!(
                        "file index {file} does not name one of the {} paths",
                        files.len()
                    )))
                })?;
            let offset = uint(&fo[k], ao.item(k))?;
            let delete = uint(&fn_[k], an.item(k))?;
            let end = offset
                .checked_add(delete)
                .ok_or_else(|| an.item(k).err(Problem::Rule("offset + length overflows")))?;
            if let Some((pf, po, pend)) = prev {
                let ordered = file > pf || (file == pf && offset > po && offset >= pend);
                if !ordered {
                    return Err(ao.item(k).err(Problem::Rule(
                        "edits must be sorted by (file, offset) and must not overlap",
                    )));
                }
            }
            prev = Some((file, offset, end));
            let insert = content(&fv[k], av.item(k), MIB)?;
            inline_total += insert.inline_len();
            if inline_total > MAX_INLINE_TOTAL {
                return Err(av.err(Problem::Rule("inline replacements exceed 8 MiB in total")));
            }
            files[file].edits.push(Edit {
                offset,
                delete,
                insert,
            });
        }
        if let Some(k) = files.iter().position(|f| f.edits.is_empty()) {
            return Err(ap
                .item(k)
                .err(Problem::Rule("every path needs at least one edit")));
        }
        flags(atom(f, at.col("f"))?, at.col("f"), 0)?;
        Ok(PatchArgs { files })
    }

    pub(crate) fn to_value(&self) -> Value {
        let mut cols: [Vec<Atom>; 4] = Default::default();
        for (k, file) in self.files.iter().enumerate() {
            for e in &file.edits {
                cols[0].push(Atom::uint(k as u64));
                cols[1].push(Atom::uint(e.offset));
                cols[2].push(Atom::uint(e.delete));
                cols[3].push(e.insert.to_atom());
            }
        }
        let paths: Vec<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
        let digests: Vec<String> = self.files.iter().map(|f| f.digest.to_hex()).collect();
        let [i, o, n, v] = cols;
        Value::record(
            &["p", "h", "i", "o", "n", "v", "f"],
            vec![
                emit::texts(&paths),
                emit::texts(&digests),
                Cell::Vector(i),
                Cell::Vector(o),
                Cell::Vector(n),
                Cell::Vector(v),
                emit::uint(0u64),
            ],
        )
    }
}

wire_enum! {
    /// Fs action kind `k` (also the `k` of fs result rows).
    pub enum FsKind: u8, "fs action kind", as_u8, from_u8 {
        /// 0: create a new file.
        Create = 0,
        /// 1: copy to a new name.
        Copy = 1,
        /// 2: move to a new name.
        Move = 2,
        /// 3: remove.
        Remove = 3,
    }
}

/// What one fs action does.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FsOp {
    /// `0,path,~,~,content`: create a new file.
    Create {
        /// The new file.
        path: String,
        /// Its content.
        content: Content,
    },
    /// `1,from,to,digest,~`: copy a file that has `digest` to a new name.
    Copy {
        /// Source.
        from: String,
        /// Destination (must not exist).
        to: String,
        /// Expected source digest.
        digest: Digest,
    },
    /// `2,from,to,digest,~`: move a file that has `digest` to a new name.
    Move {
        /// Source.
        from: String,
        /// Destination (must not exist).
        to: String,
        /// Expected source digest.
        digest: Digest,
    },
    /// `3,path,~,digest,~`: remove a file that has `digest`.
    Remove {
        /// The file.
        path: String,
        /// Expected digest.
        digest: Digest,
    },
}

impl FsOp {
    /// The wire kind.
    pub fn kind(&self) -> FsKind {
        match self {
            FsOp::Create { .. } => FsKind::Create,
            FsOp::Copy { .. } => FsKind::Copy,
            FsOp::Move { .. } => FsKind::Move,
            FsOp::Remove { .. } => FsKind::Remove,
        }
    }

    /// The source (or only) path.
    pub fn path(&self) -> &str {
        match self {
            FsOp::Create { path, .. } | FsOp::Remove { path, .. } => path,
            FsOp::Copy { from, .. } | FsOp::Move { from, .. } => from,
        }
    }

    /// The destination path of copy and move.
    pub fn destination(&self) -> Option<&str> {
        match self {
            FsOp::Copy { to, .. } | FsOp::Move { to, .. } => Some(to),
            FsOp::Create { .. } | FsOp::Remove { .. } => None,
        }
    }
}

/// One row of an fs request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FsAction {
    /// `i`: positive, strictly increasing across the table.
    pub id: u64,
    /// `k,p,q,h,v`.
    pub op: FsOp,
}

/// `f` fs: `a[N]{i,k,p,q,h,v}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FsArgs {
    /// 1..256 actions, applied in order.
    pub actions: Vec<FsAction>,
}

impl FsArgs {
    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("a");
        let rows = table(v, at, ["i", "k", "p", "q", "h", "v"])?;
        check_count(rows.len(), at, 1, MAX_FS_ACTIONS)?;
        let mut actions: Vec<FsAction> = Vec::with_capacity(rows.len());
        let mut names: HashSet<&str> = HashSet::new();
        let mut inline_total = 0usize;
        for (r, [i, k, p, q, h, vv]) in rows.into_iter().enumerate() {
            let at = at.row(r);
            let id = uint(atom(i, at.col("i"))?, at.col("i"))?;
            let last = actions.last().map_or(0, |a| a.id);
            if id <= last {
                return Err(at.col("i").err(Problem::Rule(
                    "action ids must be positive and strictly increasing",
                )));
            }
            let kind: FsKind = code(atom(k, at.col("k"))?, at.col("k"))?;
            let path = path_entry(atom(p, at.col("p"))?, at.col("p"))?;
            let (q, h, vv) = (
                atom(q, at.col("q"))?,
                atom(h, at.col("h"))?,
                atom(vv, at.col("v"))?,
            );
            let op = match kind {
                FsKind::Create => {
                    null(q, at.col("q"), "create")?;
                    null(h, at.col("h"), "create")?;
                    let content = content(vv, at.col("v"), MIB)?;
                    inline_total += content.inline_len();
                    if inline_total > MAX_INLINE_TOTAL {
                        return Err(at
                            .col("v")
                            .err(Problem::Rule("inline contents exceed 8 MiB in total")));
                    }
                    FsOp::Create { path, content }
                }
                FsKind::Copy | FsKind::Move => {
                    let to = path_entry(q, at.col("q"))?;
                    let digest = digest(h, at.col("h"))?;
                    null(vv, at.col("v"), "copy and move")?;
                    if kind == FsKind::Copy {
                        FsOp::Copy {
                            from: path,
                            to,
                            digest,
                        }
                    } else {
                        FsOp::Move {
                            from: path,
                            to,
                            digest,
                        }
                    }
                }
                FsKind::Remove => {
                    null(q, at.col("q"), "remove")?;
                    let digest = digest(h, at.col("h"))?;
                    null(vv, at.col("v"), "remove")?;
                    FsOp::Remove { path, digest }
                }
            };
            actions.push(FsAction { id, op });
        }
        for (r, a) in actions.iter().enumerate() {
            for name in std::iter::once(a.op.path()).chain(a.op.destination()) {
                if !names.insert(name) {
                    return Err(at.row(r).err(Problem::Detail(format!(
                        "path {:?} appears more than once; every source and destination must be distinct",
                        clip(name)
                    ))));
                }
            }
        }
        Ok(FsArgs { actions })
    }

    pub(crate) fn to_value(&self) -> Value {
        let rows = self
            .actions
            .iter()
            .map(|a| {
                let (q, h, v) = match &a.op {
                    FsOp::Create { content, .. } => (Atom::Null, Atom::Null, content.to_atom()),
                    FsOp::Copy { to, digest, .. } | FsOp::Move { to, digest, .. } => (
                        Atom::text(to.as_str()),
                        Atom::text(digest.to_hex()),
                        Atom::Null,
                    ),
                    FsOp::Remove { digest, .. } => {
                        (Atom::Null, Atom::text(digest.to_hex()), Atom::Null)
                    }
                };
                vec![
                    emit::uint(a.id),
                    emit::uint(a.op.kind().as_u8()),
                    emit::text(a.op.path()),
                    Cell::Atom(q),
                    Cell::Atom(h),
                    Cell::Atom(v),
                ]
            })
            .collect();
        Value::table(&["i", "k", "p", "q", "h", "v"], rows)
    }
}

fn null(a: &Atom, at: Loc, kind: &'static str) -> Result<(), SchemaError> {
    match a {
        Atom::Null => Ok(()),
        other => Err(at.err(Problem::Detail(format!(
            "must be ~ for {kind} actions, found {}",
            crate::protocol::schema::show(other)
        )))),
    }
}
