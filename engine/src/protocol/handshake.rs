//! The `ash rpc` handshake (docs/contract/ash-protocol.md §3.2): client `t:0,i,a{…}`, server `t:0,i,s:0,d{…}`.
//! Every handshake failure is bootstrap error 6 (or 9 for a missing root, decided by the
//! caller), so errors here need no id classification.

use super::caps::{Caps, OpMask};
use super::schema::{
    Loc, Problem, SchemaError, atom, field_order, get, record, scalar, text, text_bytes, uint,
    uint_in,
};
use crate::ason::{Atom, Cell, Document, Value, encode};
use crate::protocol::emit;
use thiserror::Error;

/// Smallest frame ceiling a client may ask for.
pub const MIN_FRAME: u64 = 256;
/// Largest frame ceiling a client may ask for (8 MiB).
pub const MAX_FRAME: u64 = 8 * 1024 * 1024;
/// The frame ceiling of the compatibility peer (1 MiB).
pub const COMPAT_FRAME_MAX: u64 = 1024 * 1024;
/// Largest negotiated session output.
pub const MAX_SESSION_OUTPUT: u64 = 65_536;
/// The only major version of ASH and ASON served.
pub const MAJOR: u64 = 1;
/// The only minor version of ASH and ASON served.
pub const MINOR: u64 = 0;

/// A requested version range: a major and an inclusive minor range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VersionRange {
    /// Major version.
    pub major: u64,
    /// Lowest acceptable minor.
    pub low: u64,
    /// Highest acceptable minor.
    pub high: u64,
}

impl VersionRange {
    /// Whether version `major.minor` is acceptable.
    pub fn accepts(&self, major: u64, minor: u64) -> bool {
        self.major == major && (self.low..=self.high).contains(&minor)
    }
}

/// A negotiated version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Version {
    /// Major version.
    pub major: u64,
    /// Minor version.
    pub minor: u64,
}

/// Why a handshake is rejected (bootstrap 6).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HandshakeError {
    /// The document does not follow the handshake schema.
    #[error("bad handshake: {0}")]
    Schema(#[from] SchemaError),
    /// No version both sides accept.
    #[error(
        "unsupported {protocol} version: client accepts {major}.{low}..={major}.{high}, server speaks 1.0"
    )]
    Unsupported {
        /// `ASH` or `ASON`.
        protocol: &'static str,
        /// Requested major.
        major: u64,
        /// Requested low minor.
        low: u64,
        /// Requested high minor.
        high: u64,
    },
}

/// The client's first frame: `t:0,i,a{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HandshakeRequest {
    /// `i`, ≥1.
    pub id: u64,
    /// `ap,al,ah`: acceptable ASH versions.
    pub ash: VersionRange,
    /// `zp,zl,zh`: acceptable ASON versions.
    pub ason: VersionRange,
    /// `frm`: requested frame ceiling, 256..=8,388,608.
    pub frame: u64,
    /// `out`: requested session output ceiling, ≥1.
    pub output: u64,
    /// `ops`: requested operation mask (bits above 0x3ff are ignored).
    pub ops: u64,
    /// `cap`: requested capability mask (bits above 0xf are ignored).
    pub caps: u64,
    /// `root`: workspace root, 1..4096 bytes, relative to the server's cwd.
    pub root: String,
    /// `n`: nonce echoed back, 1..128 bytes.
    pub nonce: String,
}

const REQUEST_COLS: [&str; 12] = [
    "ap", "al", "ah", "zp", "zl", "zh", "frm", "out", "ops", "cap", "root", "n",
];
const RESPONSE_COLS: [&str; 12] = [
    "ap", "av", "zp", "zv", "frm", "out", "ops", "cap", "os", "arch", "sid", "n",
];

/// The handshake's id: any unsigned integer, 0 included (the reference answers `i:0`).
fn id_field(doc: &Document) -> Result<u64, SchemaError> {
    let at = Loc::field("i");
    uint_in(scalar(get(doc, "i")?, at)?, at, 0, u64::MAX)
}

fn type_zero(doc: &Document) -> Result<(), SchemaError> {
    let at = Loc::field("t");
    let t = uint(scalar(get(doc, "t")?, at)?, at)?;
    if t != 0 {
        return Err(at.err(Problem::MessageType {
            found: t,
            expected: 0,
        }));
    }
    Ok(())
}

impl HandshakeRequest {
    /// Types and validates a client handshake (schema only; see [`HandshakeResponse::negotiate`]).
    pub fn from_document(doc: &Document) -> Result<HandshakeRequest, HandshakeError> {
        type_zero(doc)?;
        field_order(doc, &["t", "i", "a"])?;
        let id = id_field(doc)?;
        let at = Loc::field("a");
        let cells = record(get(doc, "a")?, at, REQUEST_COLS)?;
        let n = |k: usize| {
            uint(
                atom(&cells[k], at.col(REQUEST_COLS[k]))?,
                at.col(REQUEST_COLS[k]),
            )
        };
        let range = |k: usize| -> Result<VersionRange, SchemaError> {
            let r = VersionRange {
                major: n(k)?,
                low: n(k + 1)?,
                high: n(k + 2)?,
            };
            if r.low > r.high {
                return Err(at.col(REQUEST_COLS[k + 1]).err(Problem::Rule(
                    "the low minor version must not exceed the high one",
                )));
            }
            Ok(r)
        };
        let (ash, ason) = (range(0)?, range(3)?);
        let frame = uint_in(
            atom(&cells[6], at.col("frm"))?,
            at.col("frm"),
            MIN_FRAME,
            MAX_FRAME,
        )?;
        let output = uint_in(atom(&cells[7], at.col("out"))?, at.col("out"), 1, u64::MAX)?;
        let root = text_bytes(atom(&cells[10], at.col("root"))?, at.col("root"), 1, 4096)?;
        let nonce = text_bytes(atom(&cells[11], at.col("n"))?, at.col("n"), 1, 128)?;
        Ok(HandshakeRequest {
            id,
            ash,
            ason,
            frame,
            output,
            ops: n(8)?,
            caps: n(9)?,
            root: root.to_owned(),
            nonce: nonce.to_owned(),
        })
    }

    /// The canonical document.
    pub fn to_document(&self) -> Document {
        let row = vec![
            emit::uint(self.ash.major),
            emit::uint(self.ash.low),
            emit::uint(self.ash.high),
            emit::uint(self.ason.major),
            emit::uint(self.ason.low),
            emit::uint(self.ason.high),
            emit::uint(self.frame),
            emit::uint(self.output),
            emit::uint(self.ops),
            emit::uint(self.caps),
            emit::text(&self.root),
            emit::text(&self.nonce),
        ];
        Document::new()
            .with("t", Value::Scalar(Atom::uint(0)))
            .with("i", Value::Scalar(Atom::uint(self.id)))
            .with("a", Value::record(&REQUEST_COLS, row))
    }

    /// The canonical encoding.
    pub fn encode(&self) -> String {
        encode(&self.to_document())
    }
}

/// The server's answer: `t:0,i,s:0,d{ap,av,zp,zv,frm,out,ops,cap,os,arch,sid,n}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HandshakeResponse {
    /// `i`: the handshake id.
    pub id: u64,
    /// `ap,av`: the ASH version.
    pub ash: Version,
    /// `zp,zv`: the ASON version.
    pub ason: Version,
    /// `frm`: negotiated frame ceiling.
    pub frame: u64,
    /// `out`: negotiated session output ceiling.
    pub output: u64,
    /// `ops`: negotiated operation mask.
    pub ops: OpMask,
    /// `cap`: negotiated capability mask (the session's direct grant).
    pub caps: Caps,
    /// `os`: the Rust target OS (e.g. `linux`).
    pub os: String,
    /// `arch`: the Rust target architecture (e.g. `x86_64`).
    pub arch: String,
    /// `sid`: session id (always 1).
    pub session: u64,
    /// `n`: the client's nonce.
    pub nonce: String,
}

impl HandshakeResponse {
    /// Negotiates with a client handshake: both versions must accept 1.0; frm = min(client,
    /// `server_frame_max`); out = min(client, 65,536, frm); ops ∧ 0x3ff; cap ∧ 0xf; sid 1.
    pub fn negotiate(
        req: &HandshakeRequest,
        server_frame_max: u64,
    ) -> Result<HandshakeResponse, HandshakeError> {
        for (protocol, r) in [("ASH", &req.ash), ("ASON", &req.ason)] {
            if !r.accepts(MAJOR, MINOR) {
                return Err(HandshakeError::Unsupported {
                    protocol,
                    major: r.major,
                    low: r.low,
                    high: r.high,
                });
            }
        }
        let frame = req.frame.min(server_frame_max);
        let version = Version {
            major: MAJOR,
            minor: MINOR,
        };
        Ok(HandshakeResponse {
            id: req.id,
            ash: version,
            ason: version,
            frame,
            output: req.output.min(MAX_SESSION_OUTPUT).min(frame),
            ops: OpMask::truncate(req.ops),
            caps: Caps::truncate(req.caps),
            os: std::env::consts::OS.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
            session: 1,
            nonce: req.nonce.clone(),
        })
    }

    /// Types and validates a server handshake answer.
    pub fn from_document(doc: &Document) -> Result<HandshakeResponse, HandshakeError> {
        type_zero(doc)?;
        field_order(doc, &["t", "i", "s", "d"])?;
        let id = id_field(doc)?;
        let at = Loc::field("s");
        uint_in(scalar(get(doc, "s")?, at)?, at, 0, 0)?;
        let at = Loc::field("d");
        let cells = record(get(doc, "d")?, at, RESPONSE_COLS)?;
        let col = |k: usize| at.col(RESPONSE_COLS[k]);
        let n = |k: usize| uint(atom(&cells[k], col(k))?, col(k));
        let s = |k: usize| -> Result<String, SchemaError> {
            Ok(text(atom(&cells[k], col(k))?, col(k))?.to_owned())
        };
        let ops = n(6)?;
        let caps = n(7)?;
        Ok(HandshakeResponse {
            id,
            ash: Version {
                major: n(0)?,
                minor: n(1)?,
            },
            ason: Version {
                major: n(2)?,
                minor: n(3)?,
            },
            frame: n(4)?,
            output: n(5)?,
            ops: OpMask::from_bits(ops).ok_or_else(|| {
                col(6).err(Problem::UnknownFlags {
                    value: ops,
                    unknown: ops & !u64::from(OpMask::ALL.bits()),
                    allowed: u64::from(OpMask::ALL.bits()),
                })
            })?,
            caps: Caps::from_bits(caps).ok_or_else(|| {
                col(7).err(Problem::UnknownFlags {
                    value: caps,
                    unknown: caps & !u64::from(Caps::ALL.bits()),
                    allowed: u64::from(Caps::ALL.bits()),
                })
            })?,
            os: s(8)?,
            arch: s(9)?,
            session: n(10)?,
            nonce: s(11)?,
        })
    }

    /// The canonical document.
    pub fn to_document(&self) -> Document {
        let row: Vec<Cell> = vec![
            emit::uint(self.ash.major),
            emit::uint(self.ash.minor),
            emit::uint(self.ason.major),
            emit::uint(self.ason.minor),
            emit::uint(self.frame),
            emit::uint(self.output),
            emit::uint(self.ops.bits()),
            emit::uint(self.caps.bits()),
            emit::text(&self.os),
            emit::text(&self.arch),
            emit::uint(self.session),
            emit::text(&self.nonce),
        ];
        Document::new()
            .with("t", Value::Scalar(Atom::uint(0)))
            .with("i", Value::Scalar(Atom::uint(self.id)))
            .with("s", Value::Scalar(Atom::uint(0)))
            .with("d", Value::record(&RESPONSE_COLS, row))
    }

    /// The canonical encoding.
    pub fn encode(&self) -> String {
        encode(&self.to_document())
    }
}
