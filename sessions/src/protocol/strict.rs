//! A JSON object reader that rejects duplicate keys (serde_json silently keeps the last one).

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// Top-level object fields in input order, without duplicates.
pub(crate) struct StrictObject(pub Vec<(String, Value)>);

impl<'de> Deserialize<'de> for StrictObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrictObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrictObject, A::Error> {
                let mut fields: Vec<(String, Value)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if fields.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(format_args!(
                            "duplicate field `{key}`"
                        )));
                    }
                    let value = map.next_value::<Value>()?;
                    fields.push((key, value));
                }
                Ok(StrictObject(fields))
            }
        }
        d.deserialize_map(V)
    }
}

impl StrictObject {
    /// Removes and returns a field.
    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }
}
