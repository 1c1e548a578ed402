//! Text from a server made safe for a status line: one line, printable, bounded.

/// `text` with control characters (escape sequences included) replaced by `�`, line breaks
/// and tabs by spaces, cut to `max` characters with `…`.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max + 4));
    for (count, c) in text.trim().chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        out.push(match c {
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => '\u{FFFD}',
            // Bidirectional overrides can reorder what a terminal shows.
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => '\u{FFFD}',
            c => c,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn escapes_and_breaks_never_survive() {
        assert_eq!(one_line("a\x1b[31mred\nb", 100), "a\u{FFFD}[31mred b");
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(one_line("x\u{202E}y", 10), "x\u{FFFD}y");
    }
}
