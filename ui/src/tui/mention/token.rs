//! Where `@` mentions are in the input: the one being typed at the cursor (for completion)
//! and every one in a text about to be sent.

use std::ops::Range;

/// Characters that end a sentence after a mention rather than belong to its path.
const TRAILING: &[char] = &[',', ';', ':', '!', '?', ')', ']', '}', '"', '\'', '.'];

/// The `@word` the cursor is at the end of: the byte range of the query after the `@` (the
/// `@` is at `range.start - 1`). An `@` counts only at the start or after whitespace, so
/// `me@example.com` is not a mention.
pub fn at_cursor(text: &str, cursor: usize) -> Option<Range<usize>> {
    let before = text.get(..cursor)?;
    let start = before.rfind(char::is_whitespace).map_or(0, |i| {
        i + before[i..].chars().next().map_or(1, char::len_utf8)
    });
    let word = &before[start..];
    word.strip_prefix('@')?;
    Some(start + 1..cursor)
}

/// Every mention in `text`, in order, each once: `@` at the start or after whitespace, the
/// path up to the next whitespace without trailing punctuation. A word counts when it looks
/// like a path (has a `/` or a `.`) or `is_file` knows it (`@Makefile`); `@someone` does not.
pub fn mentions(text: &str, is_file: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        let path = path.trim_end_matches(TRAILING);
        if path.is_empty() || path.starts_with('@') {
            continue;
        }
        if (path.contains('/') || path.contains('.') || is_file(path))
            && !out.iter().any(|p| p == path)
        {
            out.push(path.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_at_the_cursor() {
        let text = "look at @src/ma";
        assert_eq!(at_cursor(text, text.len()), Some(9..text.len()));
        assert_eq!(at_cursor("@", 1), Some(1..1));
        assert_eq!(at_cursor("mail me@host", 12), None);
        assert_eq!(at_cursor("@a b", 4), None, "the cursor is past the word");
        assert_eq!(at_cursor("é @x", "é @x".len()), Some(4..5));
    }

    #[test]
    fn mentions_in_a_text() {
        let known = |p: &str| p == "Makefile";
        assert_eq!(
            mentions(
                "fix @src/main.rs, see @README.md. and @Makefile (ask @alice) me@x.org @src/main.rs",
                known
            ),
            ["src/main.rs", "README.md", "Makefile"]
        );
        assert!(mentions("@ @@ @)", known).is_empty());
    }
}
