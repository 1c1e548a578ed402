//! The transcript projection (user text and durable final answers) and its paging.

use serde::{Deserialize, Serialize};

use crate::ids::RequestId;

/// Most entries a transcript page may hold.
pub const MAX_PAGE_ENTRIES: u32 = 64;
/// Most text bytes a transcript page may hold.
pub const MAX_PAGE_BYTES: usize = 256 << 10;

/// Who wrote a transcript entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user's submitted text.
    User,
    /// A durable final answer.
    Assistant,
}

/// One transcript entry; `index` counts from 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptEntry {
    /// Position in the transcript, from 1.
    pub index: u64,
    /// The turn it belongs to.
    pub request_id: RequestId,
    /// User or assistant.
    pub role: Role,
    /// The text (cut at a character boundary when `truncated`).
    pub text: String,
    /// True when the text was cut to fit the page byte limit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Its turn was taken back by a conversation rewind: it is out of the model's context,
    /// shown for the record.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rewound: bool,
}

/// A transcript request: backwards to exclusive `before` (0 = end), or forwards from `before` (0 = start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptQuery {
    /// Cursor: exclusive end (backwards) or inclusive start (forwards); 0 = end / start.
    pub before: u64,
    /// Entries wanted, 1..=64.
    pub limit: u32,
    /// Read forwards instead of backwards.
    #[serde(default)]
    pub forward: bool,
}

/// One page: entries `[begin, end)` of `total`, and the query that produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptPage {
    /// Index of the first entry (or the cursor when empty).
    pub begin: u64,
    /// One past the index of the last entry.
    pub end: u64,
    /// Entries in the whole transcript.
    pub total: u64,
    /// The entries, oldest first.
    pub entries: Vec<TranscriptEntry>,
    /// The query answered.
    pub query: TranscriptQuery,
}

/// Cuts `text` to at most `max` bytes at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Pages through `entries` (indexed from 1, in order) within the entry and byte limits.
pub fn page(entries: &[TranscriptEntry], query: TranscriptQuery) -> TranscriptPage {
    let total = entries.len() as u64;
    let limit = query.limit.clamp(1, MAX_PAGE_ENTRIES) as usize;
    let mut picked: Vec<TranscriptEntry> = Vec::new();
    let mut bytes = 0usize;
    let mut take = |e: &TranscriptEntry, picked: &mut Vec<TranscriptEntry>| -> bool {
        if picked.len() >= limit {
            return false;
        }
        if bytes + e.text.len() > MAX_PAGE_BYTES {
            if !picked.is_empty() {
                return false;
            }
            let mut cut_entry = e.clone();
            cut_entry.text = cut(&e.text, MAX_PAGE_BYTES).to_owned();
            cut_entry.truncated = true;
            bytes = MAX_PAGE_BYTES;
            picked.push(cut_entry);
            return false;
        }
        bytes += e.text.len();
        picked.push(e.clone());
        true
    };
    let (begin, end) = if query.forward {
        let start = query.before.max(1).min(total + 1);
        for e in &entries[(start - 1) as usize..] {
            if !take(e, &mut picked) {
                break;
            }
        }
        (start, start + picked.len() as u64)
    } else {
        let stop = if query.before == 0 {
            total + 1
        } else {
            query.before.min(total + 1)
        };
        for e in entries[..(stop.max(1) - 1) as usize].iter().rev() {
            if !take(e, &mut picked) {
                break;
            }
        }
        picked.reverse();
        (stop.max(1) - picked.len() as u64, stop.max(1))
    };
    TranscriptPage {
        begin,
        end,
        total,
        entries: picked,
        query,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(n: u64, len: usize) -> Vec<TranscriptEntry> {
        (1..=n)
            .map(|i| TranscriptEntry {
                rewound: false,
                index: i,
                request_id: RequestId(i.div_ceil(2)),
                role: if i % 2 == 1 {
                    Role::User
                } else {
                    Role::Assistant
                },
                text: "é".repeat(len / 2),
                truncated: false,
            })
            .collect()
    }

    #[test]
    fn pages_backwards_and_forwards_cover_everything_once() {
        let all = entries(200, 10);
        let mut seen = Vec::new();
        let mut before = 0;
        loop {
            let p = page(
                &all,
                TranscriptQuery {
                    before,
                    limit: 64,
                    forward: false,
                },
            );
            assert!(p.entries.len() <= 64);
            if p.entries.is_empty() {
                break;
            }
            seen.splice(0..0, p.entries.iter().map(|e| e.index));
            before = p.begin;
            if before == 1 {
                break;
            }
        }
        assert_eq!(seen, (1..=200).collect::<Vec<_>>());
        let mut fwd = Vec::new();
        let mut from = 0;
        loop {
            let p = page(
                &all,
                TranscriptQuery {
                    before: from,
                    limit: 50,
                    forward: true,
                },
            );
            if p.entries.is_empty() {
                break;
            }
            fwd.extend(p.entries.iter().map(|e| e.index));
            from = p.end;
        }
        assert_eq!(fwd, (1..=200).collect::<Vec<_>>());
    }

    #[test]
    fn byte_limit_applies_and_a_huge_entry_is_cut() {
        let all = entries(10, 100 << 10);
        let p = page(
            &all,
            TranscriptQuery {
                before: 0,
                limit: 64,
                forward: false,
            },
        );
        assert_eq!((p.begin, p.end, p.entries.len()), (9, 11, 2));
        let huge = entries(1, 600 << 10);
        let p = page(
            &huge,
            TranscriptQuery {
                before: 0,
                limit: 64,
                forward: false,
            },
        );
        assert!(p.entries[0].truncated);
        assert!(p.entries[0].text.len() <= MAX_PAGE_BYTES);
        assert_eq!((p.begin, p.end), (1, 2));
    }
}
