//! The request envelope (docs/contract/ash-protocol.md §3.1): `t:1,i,o,a…,u{tok,rec,ms}[,v]`.

use super::caps::{Caps, OpKind};
use super::codes::ErrorRecord;
use super::hex::{Digest, array_from_lower_hex, to_lower_hex};
use super::op::Op;
use super::response::Response;
use super::schema::{
    Loc, Problem, SchemaError, atom, clip, field_order, get, record, scalar, text, uint, uint_in,
};
use crate::ason::{Atom, Document, Value, encode};
use thiserror::Error;

/// The per-request budget `u{tok,rec,ms}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Output tokens (4 bytes each), 1..=1,048,576.
    pub tok: u64,
    /// Result rows, 1..=1,000,000.
    pub rec: u64,
    /// Deadline in milliseconds, 1..=86,400,000.
    pub ms: u64,
}

impl Budget {
    /// Largest `tok`.
    pub const MAX_TOK: u64 = 1_048_576;
    /// Largest `rec`.
    pub const MAX_REC: u64 = 1_000_000;
    /// Largest `ms` (one day).
    pub const MAX_MS: u64 = 86_400_000;

    /// The presentation limit L = min(remaining output bytes, 4 × tok) (§5).
    pub fn presentation_limit(&self, remaining_output: u64) -> u64 {
        remaining_output.min(self.tok.saturating_mul(4))
    }

    fn from_value(v: &Value) -> Result<Budget, SchemaError> {
        let at = Loc::field("u");
        let [tok, rec, ms] = record(v, at, ["tok", "rec", "ms"])?;
        Ok(Budget {
            tok: uint_in(atom(tok, at.col("tok"))?, at.col("tok"), 1, Budget::MAX_TOK)?,
            rec: uint_in(atom(rec, at.col("rec"))?, at.col("rec"), 1, Budget::MAX_REC)?,
            ms: uint_in(atom(ms, at.col("ms"))?, at.col("ms"), 1, Budget::MAX_MS)?,
        })
    }

    fn to_value(self) -> Value {
        Value::record(
            &["tok", "rec", "ms"],
            vec![
                Atom::uint(self.tok).into(),
                Atom::uint(self.rec).into(),
                Atom::uint(self.ms).into(),
            ],
        )
    }
}

/// A validated request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Request {
    /// `i`: the request id, ≥1.
    pub id: u64,
    /// `o` and `a`.
    pub op: Op,
    /// `u`.
    pub budget: Budget,
    /// `v`: an approval permit (nonce ‖ MAC), if given.
    pub permit: Option<[u8; 48]>,
}

/// Why a document is not a valid request, classified by what the caller must do.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestError {
    /// No parsable nonzero `i`: nothing can be answered; the session ends (bootstrap 6).
    #[error("request has no usable id: {0}")]
    NoUsableId(SchemaError),
    /// The request has id `id` and must be answered `s:1` with error 100,1,1.
    #[error("request {id} is invalid: {error}")]
    Invalid {
        /// The request id to answer.
        id: u64,
        /// What is wrong.
        error: SchemaError,
    },
}

impl RequestError {
    /// The id to answer, if there is one.
    pub fn id(&self) -> Option<u64> {
        match self {
            RequestError::NoUsableId(_) => None,
            RequestError::Invalid { id, .. } => Some(*id),
        }
    }

    /// The underlying schema violation.
    pub fn schema_error(&self) -> &SchemaError {
        match self {
            RequestError::NoUsableId(e) | RequestError::Invalid { error: e, .. } => e,
        }
    }

    /// The `s:1`, `100,1,1` response owed for an invalid request with an id.
    pub fn response(&self) -> Option<Response> {
        self.id()
            .map(|id| Response::error(id, ErrorRecord::invalid_argument()))
    }
}

const FIELDS: [&str; 5] = ["t", "i", "o", "a", "u"];
const FIELDS_WITH_PERMIT: [&str; 6] = ["t", "i", "o", "a", "u", "v"];

impl Request {
    /// Types and validates a decoded request document.
    pub fn from_document(doc: &Document) -> Result<Request, RequestError> {
        let id = usable_id(doc).map_err(RequestError::NoUsableId)?;
        typed(doc, id).map_err(|error| RequestError::Invalid { id, error })
    }

    /// The canonical document.
    pub fn to_document(&self) -> Document {
        let mut doc = Document::new()
            .with("t", Value::Scalar(Atom::uint(1)))
            .with("i", Value::Scalar(Atom::uint(self.id)))
            .with("o", Value::Scalar(Atom::text(self.op.letter().to_string())))
            .with("a", self.op.args_value())
            .with("u", self.budget.to_value());
        if let Some(p) = &self.permit {
            doc.push("v", Value::Scalar(Atom::text(to_lower_hex(p))));
        }
        doc
    }

    /// The canonical encoding.
    pub fn encode(&self) -> String {
        encode(&self.to_document())
    }

    /// Checks a hand-built request by typing its own encoding.
    pub fn validate(&self) -> Result<(), RequestError> {
        Request::from_document(&self.to_document()).map(drop)
    }

    /// Capabilities the request requires.
    pub fn required_caps(&self) -> Caps {
        self.op.required_caps()
    }

    /// The normalized approval action (§8): `v:1`, `o`, `a…`, `c:<required caps>`; the id,
    /// budget and permit are excluded so a permit binds to what is done, not how it is asked.
    pub fn action_document(&self) -> Document {
        Document::new()
            .with("v", Value::Scalar(Atom::uint(1)))
            .with("o", Value::Scalar(Atom::text(self.op.letter().to_string())))
            .with("a", self.op.args_value())
            .with(
                "c",
                Value::Scalar(Atom::uint(u64::from(self.required_caps().bits()))),
            )
    }

    /// The action digest: BLAKE3(`ash-approval-action-v1\0` ‖ canonical action text).
    pub fn action_digest(&self) -> Digest {
        let mut h = blake3::Hasher::new();
        h.update(b"ash-approval-action-v1\0");
        h.update(encode(&self.action_document()).as_bytes());
        h.finalize().into()
    }
}

/// The request id, if `i` is a canonical nonzero unsigned decimal scalar.
pub(crate) fn usable_id(doc: &Document) -> Result<u64, SchemaError> {
    let at = Loc::field("i");
    let id = uint(scalar(get(doc, "i")?, at)?, at)?;
    if id == 0 {
        return Err(at.err(Problem::Rule("request id 0 is not usable; ids start at 1")));
    }
    Ok(id)
}

fn typed(doc: &Document, id: u64) -> Result<Request, SchemaError> {
    // The message type first: an event or cancellation frame deserves that explanation
    // rather than a field-order complaint.
    let t_at = Loc::field("t");
    let t = uint(scalar(get(doc, "t")?, t_at)?, t_at)?;
    if t != 1 {
        return Err(t_at.err(Problem::MessageType {
            found: t,
            expected: 1,
        }));
    }
    if doc.fields.len() > FIELDS.len() {
        field_order(doc, &FIELDS_WITH_PERMIT)?;
    } else {
        field_order(doc, &FIELDS)?;
    }
    let o_at = Loc::field("o");
    let letter = text(scalar(get(doc, "o")?, o_at)?, o_at)?;
    let kind =
        OpKind::from_letter(letter).ok_or_else(|| o_at.err(Problem::UnknownOp(clip(letter))))?;
    let budget = Budget::from_value(get(doc, "u")?)?;
    let op = Op::parse_args(kind, get(doc, "a")?)?;
    let permit = match doc.get("v") {
        None => None,
        Some(v) => Some(permit(v)?),
    };
    if let Op::Cancel(c) = &op {
        let at = Loc::field("a").col("i");
        if c.target == 0 {
            return Err(at.err(Problem::Rule("cancel target 0 is not a request id")));
        }
        if c.target == id {
            return Err(at.err(Problem::Rule("a request cannot cancel itself")));
        }
    }
    if let Some(rows) = op.arg_rows() {
        let rows = rows as u64;
        if rows > budget.tok || rows > budget.rec {
            return Err(Loc::field("a").err(Problem::Detail(format!(
                "{rows} rows exceed the budget (tok {}, rec {}); each row needs one of each",
                budget.tok, budget.rec
            ))));
        }
    }
    Ok(Request {
        id,
        op,
        budget,
        permit,
    })
}

fn permit(v: &Value) -> Result<[u8; 48], SchemaError> {
    let at = Loc::field("v");
    let t = text(scalar(v, at)?, at)?;
    array_from_lower_hex::<48>(t).ok_or_else(|| {
        at.err(Problem::Hex {
            value: clip(t),
            digits: 96,
        })
    })
}
