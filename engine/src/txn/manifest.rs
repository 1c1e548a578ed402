//! The binary `MANIFEST` of a journal (docs/contract/ash-protocol.md §6) and its strict decoder.
//!
//! Layout: magic `ASHFS002`; u32 BE count (1..=256); per action a kind byte, the path
//! (u32 BE length + UTF-8), the destination (length `0xFFFFFFFF` = none), the 32-byte result
//! digest, the u64 BE result size, a preimage flag byte and, for replace, the preimage digest
//! and size; finally a BLAKE3 of every preceding byte.

use super::{MAX_FILE_BYTES, MAX_TOTAL_BYTES};
use crate::files::workspace::{STATE_DIR, check_logical_path};
use crate::protocol::Digest;
use std::collections::HashSet;

const MAGIC: &[u8; 8] = b"ASHFS002";
const NO_DESTINATION: u32 = u32::MAX;
/// Largest manifest accepted.
pub(crate) const MAX_MANIFEST_BYTES: usize = 4 << 20;
/// Most actions in one manifest: as many as the largest request makes (a patch of at most
/// `MAX_PATCH_FILES` files, an fs request of at most `MAX_FS_ACTIONS`). A change the decoder
/// would refuse must never be published: a crash mid-apply could not be recovered.
pub(crate) const MAX_ACTIONS: usize = 256;

/// What an action does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// 0: link `stage/i` to a new path.
    Create = 0,
    /// 1: link a staged copy of the source to a new path.
    Copy = 1,
    /// 2: link the source to a new path, then unlink the source.
    Move = 2,
    /// 3: rename the file into `removed/i`.
    Remove = 3,
    /// 4: replace a file's content (patch), keeping its preimage in `removed/i`.
    Replace = 4,
}

impl Kind {
    fn from_byte(b: u8) -> Option<Kind> {
        Some(match b {
            0 => Kind::Create,
            1 => Kind::Copy,
            2 => Kind::Move,
            3 => Kind::Remove,
            4 => Kind::Replace,
            _ => return None,
        })
    }

    /// Copy and move name a destination; nothing else does.
    pub(crate) fn has_destination(self) -> bool {
        matches!(self, Kind::Copy | Kind::Move)
    }
}

/// One journaled action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The kind.
    pub kind: Kind,
    /// The source (or only) logical path.
    pub path: String,
    /// The destination of copy and move.
    pub destination: Option<String>,
    /// Digest of the resulting file (create/replace: new content; others: the source).
    pub digest: Digest,
    /// Size of the resulting file.
    pub size: u64,
    /// Replace only: the digest and size the file had before.
    pub preimage: Option<(Digest, u64)>,
}

/// Encodes `entries` (the caller guarantees they satisfy the decoder's rules).
pub(crate) fn encode(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + entries.len() * 96);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    for e in entries {
        out.push(e.kind as u8);
        put_text(&mut out, &e.path);
        match &e.destination {
            Some(d) => put_text(&mut out, d),
            None => out.extend_from_slice(&NO_DESTINATION.to_be_bytes()),
        }
        out.extend_from_slice(&e.digest.0);
        out.extend_from_slice(&e.size.to_be_bytes());
        match e.preimage {
            Some((digest, size)) => {
                out.push(1);
                out.extend_from_slice(&digest.0);
                out.extend_from_slice(&size.to_be_bytes());
            }
            None => out.push(0),
        }
    }
    let check = blake3::hash(&out);
    out.extend_from_slice(check.as_bytes());
    out
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u32).to_be_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// Decodes and re-validates a manifest; any deviation is an error message.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Entry>, String> {
    if bytes.len() > MAX_MANIFEST_BYTES {
        return Err(format!("manifest is {} bytes, over 4 MiB", bytes.len()));
    }
    let body_len = bytes
        .len()
        .checked_sub(32)
        .ok_or("manifest is shorter than its checksum")?;
    let (body, check) = bytes.split_at(body_len);
    if blake3::hash(body).as_bytes() != check {
        return Err("manifest checksum mismatch".into());
    }
    let mut r = Reader { bytes: body, at: 0 };
    if r.take(8)? != MAGIC {
        return Err("manifest magic is not ASHFS002".into());
    }
    let count = r.u32()? as usize;
    if !(1..=MAX_ACTIONS).contains(&count) {
        return Err(format!(
            "manifest action count {count} is outside 1..={MAX_ACTIONS}"
        ));
    }
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        entries.push(r.entry()?);
    }
    if r.at != body.len() {
        return Err("manifest has trailing bytes".into());
    }
    validate(&entries)?;
    Ok(entries)
}

fn validate(entries: &[Entry]) -> Result<(), String> {
    let mut names = HashSet::new();
    let (mut results, mut preimages) = (0u64, 0u64);
    for e in entries {
        for name in std::iter::once(&e.path).chain(&e.destination) {
            check_logical_path(name).map_err(|r| format!("manifest path {name:?}: {r}"))?;
            let reserved = name
                .strip_prefix(STATE_DIR)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
            if name == "." || reserved {
                return Err(format!(
                    "manifest path {name:?} cannot be a mutation target"
                ));
            }
            if !names.insert(name.as_str()) {
                return Err(format!("manifest path {name:?} appears twice"));
            }
        }
        if e.kind.has_destination() != e.destination.is_some() {
            return Err("manifest destination does not match the action kind".into());
        }
        if (e.kind == Kind::Replace) != e.preimage.is_some() {
            return Err("manifest preimage does not match the action kind".into());
        }
        let pre = e.preimage.map_or(0, |(_, size)| size);
        if e.size > MAX_FILE_BYTES || pre > MAX_FILE_BYTES {
            return Err("manifest file size exceeds 128 MiB".into());
        }
        results = results.saturating_add(e.size);
        preimages = preimages.saturating_add(pre);
    }
    if results > MAX_TOTAL_BYTES || preimages > MAX_TOTAL_BYTES {
        return Err("manifest total size exceeds 128 MiB".into());
    }
    Ok(())
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or("manifest is truncated")?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let mut b = [0u8; 4];
        b.copy_from_slice(self.take(4)?);
        Ok(u32::from_be_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_be_bytes(b))
    }

    fn digest(&mut self) -> Result<Digest, String> {
        let mut b = [0u8; 32];
        b.copy_from_slice(self.take(32)?);
        Ok(Digest(b))
    }

    fn text(&mut self, len: u32) -> Result<String, String> {
        if len as usize > crate::files::workspace::MAX_LOGICAL_PATH_BYTES {
            return Err("manifest path is longer than 4096 bytes".into());
        }
        let raw = self.take(len as usize)?;
        String::from_utf8(raw.to_vec()).map_err(|_| "manifest path is not UTF-8".to_owned())
    }

    fn entry(&mut self) -> Result<Entry, String> {
        let kind_byte = self.take(1)?[0];
        let kind = Kind::from_byte(kind_byte)
            .ok_or_else(|| format!("manifest kind byte {kind_byte} is unknown"))?;
        let len = self.u32()?;
        let path = self.text(len)?;
        let destination = match self.u32()? {
            NO_DESTINATION => None,
            len => Some(self.text(len)?),
        };
        let digest = self.digest()?;
        let size = self.u64()?;
        let preimage = match self.take(1)?[0] {
            0 => None,
            1 => Some((self.digest()?, self.u64()?)),
            flag => return Err(format!("manifest preimage flag {flag} is not 0 or 1")),
        };
        Ok(Entry {
            kind,
            path,
            destination,
            digest,
            size,
            preimage,
        })
    }
}

#[cfg(test)]
mod tests;
