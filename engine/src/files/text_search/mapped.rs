//! Scanning a large file through a memory map instead of a copy: the kernel's copy into a
//! read buffer is most of what reading a cached file costs, and a 2 MiB file scanned mapped
//! took 0.79× the time of the same file read (issue 22, in the history of `docs/benchmarks.md`).
//!
//! Small files are read, not mapped: each unmap in a process with two busy threads sends the
//! other CPU a TLB shootdown, which on this project's VM cost about 30 µs a file, six times
//! the copy of a 32 KiB file. Mapping them into a reserved window and clearing it once per 64
//! files avoided the shootdowns but not the splitting of the window's mapping, and was still
//! slower than reading.
//!
//! A file truncated by another process while it is mapped makes the next touch of a page past
//! its new end raise `SIGBUS`. The handler maps zero pages over the rest of that file's
//! mapping and marks the mapping faulted, so the scan finishes on zeros and the caller reads
//! the file again instead. A `SIGBUS` at any other address goes to the handler that was there
//! before, or ends the process as it would have.
//!
//! A mapped file's pages stay in the process's resident set until they are unmapped, so two
//! threads scanning 64 MiB files would hold 128 MiB of them. The scan says how far it will not
//! read again, and the pages behind that are given back ([`Mapping::release_before`]) every
//! [`RELEASE_BYTES`]; a file of up to twice that is unmapped whole instead.
//!
//! A mapped file written while it is scanned can change under the scan, as a `read` racing
//! a writer returns torn bytes; nothing here takes the mapped bytes as text: the matched
//! lines are copied out and validated as UTF-8 after the scan (`scan.rs`).
#![allow(
    unsafe_code,
    reason = "mmap of walked files, and the SIGBUS handler a truncated mapping needs"
)]

use std::cell::Cell;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Files at least this large are mapped; a smaller one is read (see the module docs). At
/// 1 MiB the copy a map saves is about five times the cost of the unmap.
pub(super) const MAP_MIN_BYTES: u64 = 1 << 20;

/// Bytes of pages behind a scan given back at a time (see the module docs).
const RELEASE_BYTES: usize = 2 << 20;

/// Mappers that can be live at once (a thread each, plus a thread's nested scans); past that
/// a file is read instead.
const SLOTS: usize = 64;

/// What the handler may repair for one mapper: the mapping it is scanning.
struct Slot {
    /// True while the slot belongs to a mapper.
    taken: AtomicBool,
    /// Start of the mapping being scanned, 0 when none is.
    start: AtomicUsize,
    /// Its end, rounded up to the page.
    end: AtomicUsize,
    /// Set by the handler when it replaced pages of the mapping.
    faulted: AtomicBool,
}

#[allow(
    clippy::declare_interior_mutable_const,
    reason = "the initial value of each slot of the static table"
)]
const FREE: Slot = Slot {
    taken: AtomicBool::new(false),
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
};

static SLOT_TABLE: [Slot; SLOTS] = [FREE; SLOTS];

/// The page size, set once our handler is installed.
struct Installed {
    page: usize,
}

static INSTALLED: OnceLock<Option<Installed>> = OnceLock::new();

/// The `SIGBUS` action before ours, read and kept before ours is installed, so a `SIGBUS` our
/// handler does not repair goes to it even while [`INSTALLED`] is being set.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

/// Installs the handler once; `None` if the OS refused it, in which case nothing is mapped.
fn installed() -> Option<&'static Installed> {
    INSTALLED
        .get_or_init(|| {
            // SAFETY: sysconf reads a constant of the running system.
            let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
            if page == 0 || !page.is_power_of_two() {
                return None;
            }
            // SAFETY: zeroed is a valid empty `sigaction` (no handler, no flags, empty mask).
            let mut ours: libc::sigaction = unsafe { std::mem::zeroed() };
            ours.sa_sigaction = on_sigbus as *const () as usize;
            // SA_ONSTACK: the handler runs on the alternate stack where a thread has one.
            ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            // SAFETY: sigemptyset initialises the mask it is given.
            unsafe { libc::sigemptyset(&raw mut ours.sa_mask) };
            // SAFETY: as above.
            let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: a null new action only reads the current one into a live value.
            if unsafe { libc::sigaction(libc::SIGBUS, std::ptr::null(), &raw mut previous) } != 0 {
                return None;
            }
            // Kept before ours is installed, for the handler to pass on to. The handler
            // repairs only live mappings, which need this closure to have returned.
            // (Set once: this closure runs once.)
            let _ = PREVIOUS.set(previous);
            // SAFETY: the pointer is to a live `sigaction` value.
            if unsafe { libc::sigaction(libc::SIGBUS, &raw const ours, std::ptr::null_mut()) } != 0
            {
                return None;
            }
            Some(Installed { page })
        })
        .as_ref()
}

/// The `SIGBUS` handler: repairs a fault inside a slot's live mapping, passes on any other.
extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let installed = INSTALLED.get().and_then(Option::as_ref);
    if let Some(installed) = installed {
        for slot in &SLOT_TABLE {
            let start = slot.start.load(Ordering::Acquire);
            let end = slot.end.load(Ordering::Acquire);
            if start != 0 && (start..end).contains(&addr) {
                let page = addr & !(installed.page - 1);
                // SAFETY: the range is the rest of a mapping this process made and still owns
                // (the slot is live); MAP_FIXED replaces it with zero pages in one call.
                let zeroed = unsafe {
                    libc::mmap(
                        page as *mut libc::c_void,
                        end - page,
                        libc::PROT_READ,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    )
                };
                if zeroed != libc::MAP_FAILED {
                    slot.faulted.store(true, Ordering::Release);
                    return;
                }
            }
        }
    }
    pass_on(sig, info, context);
}

/// Gives a `SIGBUS` that is not ours to the action installed before, or restores the default
/// action so that the faulting access, run again on return, ends the process.
fn pass_on(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    if let Some(previous) = PREVIOUS.get() {
        let handler = previous.sa_sigaction;
        if handler != libc::SIG_DFL && handler != libc::SIG_IGN {
            if previous.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: an SA_SIGINFO action's address is a three-argument handler.
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    unsafe { std::mem::transmute(handler) };
                f(sig, info, context);
            } else {
                // SAFETY: without SA_SIGINFO the address is a one-argument handler.
                let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
                f(sig);
            }
            return;
        }
    }
    // SAFETY: zeroed is SIG_DFL with no flags and an empty mask.
    let default: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: sigaction is async-signal-safe; the pointer is to a live value.
    unsafe { libc::sigaction(sig, &raw const default, std::ptr::null_mut()) };
}

/// What a thread maps its files with: its slot in the handler's table.
pub(super) struct Mapper {
    slot: &'static Slot,
}

impl Mapper {
    /// A mapper: `None` if the handler could not be installed or no slot is free, and files
    /// are read instead.
    pub(super) fn new() -> Option<Mapper> {
        installed()?;
        let slot = SLOT_TABLE.iter().find(|slot| {
            slot.taken
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        Some(Mapper { slot })
    }

    /// Maps the first `len` bytes of `file` (`len` > 0, as its size said), or `None` if the
    /// map failed and the file should be read instead.
    pub(super) fn map(&mut self, file: BorrowedFd<'_>, len: usize) -> Option<Mapping<'_>> {
        let page = installed()?.page;
        let span = len.checked_next_multiple_of(page)?;
        let start = map_private(file, len)?;
        self.slot.faulted.store(false, Ordering::Release);
        self.slot.end.store(start + span, Ordering::Release);
        self.slot.start.store(start, Ordering::Release);
        Some(Mapping {
            start,
            len,
            page,
            released: Cell::new(0),
            mapper: self,
        })
    }
}

impl Drop for Mapper {
    fn drop(&mut self) {
        self.slot.taken.store(false, Ordering::Release);
    }
}

/// Maps the first `len` bytes of `file` private and read-only, where the kernel picks, and
/// returns the address; `None` if the map failed.
fn map_private(file: BorrowedFd<'_>, len: usize) -> Option<usize> {
    // SAFETY: a new mapping at an address the kernel picks aliases no memory of ours.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        )
    };
    (addr != libc::MAP_FAILED).then_some(addr as usize)
}

/// A mapped file, readable until dropped.
pub(super) struct Mapping<'m> {
    start: usize,
    len: usize,
    page: usize,
    /// Bytes from the start whose pages were given back.
    released: Cell<usize>,
    mapper: &'m mut Mapper,
}

impl Mapping<'_> {
    /// The file's bytes. They change if the file is written meanwhile; a truncation turns the
    /// bytes past it into zeros and [`Mapping::truncated`] true.
    pub(super) fn bytes(&self) -> &[u8] {
        // SAFETY: `start..start + len` is a readable mapping until `self` is dropped: a
        // truncation replaces its pages rather than removing them.
        unsafe { std::slice::from_raw_parts(self.start as *const u8, self.len) }
    }

    /// Says that the bytes before `offset` will not be read again: their pages are given
    /// back to the kernel once [`RELEASE_BYTES`] of them are, unless the file ends within
    /// that much (its unmap gives them back anyway). Bytes read after all are read again
    /// from the file.
    pub(super) fn release_before(&self, offset: usize) {
        let released = self.released.get();
        let upto = offset.min(self.len) & !(self.page - 1);
        if upto < released + RELEASE_BYTES || self.len - upto < RELEASE_BYTES {
            return;
        }
        // SAFETY: whole pages inside this live mapping. For a private read-only file mapping
        // MADV_DONTNEED only drops the pages from this process: a later read faults them in
        // again from the file (zero pages the SIGBUS handler put there read as zeros again).
        let dropped = unsafe {
            libc::madvise(
                (self.start + released) as *mut libc::c_void,
                upto - released,
                libc::MADV_DONTNEED,
            )
        };
        if dropped == 0 {
            self.released.set(upto);
        }
    }

    /// True when the file was truncated while mapped, and the bytes read may be zeros.
    pub(super) fn truncated(&self) -> bool {
        self.mapper.slot.faulted.load(Ordering::Acquire)
    }
}

impl Drop for Mapping<'_> {
    fn drop(&mut self) {
        self.mapper.slot.start.store(0, Ordering::Release);
        // SAFETY: this mapping's own range; the borrow of its bytes ended with `self`.
        unsafe { libc::munmap(self.start as *mut libc::c_void, self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsFd;

    fn file_of(len: usize) -> (tempfile::TempDir, std::fs::File, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut file = std::fs::File::create(&path).unwrap();
        let bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        file.write_all(&bytes).unwrap();
        (dir, std::fs::File::open(&path).unwrap(), path)
    }

    #[test]
    fn files_map_one_after_another_and_read_back_whole() {
        let mut mapper = Mapper::new().unwrap();
        for len in [1, 4096, 4097, 40_000, 1 << 20, (2 << 20) + 1, 33] {
            let (_dir, file, path) = file_of(len);
            let mapping = mapper.map(file.as_fd(), len).unwrap();
            assert_eq!(mapping.bytes(), std::fs::read(&path).unwrap(), "len {len}");
            assert!(!mapping.truncated());
        }
    }

    #[test]
    fn pages_given_back_behind_a_scan_read_the_file_again() {
        let mut mapper = Mapper::new().unwrap();
        let len = 3 * RELEASE_BYTES + 4321;
        let (_dir, file, path) = file_of(len);
        let content = std::fs::read(&path).unwrap();
        let mapping = mapper.map(file.as_fd(), len).unwrap();
        assert_eq!(mapping.bytes(), content);
        // Less than RELEASE_BYTES behind: kept.
        mapping.release_before(RELEASE_BYTES - 1);
        assert_eq!(mapping.released.get(), 0);
        // Given back up to the page below the offset.
        mapping.release_before(RELEASE_BYTES + 5000);
        let page = installed().unwrap().page;
        assert_eq!(mapping.released.get(), (RELEASE_BYTES + 5000) & !(page - 1));
        // Within RELEASE_BYTES of the end: left to the unmap.
        mapping.release_before(len - 10);
        assert_eq!(mapping.released.get(), (RELEASE_BYTES + 5000) & !(page - 1));
        // What was given back reads as the file again.
        assert_eq!(mapping.bytes(), content);
        assert!(!mapping.truncated());
    }

    #[test]
    fn a_file_truncated_while_mapped_reads_zeros_and_says_so() {
        let mut mapper = Mapper::new().unwrap();
        let len = 5 * 4096 + 100;
        let (_dir, file, path) = file_of(len);
        let mapping = mapper.map(file.as_fd(), len).unwrap();
        assert_eq!(mapping.bytes()[0], b'a');
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(4096)
            .unwrap();
        // Past the new end: without the handler, this read ends the test process with SIGBUS.
        let tail = mapping.bytes()[len - 1];
        assert_eq!(tail, 0);
        assert!(mapping.truncated());
        drop(mapping);
        // The mapper goes on mapping files after the repair.
        let (_dir2, file2, path2) = file_of(9000);
        let again = mapper.map(file2.as_fd(), 9000).unwrap();
        assert_eq!(again.bytes(), std::fs::read(&path2).unwrap());
        assert!(!again.truncated());
    }

    /// Set in the child process of the test below.
    const FOREIGN_FAULT_CHILD: &str = "ASH_TEST_FOREIGN_SIGBUS_CHILD";

    #[test]
    fn a_sigbus_outside_every_mapping_still_ends_the_process() {
        if std::env::var_os(FOREIGN_FAULT_CHILD).is_some() {
            // The child: our handler is installed, then a mapping it does not know of (made
            // here, not by a mapper) is read past its file's end.
            let _mapper = Mapper::new().unwrap();
            let len = 3 * 4096;
            let (_dir, file, path) = file_of(len);
            let addr = map_private(file.as_fd(), len).unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(0)
                .unwrap();
            // SAFETY: inside the mapping; the read faults, which is what is tested.
            let byte = unsafe { std::ptr::read_volatile((addr as *const u8).add(len - 1)) };
            // Reaching this line means the fault was swallowed.
            std::process::exit(i32::from(byte) + 100);
        }
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "files::text_search::mapped::tests::a_sigbus_outside_every_mapping_still_ends_the_process",
                "--test-threads=1",
            ])
            .env(FOREIGN_FAULT_CHILD, "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // A handler that swallowed the fault would return to the faulting read forever.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("the child still runs: the fault was swallowed");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(libc::SIGBUS),
            "{status:?}"
        );
    }
}
