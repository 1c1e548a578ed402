//! `ash rpc` framing (docs/contract/ash-protocol.md §7): a 4-byte big-endian length, then a canonical ASON payload.
//! Every failure maps to the bootstrap code of §2.5 that ends the session.

use crate::ason::{self, AsonError, CanonicalError, Document, Limits};
use crate::bootstrap::{BootstrapCode, BootstrapError, exit};
use std::io::{ErrorKind, Read};
use thiserror::Error;

/// Frame ceiling before the handshake (and the negotiated default).
pub const DEFAULT_FRAME_CEILING: usize = 1024 * 1024;
/// The largest ceiling a client may negotiate (§9 decision 5).
pub const MAX_FRAME_CEILING: usize = 8 * 1024 * 1024;

/// Why a frame could not be read or decoded.
#[derive(Debug, Error)]
pub enum FrameError {
    /// A declared length of zero.
    #[error("frame {frame}: zero-length frame")]
    Empty {
        /// 1-based frame number.
        frame: u64,
    },
    /// A declared length above the ceiling (rejected before allocating).
    #[error("frame {frame}: declared length {len} exceeds the {ceiling}-byte frame ceiling")]
    TooLong {
        /// 1-based frame number.
        frame: u64,
        /// Declared length.
        len: u64,
        /// The ceiling in force.
        ceiling: usize,
    },
    /// EOF inside the length prefix or the payload.
    #[error("frame {frame}: input ended inside the frame ({got} of {want} bytes)")]
    Truncated {
        /// 1-based frame number.
        frame: u64,
        /// Bytes received.
        got: usize,
        /// Bytes expected.
        want: usize,
    },
    /// The payload is not valid ASON, or not canonical.
    #[error("frame {frame}: {source}")]
    Payload {
        /// 1-based frame number.
        frame: u64,
        /// The decoder's error.
        source: CanonicalError,
    },
    /// Reading the transport failed.
    #[error("frame {frame}: reading the transport failed: {source}")]
    Io {
        /// 1-based frame number.
        frame: u64,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl FrameError {
    /// The bootstrap error that ends the session.
    pub fn to_bootstrap(&self) -> BootstrapError {
        let code = match self {
            FrameError::Payload {
                source: CanonicalError::Decode(AsonError::InvalidUtf8 { .. }),
                ..
            } => BootstrapCode::InvalidUtf8,
            FrameError::Payload {
                source: CanonicalError::Decode(_),
                ..
            } => BootstrapCode::Syntax,
            FrameError::Io { .. } => BootstrapCode::Io,
            _ => BootstrapCode::Framing,
        };
        let exit = if code == BootstrapCode::Io {
            exit::SOFTWARE
        } else {
            exit::PROTOCOL
        };
        BootstrapError::new(
            code,
            exit,
            format!("{self}; send canonical, length-prefixed ASON"),
        )
    }
}

/// Splits the first frame off `buf`: `Ok(None)` when `buf` is empty (a clean end), otherwise
/// the payload and the bytes consumed. Used by the fuzz target and the tests.
pub fn split_frame(
    buf: &[u8],
    ceiling: usize,
    frame: u64,
) -> Result<Option<(&[u8], usize)>, FrameError> {
    if buf.is_empty() {
        return Ok(None);
    }
    let Some(prefix) = buf.get(..4) else {
        return Err(FrameError::Truncated {
            frame,
            got: buf.len(),
            want: 4,
        });
    };
    let len = check_len(prefix_len(prefix), ceiling, frame)?;
    let payload = buf.get(4..4 + len).ok_or(FrameError::Truncated {
        frame,
        got: buf.len() - 4,
        want: len,
    })?;
    Ok(Some((payload, 4 + len)))
}

fn prefix_len(prefix: &[u8]) -> u64 {
    prefix
        .iter()
        .take(4)
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

fn check_len(len: u64, ceiling: usize, frame: u64) -> Result<usize, FrameError> {
    if len == 0 {
        return Err(FrameError::Empty { frame });
    }
    match usize::try_from(len) {
        Ok(n) if n <= ceiling => Ok(n),
        _ => Err(FrameError::TooLong {
            frame,
            len,
            ceiling,
        }),
    }
}

/// Decodes a payload: UTF-8, ASON syntax under `ceiling`-sized documents, canonical form.
pub fn decode_payload(payload: &[u8], ceiling: usize, frame: u64) -> Result<Document, FrameError> {
    let limits = Limits {
        document_bytes: ceiling,
        ..Limits::default()
    };
    ason::decode_canonical(payload, &limits).map_err(|source| FrameError::Payload { frame, source })
}

/// Reads frames from a blocking transport, one at a time; nothing is buffered between calls
/// except what the reader itself buffers, so a frame is never half-consumed and dropped.
pub struct FrameReader<R> {
    inner: R,
    frames: u64,
}

impl<R: Read> FrameReader<R> {
    /// A reader over `inner`.
    pub fn new(inner: R) -> Self {
        FrameReader { inner, frames: 0 }
    }

    /// The next payload, or `None` at a clean EOF between frames.
    pub fn next_frame(&mut self, ceiling: usize) -> Result<Option<Vec<u8>>, FrameError> {
        let frame = self.frames + 1;
        let mut prefix = [0u8; 4];
        let got = self.fill(&mut prefix, frame)?;
        if got == 0 {
            return Ok(None);
        }
        if got < 4 {
            return Err(FrameError::Truncated {
                frame,
                got,
                want: 4,
            });
        }
        let len = check_len(prefix_len(&prefix), ceiling, frame)?;
        let mut payload = vec![0u8; len];
        let got = self.fill(&mut payload, frame)?;
        if got < len {
            return Err(FrameError::Truncated {
                frame,
                got,
                want: len,
            });
        }
        self.frames = frame;
        Ok(Some(payload))
    }

    /// Fills `buf` until it is full or the input ends; returns the bytes read.
    fn fill(&mut self, buf: &mut [u8], frame: u64) -> Result<usize, FrameError> {
        let mut got = 0;
        while got < buf.len() {
            match self.inner.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(source) => return Err(FrameError::Io { frame, source }),
            }
        }
        Ok(got)
    }
}

/// Prefixes `payload` with its big-endian length.
pub fn encode_frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 4);
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(bytes: &[u8]) -> BootstrapCode {
        let mut r = FrameReader::new(bytes);
        match r.next_frame(64) {
            Ok(Some(p)) => decode_payload(&p, 64, 1)
                .map(|_| BootstrapCode::Usage)
                .unwrap_or_else(|e| e.to_bootstrap().code),
            Ok(None) => BootstrapCode::MissingHandshake,
            Err(e) => e.to_bootstrap().code,
        }
    }

    #[test]
    fn every_framing_failure_has_its_code() {
        assert_eq!(codes(b""), BootstrapCode::MissingHandshake);
        assert_eq!(codes(&[0, 0]), BootstrapCode::Framing);
        assert_eq!(codes(&[0, 0, 0, 0]), BootstrapCode::Framing);
        assert_eq!(codes(&[0, 0, 0, 65]), BootstrapCode::Framing);
        assert_eq!(codes(&[0xff, 0xff, 0xff, 0xff]), BootstrapCode::Framing);
        assert_eq!(codes(&[0, 0, 0, 5, b'a']), BootstrapCode::Framing);
        assert_eq!(
            codes(&encode_frame(b"a:\xff\n")),
            BootstrapCode::InvalidUtf8
        );
        assert_eq!(codes(&encode_frame(b"a:\n")), BootstrapCode::Syntax);
        assert_eq!(codes(&encode_frame(b"a:\"x\"\n")), BootstrapCode::Framing);
        assert_eq!(codes(&encode_frame(b"a:x\n")), BootstrapCode::Usage);
    }

    #[test]
    fn split_frame_agrees_with_the_reader() {
        let mut two = encode_frame(b"a:x\n");
        two.extend(encode_frame(b"b:y\n"));
        let (p, used) = split_frame(&two, 64, 1).expect("ok").expect("frame");
        assert_eq!((p, used), (&b"a:x\n"[..], 8));
        assert!(split_frame(&[], 64, 1).expect("ok").is_none());
        assert!(split_frame(&two[..6], 64, 1).is_err());
    }
}
