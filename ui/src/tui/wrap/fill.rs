//! Greedy line filling for [`super`]: words (or, for code, clusters) go on the current line
//! while they fit.

use ratatui::text::{Line, Span};

use super::{Kind, TAB_WIDTH, next_cluster};

/// A piece of an output line, in the style of source span `span`.
#[derive(Clone, Copy)]
enum Seg {
    /// `spans[span].content[start..end]`, `width` columns.
    Slice {
        span: usize,
        start: usize,
        end: usize,
        width: usize,
    },
    /// A tab, not yet expanded (only in a pending gap).
    Tab { span: usize },
    /// `n` spaces.
    Fill { span: usize, n: usize },
    /// `?` in place of a cluster wider than the line.
    Replacement { span: usize },
}

impl Seg {
    fn span(self) -> usize {
        match self {
            Seg::Slice { span, .. }
            | Seg::Tab { span }
            | Seg::Fill { span, .. }
            | Seg::Replacement { span } => span,
        }
    }
}

/// Appends a slice to `segs`, extending the last one when it is the same span and adjacent.
fn push_slice(segs: &mut Vec<Seg>, span: usize, start: usize, end: usize, width: usize) {
    if let Some(Seg::Slice {
        span: s,
        end: e,
        width: w,
        ..
    }) = segs.last_mut()
        && *s == span
        && *e == start
    {
        *e = end;
        *w += width;
    } else {
        segs.push(Seg::Slice {
            span,
            start,
            end,
            width,
        });
    }
}

/// Greedy line filling over the clusters of all spans.
pub(super) struct Wrapper<'s> {
    spans: &'s [Span<'s>],
    width: usize,
    /// Code: break anywhere, keep every space.
    hard: bool,
    first: Vec<Span<'static>>,
    rest: Vec<Span<'static>>,
    first_width: usize,
    rest_width: usize,
    pub(super) lines: Vec<Line<'static>>,
    /// The current line's pieces and the columns they take.
    line: Vec<Seg>,
    col: usize,
    /// The current line continues a wrapped one: spaces before its first word are dropped.
    continued: bool,
    /// Spaces and tabs seen since the last word, placed only before the next word.
    gap: Vec<Seg>,
    /// The word being read and its width.
    word: Vec<Seg>,
    word_width: usize,
}

impl<'s> Wrapper<'s> {
    pub(super) fn new(
        spans: &'s [Span<'s>],
        width: u16,
        first: &[Span<'_>],
        rest: &[Span<'_>],
        hard: bool,
    ) -> Self {
        let width = usize::from(width.max(1));
        let (first, first_width) = fit_prefix(first, width - 1);
        let (rest, rest_width) = fit_prefix(rest, width - 1);
        Wrapper {
            spans,
            width,
            hard,
            first,
            rest,
            first_width,
            rest_width,
            lines: Vec::new(),
            line: Vec::new(),
            col: 0,
            continued: false,
            gap: Vec::new(),
            word: Vec::new(),
            word_width: 0,
        }
    }

    /// Columns available to the text of the current line (at least 1).
    fn avail(&self) -> usize {
        let prefix = if self.lines.is_empty() {
            self.first_width
        } else {
            self.rest_width
        };
        self.width - prefix
    }

    pub(super) fn run(&mut self) {
        let spans = self.spans;
        let mut trailing_newline = false;
        for (index, span) in spans.iter().enumerate() {
            let s: &str = &span.content;
            let bytes = s.as_bytes();
            let mut i = 0;
            while i < s.len() {
                // Fast path: a run of printable ASCII, one column per byte. Its last character
                // is left to the cluster path when non-ASCII (maybe a combining mark) follows.
                let mut run = i;
                while run < bytes.len() && bytes[run].is_ascii_graphic() {
                    run += 1;
                }
                if run < bytes.len() && bytes[run] >= 0x80 {
                    run = run.saturating_sub(1).max(i);
                }
                if run > i {
                    trailing_newline = false;
                    self.ascii_run(index, i, run);
                    i = run;
                    continue;
                }
                let (end, width, kind) = next_cluster(s, i);
                trailing_newline = kind == Kind::Newline;
                self.cluster(index, i, end, width, kind);
                i = end;
            }
        }
        self.end_word();
        if !trailing_newline || self.lines.is_empty() {
            self.finish_line(false);
        }
    }

    /// Printable ASCII `start..end` of span `span`: part of a word, or placed as it fits.
    fn ascii_run(&mut self, span: usize, start: usize, end: usize) {
        if !self.hard {
            push_slice(&mut self.word, span, start, end, end - start);
            self.word_width += end - start;
            return;
        }
        let mut at = start;
        while at < end {
            if self.col >= self.avail() {
                self.finish_line(true);
            }
            let take = (self.avail() - self.col).min(end - at);
            push_slice(&mut self.line, span, at, at + take, take);
            self.col += take;
            at += take;
        }
    }

    fn cluster(&mut self, span: usize, start: usize, end: usize, width: usize, kind: Kind) {
        match kind {
            Kind::Text | Kind::Space if self.hard => self.place_cluster(span, start, end, width),
            Kind::Tab if self.hard => {
                if self.col >= self.avail() {
                    self.finish_line(true);
                }
                let n = (TAB_WIDTH - self.col % TAB_WIDTH).min(self.avail() - self.col);
                self.push(Seg::Fill { span, n }, n);
            }
            Kind::Text => {
                push_slice(&mut self.word, span, start, end, width);
                self.word_width += width;
            }
            Kind::Space => {
                self.end_word();
                push_slice(&mut self.gap, span, start, end, width);
            }
            Kind::Tab => {
                self.end_word();
                self.gap.push(Seg::Tab { span });
            }
            Kind::Newline => {
                self.end_word();
                self.gap.clear();
                self.finish_line(false);
            }
            Kind::Skip => {}
        }
    }

    /// One cluster where it fits, on a new line when it does not.
    fn place_cluster(&mut self, span: usize, start: usize, end: usize, width: usize) {
        if self.col + width > self.avail() && !self.line.is_empty() {
            self.finish_line(true);
        }
        if width > self.avail() {
            self.push(Seg::Replacement { span }, 1);
        } else {
            push_slice(&mut self.line, span, start, end, width);
            self.col += width;
        }
    }

    /// Places the pending gap and word.
    fn end_word(&mut self) {
        if self.word.is_empty() {
            return;
        }
        if self.continued && self.line.is_empty() {
            self.gap.clear();
        }
        let word_width = self.word_width;
        let gap_width = self.gap_width();
        let avail = self.avail();
        if self.col + gap_width + word_width <= avail {
            self.place_gap(usize::MAX);
            self.place_word();
        } else if self.line.is_empty() {
            // A first line indented too deep for the word keeps what indentation fits.
            if word_width <= avail {
                self.place_gap(avail - word_width);
                self.place_word();
            } else {
                self.place_gap(avail - 1);
                self.split_word();
            }
        } else if word_width <= self.width - self.rest_width {
            self.gap.clear();
            self.finish_line(true);
            self.place_word();
        } else if self.col + gap_width < avail {
            // A word longer than any line fills the rest of this one.
            self.place_gap(usize::MAX);
            self.split_word();
        } else {
            self.gap.clear();
            self.finish_line(true);
            self.split_word();
        }
        self.word.clear();
        self.word_width = 0;
    }

    /// The width of the pending gap if placed at the current column.
    fn gap_width(&self) -> usize {
        let mut col = self.col;
        for seg in &self.gap {
            col += match *seg {
                Seg::Tab { .. } => TAB_WIDTH - col % TAB_WIDTH,
                Seg::Slice { width, .. } => width,
                Seg::Fill { n, .. } => n,
                Seg::Replacement { .. } => 1,
            };
        }
        col - self.col
    }

    /// Places at most `limit` columns of the pending gap (a space is one byte, one column).
    fn place_gap(&mut self, limit: usize) {
        let mut left = limit;
        for k in 0..self.gap.len() {
            let seg = self.gap[k];
            if left == 0 {
                break;
            }
            let (seg, n) = match seg {
                Seg::Tab { span } => {
                    let n = (TAB_WIDTH - self.col % TAB_WIDTH).min(left);
                    (Seg::Fill { span, n }, n)
                }
                Seg::Slice {
                    span, start, width, ..
                } if width > left => (
                    Seg::Slice {
                        span,
                        start,
                        end: start + left,
                        width: left,
                    },
                    left,
                ),
                Seg::Slice { width, .. } => (seg, width),
                Seg::Fill { n, .. } => (seg, n),
                Seg::Replacement { .. } => (seg, 1),
            };
            left -= n;
            self.push(seg, n);
        }
        self.gap.clear();
    }

    fn place_word(&mut self) {
        for k in 0..self.word.len() {
            let seg = self.word[k];
            if let Seg::Slice { width, .. } = seg {
                self.push(seg, width);
            }
        }
    }

    /// Places a word wider than the line cluster by cluster.
    fn split_word(&mut self) {
        let spans = self.spans;
        let mut word = std::mem::take(&mut self.word);
        for seg in word.drain(..) {
            if let Seg::Slice {
                span, start, end, ..
            } = seg
            {
                let s: &str = &spans[span].content;
                let mut i = start;
                while i < end {
                    let (next, width, _) = next_cluster(s, i);
                    let next = next.min(end);
                    self.place_cluster(span, i, next, width);
                    i = next;
                }
            }
        }
        self.word = word;
    }

    fn push(&mut self, seg: Seg, width: usize) {
        match seg {
            Seg::Slice {
                span,
                start,
                end,
                width,
            } => {
                push_slice(&mut self.line, span, start, end, width);
            }
            _ => self.line.push(seg),
        }
        self.col += width;
    }

    /// Ends the current line; `wrapped` when its text goes on (a soft break).
    fn finish_line(&mut self, wrapped: bool) {
        let spans = self.spans;
        let prefix = if self.lines.is_empty() {
            &self.first
        } else {
            &self.rest
        };
        let mut out: Vec<Span<'static>> = Vec::with_capacity(prefix.len() + 1);
        out.extend(prefix.iter().cloned());
        let mut text = String::new();
        let mut current = usize::MAX;
        for seg in self.line.drain(..) {
            let index = seg.span();
            if index != current {
                if current != usize::MAX {
                    out.push(Span::styled(
                        std::mem::take(&mut text),
                        spans[current].style,
                    ));
                }
                current = index;
                if let Seg::Slice { start, end, .. } = seg {
                    text.reserve_exact(end - start);
                }
            }
            match seg {
                Seg::Slice { start, end, .. } => text.push_str(&spans[index].content[start..end]),
                Seg::Fill { n, .. } => text.extend(std::iter::repeat_n(' ', n)),
                Seg::Replacement { .. } => text.push('?'),
                Seg::Tab { .. } => {}
            }
        }
        if current != usize::MAX {
            out.push(Span::styled(text, spans[current].style));
        }
        self.lines.push(Line::from(out));
        self.col = 0;
        self.continued = wrapped;
    }
}

/// `prefix` as owned spans without control characters, cut to at most `max` columns, and
/// its width.
fn fit_prefix(prefix: &[Span<'_>], max: usize) -> (Vec<Span<'static>>, usize) {
    let mut out = Vec::with_capacity(prefix.len());
    let mut col = 0;
    for span in prefix {
        let s: &str = &span.content;
        let mut text = String::with_capacity(s.len());
        let mut i = 0;
        let mut full = false;
        while i < s.len() {
            let (end, width, kind) = next_cluster(s, i);
            if matches!(kind, Kind::Text | Kind::Space) {
                if col + width > max {
                    full = true;
                    break;
                }
                text.push_str(&s[i..end]);
                col += width;
            }
            i = end;
        }
        out.push(Span::styled(text, span.style));
        if full {
            break;
        }
    }
    (out, col)
}
