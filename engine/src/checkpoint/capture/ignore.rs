//! The workspace's `.gitignore` files, one matcher per directory that has one, consulted from
//! the deepest up: the first file with an opinion on a path (ignore, or `!` re-include) decides,
//! as in git. Only `.gitignore` files inside the workspace count (not `.git/info/exclude` or a
//! global excludes file), and a `.gitignore` that is a symlink is not read, as git does not.

use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::Arc;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use nix::fcntl::{OFlag, openat};
use nix::sys::stat::Mode;

/// A `.gitignore` larger than this is not read (the bound on what one file can cost).
const MAX_GITIGNORE_BYTES: u64 = 1 << 20;

/// The matchers that apply in one directory: its own `.gitignore` and its ancestors'.
#[derive(Debug)]
pub(super) struct Rules {
    /// Logical path of the directory holding the `.gitignore` (`""` for the workspace root).
    dir: String,
    matcher: Gitignore,
    parent: Option<Arc<Rules>>,
}

/// The chain of rules a directory inherits (`None`: no `.gitignore` on the way).
pub(super) type Chain = Option<Arc<Rules>>;

/// Whether `path` (a logical path below every directory of the chain) is ignored.
pub(super) fn ignored(chain: &Chain, path: &str, is_dir: bool) -> bool {
    let mut rules = chain.as_deref();
    while let Some(r) = rules {
        let relative = if r.dir.is_empty() {
            Some(path)
        } else {
            path.strip_prefix(r.dir.as_str())
                .and_then(|rest| rest.strip_prefix('/'))
        };
        if let Some(relative) = relative {
            match r.matcher.matched(relative, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        rules = r.parent.as_deref();
    }
    false
}

/// The chain for the directory `logical` (`""` for the root) open as `dir`: `inherited` plus
/// the directory's own `.gitignore` when it has a readable regular one. An unreadable or
/// malformed line is skipped, as git skips it.
pub(super) fn extend(inherited: &Chain, dir: BorrowedFd<'_>, logical: &str) -> Chain {
    let Some(text) = read_gitignore(dir) else {
        return inherited.clone();
    };
    let mut builder = GitignoreBuilder::new(".");
    for line in text.lines() {
        // A pattern the glob compiler refuses matches nothing in git either.
        let _ = builder.add_line(None, line);
    }
    match builder.build() {
        Ok(matcher) if !matcher.is_empty() => Some(Arc::new(Rules {
            dir: logical.to_owned(),
            matcher,
            parent: inherited.clone(),
        })),
        _ => inherited.clone(),
    }
}

fn read_gitignore(dir: BorrowedFd<'_>) -> Option<String> {
    let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
    let fd = openat(dir.as_fd(), ".gitignore", flags, Mode::empty()).ok()?;
    let file = std::fs::File::from(fd);
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_GITIGNORE_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
