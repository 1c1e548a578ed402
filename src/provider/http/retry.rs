//! The retry policy: pure, so it is tested without a network or a clock.
//!
//! Transport failures (except TLS), 5xx and 429 are retried with capped exponential backoff and
//! full jitter; a `retry-after` from the server replaces the backoff. By default five retries
//! share about a minute of waiting (a provider's overload usually passes within it); the wait
//! announced before a retry is the wait taken. Credentials, rejected or
//! too-large requests and quota errors are never retried. A *streaming* request is retried only
//! while nothing has reached its `on_chunk` (see [`StreamError`](super::StreamError)).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{HttpError, TransportKind};

/// When a failed request is tried again, and how long to wait first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 = never retry).
    pub max_attempts: u32,
    /// Backoff bound after the first failure; it doubles with each further failure.
    pub base_delay: Duration,
    /// Largest backoff bound.
    pub max_delay: Duration,
    /// Longest `retry-after` honoured; a server asking for more ends the retries.
    pub max_retry_after: Duration,
    /// Longest total time spent waiting between attempts.
    pub max_total_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 6,
            base_delay: Duration::from_secs(2),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(60),
            max_total_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub const NEVER: RetryPolicy = RetryPolicy {
        max_attempts: 1,
        base_delay: Duration::ZERO,
        max_delay: Duration::ZERO,
        max_retry_after: Duration::ZERO,
        max_total_wait: Duration::ZERO,
    };

    /// Whether trying again may help: transport failures other than TLS, 5xx and 429 (not
    /// `insufficient_quota`).
    pub fn is_retryable(error: &HttpError) -> bool {
        match error {
            HttpError::Transport { kind, .. } => *kind != TransportKind::Tls,
            HttpError::Server { .. } | HttpError::RateLimited { .. } => true,
            _ => false,
        }
    }

    /// How long to wait before the next attempt, or `None` to give up. `attempts` is the number
    /// of attempts made so far (≥ 1) and `waited` the time already spent waiting between them.
    pub fn delay(
        &self,
        error: &HttpError,
        attempts: u32,
        waited: Duration,
        jitter: &mut dyn Jitter,
    ) -> Option<Duration> {
        if !Self::is_retryable(error) || attempts >= self.max_attempts {
            return None;
        }
        let asked = match error {
            HttpError::RateLimited { retry_after, .. } | HttpError::Server { retry_after, .. } => {
                *retry_after
            }
            _ => None,
        };
        let left = self.max_total_wait.saturating_sub(waited);
        match asked {
            // Coming back sooner than asked would only be refused again.
            Some(after) if after > self.max_retry_after || after > left => None,
            Some(after) => Some(after),
            // Our own backoff may be shortened to spend exactly what is left of the budget.
            None if left.is_zero() => None,
            None => Some(self.backoff(attempts, jitter).min(left)),
        }
    }

    /// Full jitter: uniform in `[0, min(max_delay, base_delay · 2^(attempts-1))]`.
    pub fn backoff(&self, attempts: u32, jitter: &mut dyn Jitter) -> Duration {
        let doubling = 1u32
            .checked_shl(attempts.saturating_sub(1))
            .unwrap_or(u32::MAX);
        let cap = self
            .base_delay
            .checked_mul(doubling)
            .unwrap_or(self.max_delay)
            .min(self.max_delay);
        let nanos = u64::try_from(cap.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(jitter.below(nanos.saturating_add(1)))
    }
}

/// A source of uniform random numbers for the backoff jitter.
pub trait Jitter {
    /// A number uniform in `[0, bound)` (0 when `bound` is 0).
    fn below(&mut self, bound: u64) -> u64;
}

/// SplitMix64: small, fast and good enough for jitter (not for secrets).
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator with a fixed seed (reproducible).
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// A generator seeded from the clock and the process id.
    pub fn from_clock() -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        SplitMix64::new(nanos ^ (u64::from(std::process::id()) << 32))
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Jitter for SplitMix64 {
    fn below(&mut self, bound: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(bound)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Always answers the top of the range, to check the caps exactly.
    struct Max;
    impl Jitter for Max {
        fn below(&mut self, bound: u64) -> u64 {
            bound.saturating_sub(1)
        }
    }

    fn server(retry_after: Option<Duration>) -> HttpError {
        HttpError::Server {
            url: "u".into(),
            status: 503,
            retry_after,
            message: String::new(),
        }
    }

    fn transport(kind: TransportKind) -> HttpError {
        HttpError::Transport {
            kind,
            url: "u".into(),
            detail: String::new(),
        }
    }

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
            max_retry_after: Duration::from_secs(5),
            max_total_wait: Duration::from_secs(20),
        }
    }

    #[test]
    fn the_default_retries_five_times_within_about_a_minute() {
        let p = RetryPolicy::default();
        let mut waited = Duration::ZERO;
        let mut retries = 0;
        while let Some(d) = p.delay(&server(None), retries + 1, waited, &mut Max) {
            waited += d;
            retries += 1;
        }
        assert_eq!(retries, 5);
        assert!(
            waited >= Duration::from_secs(50) && waited <= Duration::from_secs(60),
            "{waited:?}"
        );
        let limited = HttpError::RateLimited {
            url: "u".into(),
            retry_after: Some(Duration::from_secs(45)),
            message: String::new(),
        };
        assert_eq!(
            p.delay(&limited, 1, Duration::ZERO, &mut Max),
            Some(Duration::from_secs(45))
        );
    }

    #[test]
    fn exponential_caps() {
        let p = policy();
        let caps: Vec<u128> = (1..=7)
            .map(|n| {
                p.delay(&server(None), n, Duration::ZERO, &mut Max)
                    .unwrap()
                    .as_millis()
            })
            .collect();
        assert_eq!(caps, [100, 200, 400, 800, 1000, 1000, 1000]);
        // Huge attempt counts neither overflow nor exceed the cap.
        assert_eq!(p.backoff(u32::MAX, &mut Max), Duration::from_millis(1000));
    }

    #[test]
    fn full_jitter_is_seeded_and_in_range() {
        let p = policy();
        let draw = |seed| {
            let mut rng = SplitMix64::new(seed);
            (0..50).map(|_| p.backoff(3, &mut rng)).collect::<Vec<_>>()
        };
        let a = draw(7);
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
        assert!(a.iter().all(|d| *d <= Duration::from_millis(400)));
        assert!(a.iter().any(|d| *d < Duration::from_millis(200)));
        assert!(a.iter().any(|d| *d > Duration::from_millis(200)));
    }

    #[test]
    fn what_retries() {
        let p = policy();
        let mut rng = SplitMix64::new(1);
        let url = || "u".to_string();
        for retried in [
            server(None),
            transport(TransportKind::Connect),
            transport(TransportKind::IdleTimeout),
            transport(TransportKind::Body),
            HttpError::RateLimited {
                url: url(),
                retry_after: None,
                message: String::new(),
            },
        ] {
            assert!(
                p.delay(&retried, 1, Duration::ZERO, &mut rng).is_some(),
                "{retried:?}"
            );
        }
        for never in [
            transport(TransportKind::Tls),
            HttpError::Auth {
                url: url(),
                status: 401,
                message: String::new(),
            },
            HttpError::Rejected {
                url: url(),
                status: 400,
                message: String::new(),
            },
            HttpError::ContextLength {
                url: url(),
                message: String::new(),
            },
            HttpError::QuotaExceeded {
                url: url(),
                message: String::new(),
            },
            HttpError::BodyTooLarge {
                url: url(),
                limit: 1,
            },
            HttpError::Cancelled,
        ] {
            assert_eq!(
                p.delay(&never, 1, Duration::ZERO, &mut rng),
                None,
                "{never:?}"
            );
        }
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let p = policy();
        let limited = |s| HttpError::RateLimited {
            url: "u".into(),
            retry_after: Some(Duration::from_secs(s)),
            message: String::new(),
        };
        let mut rng = SplitMix64::new(1);
        assert_eq!(
            p.delay(&limited(3), 1, Duration::ZERO, &mut rng),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            p.delay(
                &server(Some(Duration::from_secs(2))),
                1,
                Duration::ZERO,
                &mut rng
            ),
            Some(Duration::from_secs(2))
        );
        // Longer than the cap: give up rather than be refused again.
        assert_eq!(p.delay(&limited(6), 1, Duration::ZERO, &mut rng), None);
    }

    #[test]
    fn attempts_and_total_wait_bound() {
        let p = policy();
        let mut rng = SplitMix64::new(1);
        assert!(
            p.delay(&server(None), 9, Duration::ZERO, &mut rng)
                .is_some()
        );
        assert_eq!(p.delay(&server(None), 10, Duration::ZERO, &mut rng), None);
        let after = server(Some(Duration::from_secs(3)));
        assert!(
            p.delay(&after, 1, Duration::from_secs(17), &mut rng)
                .is_some()
        );
        assert_eq!(p.delay(&after, 1, Duration::from_secs(18), &mut rng), None);
        // Our own backoff is cut to what is left of the budget, then ends.
        assert_eq!(
            p.delay(&server(None), 5, Duration::from_millis(19_700), &mut Max),
            Some(Duration::from_millis(300))
        );
        assert_eq!(
            p.delay(&server(None), 5, Duration::from_secs(20), &mut Max),
            None
        );
        assert_eq!(
            RetryPolicy::NEVER.delay(&server(None), 1, Duration::ZERO, &mut rng),
            None
        );
    }
}
