//! The pure executor of `get_test_value`: a deterministic value for a key.

use serde::{Deserialize, Serialize};

/// The tool output of `get_test_value`, serialized as compact JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestValue {
    /// The key that was asked for.
    pub key: String,
    /// Its value.
    pub value: String,
}

/// Domain separation keeps these values from colliding with any other BLAKE3 use.
const CONTEXT: &str = "ansa get_test_value v1";

/// The value for `key`: the same on every machine and every run.
pub fn test_value(key: &str) -> String {
    let hash = blake3::derive_key(CONTEXT, key.as_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("tv-{hex}")
}

/// Runs `get_test_value`, returning the tool output text.
pub fn execute_get_test_value(key: &str) -> String {
    let output = TestValue {
        key: key.to_owned(),
        value: test_value(key),
    };
    // Serializing a struct of two strings cannot fail; fall back to the bare value regardless.
    serde_json::to_string(&output).unwrap_or(output.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_deterministic_and_key_dependent() {
        assert_eq!(test_value("alpha"), test_value("alpha"));
        assert_ne!(test_value("alpha"), test_value("beta"));
        assert!(test_value("alpha").starts_with("tv-"));
        assert_eq!(test_value("alpha").len(), 19);
    }

    #[test]
    fn output_is_json_with_key_and_value() {
        let out: TestValue = serde_json::from_str(&execute_get_test_value("k\"1")).unwrap();
        assert_eq!(
            out,
            TestValue {
                key: "k\"1".into(),
                value: test_value("k\"1")
            }
        );
    }
}
