//! Strict JSON schemas: the keyword subset tool descriptors use, compiled once at registration,
//! and validation of argument values against them with model-facing positions.

use serde_json::{Map, Value};

/// A JSON type a schema node can require.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
    /// A JSON string.
    String,
    /// A JSON number without a fraction or exponent.
    Integer,
    /// Any JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// `null` (as a type of its own).
    Null,
}

impl JsonType {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "object" => Self::Object,
            "array" => Self::Array,
            "string" => Self::String,
            "integer" => Self::Integer,
            "number" => Self::Number,
            "boolean" => Self::Boolean,
            "null" => Self::Null,
            _ => return None,
        })
    }

    /// The phrase used in error messages ("an integer", "a string").
    pub fn phrase(self) -> &'static str {
        match self {
            Self::Object => "an object",
            Self::Array => "an array",
            Self::String => "a string",
            Self::Integer => "an integer",
            Self::Number => "a number",
            Self::Boolean => "a boolean",
            Self::Null => "null",
        }
    }

    fn matches(self, value: &Value) -> bool {
        match self {
            Self::Object => value.is_object(),
            Self::Array => value.is_array(),
            Self::String => value.is_string(),
            Self::Integer => value.is_i64() || value.is_u64(),
            Self::Number => value.is_number(),
            Self::Boolean => value.is_boolean(),
            Self::Null => value.is_null(),
        }
    }
}

/// A schema that was rejected at registration: where (a JSON-pointer-like path) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("schema at `{path}`: {reason}")]
pub struct SchemaError {
    /// Location inside the schema document, e.g. `/properties/edits/items`.
    pub path: String,
    /// What is wrong there.
    pub reason: String,
}

/// A compiled schema node.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    kind: JsonType,
    nullable: bool,
    properties: Vec<(String, Schema)>,
    items: Option<Box<Schema>>,
    allowed: Option<Vec<Value>>,
    minimum: Option<f64>,
    maximum: Option<f64>,
}

/// An argument value that does not satisfy the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where in the arguments, e.g. `edits[1].old`; empty for the arguments object itself.
    pub path: String,
    /// What is wrong.
    pub problem: String,
    /// What the model should do instead.
    pub hint: String,
}

impl Schema {
    /// Compiles a schema document, rejecting unknown keywords and non-strict objects.
    pub fn compile(doc: &Value) -> Result<Self, SchemaError> {
        compile::compile_node(doc, "")
    }

    /// Checks `value` against this schema; the first violation in document order wins.
    pub fn validate(&self, value: &Value) -> Result<(), Violation> {
        self.check(value, &mut String::new())
    }

    fn expected(&self) -> String {
        if self.nullable {
            format!("{} or null", self.kind.phrase())
        } else {
            self.kind.phrase().to_owned()
        }
    }

    fn check(&self, value: &Value, path: &mut String) -> Result<(), Violation> {
        if value.is_null() && self.nullable {
            return Ok(());
        }
        if !self.kind.matches(value) {
            let problem = if value.is_null() {
                format!(
                    "is null, but null is not allowed here (expected {})",
                    self.expected()
                )
            } else {
                format!("expected {}, got {}", self.expected(), describe(value))
            };
            return Err(violation(
                path,
                problem,
                format!("pass {}", self.expected()),
            ));
        }
        if let Some(allowed) = &self.allowed
            && !allowed.contains(value)
        {
            let list = join(allowed.iter().map(Value::to_string));
            return Err(violation(
                path,
                format!("must be one of {list}, got {value}"),
                format!("use exactly one of {list}"),
            ));
        }
        if let Some(number) = value.as_f64() {
            self.check_range(number, value, path)?;
        }
        match value {
            Value::Object(map) => self.check_object(map, path),
            Value::Array(items) => match &self.items {
                Some(item_schema) => {
                    for (index, item) in items.iter().enumerate() {
                        let mark = path.len();
                        path.push_str(&format!("[{index}]"));
                        item_schema.check(item, path)?;
                        path.truncate(mark);
                    }
                    Ok(())
                }
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn check_range(&self, number: f64, value: &Value, path: &str) -> Result<(), Violation> {
        let bounds = match (self.minimum, self.maximum) {
            (Some(lo), Some(hi)) => format!("between {lo} and {hi}"),
            (Some(lo), None) => format!("at least {lo}"),
            (None, Some(hi)) => format!("at most {hi}"),
            (None, None) => return Ok(()),
        };
        let below = self.minimum.is_some_and(|lo| number < lo);
        let above = self.maximum.is_some_and(|hi| number > hi);
        if below || above {
            return Err(violation(
                path,
                format!("{value} is out of range (must be {bounds})"),
                format!("pass a value {bounds}"),
            ));
        }
        Ok(())
    }

    fn check_object(&self, map: &Map<String, Value>, path: &mut String) -> Result<(), Violation> {
        let names = join(self.properties.iter().map(|(name, _)| format!("`{name}`")));
        for (name, schema) in &self.properties {
            if !map.contains_key(name) {
                let extra = if schema.nullable {
                    " (it is nullable: pass null to leave it unset)"
                } else {
                    ""
                };
                return Err(violation(
                    path,
                    format!("missing required property `{name}`"),
                    format!(
                        "every property is required: add `{name}` as {}{extra}",
                        schema.expected()
                    ),
                ));
            }
        }
        if let Some(unknown) = map
            .keys()
            .find(|key| !self.properties.iter().any(|(name, _)| name == *key))
        {
            return Err(violation(
                path,
                format!("unknown property `{unknown}`"),
                format!("remove it; the allowed properties are {names}"),
            ));
        }
        for (name, schema) in &self.properties {
            if let Some(child) = map.get(name) {
                let mark = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(name);
                schema.check(child, path)?;
                path.truncate(mark);
            }
        }
        Ok(())
    }
}

fn violation(path: &str, problem: String, hint: String) -> Violation {
    Violation {
        path: path.to_owned(),
        problem,
        hint,
    }
}

fn join(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(", ")
}

/// Describes a value briefly for an error message, without echoing huge strings back.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 40 => {
            let head: String = s.chars().take(40).collect();
            format!("the string {:?}…", head)
        }
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

mod compile;
#[cfg(test)]
mod tests;
