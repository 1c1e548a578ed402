//! How every frontend says that a provider request is tried again: which retry of how many,
//! why, and the wait — to a tenth of a second below ten seconds, so the wait announced is the
//! wait the run takes (a 0.3 s backoff is never announced as "1 s").

use std::time::Duration;

/// A wait for a person: `0.3 s`, `2.5 s`, `12 s`, `1 min 5 s`.
pub fn wait(d: Duration) -> String {
    let tenths = (d.as_millis() + 50) / 100;
    if tenths < 100 {
        return format!("{}.{} s", tenths / 10, tenths % 10);
    }
    let secs = (d.as_millis() + 500) / 1000;
    match secs {
        0..=59 => format!("{secs} s"),
        _ => format!("{} min {} s", secs / 60, secs % 60),
    }
}

/// `connection lost, retrying 1 of 5 in 1.3 s`: `attempt` is the attempt about to be made (2
/// for the first retry) and `of` the attempts allowed in all, as the `retrying` event says;
/// `reason` is already sanitised by the caller.
pub fn retrying(reason: &str, attempt: u32, of: u32, left: Duration) -> String {
    format!(
        "{reason}, retrying {} of {} in {}",
        attempt.saturating_sub(1),
        of.saturating_sub(1),
        wait(left)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_said_is_the_wait_taken_to_a_tenth() {
        // Issue 46: backoffs of 0.2, 0.7 and 1.5 s were announced as 1 s, 1 s and 2 s.
        assert_eq!(wait(Duration::from_millis(230)), "0.2 s");
        assert_eq!(wait(Duration::from_millis(700)), "0.7 s");
        assert_eq!(wait(Duration::from_millis(1_460)), "1.5 s");
        assert_eq!(wait(Duration::ZERO), "0.0 s");
        assert_eq!(wait(Duration::from_millis(9_940)), "9.9 s");
        assert_eq!(wait(Duration::from_millis(9_960)), "10 s");
        assert_eq!(wait(Duration::from_secs(45)), "45 s");
        assert_eq!(wait(Duration::from_secs(65)), "1 min 5 s");
    }

    #[test]
    fn retries_are_counted_from_one() {
        assert_eq!(
            retrying("connection lost", 2, 6, Duration::from_millis(1_300)),
            "connection lost, retrying 1 of 5 in 1.3 s"
        );
    }
}
