//! Manifests in the store: `manifests/<64 hex>`, each verified against its id when read.
//!
//! Consecutive manifests of a session differ in a few entries, yet each holds every entry's
//! digest (32 random bytes that do not compress): kept whole, 20 turns of a 10,000-file tree
//! would cost about half the tree's compressed size in manifests alone. So a manifest is
//! compressed with the previous one kept by this store as a zstd dictionary, and names it as
//! its base; every [`MAX_CHAIN`]th is kept whole, so reading one decompresses at most that
//! many. File: `ACKMAN01`, the manifest's length (u64 LE), the chain depth (u8, 0 = whole),
//! the base's id when the depth is not 0, one zstd frame.

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::os::fd::AsFd;
use std::sync::Arc;

use nix::fcntl::renameat;
use nix::unistd::{UnlinkatFlags, unlinkat};

use super::{Store, WINDOW_LOG_MAX, exists_at, open_file_at};
use crate::checkpoint::error::CheckpointError;
use crate::checkpoint::manifest::{Manifest, ManifestId, decode};

const MAGIC: &[u8; 8] = b"ACKMAN01";

/// Longest chain of bases: the 16th manifest after a whole one is kept whole again.
const MAX_CHAIN: u8 = 16;

/// Largest manifest a file may claim (about 8 million entries).
const MAX_MANIFEST_BYTES: u64 = 1 << 30;

/// The last manifest this store kept or was asked to keep: the next one's dictionary.
#[derive(Debug)]
pub(super) struct Recent {
    id: ManifestId,
    bytes: Vec<u8>,
    depth: u8,
}

impl Store {
    /// Keeps a manifest (once: an equal manifest is already there) and returns its id; the
    /// manifest file is durable when this returns. Not refused by the budget: without it the
    /// checkpoint would not exist.
    pub fn put_manifest(&self, manifest: &Manifest) -> Result<ManifestId, CheckpointError> {
        let (bytes, id) = manifest.encode_with_id()?;
        let name = id.to_hex();
        if exists_at(self.manifests.as_fd(), &name) {
            let depth = self.depth_of(&name).unwrap_or(MAX_CHAIN);
            self.remember(id, bytes, depth);
            return Ok(id);
        }
        let base = self.recent().filter(|r| r.depth + 1 < MAX_CHAIN);
        let compressed = match &base {
            Some(base) => delta_compressor(&base.bytes).and_then(|mut c| c.compress(&bytes)),
            None => zstd::bulk::compress(&bytes, super::LEVEL),
        }
        .map_err(|e| CheckpointError::io("compress a manifest", &self.path, e))?;
        let mut head = Vec::with_capacity(49);
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        match &base {
            Some(base) => {
                head.push(base.depth + 1);
                head.extend_from_slice(&base.id.0);
            }
            None => head.push(0),
        }
        let depth = base.as_ref().map_or(0, |b| b.depth + 1);
        let (tmp, mut file) = self.create_tmp()?;
        let written = file
            .write_all(&head)
            .and_then(|()| file.write_all(&compressed))
            .and_then(|()| file.sync_all());
        let kept = written.map_err(|e| self.tmp_error(&tmp, e)).and_then(|()| {
            renameat(
                self.tmp.as_fd(),
                tmp.as_str(),
                self.manifests.as_fd(),
                name.as_str(),
            )
            .map_err(|e| {
                CheckpointError::io("keep a manifest", self.path.join("manifests"), e.into())
            })
        });
        if let Err(e) = kept {
            let _ = unlinkat(self.tmp.as_fd(), tmp.as_str(), UnlinkatFlags::NoRemoveDir);
            return Err(e);
        }
        nix::unistd::fsync(self.manifests.as_fd()).map_err(|e| {
            CheckpointError::io("sync the manifests", self.path.join("manifests"), e.into())
        })?;
        self.used.fetch_add(
            (head.len() + compressed.len()) as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        self.remember(id, bytes, depth);
        Ok(id)
    }

    /// Reads a manifest back, verifying its bytes (and its bases') against their ids and
    /// decoding them strictly.
    pub fn manifest(&self, id: &ManifestId) -> Result<Manifest, CheckpointError> {
        let bytes = self.manifest_bytes(id, MAX_CHAIN)?;
        Ok(decode(&bytes)?)
    }

    fn manifest_bytes(&self, id: &ManifestId, links_left: u8) -> Result<Vec<u8>, CheckpointError> {
        if let Some(recent) = self.recent().filter(|r| r.id == *id) {
            return Ok(recent.bytes.clone());
        }
        let name = id.to_hex();
        let mut file = match open_file_at(self.manifests.as_fd(), &name) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(CheckpointError::MissingManifest(*id));
            }
            Err(e) => {
                return Err(CheckpointError::io(
                    "open a manifest",
                    self.path.join("manifests").join(name),
                    e,
                ));
            }
        };
        let corrupt = |_| CheckpointError::CorruptManifest(*id);
        let (len, base) = read_head(&mut file).map_err(corrupt)?;
        let dictionary = match base {
            Some(_) if links_left == 0 => return Err(CheckpointError::CorruptManifest(*id)),
            Some(base) => self.manifest_bytes(&base, links_left - 1)?,
            None => Vec::new(),
        };
        let bytes = read_frame(file, len, &dictionary).map_err(corrupt)?;
        if ManifestId::of(&bytes) != *id {
            return Err(CheckpointError::CorruptManifest(*id));
        }
        Ok(bytes)
    }

    fn depth_of(&self, name: &str) -> Option<u8> {
        let mut file = open_file_at(self.manifests.as_fd(), name).ok()?;
        let mut head = [0u8; 17];
        file.read_exact(&mut head).ok()?;
        Some(head[16])
    }

    fn recent(&self) -> Option<Arc<Recent>> {
        self.recent
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone()
    }

    fn remember(&self, id: ManifestId, bytes: Vec<u8>, depth: u8) {
        *self
            .recent
            .lock()
            .unwrap_or_else(|poison| poison.into_inner()) =
            Some(Arc::new(Recent { id, bytes, depth }));
    }
}

/// A compressor that finds the base anywhere in its first 8 MiB: at its own table sizes
/// zstd indexes only the last 1 MiB of a dictionary, and the manifest of a 10,000-file
/// tree is larger than that, so its first entries would be stored again whole.
fn delta_compressor(base: &[u8]) -> io::Result<zstd::bulk::Compressor<'static>> {
    use zstd::zstd_safe::CParameter;
    // Level 1: a delta is mostly long matches, which the fast strategy finds as well as
    // level 3 does, with one table to fill from the base instead of two.
    let mut compressor = zstd::bulk::Compressor::with_dictionary(1, base)?;
    compressor.set_parameter(CParameter::WindowLog(WINDOW_LOG_MAX))?;
    compressor.set_parameter(CParameter::HashLog(20))?;
    compressor.set_parameter(CParameter::ChainLog(20))?;
    Ok(compressor)
}

/// The length and base of a manifest file.
fn read_head(file: &mut File) -> io::Result<(u64, Option<ManifestId>)> {
    let mut head = [0u8; 17];
    file.read_exact(&mut head)?;
    if &head[..8] != MAGIC {
        return Err(io::Error::other("not a manifest file"));
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&head[8..16]);
    let len = u64::from_le_bytes(len);
    if len > MAX_MANIFEST_BYTES || head[16] >= MAX_CHAIN {
        return Err(io::Error::other("header out of bounds"));
    }
    if head[16] == 0 {
        return Ok((len, None));
    }
    let mut base = [0u8; 32];
    file.read_exact(&mut base)?;
    Ok((len, Some(ManifestId(base))))
}

/// Exactly `len` bytes from the frame that follows the header.
fn read_frame(file: File, len: u64, dictionary: &[u8]) -> io::Result<Vec<u8>> {
    let mut decoder =
        zstd::stream::read::Decoder::with_dictionary(BufReader::new(file), dictionary)?;
    decoder.window_log_max(WINDOW_LOG_MAX)?;
    let mut out = Vec::new();
    decoder.take(len + 1).read_to_end(&mut out)?;
    if out.len() as u64 != len {
        return Err(io::Error::other("length differs from the header"));
    }
    Ok(out)
}
