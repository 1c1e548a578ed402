//! `r` read: byte or line selections with whole-file digests; text inline while it fits half
//! the presentation limit, otherwise retained.

use super::fs_error;
use crate::answer::Answer;
use crate::answer::truncate::{WORST_ID, digits};
use crate::ason::encode_text;
use crate::files::content::{self, ReadOutput, Selection};
use crate::protocol::{Data, ErrorCode, ErrorRecord, Flags, ReadArgs, ReadMode, ReadRow, Response};
use std::collections::HashSet;
use std::num::NonZeroU64;

/// Runs a read request.
pub(crate) fn run(answer: &mut Answer<'_>, args: &ReadArgs) -> Result<Response, ErrorRecord> {
    let limit = answer.limit();
    let count = NonZeroU64::new(args.count).ok_or(ErrorRecord::invalid_argument())?;
    let selection = match args.mode {
        ReadMode::Bytes => Selection::Bytes {
            offset: args.offset,
            len: count,
        },
        ReadMode::Lines => Selection::Lines {
            first: NonZeroU64::new(args.offset).ok_or(ErrorRecord::invalid_argument())?,
            count,
        },
    };
    let session = answer.session;
    let outputs = content::read_paths(
        &session.plane,
        &session.workspace,
        &args.paths,
        selection,
        Some(answer.deadline),
    )
    .into_iter()
    .collect::<Result<Vec<ReadOutput>, _>>()
    .map_err(|e| fs_error(&e))?;
    // After the paths: a path error answers before the budget does, as in the reference.
    if args.paths.len() > answer.rec() || worst_case_bytes(answer.request.id, args) > limit {
        return Err(ErrorRecord::typical(ErrorCode::OutputBudget));
    }

    let text_budget = limit / 2;
    let mut inline_bytes = 0usize;
    let mut rows = Vec::with_capacity(outputs.len());
    let mut held: Vec<Option<Vec<u8>>> = Vec::with_capacity(outputs.len());
    for out in outputs {
        let path = answer.path_id(&out.path)?;
        let mut row = ReadRow {
            path,
            offset: out.offset,
            len: out.count,
            digest: out.digest,
            text: None,
            reference: None,
        };
        match String::from_utf8(out.bytes) {
            Ok(text) if inline_bytes + encoded_len(&text) <= text_budget => {
                inline_bytes += encoded_len(&text);
                row.text = Some(text);
                held.push(None);
            }
            Ok(text) => held.push(Some(text.into_bytes())),
            Err(e) => held.push(Some(e.into_bytes())),
        }
        rows.push(row);
    }
    // Escaped text and the dictionary delta can make the real answer longer than L; move
    // inline text out, last row first, until it fits. The size is measured with the delta the
    // session adds and a 20-digit placeholder for every reference still to be assigned, so the
    // real answer fits as well and aliases can then be assigned in row order.
    for (row, bytes) in rows.iter_mut().zip(&held) {
        if bytes.is_some() {
            row.reference = Some(WORST_ID);
        }
    }
    let mut response = build(answer.request.id, rows);
    response.paths = answer.delta.new.clone();
    while response.encode().len() > limit {
        let Some(Data::Read(rows)) = response.data.as_mut() else {
            break;
        };
        let Some(index) = rows.iter().rposition(|r| r.text.is_some()) else {
            return Err(ErrorRecord::typical(ErrorCode::OutputBudget));
        };
        let text = rows[index].text.take().unwrap_or_default();
        rows[index].reference = Some(WORST_ID);
        held[index] = Some(text.into_bytes());
        response.flags = Flags::RETAINED.with(Flags::REDUCED);
    }
    // Retain in row order so aliases follow the rows.
    if let Some(Data::Read(rows)) = response.data.as_mut() {
        for (row, bytes) in rows.iter_mut().zip(held) {
            if let Some(bytes) = bytes {
                row.reference = Some(answer.retain(bytes)?);
            }
        }
    }
    Ok(response)
}

fn build(id: u64, rows: Vec<ReadRow>) -> Response {
    let retained = rows.iter().any(|r| r.reference.is_some());
    let mut response = Response::success(id, Data::Read(rows));
    if retained {
        response.flags = Flags::RETAINED.with(Flags::REDUCED);
    }
    response
}

/// Bytes of `text` as an encoded ASON cell.
fn encoded_len(text: &str) -> usize {
    let mut s = String::new();
    encode_text(text, &mut s);
    s.len()
}

/// The response size if every row were retained and every path new with a 20-digit id.
fn worst_case_bytes(id: u64, args: &ReadArgs) -> usize {
    let worst = digits(WORST_ID);
    let mut seen = HashSet::new();
    let mut paths = 0usize;
    let mut bytes = 0usize;
    for p in &args.paths {
        if seen.insert(p.as_str()) {
            paths += 1;
            let mut s = String::new();
            encode_text(p, &mut s);
            bytes += worst + 1 + s.len() + 1;
        }
        // p,o,n,h,t,r with t = ~ and r = @MAX
        bytes += worst
            + 1
            + digits(args.offset)
            + 1
            + digits(args.count)
            + 1
            + 64
            + 1
            + 1
            + 1
            + 1
            + worst
            + 1;
    }
    let n = args.paths.len() as u64;
    let p_header = if paths > 0 {
        10 + digits(paths as u64)
    } else {
        0
    };
    // t:3, i:N, s:0, p header, d[N]{p,o,n,h,t,r}:, z:10, r:~
    bytes + 4 + 3 + digits(id) + 4 + p_header + (5 + digits(n) + 14) + 5 + 4
}
