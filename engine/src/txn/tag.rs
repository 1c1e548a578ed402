//! The embedder's name for one request's transaction, kept in its journal (`TAG`) so that
//! recovery after a crash can say which request the recovered journal belonged to.

use std::fmt;

/// Longest tag accepted, in bytes.
pub const MAX_TAG_BYTES: usize = 128;

/// An opaque name for a transaction: 1..=128 bytes of printable ASCII without spaces, chosen
/// by the embedder (the engine only stores and returns it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tag(String);

/// Why a tag was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    /// Empty or longer than [`MAX_TAG_BYTES`].
    #[error("a transaction tag must be 1..={MAX_TAG_BYTES} bytes long; this one is {0}")]
    Length(usize),
    /// A byte outside printable ASCII (`!`..=`~`).
    #[error(
        "a transaction tag may hold only printable ASCII without spaces; byte {at} is {byte:#04x}"
    )]
    Byte {
        /// The offset of the byte.
        at: usize,
        /// The byte.
        byte: u8,
    },
}

impl Tag {
    /// Checks `text` (see [`Tag`]).
    pub fn new(text: impl Into<String>) -> Result<Tag, TagError> {
        let text = text.into();
        Self::check(text.as_bytes())?;
        Ok(Tag(text))
    }

    /// The tag's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The bytes stored in a journal's `TAG` file.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// Reads a `TAG` file's bytes back; anything malformed is no tag (a torn or foreign file
    /// must never be attributed to a request).
    pub(crate) fn from_journal(bytes: &[u8]) -> Option<Tag> {
        Self::check(bytes).ok()?;
        std::str::from_utf8(bytes).ok().map(|s| Tag(s.to_owned()))
    }

    fn check(bytes: &[u8]) -> Result<(), TagError> {
        if bytes.is_empty() || bytes.len() > MAX_TAG_BYTES {
            return Err(TagError::Length(bytes.len()));
        }
        match bytes.iter().position(|b| !b.is_ascii_graphic()) {
            Some(at) => Err(TagError::Byte {
                at,
                byte: bytes[at],
            }),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_printable_ascii_of_bounded_length() {
        assert_eq!(Tag::new("call-1/x").map(|t| t.0), Ok("call-1/x".to_owned()));
        assert_eq!(Tag::new(""), Err(TagError::Length(0)));
        assert_eq!(
            Tag::new("a".repeat(MAX_TAG_BYTES + 1)),
            Err(TagError::Length(MAX_TAG_BYTES + 1))
        );
        assert!(Tag::new("a".repeat(MAX_TAG_BYTES)).is_ok());
        assert_eq!(Tag::new("a b"), Err(TagError::Byte { at: 1, byte: b' ' }));
        assert_eq!(Tag::new("a\n"), Err(TagError::Byte { at: 1, byte: b'\n' }));
        assert_eq!(Tag::new("é"), Err(TagError::Byte { at: 0, byte: 0xc3 }));
    }

    #[test]
    fn a_malformed_journal_tag_is_no_tag() {
        assert_eq!(Tag::from_journal(b"abc"), Tag::new("abc").ok());
        assert_eq!(Tag::from_journal(b""), None);
        assert_eq!(Tag::from_journal(b"ab\0"), None);
        assert_eq!(Tag::from_journal(&[b'a'; MAX_TAG_BYTES + 1]), None);
    }
}
