//! Request deadlines (`u.ms`), fixed when a request is accepted and checked cooperatively by
//! long-running work between units (a directory level, a file).

use std::time::{Duration, Instant};

/// The instant a request must be answered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Instant,
    ms: u64,
}

/// The deadline passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the request deadline of {ms} ms passed; raise `u.ms` or narrow the request")]
pub struct DeadlinePassed {
    /// The budget that ran out, in milliseconds.
    pub ms: u64,
}

impl Deadline {
    /// A deadline `ms` milliseconds from now.
    pub fn after_ms(ms: u64) -> Deadline {
        let now = Instant::now();
        Deadline {
            at: now
                .checked_add(Duration::from_millis(ms))
                .unwrap_or(now + Duration::from_secs(86_400)),
            ms,
        }
    }

    /// The instant the deadline passes (for waits that sleep until it).
    pub fn instant(&self) -> Instant {
        self.at
    }

    /// `Err` once the deadline has passed.
    pub fn check(&self) -> Result<(), DeadlinePassed> {
        if Instant::now() >= self.at {
            Err(DeadlinePassed { ms: self.ms })
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compute::ComputePlane;
    use crate::files::walk::{Depth, WalkOptions, walk};
    use crate::files::workspace::Workspace;
    use crate::protocol::ErrorCode;

    #[test]
    fn a_passed_deadline_fails_and_a_future_one_does_not() {
        assert_eq!(Deadline::after_ms(0).check(), Err(DeadlinePassed { ms: 0 }));
        assert_eq!(Deadline::after_ms(60_000).check(), Ok(()));
        // Far beyond any Instant: saturates instead of panicking.
        assert_eq!(Deadline::after_ms(u64::MAX).check(), Ok(()));
    }

    #[test]
    fn walks_stop_at_the_deadline_with_timed_out() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        let ws = Workspace::new(dir.path()).expect("workspace");
        let plane = ComputePlane::new(1).expect("plane");
        let mut options = WalkOptions::new(Depth::MAX);
        options.deadline = Some(Deadline::after_ms(0));
        let err = walk(&plane, &ws, &["."], options).expect_err("deadline passed");
        assert_eq!(err.code(), ErrorCode::TimedOut);
        options.deadline = Some(Deadline::after_ms(60_000));
        assert!(walk(&plane, &ws, &["."], options).is_ok());
    }
}
