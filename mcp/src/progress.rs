//! `notifications/progress` for a running call: rmcp gives every request a progress token of
//! its own, and what the server reports under a call's token goes to the caller's sink until
//! the call ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::sanitize::one_line;

/// Longest progress message passed on (a server's text, cut).
const MESSAGE_MAX: usize = 200;

/// What a server reported of a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far it is (grows with each report; the unit is the server's).
    pub progress: f64,
    /// Of how much, when the server knows.
    pub total: Option<f64>,
    /// Its words about it, on one line and cut to 200 characters.
    pub message: Option<String>,
}

impl Progress {
    /// `progress 3/10: message`, the line a person reads.
    pub fn line(&self) -> String {
        let mut line = format!("progress {}", number(self.progress));
        if let Some(total) = self.total {
            line.push('/');
            line.push_str(&number(total));
        }
        if let Some(message) = &self.message {
            line.push_str(": ");
            line.push_str(message);
        }
        line
    }
}

/// A whole number without its `.0`.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

/// Where a call's progress reports go.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// The sinks of a server's running calls, by progress token.
#[derive(Default)]
pub(crate) struct Sinks {
    by_token: Mutex<HashMap<i64, ProgressSink>>,
}

impl Sinks {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<i64, ProgressSink>> {
        self.by_token
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `sink` takes the reports under `token` until the returned guard drops (the call ended).
    pub fn register(self: &Arc<Self>, token: i64, sink: ProgressSink) -> Registered {
        self.map().insert(token, sink);
        Registered {
            sinks: Arc::clone(self),
            token,
        }
    }

    /// A report for `token`; one for a call that ended, or a token never given, is dropped.
    pub fn report(&self, token: i64, progress: f64, total: Option<f64>, message: Option<&str>) {
        let sink = self.map().get(&token).cloned();
        if let Some(sink) = sink {
            sink(Progress {
                progress,
                total,
                message: message.map(|m| one_line(m, MESSAGE_MAX)),
            });
        }
    }
}

/// A registered sink; dropping it withdraws the token.
pub(crate) struct Registered {
    sinks: Arc<Sinks>,
    token: i64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.sinks.map().remove(&self.token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_reach_the_sink_until_the_call_ends_and_read_as_one_line() {
        let sinks = Arc::new(Sinks::default());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let token = 7;
        let registered = sinks.register(
            token,
            Arc::new(move |p: Progress| {
                into.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(p.line());
            }),
        );
        sinks.report(token, 3.0, Some(10.0), Some("step\n3\u{1b}[31m"));
        sinks.report(token + 1, 1.0, None, None);
        sinks.report(token, 4.5, None, None);
        drop(registered);
        sinks.report(token, 5.0, Some(10.0), None);
        let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(seen[0].starts_with("progress 3/10: step"), "{seen:?}");
        assert!(!seen[0].contains('\n'), "{seen:?}");
        assert_eq!(seen[1], "progress 4.5");
    }
}
