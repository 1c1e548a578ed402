//! A fixed-seed xorshift generator and random text made to hurt terminals and wrappers.

/// xorshift64*.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Pieces of escape sequences, controls, BiDi and other invisible characters.
pub const HOSTILE: &[&str] = &[
    "\x1b",
    "\x1b[",
    "\x1b]",
    "\x1bP",
    "\x1b\\",
    "\x1b[31m",
    "\x1b[2J",
    "\x1b[H",
    "\x1b[10;5H",
    "\x1b[?1049h",
    "\x1b]8;;http://evil\x07",
    "\x1b]52;c;cm0gLXJm\x07",
    "\x1b]0;title\x1b\\",
    "\x1bPq#0~\x1b\\",
    "\x1b_apc",
    "\x1b^pm",
    "\x1bXsos",
    "\x07",
    "\x08",
    "\r",
    "\x00",
    "\x7f",
    "\x0b",
    "\x0c",
    "\x18",
    "\x1a",
    "\u{9b}",
    "\u{9b}2J",
    "\u{9d}",
    "\u{9c}",
    "\u{90}",
    "\u{85}",
    "\u{202e}",
    "\u{202a}",
    "\u{2066}",
    "\u{2069}",
    "\u{200e}",
    "\u{200f}",
    "\u{61c}",
    "\u{2028}",
    "\u{2029}",
    "\u{200b}",
    "\u{feff}",
    "\u{ad}",
    "\u{e0041}",
    "\u{2060}",
];

/// Ordinary pieces of text.
pub const FRIENDLY: &[&str] = &[
    "a",
    "word",
    "x",
    " ",
    " ",
    "  ",
    "\n",
    "\t",
    "[",
    "]",
    ";",
    "1",
    "m",
    "\\",
    "漢",
    "字",
    "🦀",
    "👨\u{200d}👩\u{200d}👧",
    "🇫🇮",
    "👍🏽",
    "e\u{301}",
    "\u{301}",
    "ü",
    "—",
    "é",
    "ｗ",
    "the quick brown fox",
    "supercalifragilistic",
];

/// Random text mixing `FRIENDLY` and (when `hostile`) `HOSTILE` pieces.
pub fn text(rng: &mut Rng, pieces: usize, hostile: bool) -> String {
    let mut out = String::new();
    for _ in 0..pieces {
        if hostile && rng.below(3) == 0 {
            out.push_str(rng.pick::<&str>(HOSTILE));
        } else {
            out.push_str(rng.pick::<&str>(FRIENDLY));
        }
    }
    out
}

/// Characters that must never reach the terminal.
pub fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{61c}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{200b}'
                | '\u{feff}'
                | '\u{ad}'
                | '\u{2060}'
                | '\u{e0000}'..='\u{e007f}'
        )
}
