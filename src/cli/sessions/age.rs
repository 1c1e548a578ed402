//! `--older-than AGE`: a number and one unit (`30d`, `12h`, `90m`, `2w`, `45s`).

use std::time::Duration;

/// Parses an age; the error says what was wrong and what is accepted.
pub fn parse(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| {
        format!(
            "--older-than {text:?}: expected a number and a unit, like 30d, 12h, 90m, 2w or 45s"
        )
    })?;
    let secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        "" => {
            return Err(format!(
                "--older-than {text:?}: the unit is missing; add s, m, h, d or w (30d is 30 days)"
            ));
        }
        other => {
            return Err(format!(
                "--older-than {text:?}: unknown unit {other:?}; use s, m, h, d or w"
            ));
        }
    };
    n.checked_mul(secs)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("--older-than {text:?}: too long"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_mistakes() {
        assert_eq!(parse("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse("2w"), Ok(Duration::from_secs(14 * 86_400)));
        assert_eq!(parse("90m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse("0s"), Ok(Duration::ZERO));
        for bad in [
            "",
            "30",
            "d",
            "30 days",
            "-1d",
            "30y",
            "99999999999999999999d",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
