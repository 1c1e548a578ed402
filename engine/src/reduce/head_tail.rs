//! The head/tail cut that fits a projection into its byte budget (ASH/1 §5 step 4).

use std::borrow::Cow;

/// The separator between head and tail, `\n...\n` (5 bytes).
pub const SEPARATOR: &str = "\n...\n";

/// Below this budget a text that does not fit is omitted (`~`) instead of cut.
pub const MIN_CUT_BUDGET: usize = 8;

/// How a text is presented within a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut<'a> {
    /// The text fits and is emitted whole.
    Whole(&'a str),
    /// The text is emitted as `head`, [`SEPARATOR`], `tail`.
    HeadTail {
        /// The kept start of the text.
        head: &'a str,
        /// The kept end of the text.
        tail: &'a str,
    },
    /// The budget is below [`MIN_CUT_BUDGET`] and the text does not fit: no text (`~`).
    Omitted,
}

impl<'a> Cut<'a> {
    /// Whether the presented text is less than the whole text.
    pub fn is_cut(&self) -> bool {
        !matches!(self, Cut::Whole(_))
    }

    /// The presented text, `None` when omitted.
    pub fn render(&self) -> Option<Cow<'a, str>> {
        match *self {
            Cut::Whole(text) => Some(Cow::Borrowed(text)),
            Cut::HeadTail { head, tail } => Some(Cow::Owned([head, SEPARATOR, tail].concat())),
            Cut::Omitted => None,
        }
    }
}

/// Fits `text` into `budget` bytes: whole if it fits; else omitted below [`MIN_CUT_BUDGET`]; else
/// content = budget − 5, head = the first ⌊content/2⌋ bytes floored to a char boundary, tail = the
/// last ⌈content/2⌉ bytes with its start ceiled to a char boundary (the tail's share is fixed, not
/// topped up by bytes the head's flooring gave back), so the result never exceeds the budget.
pub fn head_tail(text: &str, budget: usize) -> Cut<'_> {
    if text.len() <= budget {
        return Cut::Whole(text);
    }
    let Some((head_len, tail_len)) = cut_lengths(budget) else {
        return Cut::Omitted;
    };
    let head_end = text.floor_char_boundary(head_len);
    let tail_start = text.ceil_char_boundary(text.len() - tail_len);
    Cut::HeadTail {
        head: &text[..head_end],
        tail: &text[tail_start..],
    }
}

/// Nominal (head, tail) byte counts of a cut at `budget`, `None` below [`MIN_CUT_BUDGET`].
pub(crate) fn cut_lengths(budget: usize) -> Option<(usize, usize)> {
    if budget < MIN_CUT_BUDGET {
        return None;
    }
    let content = budget - SEPARATOR.len();
    Some((content / 2, content - content / 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str, budget: usize) -> Option<String> {
        head_tail(text, budget).render().map(Cow::into_owned)
    }

    #[test]
    fn whole_when_it_fits() {
        assert_eq!(head_tail("abc", 3), Cut::Whole("abc"));
        assert_eq!(head_tail("", 0), Cut::Whole(""));
        assert_eq!(head_tail("abc", 2), Cut::Omitted);
        assert_eq!(cut("abcdefgh", 7), None);
    }

    #[test]
    fn ascii_cut_shares() {
        // budget 8: content 3 → head 1, tail 2.
        assert_eq!(cut("abcdefghij", 8).as_deref(), Some("a\n...\nij"));
        // budget 9: content 4 → 2 + 2.
        assert_eq!(cut("abcdefghij", 9).as_deref(), Some("ab\n...\nij"));
        let text = "0123456789".repeat(10);
        for budget in 8..text.len() {
            let out = cut(&text, budget).unwrap_or_default();
            assert_eq!(out.len(), budget, "ASCII cuts use the whole budget");
        }
    }

    #[test]
    fn multibyte_boundaries() {
        // "ééééé" = 10 bytes. budget 9: content 4 → head floor(2)=2 ("é"), tail 2 bytes ("é").
        assert_eq!(cut("ééééé", 9).as_deref(), Some("é\n...\né"));
        // budget 8: content 3 → head 1 floors to 0 bytes; tail 2 bytes = "é".
        assert_eq!(cut("ééééé", 8).as_deref(), Some("\n...\né"));
        // "ééééa" = 9 bytes, budget 8: the tail's 2 bytes start mid-"é" → ceiled to "a".
        assert_eq!(cut("ééééa", 8).as_deref(), Some("\n...\na"));
        // 3-byte chars: "€€€€" = 12 bytes; budget 11: content 6 → head 3 = "€", tail 3 = "€".
        assert_eq!(cut("€€€€", 11).as_deref(), Some("€\n...\n€"));
        // budget 10: content 5 → head 2 → "" ; tail 3 → "€".
        assert_eq!(cut("€€€€", 10).as_deref(), Some("\n...\n€"));
        // 4-byte chars never split, and the result never exceeds the budget.
        let text = "a😀b😀c😀d😀e";
        for budget in 0..text.len() + 2 {
            if let Some(out) = cut(text, budget) {
                assert!(out.len() <= budget, "{budget}");
            }
        }
    }

    #[test]
    fn head_and_tail_come_from_the_ends() {
        let Cut::HeadTail { head, tail } = head_tail("héllo wörld, this is long", 13) else {
            panic!("cut expected");
        };
        // content 8 → head 4 bytes ("hél"), tail 4 bytes ("long").
        assert_eq!((head, tail), ("hél", "long"));
    }
}
