//! Strict parsing of scripted-provider files: `{"turns":[…]}` with positions in every error.

use ansa_sessions::Effort;
use ansa_sessions::protocol::CatalogModel;
use serde_json::{Map, Value};

/// Longest accepted `delay_ms`, matching the longest process timeout.
const MAX_DELAY_MS: u64 = 600_000;

/// A script that could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScriptError {
    /// The file could not be read.
    #[error("script {file}: cannot read it: {reason}")]
    Read {
        /// Script file.
        file: String,
        /// The I/O error.
        reason: String,
    },
    /// The file is not JSON.
    #[error("script {file}: not valid JSON at line {line}, column {column}: {detail}")]
    Json {
        /// Script file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's explanation.
        detail: String,
    },
    /// The JSON does not have the script's shape.
    #[error("script {file}: {field}: {reason}")]
    Invalid {
        /// Script file.
        file: String,
        /// Index of the offending turn, if the error is inside one.
        turn: Option<usize>,
        /// Path of the offending field, e.g. `turns[2].tool_calls[0].name`.
        field: String,
        /// What is wrong.
        reason: String,
    },
}

/// A parsed script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The file it came from, for error messages.
    pub file: String,
    /// Turns in generation order.
    pub turns: Vec<ScriptTurn>,
    /// The model catalog the script's provider offers (`"models"`); `None`: only the
    /// session's own model.
    pub models: Option<Vec<CatalogModel>>,
    /// The scripts of orchestrate-mode children, first match wins.
    pub children: Vec<ChildScript>,
}

/// The script of one child (`children[i]`): which child it is for, and its turns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildScript {
    /// Which child.
    pub selector: ChildSelector,
    /// The child's turns in generation order.
    pub turns: Vec<ScriptTurn>,
}

/// How a `children` entry addresses a child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildSelector {
    /// Its place in its `delegate` call, from 1 (`"index": N`).
    Index(u32),
    /// A text its instruction contains (`"task": "…"`).
    Task(String),
}

impl ChildSelector {
    /// Whether the child at `index` with `task` is this one.
    pub fn matches(&self, index: u32, task: &str) -> bool {
        match self {
            ChildSelector::Index(n) => *n == index,
            ChildSelector::Task(text) => task.contains(text.as_str()),
        }
    }
}

/// One scripted model turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptTurn {
    /// Delay before the turn is produced.
    pub delay_ms: u64,
    /// Token usage the turn reports (`"usage": {"input": N, "output": M}`), as a live
    /// provider would: it exercises token budgets offline.
    pub usage: Option<(u64, u64)>,
    /// What the turn produces.
    pub kind: TurnKind,
}

/// The output of a scripted turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnKind {
    /// A final answer, possibly with `{{tool_output:K}}` placeholders.
    Text(TextTemplate),
    /// A batch of tool calls.
    ToolCalls(Vec<ScriptedCall>),
    /// A malformed model output.
    Raw(String),
}

/// One scripted tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptedCall {
    /// Explicit call id, or `None` for `call-<generation>-<index>`.
    pub call_id: Option<String>,
    /// Tool name (not checked here: scripts may call unknown tools on purpose).
    pub name: String,
    /// Raw arguments: a JSON value re-serialized compactly, or a string taken verbatim.
    pub arguments: String,
}

/// Final-answer text split into literal parts and tool-output placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextTemplate {
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    ToolOutput(usize),
}

const OPEN: &str = "{{tool_output:";

impl TextTemplate {
    /// Splits `text` at `{{tool_output:K}}`; an opened but malformed placeholder is an error.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut segments = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find(OPEN) {
            let after = &rest[start + OPEN.len()..];
            let end = after.find("}}").ok_or_else(|| {
                format!(
                    "unterminated placeholder at byte {}",
                    text.len() - rest.len() + start
                )
            })?;
            let digits = &after[..end];
            let index = digits
                .parse::<usize>()
                .ok()
                .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| {
                    format!("placeholder {{{{tool_output:{digits}}}}} needs a 0-based number")
                })?;
            if start > 0 {
                segments.push(Segment::Literal(rest[..start].to_owned()));
            }
            segments.push(Segment::ToolOutput(index));
            rest = &after[end + 2..];
        }
        if !rest.is_empty() {
            segments.push(Segment::Literal(rest.to_owned()));
        }
        Ok(Self { segments })
    }

    /// Fills placeholders from `outputs`; `Err(K)` names the first missing output.
    pub fn render(&self, outputs: &[&str]) -> Result<String, usize> {
        let mut text = String::new();
        for segment in &self.segments {
            match segment {
                Segment::Literal(literal) => text.push_str(literal),
                Segment::ToolOutput(index) => text.push_str(outputs.get(*index).ok_or(*index)?),
            }
        }
        Ok(text)
    }
}

impl Script {
    /// Reads and parses a script file.
    pub fn load(path: &std::path::Path) -> Result<Self, ScriptError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|err| ScriptError::Read {
            file: file.clone(),
            reason: err.to_string(),
        })?;
        Self::parse(&file, &text)
    }

    /// Parses script text; `file` only labels errors.
    pub fn parse(file: &str, text: &str) -> Result<Self, ScriptError> {
        let doc: Value = serde_json::from_str(text).map_err(|err| {
            let detail = err.to_string();
            let detail = detail
                .rfind(" at line ")
                .map_or(detail.clone(), |at| detail[..at].to_owned());
            ScriptError::Json {
                file: file.to_owned(),
                line: err.line(),
                column: err.column(),
                detail,
            }
        })?;
        let parser = Parser { file };
        let top = parser.object(&doc, None, "the script")?;
        parser.only_keys(top, None, "the script", &["turns", "models", "children"])?;
        let turns = parser.turns(top, "turns", "the script")?;
        let models = match top.get("models") {
            None => None,
            Some(v) => Some(parser.models(v)?),
        };
        let children = match top.get("children") {
            None => Vec::new(),
            Some(Value::Array(children)) => children
                .iter()
                .enumerate()
                .map(|(i, child)| parser.child(i, child))
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(parser.invalid(None, "children", "must be an array of child scripts"));
            }
        };
        Ok(Self {
            file: file.to_owned(),
            turns,
            models,
            children,
        })
    }
}

struct Parser<'a> {
    file: &'a str,
}

impl Parser<'_> {
    /// `"models": [{"id": "m", "efforts": ["low", "high"]}, …]`.
    fn models(&self, v: &Value) -> Result<Vec<CatalogModel>, ScriptError> {
        let Value::Array(entries) = v else {
            return Err(self.invalid(
                None,
                "models",
                "must be an array of {\"id\", \"efforts\"} objects",
            ));
        };
        let mut out = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let at = format!("models[{i}]");
            let map = self.object(entry, None, &at)?;
            self.only_keys(map, None, &at, &["id", "efforts"])?;
            let id = match map.get("id") {
                Some(Value::String(id)) if !id.trim().is_empty() => id.clone(),
                _ => {
                    return Err(self.invalid(
                        None,
                        &format!("{at}.id"),
                        "must be a non-empty string",
                    ));
                }
            };
            let efforts = match map.get("efforts") {
                None => Vec::new(),
                Some(Value::Array(list)) => list
                    .iter()
                    .map(|e| {
                        e.as_str()
                            .ok_or_else(|| "must be a string".to_owned())
                            .and_then(str::parse::<Effort>)
                            .map_err(|reason| self.invalid(None, &format!("{at}.efforts"), reason))
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(self.invalid(
                        None,
                        &format!("{at}.efforts"),
                        "must be an array of efforts",
                    ));
                }
            };
            out.push(CatalogModel { id, efforts });
        }
        Ok(out)
    }

    fn invalid(&self, turn: Option<usize>, field: &str, reason: impl Into<String>) -> ScriptError {
        ScriptError::Invalid {
            file: self.file.to_owned(),
            turn,
            field: field.to_owned(),
            reason: reason.into(),
        }
    }

    fn object<'v>(
        &self,
        value: &'v Value,
        turn: Option<usize>,
        field: &str,
    ) -> Result<&'v Map<String, Value>, ScriptError> {
        value
            .as_object()
            .ok_or_else(|| self.invalid(turn, field, "must be an object"))
    }

    fn only_keys(
        &self,
        map: &Map<String, Value>,
        turn: Option<usize>,
        field: &str,
        allowed: &[&str],
    ) -> Result<(), ScriptError> {
        match map.keys().find(|key| !allowed.contains(&key.as_str())) {
            Some(key) => Err(self.invalid(
                turn,
                field,
                format!("unknown field `{key}` (allowed: {})", allowed.join(", ")),
            )),
            None => Ok(()),
        }
    }

    fn string(&self, value: &Value, turn: usize, field: &str) -> Result<String, ScriptError> {
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| self.invalid(Some(turn), field, "must be a string"))
    }

    fn turns(
        &self,
        map: &Map<String, Value>,
        key: &str,
        owner: &str,
    ) -> Result<Vec<ScriptTurn>, ScriptError> {
        let turns = match map.get("turns") {
            Some(Value::Array(turns)) if !turns.is_empty() => turns,
            Some(Value::Array(_)) => return Err(self.invalid(None, key, "has no turns")),
            Some(_) => return Err(self.invalid(None, key, "must be an array of turns")),
            None => return Err(self.invalid(None, owner, "missing `turns`")),
        };
        turns
            .iter()
            .enumerate()
            .map(|(index, turn)| self.turn(index, turn))
            .collect()
    }

    fn child(&self, i: usize, value: &Value) -> Result<ChildScript, ScriptError> {
        let at = format!("children[{i}]");
        let map = self.object(value, None, &at)?;
        self.only_keys(map, None, &at, &["index", "task", "turns"])?;
        let selector = match (map.get("index"), map.get("task")) {
            (Some(index), None) => ChildSelector::Index(
                index
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| {
                        self.invalid(None, &format!("{at}.index"), "must be an integer from 1")
                    })?,
            ),
            (None, Some(Value::String(task))) if !task.is_empty() => {
                ChildSelector::Task(task.clone())
            }
            (None, Some(_)) => {
                return Err(self.invalid(
                    None,
                    &format!("{at}.task"),
                    "must be a non-empty string",
                ));
            }
            _ => {
                return Err(self.invalid(None, &at, "needs exactly one of `index` and `task`"));
            }
        };
        let turns = self.turns(map, &format!("{at}.turns"), &at)?;
        Ok(ChildScript { selector, turns })
    }

    fn turn(&self, index: usize, value: &Value) -> Result<ScriptTurn, ScriptError> {
        let at = format!("turns[{index}]");
        let turn = Some(index);
        let map = self.object(value, turn, &at)?;
        self.only_keys(
            map,
            turn,
            &at,
            &["text", "tool_calls", "raw", "delay_ms", "usage"],
        )?;
        let usage = match map.get("usage") {
            None => None,
            Some(value) => Some(self.usage(value, index, &format!("{at}.usage"))?),
        };
        let delay_ms = match map.get("delay_ms") {
            None => 0,
            Some(delay) => delay
                .as_u64()
                .filter(|ms| *ms <= MAX_DELAY_MS)
                .ok_or_else(|| {
                    self.invalid(
                        turn,
                        &format!("{at}.delay_ms"),
                        format!("must be an integer 0..={MAX_DELAY_MS}"),
                    )
                })?,
        };
        let present: Vec<&str> = ["text", "tool_calls", "raw"]
            .into_iter()
            .filter(|key| map.contains_key(*key))
            .collect();
        let kind = match present.as_slice() {
            ["text"] => {
                let field = format!("{at}.text");
                let text = self.string(&map["text"], index, &field)?;
                TurnKind::Text(
                    TextTemplate::parse(&text)
                        .map_err(|reason| self.invalid(turn, &field, reason))?,
                )
            }
            ["raw"] => TurnKind::Raw(self.string(&map["raw"], index, &format!("{at}.raw"))?),
            ["tool_calls"] => TurnKind::ToolCalls(self.calls(index, &map["tool_calls"])?),
            [] => {
                return Err(self.invalid(turn, &at, "needs one of `text`, `tool_calls` or `raw`"));
            }
            _ => {
                return Err(self.invalid(
                    turn,
                    &at,
                    format!(
                        "has {}; a turn has exactly one of them",
                        present.join(" and ")
                    ),
                ));
            }
        };
        Ok(ScriptTurn {
            delay_ms,
            usage,
            kind,
        })
    }

    /// `{"input": N, "output": M}`: tokens a turn reports.
    fn usage(&self, value: &Value, index: usize, at: &str) -> Result<(u64, u64), ScriptError> {
        let turn = Some(index);
        let map = self.object(value, turn, at)?;
        self.only_keys(map, turn, at, &["input", "output"])?;
        let count = |key: &str| {
            map.get(key).map_or(Ok(0), |v| {
                v.as_u64().ok_or_else(|| {
                    self.invalid(
                        turn,
                        &format!("{at}.{key}"),
                        "must be a non-negative integer",
                    )
                })
            })
        };
        Ok((count("input")?, count("output")?))
    }

    fn calls(&self, index: usize, value: &Value) -> Result<Vec<ScriptedCall>, ScriptError> {
        let at = format!("turns[{index}].tool_calls");
        let turn = Some(index);
        let calls = match value.as_array() {
            Some(calls) if !calls.is_empty() => calls,
            _ => return Err(self.invalid(turn, &at, "must be a non-empty array of calls")),
        };
        let mut parsed: Vec<ScriptedCall> = Vec::with_capacity(calls.len());
        for (position, call) in calls.iter().enumerate() {
            let here = format!("{at}[{position}]");
            let map = self.object(call, turn, &here)?;
            self.only_keys(map, turn, &here, &["name", "arguments", "call_id"])?;
            let name = match map.get("name") {
                Some(name) => self.string(name, index, &format!("{here}.name"))?,
                None => return Err(self.invalid(turn, &here, "missing `name`")),
            };
            // A string is sent verbatim so scripts can feed the loop malformed arguments.
            let arguments = match map.get("arguments") {
                Some(Value::String(raw)) => raw.clone(),
                Some(value) => value.to_string(),
                None => return Err(self.invalid(turn, &here, "missing `arguments`")),
            };
            let call_id = match map.get("call_id") {
                None => None,
                Some(id) => {
                    let field = format!("{here}.call_id");
                    let id = self.string(id, index, &field)?;
                    if id.is_empty()
                        || parsed
                            .iter()
                            .any(|call| call.call_id.as_deref() == Some(&id))
                    {
                        return Err(self.invalid(
                            turn,
                            &field,
                            "must be non-empty and unique in the turn",
                        ));
                    }
                    Some(id)
                }
            };
            parsed.push(ScriptedCall {
                call_id,
                name,
                arguments,
            });
        }
        Ok(parsed)
    }
}
