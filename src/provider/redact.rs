//! Finding a credential in text a server sent back, in the encodings servers echo it in, so
//! that an error message shown or journaled never carries it.
//!
//! A credential is found written out, percent-encoded (either hex case, `+` for a space), as a
//! JSON string escape (`\uXXXX`, surrogate pairs, `\/`, `\\`, `\"`), or any mix of these, byte by
//! byte; and as base64 (standard or URL-safe, padded or not) at any of the three alignments it
//! can have inside a longer base64 text such as `Basic base64(user:key)`, itself written out or
//! escaped in the same ways.

/// What a found credential is replaced with.
pub const REDACTED: &str = "<redacted>";

/// Credentials shorter than this are not searched for: they would match ordinary words.
const MIN_SECRET: usize = 4;
/// Base64 runs shorter than this are not searched for, for the same reason.
const MIN_BASE64: usize = 4;

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// One form of a credential to look for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Needle {
    bytes: Vec<u8>,
    /// For a base64 form: its alphabet. The characters right before and after a match carry
    /// a few bits of the credential too (they also carry bits of what surrounds it), so the
    /// redaction takes them and any padding along.
    base64: Option<&'static [u8; 64]>,
}

/// Fewest bytes of a credential's start that are redacted at the end of a cut text.
const PARTIAL_MIN: usize = 4;

/// Redacts a set of credentials from text.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    needles: Vec<Needle>,
}

impl Redactor {
    /// A redactor of `secrets` (those shorter than 4 bytes are ignored).
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Self {
        let mut needles: Vec<Needle> = Vec::new();
        let mut add = |needle: Needle| {
            if !needles.contains(&needle) {
                needles.push(needle);
            }
        };
        for secret in secrets {
            let bytes = secret.as_bytes();
            if bytes.len() < MIN_SECRET {
                continue;
            }
            add(Needle {
                bytes: bytes.to_vec(),
                base64: None,
            });
            for alphabet in [STANDARD, URL_SAFE] {
                for offset in 0..3 {
                    let inner = base64_inner(bytes, offset, alphabet);
                    if inner.len() >= MIN_BASE64 {
                        add(Needle {
                            bytes: inner,
                            base64: Some(alphabet),
                        });
                    }
                }
            }
        }
        Redactor { needles }
    }

    /// `text` with every form of every credential replaced by [`REDACTED`]. Control
    /// characters go first, so a credential split by one (a wrapped base64 body, a NUL) is
    /// still found; and a text that ends in the first bytes of a credential (a body cut at
    /// its size limit) loses them too.
    pub fn redact(&self, text: &str) -> String {
        if self.needles.is_empty() {
            return text.to_owned();
        }
        let joined: String = text.chars().filter(|c| !c.is_control()).collect();
        let mut out = self.replace(&joined);
        self.cut_partial_tail(&mut out);
        out
    }

    /// Replaces a literal credential's first bytes (at least [`PARTIAL_MIN`]) that end `text`.
    fn cut_partial_tail(&self, text: &mut String) {
        let end = text.trim_end().len();
        for needle in self.needles.iter().filter(|n| n.base64.is_none()) {
            let longest = (PARTIAL_MIN..needle.bytes.len())
                .rev()
                .find(|&n| text.as_bytes()[..end].ends_with(&needle.bytes[..n]));
            if let Some(n) = longest
                && text.is_char_boundary(end - n)
            {
                text.replace_range(end - n..end, REDACTED);
                return;
            }
        }
    }

    fn replace(&self, text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        let mut i = 0;
        while i < bytes.len() {
            let found = self
                .needles
                .iter()
                .filter_map(|n| matched(bytes, i, &n.bytes).map(|end| (n, end)))
                .max_by_key(|(_, end)| *end);
            let Some((needle, end)) = found else {
                i += 1;
                continue;
            };
            let (start, end) = match needle.base64 {
                Some(alphabet) => widen(bytes, i, end, alphabet),
                None => (i, end),
            };
            // Widening never reaches back into what an earlier match already replaced.
            let start = start.max(copied);
            // A match starts at an ASCII byte or at the first byte of a character the
            // credential starts with, and ends after a whole character; widening adds ASCII.
            if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                i += 1;
                continue;
            }
            out.push_str(&text[copied..start]);
            out.push_str(REDACTED);
            copied = end;
            i = end;
        }
        out.push_str(&text[copied..]);
        out
    }
}

/// The base64 characters that depend on `secret` alone when it starts `offset` bytes into a
/// 3-byte group: the characters shared with the bytes before or after it are left out.
fn base64_inner(secret: &[u8], offset: usize, alphabet: &[u8; 64]) -> Vec<u8> {
    let mut data = vec![0u8; offset];
    data.extend_from_slice(secret);
    let encoded = encode(&data, alphabet);
    // Offset 1: the second character mixes 2 bits before with 4 of the secret; offset 2: the
    // third mixes 4 bits before with 2 of the secret.
    let lead = [0, 2, 3][offset];
    // A last partial group's final character mixes the secret's last bits with what follows.
    let tail = usize::from(!data.len().is_multiple_of(3));
    if encoded.len() < lead + tail {
        return Vec::new();
    }
    encoded[lead..encoded.len() - tail].to_vec()
}

/// Unpadded base64 of `data`.
fn encode(data: &[u8], alphabet: &[u8; 64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for k in 0..chars {
            let index = (n >> (18 - 6 * k)) & 63;
            out.push(alphabet[index as usize]);
        }
    }
    out
}

/// Takes in the base64 character before `start` and the one after `end`, and padding after.
fn widen(text: &[u8], start: usize, end: usize, alphabet: &[u8; 64]) -> (usize, usize) {
    let is_char = |b: u8| alphabet.contains(&b);
    let start = match start.checked_sub(1) {
        Some(before) if is_char(text[before]) => before,
        _ => start,
    };
    let mut end = end;
    if end < text.len() && is_char(text[end]) {
        end += 1;
    }
    while end < text.len() && text[end] == b'=' {
        end += 1;
    }
    (start, end)
}

/// Where a match of `needle` that starts at `text[at]` ends, each byte written out or encoded.
fn matched(text: &[u8], at: usize, needle: &[u8]) -> Option<usize> {
    let mut t = at;
    let mut n = 0;
    while n < needle.len() {
        let rest = &needle[n..];
        let (consumed, decoded) = decode_at(text, t, rest)?;
        t += consumed;
        n += decoded;
    }
    Some(t)
}

/// How many bytes of `text` at `t` spell a prefix of `expected`, and how long that prefix is:
/// an escape when one decodes to it, else the byte itself.
fn decode_at(text: &[u8], t: usize, expected: &[u8]) -> Option<(usize, usize)> {
    let first = *text.get(t)?;
    let want = expected[0];
    match first {
        b'%' => {
            if let Some(v) = hex_byte(text.get(t + 1..t + 3)?)
                && v == want
            {
                return Some((3, 1));
            }
        }
        b'+' if want == b' ' => return Some((1, 1)),
        b'\\' => {
            if let Some((consumed, ch)) = json_escape(text, t) {
                let mut buf = [0; 4];
                let utf8 = ch.encode_utf8(&mut buf).as_bytes();
                if expected.starts_with(utf8) {
                    return Some((consumed, utf8.len()));
                }
            }
        }
        _ => {}
    }
    (first == want).then_some((1, 1))
}

/// The character a JSON escape at `text[t]` (a backslash) stands for, and its length.
fn json_escape(text: &[u8], t: usize) -> Option<(usize, char)> {
    match *text.get(t + 1)? {
        b'/' => Some((2, '/')),
        b'\\' => Some((2, '\\')),
        b'"' => Some((2, '"')),
        b'u' => {
            let high = hex_u16(text.get(t + 2..t + 6)?)?;
            if (0xD800..0xDC00).contains(&high) {
                if text.get(t + 6..t + 8)? != b"\\u" {
                    return None;
                }
                let low = hex_u16(text.get(t + 8..t + 12)?)?;
                if !(0xDC00..0xE000).contains(&low) {
                    return None;
                }
                let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                return char::from_u32(code).map(|c| (12, c));
            }
            char::from_u32(u32::from(high)).map(|c| (6, c))
        }
        _ => None,
    }
}

fn hex_byte(two: &[u8]) -> Option<u8> {
    let hi = hex_digit(two[0])?;
    let lo = hex_digit(two[1])?;
    Some(hi << 4 | lo)
}

fn hex_u16(four: &[u8]) -> Option<u16> {
    four.iter()
        .try_fold(0u16, |acc, &d| Some(acc << 4 | u16::from(hex_digit(d)?)))
}

fn hex_digit(d: u8) -> Option<u8> {
    match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        b'A'..=b'F' => Some(d - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
