//! Canonical JSON, the bytes a digest is taken over: object keys sorted by their UTF-8 bytes
//! at every level and no whitespace, whatever order the map keeps (a dependency may turn on
//! serde_json's `preserve_order`). The session-binding digest of the config and the digest an
//! MCP call's approval binds both hash it.

use serde_json::Value;

/// `v` as canonical JSON.
pub(crate) fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

fn write(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write(&m[k.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::canonical;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_level_without_whitespace() {
        let v = json!({"b": [{"z": 1, "a": "x y"}, null], "a": {"d": true, "c": 1.5}});
        assert_eq!(
            canonical(&v),
            r#"{"a":{"c":1.5,"d":true},"b":[{"a":"x y","z":1},null]}"#
        );
    }
}
