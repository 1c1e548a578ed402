//! Lossless capture of one output stream: resident up to a threshold, then every byte spooled to
//! disk with only head and tail samples resident; each byte charged to the store quota first.

use super::spool::{PartialSpool, SpoolRoot};
use super::tail::TailRing;
use crate::reduce::{StreamSample, Utf8Tracker};
use crate::store::{Body, Pending, QuotaMeter, Reservation, SpoolFile};
use std::sync::Arc;

/// Bytes of a retained value kept in memory before it moves to a spool file (exec streams,
/// search evidence): docs/contract/ash-protocol.md §5.
pub const RESIDENT_BYTES: usize = 4 << 20;

/// Capture thresholds (docs/contract/ash-protocol.md §5: 4 MiB resident, then spool with 1 MiB samples).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureLimits {
    /// Largest stream kept wholly in memory.
    pub memory: usize,
    /// Bytes of the head sample of a spooled stream.
    pub head: usize,
    /// Bytes of the tail sample of a spooled stream.
    pub tail: usize,
}

impl Default for CaptureLimits {
    fn default() -> Self {
        CaptureLimits {
            memory: RESIDENT_BYTES,
            head: 1 << 20,
            tail: 1 << 20,
        }
    }
}

/// One captured stream.
#[derive(Debug)]
pub struct Captured {
    /// Every byte the stream produced, kept or not.
    pub len: u64,
    /// Where the bytes are.
    pub capture: Capture,
}

/// Where a captured stream's bytes are.
#[derive(Debug)]
pub enum Capture {
    /// The whole stream, resident.
    Memory {
        /// The bytes.
        bytes: Vec<u8>,
        /// Their BLAKE3 digest.
        digest: blake3::Hash,
        /// Their quota charge.
        charge: Reservation,
    },
    /// The whole stream in a spool file, with resident samples for projection.
    Spooled(Spooled),
    /// The bytes could not be kept; nothing of them remains.
    Lost(Lost),
}

/// A stream that outgrew memory.
#[derive(Debug)]
pub struct Spooled {
    /// The complete stream on disk.
    pub file: SpoolFile,
    /// The first bytes of the stream.
    pub head: Vec<u8>,
    /// The last bytes of the stream.
    pub tail: Vec<u8>,
    /// Whether the whole stream is valid UTF-8.
    pub utf8: bool,
    /// BLAKE3 of the whole stream.
    pub digest: blake3::Hash,
    /// The quota charge for the whole stream.
    pub charge: Reservation,
}

/// Why a stream was not kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lost {
    /// The store quota ran out (601, no reference).
    OverQuota,
    /// The spool file could not be created or written (the OS error text).
    Spool(String),
}

impl Captured {
    /// Whether the stream produced no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The whole stream when it is resident.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.capture {
            Capture::Memory { bytes, .. } => Some(bytes),
            _ => None,
        }
    }

    /// BLAKE3 of the whole stream, unless it was lost.
    pub fn digest(&self) -> Option<blake3::Hash> {
        match &self.capture {
            Capture::Memory { digest, .. } => Some(*digest),
            Capture::Spooled(s) => Some(s.digest),
            Capture::Lost(_) => None,
        }
    }

    /// The resident samples of a spooled stream, for `reduce::project_sample`.
    pub fn sample(&self) -> Option<StreamSample<'_>> {
        match &self.capture {
            Capture::Spooled(s) => Some(StreamSample {
                head: &s.head,
                tail: &s.tail,
                len: self.len,
                utf8: s.utf8,
            }),
            _ => None,
        }
    }

    /// Why the stream was lost, if it was.
    pub fn lost(&self) -> Option<&Lost> {
        match &self.capture {
            Capture::Lost(why) => Some(why),
            _ => None,
        }
    }

    /// The stream as a value for `RetainedStore::retain_all`, or why it cannot be retained.
    pub fn into_pending(self) -> Result<Pending, Lost> {
        match self.capture {
            Capture::Memory {
                bytes,
                digest,
                charge,
            } => Ok(Pending {
                body: Body::Memory(bytes.into()),
                digest,
                charge,
            }),
            Capture::Spooled(s) => Ok(Pending {
                body: Body::Spool(Arc::new(s.file)),
                digest: s.digest,
                charge: s.charge,
            }),
            Capture::Lost(why) => Err(why),
        }
    }
}

/// The receiving end of a capture: fed chunks in stream order, finished into a `Captured`.
#[derive(Debug)]
pub(crate) struct Sink {
    limits: CaptureLimits,
    spool: SpoolRoot,
    len: u64,
    hasher: blake3::Hasher,
    charge: Option<Reservation>,
    state: State,
    live: Option<super::LiveOutput>,
}

#[derive(Debug)]
enum State {
    Memory(Vec<u8>),
    Spool(Box<SpoolState>),
    Lost(Lost),
}

#[derive(Debug)]
struct SpoolState {
    file: PartialSpool,
    head: Vec<u8>,
    tail: TailRing,
    utf8: Utf8Tracker,
}

impl Sink {
    pub(crate) fn new(meter: &QuotaMeter, spool: &SpoolRoot, limits: CaptureLimits) -> Sink {
        let (charge, state) = match meter.reserve(0) {
            Ok(r) => (Some(r), State::Memory(Vec::new())),
            Err(_) => (None, State::Lost(Lost::OverQuota)),
        };
        Sink {
            limits,
            spool: spool.clone(),
            len: 0,
            hasher: blake3::Hasher::new(),
            charge,
            state,
            live: None,
        }
    }

    /// Copies every chunk to `live` too, as it arrives.
    pub(crate) fn watched(mut self, live: Option<super::LiveOutput>) -> Sink {
        self.live = live;
        self
    }

    /// Takes the next chunk; once the stream is lost, chunks are only counted.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if let Some(live) = &self.live {
            live.push(chunk);
        }
        self.len += chunk.len() as u64;
        if matches!(self.state, State::Lost(_)) {
            return;
        }
        let charged = self
            .charge
            .as_mut()
            .is_some_and(|c| c.grow(chunk.len() as u64).is_ok());
        if !charged {
            return self.lose(Lost::OverQuota);
        }
        self.hasher.update(chunk);
        let result = match &mut self.state {
            State::Memory(buf) if buf.len() + chunk.len() <= self.limits.memory => {
                buf.extend_from_slice(chunk);
                Ok(())
            }
            State::Memory(buf) => {
                let resident = std::mem::take(buf);
                match spill(&self.spool, self.limits, &resident, chunk) {
                    Ok(s) => {
                        self.state = State::Spool(Box::new(s));
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            State::Spool(s) => s.push(chunk),
            State::Lost(_) => Ok(()),
        };
        if let Err(e) = result {
            self.lose(Lost::Spool(e.to_string()));
        }
    }

    /// Drops everything kept (deleting a partial spool file) and returns the charge.
    fn lose(&mut self, why: Lost) {
        self.state = State::Lost(why);
        self.charge = None;
    }

    pub(crate) fn finish(self) -> Captured {
        let digest = self.hasher.finalize();
        let capture = match (self.state, self.charge) {
            (State::Memory(bytes), Some(charge)) => Capture::Memory {
                bytes,
                digest,
                charge,
            },
            (State::Spool(s), Some(charge)) => Capture::Spooled(Spooled {
                utf8: s.utf8.is_valid(),
                file: s.file.finish(),
                head: s.head,
                tail: s.tail.into_vec(),
                digest,
                charge,
            }),
            (State::Lost(why), _) => Capture::Lost(why),
            (_, None) => Capture::Lost(Lost::OverQuota),
        };
        Captured {
            len: self.len,
            capture,
        }
    }
}

impl SpoolState {
    fn push(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        self.file.write_all(chunk)?;
        self.tail.push(chunk);
        self.utf8.push(chunk);
        Ok(())
    }
}

/// Moves a resident stream plus the chunk that overflowed it into a new spool file.
fn spill(
    root: &SpoolRoot,
    limits: CaptureLimits,
    resident: &[u8],
    chunk: &[u8],
) -> std::io::Result<SpoolState> {
    let mut file = root.create_file()?;
    file.write_all(resident)?;
    file.write_all(chunk)?;
    let mut head = Vec::with_capacity(limits.head);
    for part in [resident, chunk] {
        let room = limits.head - head.len();
        head.extend_from_slice(&part[..room.min(part.len())]);
    }
    let mut state = SpoolState {
        file,
        head,
        tail: TailRing::new(limits.tail),
        utf8: Utf8Tracker::default(),
    };
    for part in [resident, chunk] {
        state.tail.push(part);
        state.utf8.push(part);
    }
    Ok(state)
}
