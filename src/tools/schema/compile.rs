//! Registration-time compilation of schema documents: the keyword whitelist and strictness rules.

use serde_json::{Map, Value};

use super::{JsonType, Schema, SchemaError};

const KEYWORDS: [&str; 9] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minimum",
    "maximum",
    "description",
];

fn schema_error(path: &str, reason: impl Into<String>) -> SchemaError {
    let path = if path.is_empty() { "/" } else { path };
    SchemaError {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

pub(super) fn compile_node(doc: &Value, path: &str) -> Result<Schema, SchemaError> {
    let Some(map) = doc.as_object() else {
        return Err(schema_error(path, "a schema must be an object"));
    };
    if let Some(key) = map.keys().find(|key| !KEYWORDS.contains(&key.as_str())) {
        return Err(schema_error(
            path,
            format!("unknown schema keyword `{key}`"),
        ));
    }
    let (kind, nullable) = compile_type(map.get("type"), path)?;
    if let Some(description) = map.get("description")
        && !description.is_string()
    {
        return Err(schema_error(path, "`description` must be a string"));
    }
    let only_for = |keyword: &str, kinds: &[JsonType]| -> Result<(), SchemaError> {
        if map.contains_key(keyword) && !kinds.contains(&kind) {
            return Err(schema_error(
                path,
                format!("`{keyword}` is not allowed on {}", kind.phrase()),
            ));
        }
        Ok(())
    };
    only_for("properties", &[JsonType::Object])?;
    only_for("required", &[JsonType::Object])?;
    only_for("additionalProperties", &[JsonType::Object])?;
    only_for("items", &[JsonType::Array])?;
    only_for(
        "enum",
        &[JsonType::String, JsonType::Integer, JsonType::Number],
    )?;
    only_for("minimum", &[JsonType::Integer, JsonType::Number])?;
    only_for("maximum", &[JsonType::Integer, JsonType::Number])?;

    let mut schema = Schema {
        kind,
        nullable,
        properties: Vec::new(),
        items: None,
        allowed: None,
        minimum: bound(map, "minimum", path)?,
        maximum: bound(map, "maximum", path)?,
    };
    if let (Some(lo), Some(hi)) = (schema.minimum, schema.maximum)
        && lo > hi
    {
        return Err(schema_error(path, "`minimum` is greater than `maximum`"));
    }
    match kind {
        JsonType::Object => schema.properties = compile_properties(map, path)?,
        JsonType::Array => {
            let items = map
                .get("items")
                .ok_or_else(|| schema_error(path, "an array needs `items`"))?;
            schema.items = Some(Box::new(compile_node(items, &format!("{path}/items"))?));
        }
        _ => {}
    }
    if let Some(values) = map.get("enum") {
        schema.allowed = Some(compile_enum(values, kind, path)?);
    }
    Ok(schema)
}

fn compile_type(doc: Option<&Value>, path: &str) -> Result<(JsonType, bool), SchemaError> {
    let parse = |value: &Value| {
        value
            .as_str()
            .and_then(JsonType::parse)
            .ok_or_else(|| schema_error(path, format!("unknown type {value}")))
    };
    match doc {
        None => Err(schema_error(path, "missing `type`")),
        Some(Value::Array(types)) => match types.as_slice() {
            [a, b] => match (parse(a)?, parse(b)?) {
                (JsonType::Null, JsonType::Null) => {
                    Err(schema_error(path, "`type` lists null twice"))
                }
                (JsonType::Null, kind) | (kind, JsonType::Null) => Ok((kind, true)),
                _ => Err(schema_error(path, "a type array must be [T, \"null\"]")),
            },
            _ => Err(schema_error(path, "a type array must be [T, \"null\"]")),
        },
        Some(single) => Ok((parse(single)?, false)),
    }
}

fn bound(map: &Map<String, Value>, keyword: &str, path: &str) -> Result<Option<f64>, SchemaError> {
    match map.get(keyword) {
        None => Ok(None),
        Some(value) => value
            .as_f64()
            .map(Some)
            .ok_or_else(|| schema_error(path, format!("`{keyword}` must be a number"))),
    }
}

fn compile_properties(
    map: &Map<String, Value>,
    path: &str,
) -> Result<Vec<(String, Schema)>, SchemaError> {
    let Some(Value::Object(properties)) = map.get("properties") else {
        return Err(schema_error(path, "an object needs `properties`"));
    };
    if map.get("additionalProperties") != Some(&Value::Bool(false)) {
        return Err(schema_error(
            path,
            "an object needs `additionalProperties: false`",
        ));
    }
    let Some(Value::Array(required)) = map.get("required") else {
        return Err(schema_error(
            path,
            "an object needs `required` listing every property",
        ));
    };
    let mut names = Vec::with_capacity(required.len());
    for name in required {
        let Some(name) = name.as_str() else {
            return Err(schema_error(path, "`required` must list strings"));
        };
        if names.contains(&name) {
            return Err(schema_error(
                path,
                format!("`required` lists `{name}` twice"),
            ));
        }
        if !properties.contains_key(name) {
            return Err(schema_error(
                path,
                format!("`required` lists undeclared property `{name}`"),
            ));
        }
        names.push(name);
    }
    let mut compiled = Vec::with_capacity(names.len());
    // Properties keep the order of `required`, which is the order errors report them in.
    for name in &names {
        let child = &properties[*name];
        compiled.push((
            (*name).to_owned(),
            compile_node(child, &format!("{path}/properties/{name}"))?,
        ));
    }
    if let Some(missing) = properties.keys().find(|key| !names.contains(&key.as_str())) {
        return Err(schema_error(
            path,
            format!("property `{missing}` is not in `required` (strict schemas require all)"),
        ));
    }
    Ok(compiled)
}

fn compile_enum(values: &Value, kind: JsonType, path: &str) -> Result<Vec<Value>, SchemaError> {
    let Some(values) = values.as_array().filter(|values| !values.is_empty()) else {
        return Err(schema_error(path, "`enum` must be a non-empty array"));
    };
    for (index, value) in values.iter().enumerate() {
        if !kind.matches(value) {
            return Err(schema_error(
                path,
                format!("`enum` value {value} is not {}", kind.phrase()),
            ));
        }
        if values[..index].contains(value) {
            return Err(schema_error(path, format!("`enum` lists {value} twice")));
        }
    }
    Ok(values.clone())
}
