//! Failure anchors: lines that carry a diagnostic term (the centres of ⋯N's focus windows).
//!
//! A line is an anchor when it contains, ASCII case-insensitively and delimited by bytes outside
//! `[A-Za-z0-9_]` (or the line's ends), one of [`WORDS`] or [`PHRASES`] — or an identifier (a
//! maximal `[A-Za-z0-9_]` run) that ends, case-sensitively, in `Error` or `Exception`. Bytes of
//! multibyte characters are delimiters. A phrase's words are separated by exactly one space.

/// Single-word anchor terms (matched case-insensitively as whole identifiers).
const WORDS: [&[u8]; 13] = [
    b"error",
    b"fatal",
    b"panic",
    b"panicked",
    b"failed",
    b"failure",
    b"failures",
    b"exception",
    b"traceback",
    b"abort",
    b"aborted",
    b"assertion",
    b"unhandled",
];

/// Two-word anchor terms (first word, second word).
const PHRASES: [(&[u8], &[u8]); 3] = [
    (b"segmentation", b"fault"),
    (b"access", b"violation"),
    (b"undefined", b"reference"),
];

/// Identifier suffixes that make an anchor, case-sensitively (`TypeError`, `IOException`).
const SUFFIXES: [&[u8]; 2] = [b"Error", b"Exception"];

/// Shortest identifier that can start an anchor (`error`, `Error` and the other 5-letter words).
const MIN_TOKEN: usize = 5;

/// Identifier bytes by value; a table lookup keeps the per-byte loop short.
const IDENT: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Whether `b` belongs to an identifier (`[A-Za-z0-9_]`).
fn is_ident(b: u8) -> bool {
    IDENT[usize::from(b)]
}

/// Whether `line` is a failure anchor (see the module docs).
pub fn is_anchor(line: &[u8]) -> bool {
    let mut i = 0;
    while i < line.len() {
        if !is_ident(line[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < line.len() && is_ident(line[i]) {
            i += 1;
        }
        let token = &line[start..i];
        if token.len() >= MIN_TOKEN && (token_is_anchor(token) || phrase_follows(token, &line[i..]))
        {
            return true;
        }
    }
    false
}

/// Whether one identifier is an anchor on its own.
fn token_is_anchor(token: &[u8]) -> bool {
    SUFFIXES.iter().any(|suffix| token.ends_with(suffix))
        || (token.len() <= 9 && WORDS.iter().any(|word| token.eq_ignore_ascii_case(word)))
}

/// Whether `token` followed by `rest` (the bytes after it) forms one of the phrases.
fn phrase_follows(token: &[u8], rest: &[u8]) -> bool {
    PHRASES.iter().any(|(first, second)| {
        token.eq_ignore_ascii_case(first)
            && rest.first() == Some(&b' ')
            && rest.len() > second.len()
            && rest[1..=second.len()].eq_ignore_ascii_case(second)
            && rest.get(second.len() + 1).is_none_or(|&b| !is_ident(b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(line: &str) -> bool {
        is_anchor(line.as_bytes())
    }

    #[test]
    fn words_are_whole_and_case_insensitive() {
        for line in [
            "error: linking failed",
            "ERROR",
            "Build FAILED.",
            "thread 'main' panicked at src/main.rs:2:5",
            "fatal: not a git repository",
            "2 failures",
            "Traceback (most recent call last):",
            "Assertion `x > 0' failed.",
            "core dumped (abort)",
            "[unhandled]",
            "x=error",
            "error\n",
            "«error»",
            "éerrorü",
        ] {
            assert!(anchor(line), "{line:?}");
        }
        for line in [
            "errors: 0",
            "no_error here",
            "error_code=3",
            "terror",
            "failedx",
            "failing tests: none",
            "panics",
            "aborting",
            "",
            "ok\n",
        ] {
            assert!(!anchor(line), "{line:?}");
        }
    }

    #[test]
    fn identifier_suffixes_are_case_sensitive() {
        assert!(anchor("TypeError: x is undefined"));
        assert!(anchor("java.io.IOException: closed"));
        assert!(anchor("raise my_Error"));
        assert!(anchor("Error"));
        assert!(!anchor("TypeERROR_ is fine"));
        assert!(!anchor("Typeerror"));
        assert!(!anchor("IOExceptions"));
        assert!(!anchor("ErrorCount = 0"));
    }

    #[test]
    fn phrases_need_one_space_and_word_ends() {
        assert!(anchor("Segmentation fault (core dumped)"));
        assert!(!anchor("EXCEPTION_ACCESS_VIOLATION"));
        assert!(anchor("access violation at 0x0"));
        assert!(anchor("undefined reference to `main'"));
        assert!(anchor("x: Undefined Reference"));
        assert!(!anchor("segmentation faults"));
        assert!(!anchor("segmentation  fault"));
        assert!(!anchor("undefined references"));
        assert!(!anchor("access violations"));
        assert!(!anchor("access"));
    }
}
