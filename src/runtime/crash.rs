//! Named crash points at the runtime's durable boundaries, compiled only with the
//! `crash-points` feature: `ANSA_CRASH_AT=name[:n]` makes the n-th (default first) pass
//! through `name` SIGKILL this process, so tests can cut a turn exactly there.

/// Kills the process here when `ANSA_CRASH_AT` names this point.
#[cfg(feature = "crash-points")]
pub fn point(name: &str) {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static HITS: Mutex<Option<HashMap<String, u64>>> = Mutex::new(None);
    let Ok(spec) = std::env::var("ANSA_CRASH_AT") else {
        return;
    };
    let (want, nth) = parse_spec(&spec);
    if want != name {
        return;
    }
    let mut hits = HITS.lock().unwrap_or_else(|p| p.into_inner());
    let count = hits
        .get_or_insert_with(HashMap::new)
        .entry(want)
        .or_insert(0);
    *count += 1;
    if *count == nth {
        let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGKILL);
    }
}

/// Crash points are compiled out of normal builds.
#[cfg(not(feature = "crash-points"))]
#[inline(always)]
pub fn point(_name: &str) {}

/// `name[:n]` as (name, n), n defaulting to 1. Point names contain `:` themselves
/// (`intent:after`); only a numeric suffix is a count.
#[cfg(any(test, feature = "crash-points"))]
fn parse_spec(spec: &str) -> (String, u64) {
    match spec.rsplit_once(':') {
        Some((n, k)) if k.bytes().all(|b| b.is_ascii_digit()) && !k.is_empty() => {
            (n.to_owned(), k.parse::<u64>().unwrap_or(1))
        }
        _ => (spec.to_owned(), 1),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_numeric_suffix_is_a_count_and_anything_else_part_of_the_name() {
        use super::parse_spec;
        assert_eq!(parse_spec("intent:after"), ("intent:after".into(), 1));
        assert_eq!(parse_spec("intent:after:3"), ("intent:after".into(), 3));
        assert_eq!(parse_spec("done:before:"), ("done:before:".into(), 1));
        assert_eq!(parse_spec("accepted"), ("accepted".into(), 1));
    }
}
