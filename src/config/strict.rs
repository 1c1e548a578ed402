//! A JSON value that keeps object order and rejects duplicate keys, plus typed field readers whose
//! errors name the file and the field.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::error::ConfigError;

/// A parsed JSON value; objects keep their order and never hold a key twice.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The JSON type, as named in error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out: Vec<(String, Value)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            // A repeated key would make the file mean whatever the parser keeps; refuse it.
            if out.iter().any(|(k, _)| *k == key) {
                return Err(de::Error::custom(format_args!("duplicate key `{key}`")));
            }
            let v = map.next_value()?;
            out.push((key, v));
        }
        Ok(Value::Object(out))
    }
}

/// Parses a whole config document; anything but one JSON object is a syntax error.
pub(crate) fn parse_object(file: &str, bytes: &[u8]) -> Result<Vec<(String, Value)>, ConfigError> {
    let syntax = |reason: String| ConfigError::Syntax {
        file: file.to_string(),
        reason,
    };
    let value: Value = serde_json::from_slice(bytes).map_err(|e| syntax(e.to_string()))?;
    match value {
        Value::Object(fields) => Ok(fields),
        other => Err(syntax(format!(
            "the top level must be an object, found {}",
            other.kind()
        ))),
    }
}

/// Typed readers that turn a wrong type or bound into a [`ConfigError::Field`].
pub(crate) struct Reader<'a> {
    pub(crate) file: &'a str,
}

impl Reader<'_> {
    pub(crate) fn err(&self, field: &str, reason: impl Into<String>) -> ConfigError {
        ConfigError::field(self.file, field, reason)
    }

    fn wrong_type(&self, field: &str, want: &str, got: &Value) -> ConfigError {
        self.err(field, format!("expected {want}, found {}", got.kind()))
    }

    /// An integer in `lo..=hi`.
    pub(crate) fn int(&self, field: &str, v: &Value, lo: u64, hi: u64) -> Result<u64, ConfigError> {
        let bounds = if hi == u64::MAX {
            format!("an integer ≥ {lo}")
        } else {
            format!("an integer in {lo}..={hi}")
        };
        let Value::Number(n) = v else {
            return Err(self.wrong_type(field, &bounds, v));
        };
        match n.as_u64() {
            Some(x) if (lo..=hi).contains(&x) => Ok(x),
            Some(x) => Err(self.err(field, format!("{x} is out of bounds: expected {bounds}"))),
            None => Err(self.err(field, format!("{n} is not allowed: expected {bounds}"))),
        }
    }

    /// A boolean.
    pub(crate) fn bool(&self, field: &str, v: &Value) -> Result<bool, ConfigError> {
        match v {
            Value::Bool(b) => Ok(*b),
            other => Err(self.wrong_type(field, "a boolean", other)),
        }
    }

    /// Any string.
    pub(crate) fn string<'v>(&self, field: &str, v: &'v Value) -> Result<&'v str, ConfigError> {
        match v {
            Value::String(s) => Ok(s),
            other => Err(self.wrong_type(field, "a string", other)),
        }
    }

    /// A non-empty string without control characters (model names, identifiers).
    pub(crate) fn name(&self, field: &str, v: &Value) -> Result<String, ConfigError> {
        let s = self.string(field, v)?;
        check_name(s).map_err(|reason| self.err(field, reason))?;
        Ok(s.to_string())
    }

    /// One of the listed string values.
    pub(crate) fn choice<'c>(
        &self,
        field: &str,
        v: &Value,
        allowed: &[&'c str],
    ) -> Result<&'c str, ConfigError> {
        let s = self.string(field, v)?;
        allowed
            .iter()
            .copied()
            .find(|a| *a == s)
            .ok_or_else(|| self.err(field, format!("{s:?} is not one of {}", allowed.join(", "))))
    }

    /// An object's entries.
    pub(crate) fn object<'v>(
        &self,
        field: &str,
        v: &'v Value,
    ) -> Result<&'v [(String, Value)], ConfigError> {
        match v {
            Value::Object(fields) => Ok(fields),
            other => Err(self.wrong_type(field, "an object", other)),
        }
    }

    /// An array's items.
    pub(crate) fn array<'v>(&self, field: &str, v: &'v Value) -> Result<&'v [Value], ConfigError> {
        match v {
            Value::Array(items) => Ok(items),
            other => Err(self.wrong_type(field, "an array", other)),
        }
    }
}

/// Accepts a non-empty name without control characters or surrounding whitespace.
pub(crate) fn check_name(s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        return Err("must be a non-empty string".into());
    }
    if s.trim() != s {
        return Err(format!("{s:?} has leading or trailing whitespace"));
    }
    if s.chars().any(char::is_control) {
        return Err(format!("{s:?} contains control characters"));
    }
    Ok(())
}
