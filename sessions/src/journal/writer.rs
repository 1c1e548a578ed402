//! The durable writer: `append` buffers, `sync` writes and fsyncs (and fsyncs the directory
//! after a part was created). Any write or fsync error is final for this writer: after a failed
//! fsync the kernel may have dropped the dirty pages, so retrying could report lost data as saved.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::scan::PartEnd;
use super::{Checksum, FORMAT_VERSION, codec, part_path};
use crate::error::{Result, SessionError};
use crate::fsutil::{FILE_MODE, sync_dir};
use crate::ids::{PartNo, Seq};
use crate::record::{PartHeader, PartLink, Record};

/// Tunables of the journal writer.
#[derive(Debug, Clone, Copy)]
pub struct JournalOptions {
    /// A new part is started once the current one reaches this size.
    pub max_part_bytes: u64,
}

impl Default for JournalOptions {
    fn default() -> Self {
        Self {
            max_part_bytes: 64 << 20,
        }
    }
}

/// Injected storage faults for tests (a full disk or a failing fsync).
#[cfg(test)]
#[derive(Debug, Clone, Default)]
pub(crate) struct FaultPlan {
    /// Bytes that may still be written; the write crossing it is short and fails with ENOSPC.
    pub write_budget: Option<u64>,
    /// Every fsync fails with EIO.
    pub fail_fsync: bool,
}

/// Appends records to the current part.
#[derive(Debug)]
pub struct JournalWriter {
    dir: PathBuf,
    part: PartNo,
    file: File,
    written: u64,
    buf: Vec<u8>,
    appended: Seq,
    // The current part's header: a part holding nothing else is never closed for its size.
    header_seq: Seq,
    last_sum: Checksum,
    durable: Seq,
    dir_sync_pending: bool,
    failure: Option<String>,
    options: JournalOptions,
    #[cfg(test)]
    pub(crate) fault: FaultPlan,
}

impl JournalWriter {
    /// Creates (or rewrites an unfinished) part `part` whose header links to `prev`.
    pub(crate) fn create_part(
        dir: &Path,
        part: PartNo,
        prev: Option<&PartEnd>,
        options: JournalOptions,
    ) -> Result<Self> {
        let path = part_path(dir, part);
        let file = open_part(&path, true)?;
        let (appended, last_sum) = prev
            .map(|p| (p.last_seq, p.last_sum))
            .unwrap_or((Seq(0), Checksum(0)));
        let mut w = JournalWriter {
            dir: dir.to_owned(),
            part,
            file,
            written: 0,
            buf: Vec::with_capacity(64 << 10),
            appended,
            header_seq: appended,
            last_sum,
            durable: appended,
            dir_sync_pending: true,
            failure: None,
            options,
            #[cfg(test)]
            fault: FaultPlan::default(),
        };
        let link = prev.map(|p| PartLink {
            part: p.part,
            len: p.complete_len,
            last_seq: p.last_seq,
            last_sum: p.last_sum,
        });
        w.header_seq = w.push(&Record::PartHeader(PartHeader {
            format: FORMAT_VERSION,
            part,
            prev: link,
        }))?;
        Ok(w)
    }

    /// Continues appending to a part that ends with a complete record.
    pub(crate) fn continue_part(
        dir: &Path,
        end: &PartEnd,
        options: JournalOptions,
    ) -> Result<Self> {
        let file = open_part(&part_path(dir, end.part), false)?;
        Ok(JournalWriter {
            dir: dir.to_owned(),
            part: end.part,
            file,
            written: end.complete_len,
            buf: Vec::with_capacity(64 << 10),
            appended: end.last_seq,
            header_seq: end.header_seq,
            last_sum: end.last_sum,
            durable: end.last_seq,
            dir_sync_pending: false,
            failure: None,
            options,
            #[cfg(test)]
            fault: FaultPlan::default(),
        })
    }

    /// Buffers a record and returns its sequence number; it is durable only after [`Self::sync`].
    pub fn append(&mut self, record: &Record) -> Result<Seq> {
        self.check_failed()?;
        let pending = self.written + self.buf.len() as u64;
        // A part that holds only its header stays open whatever its size, so a part limit
        // smaller than a header still puts at least one record in every part.
        let has_records = self.appended > self.header_seq;
        if pending >= self.options.max_part_bytes && has_records {
            self.roll()?;
        }
        self.push(record)
    }

    /// Writes buffered records, fsyncs the part (and the directory after a part was created);
    /// returns the highest durable sequence number.
    pub fn sync(&mut self) -> Result<Seq> {
        self.check_failed()?;
        if !self.buf.is_empty() {
            let buf = std::mem::take(&mut self.buf);
            let res = self.raw_write(&buf);
            self.buf = buf;
            self.buf.clear();
            res.map_err(|e| self.fail("write", e))?;
        }
        if self.durable != self.appended {
            self.raw_fsync().map_err(|e| self.fail("fsync", e))?;
        }
        if self.dir_sync_pending {
            sync_dir(&self.dir).map_err(|e| self.fail("fsync directory", e))?;
            self.dir_sync_pending = false;
        }
        self.durable = self.appended;
        Ok(self.durable)
    }

    /// Highest sequence number appended (buffered or written).
    pub fn appended_seq(&self) -> Seq {
        self.appended
    }

    /// Highest sequence number known to be on stable storage.
    pub fn durable_seq(&self) -> Seq {
        self.durable
    }

    /// The part currently written.
    pub fn part(&self) -> PartNo {
        self.part
    }

    /// The storage failure that stopped this writer, if any.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    fn push(&mut self, record: &Record) -> Result<Seq> {
        let seq = Seq(self.appended.0 + 1);
        let sum = codec::encode(seq, record, &mut self.buf).map_err(|e| SessionError::Encode {
            seq,
            reason: e.to_string(),
        })?;
        self.appended = seq;
        self.last_sum = sum;
        Ok(seq)
    }

    /// Closes the current part durably and starts the next one linked to it.
    fn roll(&mut self) -> Result<()> {
        self.sync()?;
        let end = PartEnd {
            part: self.part,
            header_seq: self.header_seq,
            complete_len: self.written,
            file_len: self.written,
            last_seq: self.appended,
            last_sum: self.last_sum,
        };
        let next = PartNo(self.part.0 + 1);
        let mut w = JournalWriter::create_part(&self.dir, next, Some(&end), self.options)
            .map_err(|e| self.fail("create next part", io::Error::other(e.to_string())))?;
        #[cfg(test)]
        {
            w.fault = std::mem::take(&mut self.fault);
        }
        w.durable = self.durable;
        *self = w;
        Ok(())
    }

    fn check_failed(&self) -> Result<()> {
        match &self.failure {
            Some(cause) => Err(SessionError::StorageFailed {
                cause: cause.clone(),
            }),
            None => Ok(()),
        }
    }

    fn fail(&mut self, what: &str, e: io::Error) -> SessionError {
        let cause = format!(
            "{what} of journal part {} in {} failed: {e}",
            self.part,
            self.dir.display()
        );
        self.failure = Some(cause.clone());
        SessionError::StorageFailed { cause }
    }

    fn raw_write(&mut self, bytes: &[u8]) -> io::Result<()> {
        #[cfg(test)]
        if let Some(budget) = self.fault.write_budget {
            let allowed = (budget as usize).min(bytes.len());
            self.file.write_all(&bytes[..allowed])?;
            self.written += allowed as u64;
            self.fault.write_budget = Some(budget - allowed as u64);
            if allowed < bytes.len() {
                return Err(io::Error::from_raw_os_error(28));
            }
            return Ok(());
        }
        self.file.write_all(bytes)?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    fn raw_fsync(&mut self) -> io::Result<()> {
        #[cfg(test)]
        if self.fault.fail_fsync {
            return Err(io::Error::from_raw_os_error(5));
        }
        self.file.sync_data()
    }
}

fn open_part(path: &Path, create: bool) -> Result<File> {
    let mut opts = OpenOptions::new();
    opts.append(true).mode(FILE_MODE);
    if create {
        opts.create(true).truncate(false);
    }
    let file = opts
        .open(path)
        .map_err(|e| SessionError::io("cannot open journal part", path, e))?;
    if create {
        // Only an unfinished part (no complete header) is ever re-created; nothing in it was durable.
        file.set_len(0)
            .map_err(|e| SessionError::io("cannot reset unfinished journal part", path, e))?;
    }
    Ok(file)
}
