//! A bounded Server-Sent-Events framer (the WHATWG "event stream" interpretation).
//!
//! Bytes go in as the transport delivers them, in chunks of any size; complete events come out
//! through a callback, borrowed from the framer's reused buffers (no allocation per event once
//! the buffers have grown). Lines end with `\n`, `\r\n` or `\r` (also when the two bytes of a
//! `\r\n` arrive in different chunks); a UTF-8 BOM at the very start is skipped; lines starting
//! with `:` are comments; a field without a colon has an empty value; `data` lines of one event
//! are joined with `\n`. Every line must be UTF-8, no line may exceed
//! [`SseLimits::max_line_bytes`] and no event [`SseLimits::max_event_bytes`], so a hostile stream
//! cannot grow memory without bound. [`SseFramer::finish`] reports a stream that ends inside an
//! event (an unterminated line or fields not yet closed by a blank line).

use memchr::{memchr, memchr2};

#[cfg(test)]
mod tests;

/// Default bound on one line, terminator excluded (8 MiB).
pub const DEFAULT_MAX_LINE_BYTES: usize = 8 << 20;
/// Default bound on one event: the bytes of its lines, terminators excluded (8 MiB).
pub const DEFAULT_MAX_EVENT_BYTES: usize = 8 << 20;

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Hard limits of a framer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseLimits {
    /// Longest accepted line in bytes, terminator excluded.
    pub max_line_bytes: usize,
    /// Largest accepted event: the sum of its non-blank lines (comments included), terminators
    /// excluded.
    pub max_event_bytes: usize,
}

impl Default for SseLimits {
    fn default() -> Self {
        Self {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
        }
    }
}

/// One dispatched event, borrowed from the framer until the callback returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The `event` field, or `message` when the event has none.
    pub event: &'a str,
    /// The `data` lines joined with `\n`.
    pub data: &'a str,
    /// The last event ID seen in the stream so far (it persists across events, as in the
    /// WHATWG model); `None` while no non-empty `id` field has been seen.
    pub id: Option<&'a str>,
}

/// Why a byte stream is not a well-formed, bounded event stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// A line exceeded [`SseLimits::max_line_bytes`].
    #[error(
        "SSE line {line} (starting at byte {offset}) exceeds the line limit of {limit} bytes (max_line_bytes)"
    )]
    LineTooLong {
        /// 1-based line number.
        line: u64,
        /// Byte offset of the line's start in the stream.
        offset: u64,
        /// The limit.
        limit: usize,
    },
    /// An event exceeded [`SseLimits::max_event_bytes`].
    #[error(
        "SSE event grew past the event limit of {limit} bytes (max_event_bytes) at line {line} (starting at byte {offset})"
    )]
    EventTooLarge {
        /// 1-based number of the line that crossed the limit.
        line: u64,
        /// Byte offset of that line's start in the stream.
        offset: u64,
        /// The limit.
        limit: usize,
    },
    /// A line is not valid UTF-8.
    #[error("SSE line {line} is not valid UTF-8 (first invalid byte at stream offset {offset})")]
    InvalidUtf8 {
        /// 1-based line number.
        line: u64,
        /// Byte offset of the first invalid byte in the stream.
        offset: u64,
    },
    /// The stream ended inside an event.
    #[error(
        "SSE stream ended inside an event at line {line} (byte {offset}): {unterminated_bytes} bytes of an unterminated line and {pending_data_lines} data lines not closed by a blank line"
    )]
    Truncated {
        /// 1-based number of the line where the stream ended.
        line: u64,
        /// Byte offset where the unfinished line starts.
        offset: u64,
        /// Bytes of the last line that had no terminator.
        unterminated_bytes: usize,
        /// `data` lines of an event that never got its closing blank line.
        pending_data_lines: usize,
    },
    /// Input after [`SseFramer::finish`] or after an earlier error.
    #[error(
        "SSE stream already finished or rejected by an earlier error; no more input is accepted"
    )]
    Closed,
}

/// Progress of the BOM check at the start of the stream.
#[derive(Debug, Clone, Copy)]
enum Bom {
    /// The first `len` bytes seen so far all match the BOM.
    Checking { len: usize },
    /// Decided: the BOM was skipped, or the stream does not start with one.
    Done,
}

/// Incremental SSE framer; see the module documentation.
#[derive(Debug)]
pub struct SseFramer {
    limits: SseLimits,
    bom: Bom,
    /// Bytes of the current line when it spans chunks.
    partial: Vec<u8>,
    /// The previous chunk ended with `\r`: a leading `\n` of the next one belongs to it.
    after_cr: bool,
    /// `data` values of the pending event, each followed by `\n`.
    data: String,
    data_lines: usize,
    event: String,
    last_id: String,
    retry: Option<u64>,
    /// Bytes of the pending event's lines.
    event_bytes: usize,
    /// Completed lines so far.
    line: u64,
    /// Stream bytes consumed by completed lines (and the BOM).
    offset: u64,
    closed: bool,
}

impl Default for SseFramer {
    fn default() -> Self {
        Self::new(SseLimits::default())
    }
}

impl SseFramer {
    /// A framer with the given limits.
    pub fn new(limits: SseLimits) -> Self {
        Self {
            limits,
            bom: Bom::Checking { len: 0 },
            partial: Vec::new(),
            after_cr: false,
            data: String::new(),
            data_lines: 0,
            event: String::new(),
            last_id: String::new(),
            retry: None,
            event_bytes: 0,
            line: 0,
            offset: 0,
            closed: false,
        }
    }

    /// The last valid `retry` field (reconnection time in milliseconds), if any.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Feeds the next chunk; every event it completes goes to `out`, in order. The first error
    /// (the framer's own, converted, or one returned by `out`) stops the framer for good.
    pub fn push<E, F>(&mut self, chunk: &[u8], out: &mut F) -> Result<(), E>
    where
        E: From<SseError>,
        F: FnMut(SseEvent<'_>) -> Result<(), E>,
    {
        if self.closed {
            return Err(SseError::Closed.into());
        }
        let result = self.push_inner(chunk, out);
        if result.is_err() {
            self.closed = true;
        }
        result
    }

    /// Ends the stream: an error if it stopped inside an event. No event is dispatched here (a
    /// final event needs its blank line). The framer accepts no input afterwards.
    pub fn finish(&mut self) -> Result<(), SseError> {
        if self.closed {
            return Err(SseError::Closed);
        }
        self.closed = true;
        if let Bom::Checking { len } = self.bom {
            // The whole stream is a proper prefix of a BOM: an unterminated line.
            self.partial.extend_from_slice(&BOM[..len]);
        }
        if !self.partial.is_empty() || self.data_lines > 0 || !self.event.is_empty() {
            return Err(SseError::Truncated {
                line: self.line + 1,
                offset: self.offset,
                unterminated_bytes: self.partial.len(),
                pending_data_lines: self.data_lines,
            });
        }
        Ok(())
    }

    fn push_inner<E, F>(&mut self, chunk: &[u8], out: &mut F) -> Result<(), E>
    where
        E: From<SseError>,
        F: FnMut(SseEvent<'_>) -> Result<(), E>,
    {
        let Bom::Checking { mut len } = self.bom else {
            return self.feed(chunk, out);
        };
        for (i, &byte) in chunk.iter().enumerate() {
            if byte != BOM[len] {
                // Not a BOM: the bytes that matched so far are ordinary stream bytes.
                self.bom = Bom::Done;
                self.feed(&BOM[..len], out)?;
                return self.feed(&chunk[i..], out);
            }
            len += 1;
            if len == BOM.len() {
                self.bom = Bom::Done;
                self.offset += BOM.len() as u64;
                return self.feed(&chunk[i + 1..], out);
            }
        }
        self.bom = Bom::Checking { len };
        Ok(())
    }

    /// Splits `input` into lines, continuing the partial line of the previous chunk.
    fn feed<E, F>(&mut self, mut input: &[u8], out: &mut F) -> Result<(), E>
    where
        E: From<SseError>,
        F: FnMut(SseEvent<'_>) -> Result<(), E>,
    {
        if self.after_cr && !input.is_empty() {
            self.after_cr = false;
            if input[0] == b'\n' {
                input = &input[1..];
                self.offset += 1;
            }
        }
        while let Some(pos) = memchr2(b'\n', b'\r', input) {
            if self.partial.is_empty() {
                self.line(&input[..pos], out)?;
            } else {
                self.check_partial(pos)?;
                self.partial.extend_from_slice(&input[..pos]);
                let line = std::mem::take(&mut self.partial);
                let result = self.line(&line, out);
                self.partial = line;
                self.partial.clear();
                result?;
            }
            let mut end = pos + 1;
            if input[pos] == b'\r' {
                match input.get(end) {
                    Some(b'\n') => end += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            self.offset += (end - pos) as u64;
            input = &input[end..];
        }
        if !input.is_empty() {
            self.check_partial(input.len())?;
            self.partial.extend_from_slice(input);
        }
        Ok(())
    }

    /// Errors if `more` bytes would push the partial line past the line limit.
    fn check_partial(&self, more: usize) -> Result<(), SseError> {
        if self.partial.len().saturating_add(more) > self.limits.max_line_bytes {
            return Err(SseError::LineTooLong {
                line: self.line + 1,
                offset: self.offset,
                limit: self.limits.max_line_bytes,
            });
        }
        Ok(())
    }

    /// Interprets one complete line (terminator excluded).
    fn line<E, F>(&mut self, line: &[u8], out: &mut F) -> Result<(), E>
    where
        E: From<SseError>,
        F: FnMut(SseEvent<'_>) -> Result<(), E>,
    {
        let (number, start) = (self.line + 1, self.offset);
        if line.len() > self.limits.max_line_bytes {
            return Err(SseError::LineTooLong {
                line: number,
                offset: start,
                limit: self.limits.max_line_bytes,
            }
            .into());
        }
        self.line = number;
        self.offset += line.len() as u64;
        if line.is_empty() {
            return self.dispatch(out);
        }
        self.event_bytes = self.event_bytes.saturating_add(line.len());
        if self.event_bytes > self.limits.max_event_bytes {
            return Err(SseError::EventTooLarge {
                line: number,
                offset: start,
                limit: self.limits.max_event_bytes,
            }
            .into());
        }
        let text = std::str::from_utf8(line).map_err(|e| SseError::InvalidUtf8 {
            line: number,
            offset: start + e.valid_up_to() as u64,
        })?;
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match memchr(b':', line) {
            Some(colon) => {
                let value = &text[colon + 1..];
                (&text[..colon], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (text, ""),
        };
        match field {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.data_lines += 1;
            }
            "event" => {
                self.event.clear();
                self.event.push_str(value);
            }
            "id" if !value.contains('\0') => {
                self.last_id.clear();
                self.last_id.push_str(value);
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok();
            }
            _ => {}
        }
        Ok(())
    }

    /// A blank line: hands the pending event to `out` (if it has data) and resets it.
    fn dispatch<E, F>(&mut self, out: &mut F) -> Result<(), E>
    where
        F: FnMut(SseEvent<'_>) -> Result<(), E>,
    {
        self.event_bytes = 0;
        if self.data_lines == 0 {
            self.event.clear();
            return Ok(());
        }
        let data = &self.data[..self.data.len().saturating_sub(1)];
        let event = SseEvent {
            event: if self.event.is_empty() {
                "message"
            } else {
                &self.event
            },
            data,
            id: (!self.last_id.is_empty()).then_some(self.last_id.as_str()),
        };
        let result = out(event);
        self.data.clear();
        self.data_lines = 0;
        self.event.clear();
        result
    }
}

/// An SSE framer feeding one protocol's state machine: the shared half of the Responses and
/// Chat reducers. After any error it accepts nothing more and answers `poisoned`.
#[derive(Debug)]
pub(crate) struct Feed<S> {
    framer: SseFramer,
    state: S,
    failed: bool,
}

impl<S> Feed<S> {
    /// A feed into `state` with `limits`.
    pub(crate) fn new(limits: SseLimits, state: S) -> Self {
        Feed {
            framer: SseFramer::new(limits),
            state,
            failed: false,
        }
    }

    /// Frames `chunk` and hands each completed event to `event` with the state.
    pub(crate) fn push<E: From<SseError>>(
        &mut self,
        chunk: &[u8],
        poisoned: E,
        mut event: impl FnMut(&mut S, SseEvent<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.failed {
            return Err(poisoned);
        }
        let state = &mut self.state;
        let result = self.framer.push(chunk, &mut |ev| event(state, ev));
        self.failed = result.is_err();
        result
    }

    /// The state so far.
    pub(crate) fn state(&self) -> &S {
        &self.state
    }

    /// Ends the stream: the state, if the stream ended cleanly and nothing failed before.
    pub(crate) fn finish<E: From<SseError>>(mut self, poisoned: E) -> Result<S, E> {
        if self.failed {
            return Err(poisoned);
        }
        self.framer.finish()?;
        Ok(self.state)
    }
}
