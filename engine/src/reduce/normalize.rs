//! CRLF → LF normalisation (the first step of exec projection, result flag bit 2).

use std::borrow::Cow;

/// Replaces every CRLF with LF in one pass (`\r\r\n` → `\r\n`; a lone CR stays); returns
/// `Cow::Owned` exactly when something changed, which is when the caller sets the normalized flag.
pub fn normalize(text: &str) -> Cow<'_, str> {
    let Some(first) = find_crlf(text, 0) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut cr = first;
    loop {
        out.push_str(&text[copied..cr]);
        // Skip the CR; the LF is copied with the next span.
        copied = cr + 1;
        match find_crlf(text, cr + 2) {
            Some(next) => cr = next,
            None => break,
        }
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Byte index of the CR of the first CRLF at or after `from` (`from` is a char boundary).
fn find_crlf(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(offset) = text.get(at..).and_then(|rest| rest.find('\r')) {
        let cr = at + offset;
        if bytes.get(cr + 1) == Some(&b'\n') {
            return Some(cr);
        }
        at = cr + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_crlf_only() {
        assert!(matches!(normalize("a\nb\n"), Cow::Borrowed(_)));
        assert!(matches!(normalize("a\rb\r"), Cow::Borrowed(_)));
        assert!(matches!(normalize(""), Cow::Borrowed(_)));
        assert_eq!(normalize("a\r\nb\r\n"), "a\nb\n");
        assert_eq!(normalize("\r\n"), "\n");
        assert_eq!(normalize("a\r\r\nb"), "a\r\nb");
        assert_eq!(normalize("é\r\nü\rx\r\n\r"), "é\nü\rx\n\r");
        assert!(matches!(normalize("x\r\n"), Cow::Owned(_)));
    }
}
