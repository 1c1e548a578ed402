//! `/` byte slice and `#` line slice: select a range of a retained value, hash it, and project
//! as much of it as fits the presentation limit into `d{o,n,p,h,t,b}`.

use super::stream::{Selected, Sink, chunks, find_lf};
use super::{answered, leased};
use crate::answer::Answer;
use crate::answer::truncate::digits;
use crate::ason::{encode_text, is_bare};
use crate::protocol::{Data, ErrorCode, ErrorRecord, Flags, Response, SliceResult};
use crate::store::Body;
use std::ops::ControlFlow;

/// `/`: bytes `[offset, offset+len)`, clamped to the value; `o` stays the requested offset.
pub(super) fn bytes(
    answer: &mut Answer<'_>,
    source: u64,
    offset: u64,
    len: u64,
) -> Result<Response, ErrorRecord> {
    leased(answer, source, |answer, body| {
        let start = offset.min(body.len());
        let end = start.saturating_add(len).min(body.len());
        let mut sink = Sink::new(answer.limit());
        let plane = answer.session.plane.clone();
        let deadline = answer.deadline;
        plane.install(|| {
            chunks(body, start, end, deadline, |_, piece| {
                sink.feed(piece);
                ControlFlow::Continue(())
            })
        })?;
        respond(answer, source, offset, sink.finish())
    })
}

/// `#`: `count` LF-terminated lines from one-based line `first`; `n` is their byte length.
pub(super) fn lines(
    answer: &mut Answer<'_>,
    source: u64,
    first: u64,
    count: u64,
) -> Result<Response, ErrorRecord> {
    leased(answer, source, |answer, body| {
        let mut sink = Sink::new(answer.limit());
        let plane = answer.session.plane.clone();
        let deadline = answer.deadline;
        plane.install(|| select_lines(body, first, count, deadline, &mut sink))?;
        respond(answer, source, first, sink.finish())
    })
}

/// Streams lines `[first, first+count)` into `sink`, reading no further than their end.
fn select_lines(
    body: &Body,
    first: u64,
    count: u64,
    deadline: crate::deadline::Deadline,
    sink: &mut Sink,
) -> Result<(), ErrorRecord> {
    let last = first.saturating_add(count.saturating_sub(1));
    // The line the next unread byte belongs to, and where the selection starts once known.
    let mut line: u64 = 1;
    let mut start = (first == 1).then_some(0u64);
    chunks(body, 0, body.len(), deadline, |base, piece| {
        let mut end = None;
        let mut i = 0;
        while let Some(lf) = find_lf(piece, i) {
            if start.is_some() {
                if line == last {
                    end = Some(lf + 1);
                    break;
                }
                line += 1;
            } else {
                line += 1;
                if line == first {
                    start = Some(base + lf as u64 + 1);
                }
            }
            i = lf + 1;
        }
        if let Some(s) = start {
            let from = s.saturating_sub(base) as usize;
            let to = end.unwrap_or(piece.len());
            if from < to {
                sink.feed(&piece[from..to]);
            }
        }
        if end.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
}

/// The answer for a selection: whole when it fits L, otherwise the longest prefix (whole
/// characters of text, whole bytes of hex) that does, with `z` 1|2.
fn respond(
    answer: &Answer<'_>,
    source: u64,
    offset: u64,
    selected: Selected,
) -> Result<Response, ErrorRecord> {
    let limit = answer.limit();
    let id = answer.request.id;
    let build = |projected: u64, text: Option<String>, bytes: Option<Vec<u8>>, cut: bool| {
        let data = Data::Slice(SliceResult {
            offset,
            len: selected.len,
            projected,
            digest: selected.digest,
            text,
            bytes,
        });
        let extra = if cut {
            Flags::TRUNCATED.with(Flags::REDUCED)
        } else {
            Flags::NONE
        };
        answered(id, source, data, extra)
    };
    // Size with `p:0` and an empty projection (`""`), from which every candidate is derived.
    let empty = if selected.utf8 {
        build(0, Some(String::new()), None, false)
    } else {
        build(0, None, Some(Vec::new()), false)
    };
    let base = empty.encode().len() - 3;
    // A cut answer's `z` is 11 instead of 8: one digit more.
    let size =
        |k: usize, encoded: usize, cut: bool| base + digits(k as u64) + encoded + usize::from(cut);
    let whole = selected.head.len() as u64 == selected.len;
    let selected_len = selected.head.len();
    let response = if selected.utf8 {
        let text = utf8_prefix(&selected.head);
        let mut full = None;
        let mut best = None;
        prefix_costs(text, |k, encoded| {
            if whole && k == selected_len {
                full = Some(size(k, encoded, false) <= limit);
            }
            if (k as u64) < selected.len && size(k, encoded, true) <= limit {
                best = Some(k);
            }
        });
        match (full, best) {
            (Some(true), _) => build(selected.len, Some(text.to_owned()), None, false),
            (_, Some(k)) => build(k as u64, Some(text[..k].to_owned()), None, true),
            _ => return Err(ErrorRecord::typical(ErrorCode::OutputBudget)),
        }
    } else {
        let hex = |k: usize| if k == 0 { 2 } else { 2 * k };
        let head = &selected.head;
        if whole && size(head.len(), hex(head.len()), false) <= limit {
            build(selected.len, None, Some(head.clone()), false)
        } else {
            let most = head.len().min(selected.len.saturating_sub(1) as usize);
            let k = (0..=most)
                .rev()
                .find(|&k| (k as u64) < selected.len && size(k, hex(k), true) <= limit)
                .ok_or(ErrorRecord::typical(ErrorCode::OutputBudget))?;
            build(k as u64, None, Some(head[..k].to_vec()), true)
        }
    };
    // The arithmetic above mirrors the encoder; the real encoding has the final word.
    if response.encode().len() > limit {
        return Err(ErrorRecord::typical(ErrorCode::OutputBudget));
    }
    Ok(response)
}

/// The longest UTF-8 prefix of `head` (a head cut mid-character loses that character).
fn utf8_prefix(head: &[u8]) -> &str {
    match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Calls `each(k, encoded)` for every character boundary `k` of `text` (0 included) with the
/// encoded cell bytes of `text[..k]`: bare when the canonical encoder would emit it bare,
/// otherwise quoted with escapes.
fn prefix_costs(text: &str, mut each: impl FnMut(usize, usize)) {
    each(0, 2);
    let mut quoted = 2usize;
    let mut all_bare = true;
    // `@` followed only by digits is a reference, so such text is quoted.
    let mut reference_like = text.starts_with('@');
    let mut one = String::new();
    let mut buf = [0u8; 4];
    for (i, c) in text.char_indices() {
        let s: &str = c.encode_utf8(&mut buf);
        one.clear();
        encode_text(s, &mut one);
        let bare = is_bare(s);
        quoted += if bare { one.len() } else { one.len() - 2 };
        all_bare &= bare;
        if i > 0 {
            reference_like &= c.is_ascii_digit();
        }
        let k = i + c.len_utf8();
        let as_reference = reference_like && k >= 2;
        let encoded = if all_bare && !as_reference { k } else { quoted };
        each(k, encoded);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_costs_match_the_encoder() {
        for text in [
            "abc",
            "a b",
            "@12x",
            "@",
            "@7",
            "~",
            "é\"\n\u{7}",
            "x\u{85}y",
            "",
        ] {
            prefix_costs(text, |k, encoded| {
                let mut s = String::new();
                encode_text(&text[..k], &mut s);
                assert_eq!(encoded, s.len(), "{:?}", &text[..k]);
            });
        }
    }
}
