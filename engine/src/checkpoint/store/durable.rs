//! Making the store's writes durable. A few files are `fsync`ed one by one, concurrently (the
//! file system commits concurrent syncs together); many are covered by one `syncfs`, which
//! costs about one commit however many files there are, but also flushes whatever else is
//! waiting on that file system, so it is kept for the first checkpoint's thousands of files.

use std::fs::File;
use std::os::fd::AsFd;

use nix::fcntl::{OFlag, openat};
use nix::sys::stat::Mode;

use super::Store;
use crate::checkpoint::error::CheckpointError;

/// Up to this many files are synced one by one; more with one `syncfs`.
const SYNC_EACH_MAX: usize = 64;

/// Threads syncing files one by one.
const SYNC_THREADS: usize = 16;

/// Makes the staged files `names` (in `tmp/`) durable.
pub(super) fn sync_files(store: &Store, names: &[&str]) -> Result<(), CheckpointError> {
    if names.len() > SYNC_EACH_MAX {
        return sync_fs(store);
    }
    each(names, |name| {
        let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        openat(store.tmp.as_fd(), *name, flags, Mode::empty())
            .map_err(std::io::Error::from)
            .and_then(|fd| File::from(fd).sync_all())
            .map_err(|e| store.tmp_error(name, e))
    })
}

/// Makes renames into the fan-out directories `dirs` of `objects/` durable (and the
/// directories themselves, which a rename may just have created).
pub(super) fn sync_dirs(store: &Store, dirs: &[String]) -> Result<(), CheckpointError> {
    if dirs.is_empty() {
        return Ok(());
    }
    if dirs.len() > SYNC_EACH_MAX {
        return sync_fs(store);
    }
    let objects = store.path.join("objects");
    each(dirs, |dir| {
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        openat(store.objects.as_fd(), dir.as_str(), flags, Mode::empty())
            .and_then(|fd| nix::unistd::fsync(fd.as_fd()))
            .map_err(|e| CheckpointError::io("sync", objects.join(dir), e.into()))
    })?;
    nix::unistd::fsync(store.objects.as_fd())
        .map_err(|e| CheckpointError::io("sync", &objects, e.into()))
}

fn sync_fs(store: &Store) -> Result<(), CheckpointError> {
    nix::unistd::syncfs(store.root.as_fd())
        .map_err(|e| CheckpointError::io("sync the checkpoint store", &store.path, e.into()))
}

/// Runs `sync` on every item, on up to [`SYNC_THREADS`] threads; the first error wins.
fn each<T: Sync>(
    items: &[T],
    sync: impl Fn(&T) -> Result<(), CheckpointError> + Sync,
) -> Result<(), CheckpointError> {
    if items.len() <= 1 {
        return items.iter().try_for_each(&sync);
    }
    let per_thread = items.len().div_ceil(SYNC_THREADS);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(per_thread)
            .map(|part| scope.spawn(|| part.iter().try_for_each(&sync)))
            .collect();
        let mut result = Ok(());
        for handle in handles {
            let outcome = handle.join().unwrap_or_else(|_| {
                Err(CheckpointError::io(
                    "sync",
                    "",
                    std::io::Error::other("a sync thread panicked"),
                ))
            });
            if result.is_ok() {
                result = outcome;
            }
        }
        result
    })
}
