//! The response envelope (docs/contract/ash-protocol.md §3.1): `t:3,i,s,[p],[d],[e],z,r` and its invariants.

use super::caps::OpKind;
use super::codes::{ErrorCode, ErrorRecord, Flags, Status};
use super::data::Data;
use super::path::MAX_PATH_BYTES;
use super::schema::{
    Loc, Problem, SchemaError, atom, code, flags, is_key, opt_ref, record, scalar, table, text,
    uint,
};
use crate::ason::{AsonError, Atom, Cell, Document, Limits, Value, decode, encode};
use crate::protocol::emit;
use std::collections::HashSet;
use thiserror::Error;

/// A response.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Response {
    /// `i`: the request id.
    pub id: u64,
    /// `s`.
    pub status: Status,
    /// `p[N]{i,v}`: paths new to the session, as (id, logical path); omitted when empty.
    pub paths: Vec<(u64, String)>,
    /// `d…`.
    pub data: Option<Data>,
    /// `e{c,q,p,x,a}`.
    pub error: Option<ErrorRecord>,
    /// `z`.
    pub flags: Flags,
    /// `r`: the top-level reference.
    pub reference: Option<u64>,
}

/// A response that breaks a §3.1 invariant.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ResponseInvariant {
    /// `s:0` with an error record.
    #[error("a successful response (s:0) must not carry an error record")]
    SuccessWithError,
    /// A failure status without an error record.
    #[error("status {0} needs an error record")]
    FailureWithoutError(Status),
    /// `s:0` without data.
    #[error("a successful response (s:0) must carry data")]
    SuccessWithoutData,
    /// The status is not the one the error code implies.
    #[error("error {code} implies status {}, but s is {status}", code.status())]
    StatusMismatch {
        /// The response status.
        status: Status,
        /// The error code.
        code: ErrorCode,
    },
    /// The retained bit disagrees with the presence of references.
    #[error("z bit 3 (retained) is {flagged} but a reference is {} present",
        if *referenced { "" } else { "not" })]
    RetainedMismatch {
        /// Whether bit 3 is set.
        flagged: bool,
        /// Whether some reference is present.
        referenced: bool,
    },
    /// Bit 0 (truncated) without any reference to the full result.
    #[error("z bit 0 (truncated) requires a reference to the full result")]
    TruncatedWithoutReference,
    /// A reference cell holds `@0`.
    #[error("@0 is not a valid reference")]
    ZeroReference,
    /// Path dictionary ids are not ascending and unique, or are 0.
    #[error("path dictionary row {row}: id {id} is not above the previous id (ids ascend from 1)")]
    PathIdOrder {
        /// 1-based dictionary row.
        row: usize,
        /// Its id.
        id: u64,
    },
    /// A path dictionary value is empty or longer than 4096 bytes.
    #[error("path dictionary id {id}: path is {len} bytes (allowed 1..=4096)")]
    PathLength {
        /// The id.
        id: u64,
        /// The path's byte length.
        len: usize,
    },
    /// A projection has no, too many, duplicate or invalid column keys, or a row of the wrong width.
    #[error("projection: {0}")]
    Projection(&'static str),
}

/// Why bytes or a document are not a valid response.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ResponseError {
    /// Not ASON.
    #[error(transparent)]
    Decode(#[from] AsonError),
    /// Not the response schema.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// Well-formed but breaks an invariant.
    #[error("response violates an invariant: {0}")]
    Invariant(#[from] ResponseInvariant),
}

impl Response {
    /// An error response: `s` from the record's code, no data, `z:8` when the record has a
    /// reference (else `z:0`), `r:~`.
    pub fn error(id: u64, error: ErrorRecord) -> Response {
        Response {
            id,
            status: error.status(),
            paths: Vec::new(),
            data: None,
            flags: if error.has_reference() {
                Flags::RETAINED
            } else {
                Flags::NONE
            },
            error: Some(error),
            reference: None,
        }
    }

    /// A successful response with `data`, no paths, no top-level reference, and `z`
    /// holding only the retained bit when the data carries references.
    pub fn success(id: u64, data: Data) -> Response {
        Response {
            id,
            status: Status::Success,
            paths: Vec::new(),
            flags: if data.has_retained_reference() {
                Flags::RETAINED
            } else {
                Flags::NONE
            },
            data: Some(data),
            error: None,
            reference: None,
        }
    }

    /// Rewrites the path ids of the data and of the `p` table with `f`.
    pub fn map_path_ids(&mut self, mut f: impl FnMut(u64) -> u64) {
        if let Some(data) = self.data.as_mut() {
            data.map_path_ids(&mut f);
        }
        for (id, _) in &mut self.paths {
            *id = f(*id);
        }
    }

    /// Whether any reference that counts as retained evidence is present.
    pub fn has_retained_reference(&self) -> bool {
        self.reference.is_some()
            || self.error.as_ref().is_some_and(ErrorRecord::has_reference)
            || self.data.as_ref().is_some_and(Data::has_retained_reference)
    }

    /// Checks the §3.1 invariants.
    pub fn validate(&self) -> Result<(), ResponseInvariant> {
        use ResponseInvariant as I;
        match (&self.error, self.status) {
            (Some(_), Status::Success) => return Err(I::SuccessWithError),
            (None, Status::Success) if self.data.is_none() => return Err(I::SuccessWithoutData),
            (None, Status::Success) => {}
            (None, status) => return Err(I::FailureWithoutError(status)),
            (Some(e), status) if e.status() != status => {
                return Err(I::StatusMismatch {
                    status,
                    code: e.code,
                });
            }
            (Some(_), _) => {}
        }
        let mut refs: Vec<u64> = self.reference.into_iter().collect();
        if let Some(e) = &self.error {
            refs.extend(e.evidence.into_iter().chain(e.argument));
        }
        if let Some(d) = &self.data {
            refs.extend(d.references());
        }
        if refs.contains(&0) {
            return Err(I::ZeroReference);
        }
        let referenced = self.has_retained_reference();
        let flagged = self.flags.contains(Flags::RETAINED);
        if flagged != referenced {
            return Err(I::RetainedMismatch {
                flagged,
                referenced,
            });
        }
        if self.flags.contains(Flags::TRUNCATED) && !referenced {
            return Err(I::TruncatedWithoutReference);
        }
        let mut last = 0u64;
        for (row, (id, path)) in self.paths.iter().enumerate() {
            if *id <= last {
                return Err(I::PathIdOrder {
                    row: row + 1,
                    id: *id,
                });
            }
            last = *id;
            if path.is_empty() || path.len() > MAX_PATH_BYTES {
                return Err(I::PathLength {
                    id: *id,
                    len: path.len(),
                });
            }
        }
        if let Some(Data::Project(p)) = &self.data {
            check_projection(&p.columns, &p.rows)?;
        }
        Ok(())
    }

    /// The canonical document (does not validate; call [`Response::validate`] first).
    pub fn to_document(&self) -> Document {
        let mut doc = Document::new()
            .with("t", Value::Scalar(Atom::uint(3)))
            .with("i", Value::Scalar(Atom::uint(self.id)))
            .with(
                "s",
                Value::Scalar(Atom::uint(u64::from(self.status.as_u8()))),
            );
        if !self.paths.is_empty() {
            let rows = self
                .paths
                .iter()
                .map(|(id, path)| vec![emit::uint(*id), emit::text(path)])
                .collect();
            doc.push("p", Value::table(&["i", "v"], rows));
        }
        if let Some(d) = &self.data {
            doc.push("d", d.to_value());
        }
        if let Some(e) = &self.error {
            doc.push(
                "e",
                Value::record(
                    &["c", "q", "p", "x", "a"],
                    vec![
                        emit::uint(e.code.as_u16()),
                        emit::uint(e.retry.as_u8()),
                        emit::uint(e.stage.as_u8()),
                        emit::opt_ref(e.evidence),
                        emit::opt_ref(e.argument),
                    ],
                ),
            );
        }
        doc.push("z", Value::Scalar(Atom::uint(u64::from(self.flags.bits()))));
        doc.push("r", Value::Scalar(Atom::opt_ref(self.reference)));
        doc
    }

    /// The canonical encoding (does not validate).
    pub fn encode(&self) -> String {
        match (&self.data, &self.error) {
            (Some(Data::Search(rows)), None) => super::search_answer::encode(self, rows),
            _ => self.encode_document(),
        }
    }

    /// The canonical encoding through [`Response::to_document`], which every answer but a
    /// search's takes.
    pub fn encode_document(&self) -> String {
        encode(&self.to_document())
    }

    /// Types and validates a response document, inferring the data shape from its columns
    /// (see [`Data::from_value`] for the one ambiguity).
    pub fn from_document(doc: &Document) -> Result<Response, ResponseError> {
        parse(doc, None)
    }

    /// Types and validates the response to an operation of `kind`.
    pub fn from_document_for(doc: &Document, kind: OpKind) -> Result<Response, ResponseError> {
        parse(doc, Some(kind))
    }

    /// Decodes, types and validates response bytes.
    pub fn decode(bytes: &[u8], limits: &Limits) -> Result<Response, ResponseError> {
        Response::from_document(&decode(bytes, limits)?)
    }
}

fn check_projection(columns: &[String], rows: &[Vec<Cell>]) -> Result<(), ResponseInvariant> {
    use ResponseInvariant::Projection as P;
    if columns.is_empty() || columns.len() > 128 {
        return Err(P("needs 1..=128 columns"));
    }
    if !columns.iter().all(|c| is_key(c)) {
        return Err(P("a column is not a valid ASON key"));
    }
    let unique: HashSet<&String> = columns.iter().collect();
    if unique.len() != columns.len() {
        return Err(P("a column appears twice"));
    }
    if rows.iter().any(|r| r.len() != columns.len()) {
        return Err(P("a row's width differs from the column count"));
    }
    Ok(())
}

fn parse(doc: &Document, kind: Option<OpKind>) -> Result<Response, ResponseError> {
    let order_error = || {
        let found: Vec<&str> = doc.fields.iter().map(|f| f.key.as_str()).collect();
        SchemaError::new(
            "document",
            Problem::FieldOrder {
                expected: "t,i,s,[p],[d],[e],z,r".to_owned(),
                found: found.join(","),
            },
        )
    };
    let mut fields = doc.fields.iter().peekable();
    let mut take = |key: &str, optional: bool| -> Result<Option<&Value>, SchemaError> {
        match fields.peek() {
            Some(f) if f.key == key => Ok(fields.next().map(|f| &f.value)),
            _ if optional => Ok(None),
            _ => Err(order_error()),
        }
    };
    let t = take("t", false)?;
    let i = take("i", false)?;
    let s = take("s", false)?;
    let p = take("p", true)?;
    let d = take("d", true)?;
    let e = take("e", true)?;
    let z = take("z", false)?;
    let r = take("r", false)?;
    let (Some(t), Some(i), Some(s), Some(z), Some(r)) = (t, i, s, z, r) else {
        return Err(order_error().into());
    };
    if doc.fields.len()
        != 5 + usize::from(p.is_some()) + usize::from(d.is_some()) + usize::from(e.is_some())
    {
        return Err(order_error().into());
    }

    let at = Loc::field("t");
    let t = uint(scalar(t, at)?, at)?;
    if t != 3 {
        return Err(SchemaError::new(
            "t",
            Problem::MessageType {
                found: t,
                expected: 3,
            },
        )
        .into());
    }
    let at = Loc::field("i");
    let id = uint(scalar(i, at)?, at)?;
    if id == 0 {
        return Err(at
            .err(Problem::Rule("response id 0 is not a request id"))
            .into());
    }
    let at = Loc::field("s");
    let status: Status = code(scalar(s, at)?, at)?;
    let paths = match p {
        None => Vec::new(),
        Some(v) => path_delta(v)?,
    };
    let data = match (d, kind) {
        (None, _) => None,
        (Some(v), Some(k)) => Some(Data::from_value_for(k, v)?),
        (Some(v), None) => Some(Data::from_value(v)?),
    };
    let error = match e {
        None => None,
        Some(v) => Some(error_record(v)?),
    };
    let at = Loc::field("z");
    let bits = flags(scalar(z, at)?, at, u64::from(Flags::ALL.bits()))?;
    let flags = u8::try_from(bits)
        .ok()
        .and_then(Flags::from_bits)
        .unwrap_or(Flags::NONE);
    let at = Loc::field("r");
    let reference = opt_ref(scalar(r, at)?, at)?;
    let response = Response {
        id,
        status,
        paths,
        data,
        error,
        flags,
        reference,
    };
    response.validate()?;
    Ok(response)
}

fn path_delta(v: &Value) -> Result<Vec<(u64, String)>, SchemaError> {
    let at = Loc::field("p");
    let rows = table(v, at, ["i", "v"])?;
    if rows.is_empty() {
        // The encoder omits an empty delta, so `p[0]` could never round-trip.
        return Err(at.err(Problem::Rule(
            "an empty path dictionary delta is omitted, not p[0]",
        )));
    }
    rows.into_iter()
        .enumerate()
        .map(|(n, [i, v])| {
            let at = at.row(n);
            Ok((
                uint(atom(i, at.col("i"))?, at.col("i"))?,
                text(atom(v, at.col("v"))?, at.col("v"))?.to_owned(),
            ))
        })
        .collect()
}

fn error_record(v: &Value) -> Result<ErrorRecord, SchemaError> {
    let at = Loc::field("e");
    let [c, q, p, x, a] = record(v, at, ["c", "q", "p", "x", "a"])?;
    Ok(ErrorRecord {
        code: code(atom(c, at.col("c"))?, at.col("c"))?,
        retry: code(atom(q, at.col("q"))?, at.col("q"))?,
        stage: code(atom(p, at.col("p"))?, at.col("p"))?,
        evidence: opt_ref(atom(x, at.col("x"))?, at.col("x"))?,
        argument: opt_ref(atom(a, at.col("a"))?, at.col("a"))?,
    })
}
