//! A command's output the model got only part of (its middle cut, or reduced) is retained
//! whole in the session's store as `@N`. A person's view reads it back from there, through
//! the runtime at the call's end: the readable text shows all of it, and the row counts its
//! real lines. A stream too long to show whole is counted and shown around an explicit
//! marker; one the store no longer has is marked as such. The store is never changed here.

use ansa_sessions::protocol::ToolReport;
use ash_engine::protocol::{Data, Response};
use ash_engine::store::RetainedStore;

/// Largest retained stream the readable view shows whole (the runtime keeps 8 MiB of
/// readable text for the session's recent calls in all).
pub const WHOLE_BYTES: u64 = 4 << 20;
/// Largest retained stream whose lines are counted (read through once, in chunks).
pub const COUNT_BYTES: u64 = 256 << 20;

/// What the runtime could read back of a retained stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetainedText {
    /// The whole stream as text (CRLF as LF; bytes that are not UTF-8 replaced).
    Whole(String),
    /// Too long to show whole: its lines, when it was not too long to count either.
    TooLong(Option<LineCount>),
    /// The store no longer has it.
    Gone,
}

/// Lines of a stream: all of them, and those with something other than blanks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineCount {
    /// Every line (a last line without its newline counts).
    pub all: u64,
    /// Lines that are not blank (what a tool row counts).
    pub non_empty: u64,
}

impl LineCount {
    /// The lines of `text`.
    pub fn of(text: &str) -> LineCount {
        LineCount {
            all: text.lines().count() as u64,
            non_empty: text.lines().filter(|l| !l.trim().is_empty()).count() as u64,
        }
    }
}

/// Reads back `@alias` from `store` for a person's view.
pub fn read_back(store: &RetainedStore, alias: u64) -> RetainedText {
    let Some(body) = store.get(alias) else {
        return RetainedText::Gone;
    };
    if body.len() <= WHOLE_BYTES {
        return match body.read_all() {
            Ok(bytes) => RetainedText::Whole(String::from_utf8_lossy(&bytes).replace("\r\n", "\n")),
            Err(_) => RetainedText::Gone,
        };
    }
    if body.len() > COUNT_BYTES {
        return RetainedText::TooLong(None);
    }
    let mut count = LineCount::default();
    // Whether the line being read has started, and has something other than blanks.
    let (mut open, mut filled) = (false, false);
    let read = body.for_each_chunk(1 << 20, |chunk| {
        for &b in chunk {
            if b == b'\n' {
                count.all += 1;
                count.non_empty += u64::from(filled);
                (open, filled) = (false, false);
            } else {
                open = true;
                filled |= !b.is_ascii_whitespace();
            }
        }
    });
    if read.is_err() {
        return RetainedText::TooLong(None);
    }
    count.all += u64::from(open);
    count.non_empty += u64::from(filled);
    RetainedText::TooLong(Some(count))
}

/// Sets `report.lines` (a command's non-empty output lines) from the whole streams where the
/// answer carried only part of one, so a row's `… N more lines` counts what is really hidden,
/// not the cut copy.
pub fn count_real_lines(
    report: &mut ToolReport,
    response: &Response,
    retained: &dyn Fn(u64) -> RetainedText,
) {
    let Some(Data::Exec(exec)) = &response.data else {
        return;
    };
    let mut lines = 0;
    for (text, kept) in [
        (&exec.stdout, exec.stdout_ref),
        (&exec.stderr, exec.stderr_ref),
    ] {
        let shown = || LineCount::of(text.as_deref().unwrap_or_default()).non_empty;
        lines += match kept.map(retained) {
            Some(RetainedText::Whole(whole)) => LineCount::of(&whole).non_empty,
            Some(RetainedText::TooLong(Some(count))) => count.non_empty,
            _ => shown(),
        };
    }
    report.lines = lines;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_stream_is_read_back_whole_and_a_released_one_is_gone() {
        let mut store = RetainedStore::new(ash_engine::store::StoreQuota::default());
        let alias = store.retain(b"one\r\ntwo\n\nfour".to_vec()).unwrap();
        assert_eq!(
            read_back(&store, alias),
            RetainedText::Whole("one\ntwo\n\nfour".into())
        );
        assert_eq!(
            LineCount::of("one\ntwo\n\nfour"),
            LineCount {
                all: 4,
                non_empty: 3
            }
        );
        store.release(alias).unwrap();
        assert_eq!(read_back(&store, alias), RetainedText::Gone);
    }

    #[test]
    fn a_stream_too_long_to_show_is_counted() {
        let mut store = RetainedStore::new(ash_engine::store::StoreQuota::default());
        let line = "x".repeat(99) + "\n";
        let mut text = line.repeat(50_000);
        text.push_str("  \nlast");
        let alias = store.retain(text.into_bytes()).unwrap();
        assert_eq!(
            read_back(&store, alias),
            RetainedText::TooLong(Some(LineCount {
                all: 50_002,
                non_empty: 50_001
            }))
        );
    }
}
