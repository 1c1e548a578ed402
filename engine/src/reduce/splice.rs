//! Building a reducer's output: the source copied through with byte ranges replaced in order.

use std::borrow::Cow;

/// A copy of `source` under construction that allocates only once something is replaced.
pub(crate) struct Splice<'a> {
    source: &'a str,
    out: Option<String>,
    copied: usize,
}

impl<'a> Splice<'a> {
    /// Starts with nothing replaced.
    pub(crate) fn new(source: &'a str) -> Splice<'a> {
        Splice {
            source,
            out: None,
            copied: 0,
        }
    }

    /// Replaces `source[start..end]` with `with`; ranges must come in increasing, disjoint order
    /// at char boundaries (the reducers only cut at line starts).
    pub(crate) fn replace(&mut self, start: usize, end: usize, with: &str) {
        let out = self
            .out
            .get_or_insert_with(|| String::with_capacity(self.source.len()));
        out.push_str(&self.source[self.copied..start]);
        out.push_str(with);
        self.copied = end;
    }

    /// The result: borrowed when nothing was replaced.
    pub(crate) fn finish(self) -> Cow<'a, str> {
        match self.out {
            None => Cow::Borrowed(self.source),
            Some(mut out) => {
                out.push_str(&self.source[self.copied..]);
                Cow::Owned(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_in_order_and_borrows_when_untouched() {
        assert!(matches!(Splice::new("abc").finish(), Cow::Borrowed("abc")));
        let mut splice = Splice::new("a\nb\nc\nd\n");
        splice.replace(2, 4, "X\n");
        splice.replace(6, 8, "");
        assert_eq!(splice.finish(), "a\nX\nc\n");
    }
}
