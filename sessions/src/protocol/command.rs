//! Commands: strict parsing (every error names the field and what to send) and serialisation.

use serde_json::{Map, Value};
use thiserror::Error;

use super::mention::{MentionPath, take_mentions};
use super::strict::StrictObject;
use super::{ProtocolContext, SCHEMA_VERSION};
use crate::ids::{CallId, CommandId, RequestId};
use crate::record::{ApprovalDecision, Mode};
use crate::rewind::{ManifestHex, OnConflict, RewindScope};
use crate::tool_output::{MAX_OUTPUT_LINES, ToolOutputQuery};
use crate::transcript::{MAX_PAGE_ENTRIES, TranscriptQuery};

/// Longest command line accepted, in bytes.
pub const MAX_COMMAND_BYTES: usize = 1 << 20;

/// A parsed, validated command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The client's latest known turn number.
    pub turn: u64,
    /// The client's command ID.
    pub command_id: CommandId,
    /// Type and payload.
    pub body: CommandBody,
}

/// Command type and payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandBody {
    /// Queue a turn.
    Submit {
        /// User text.
        text: String,
        /// Turn mode (`basic` when absent).
        mode: Mode,
        /// Workspace files attached to the prompt as reads (`@` mentions; empty when absent).
        mentions: Vec<MentionPath>,
    },
    /// Cancel the active turn.
    Cancel {
        /// Its request ID.
        target: RequestId,
    },
    /// Resume a paused turn.
    Resume {
        /// Its request ID.
        target: RequestId,
    },
    /// Ask for the current state.
    Snapshot {
        /// Last cursor seen, or 0.
        after_sequence: u64,
    },
    /// Page through the transcript.
    Transcript(TranscriptQuery),
    /// Page through a tool call's stored output.
    ToolOutput(ToolOutputQuery),
    /// Decide on a tool call waiting for approval.
    Approve {
        /// The turn.
        target: RequestId,
        /// The call (its `call_id` in `approval_required`).
        call: CallId,
        /// Run once, run for the session, or deny.
        decision: ApprovalDecision,
        /// Why, for a denial (the model is told).
        reason: Option<String>,
    },
    /// List the points a rewind can return to (answered by `checkpoints`).
    Checkpoints,
    /// Take back a turn and everything after it: its code, its conversation or both.
    Rewind {
        /// The turn to return to (its prompt is taken back).
        target: RequestId,
        /// What to take back (`both` when absent).
        scope: RewindScope,
        /// What to do with paths changed by something else (`refuse` when absent).
        on_conflict: OnConflict,
        /// Only publish the plan (`false` when absent).
        dry_run: bool,
        /// Return the workspace to this `before_rewind` checkpoint instead (undo a rewind; scope
        /// `code` only).
        checkpoint: Option<ManifestHex>,
    },
    /// Show what this session changed in the workspace since its first checkpoint (answered
    /// by `workspace_diff`).
    Diff,
    /// Compact the context now (answered by `compacted`; refused while a turn runs).
    Compact,

    /// Page through the transcript with each turn's steps (answered by `story`).
    Story(TranscriptQuery),
    /// List the models a `model` command may name (answered by `model_catalog`).
    Models,
    /// Change the session's model (and reasoning effort) for the following turns (answered by
    /// `rebound` once the `rebinding` record is durable, or an `error` `model_refused`).
    Model(super::model::ModelChoice),
    /// A command for an orchestrate-mode child (`approve`, `transcript` or `tool_output`),
    /// answered by `child` events (docs/protocol.md, "Orchestrate: children").
    Child {
        /// The child.
        child: crate::child::ChildId,
        /// What it is asked (never another `child`).
        command: Box<CommandBody>,
    },
    /// List the session's MCP servers (answered by `mcp_servers`; issue 45).
    McpStatus,
}

impl CommandBody {
    /// The wire `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            CommandBody::Submit { .. } => "submit",
            CommandBody::Cancel { .. } => "cancel",
            CommandBody::Resume { .. } => "resume",
            CommandBody::Snapshot { .. } => "snapshot",
            CommandBody::Transcript(_) => "transcript",
            CommandBody::ToolOutput(_) => "tool_output",
            CommandBody::Approve { .. } => "approve",
            CommandBody::Checkpoints => "checkpoints",
            CommandBody::Rewind { .. } => "rewind",
            CommandBody::Diff => "diff",
            CommandBody::Compact => "compact",

            CommandBody::Story(_) => "story",
            CommandBody::Models => "models",
            CommandBody::Model(_) => "model",
            CommandBody::Child { .. } => "child",
            CommandBody::McpStatus => "mcp_status",
        }
    }
}

/// Why a command line was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    /// The line is longer than [`MAX_COMMAND_BYTES`].
    #[error("command is {0} bytes long; at most {MAX_COMMAND_BYTES} bytes per line are accepted")]
    TooLong(usize),
    /// Not a JSON object (or duplicate keys).
    #[error("command is not a valid JSON object: {0}")]
    NotJson(String),
    /// A required field is absent.
    #[error("missing field `{0}`")]
    Missing(&'static str),
    /// A field has the wrong JSON type.
    #[error("field `{field}` must be {expected}")]
    WrongType {
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// A field has an invalid value.
    #[error("field `{field}`: {reason}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A field this command type does not have.
    #[error("unknown field `{field}` in {} {command} command", article(command))]
    UnknownField {
        /// The field.
        field: String,
        /// The command type.
        command: &'static str,
    },
    /// `schema_version` is not 1.
    #[error("unsupported schema_version {0}: this runtime speaks schema_version 1")]
    SchemaVersion(String),
    /// The command is for the other profile.
    #[error("command is for session `{found}` but this is the `{expected}` session")]
    WrongSession {
        /// What the command said.
        found: String,
        /// This session.
        expected: &'static str,
    },
    /// The command carries a stale or foreign incarnation.
    #[error(
        "incarnation `{found}` does not match the current incarnation `{expected}`; take it from \
         the latest snapshot"
    )]
    WrongIncarnation {
        /// What the command said.
        found: String,
        /// The current one.
        expected: String,
    },
    /// Unknown `type`.
    #[error(
        "unknown command type `{0}`; expected submit, cancel, resume, snapshot, transcript, \
         tool_output, approve, checkpoints, rewind, story, models, model, child or mcp_status"
    )]
    UnknownType(String),
}

type Fields = StrictObject;

/// `a` or `an` before a command type.
fn article(command: &str) -> &'static str {
    match command.as_bytes().first() {
        Some(b'a' | b'e' | b'i' | b'o' | b'u') => "an",
        _ => "a",
    }
}

fn take_str(o: &mut Fields, field: &'static str) -> Result<String, CommandError> {
    match o.take(field) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(CommandError::WrongType {
            field,
            expected: "a string",
        }),
        None => Err(CommandError::Missing(field)),
    }
}

fn take_u64(o: &mut Fields, field: &'static str) -> Result<u64, CommandError> {
    match o.take(field) {
        Some(Value::Number(n)) => n.as_u64().ok_or(CommandError::WrongType {
            field,
            expected: "an unsigned integer",
        }),
        Some(_) => Err(CommandError::WrongType {
            field,
            expected: "an unsigned integer",
        }),
        None => Err(CommandError::Missing(field)),
    }
}

fn take_target(o: &mut Fields) -> Result<RequestId, CommandError> {
    let t = take_u64(o, "target")?;
    if t == 0 {
        return Err(CommandError::Invalid {
            field: "target",
            reason: "request IDs start at 1".into(),
        });
    }
    Ok(RequestId(t))
}

fn approve(o: &mut Fields) -> Result<CommandBody, CommandError> {
    let target = take_target(o)?;
    let call = take_str(o, "call")?;
    if call.is_empty() {
        return Err(CommandError::Invalid {
            field: "call",
            reason: "must not be empty; send the `call_id` of the `approval_required` event".into(),
        });
    }
    let decision = take_str(o, "decision")?
        .parse::<ApprovalDecision>()
        .map_err(|reason| CommandError::Invalid {
            field: "decision",
            reason,
        })?;
    let reason = match o.take("reason") {
        None | Some(Value::Null) => None,
        Some(Value::String(_)) if decision != ApprovalDecision::Deny => {
            return Err(CommandError::Invalid {
                field: "reason",
                reason: format!("only a `deny` carries a reason; leave it out for `{decision}`"),
            });
        }
        Some(Value::String(r)) if r.len() > super::MAX_REASON_BYTES => {
            return Err(CommandError::Invalid {
                field: "reason",
                reason: format!(
                    "{} bytes long; at most {} bytes are accepted",
                    r.len(),
                    super::MAX_REASON_BYTES
                ),
            });
        }
        Some(Value::String(r)) if r.trim().is_empty() => None,
        Some(Value::String(r)) => Some(r),
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "reason",
                expected: "a string",
            });
        }
    };
    Ok(CommandBody::Approve {
        target,
        call: CallId(call),
        decision,
        reason,
    })
}

fn tool_output(o: &mut Fields) -> Result<CommandBody, CommandError> {
    let call_id = match o.take("call_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) if !c.is_empty() => Some(CallId(c)),
        Some(Value::String(_)) => {
            return Err(CommandError::Invalid {
                field: "call_id",
                reason: "must not be empty; leave it out for the latest call".into(),
            });
        }
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "call_id",
                expected: "a string",
            });
        }
    };
    let offset = take_u64(o, "offset")?;
    let limit = take_u64(o, "limit")?;
    if limit == 0 || limit > u64::from(MAX_OUTPUT_LINES) {
        return Err(CommandError::Invalid {
            field: "limit",
            reason: format!("{limit} is out of range; send 1..={MAX_OUTPUT_LINES}"),
        });
    }
    let view = match o.take("view") {
        None | Some(Value::Null) => crate::OutputView::Model,
        Some(Value::String(v)) if v == "model" => crate::OutputView::Model,
        Some(Value::String(v)) if v == "readable" => crate::OutputView::Readable,
        Some(_) => {
            return Err(CommandError::Invalid {
                field: "view",
                reason: "must be \"model\" or \"readable\"".into(),
            });
        }
    };
    Ok(CommandBody::ToolOutput(ToolOutputQuery {
        call_id,
        offset,
        limit: limit as u32,
        view,
    }))
}

/// `child`: one of `approve`, `transcript` and `tool_output`, for the child named.
fn child(o: &mut Fields) -> Result<CommandBody, CommandError> {
    let child =
        crate::child::ChildId::new(take_str(o, "child")?).map_err(|e| CommandError::Invalid {
            field: "child",
            reason: e.to_string(),
        })?;
    let command = match take_str(o, "command")?.as_str() {
        "approve" => approve(o)?,
        "transcript" => CommandBody::Transcript(transcript_query(o)?),
        "tool_output" => tool_output(o)?,
        other => {
            return Err(CommandError::Invalid {
                field: "command",
                reason: format!(
                    "`{other}` cannot be sent to a child; expected approve, transcript or tool_output"
                ),
            });
        }
    };
    Ok(CommandBody::Child {
        child,
        command: Box::new(command),
    })
}

fn rewind(o: &mut Fields) -> Result<CommandBody, CommandError> {
    let target = take_target(o)?;
    let scope = match o.take("scope") {
        None | Some(Value::Null) => RewindScope::Both,
        Some(Value::String(s)) => s.parse().map_err(|reason| CommandError::Invalid {
            field: "scope",
            reason,
        })?,
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "scope",
                expected: "a string",
            });
        }
    };
    let on_conflict = match o.take("on_conflict") {
        None | Some(Value::Null) => OnConflict::Refuse,
        Some(Value::String(s)) => s.parse().map_err(|reason| CommandError::Invalid {
            field: "on_conflict",
            reason,
        })?,
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "on_conflict",
                expected: "a string",
            });
        }
    };
    let dry_run = match o.take("dry_run") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "dry_run",
                expected: "a boolean",
            });
        }
    };
    let checkpoint = match o.take("checkpoint") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => {
            Some(
                ManifestHex::try_from(s).map_err(|reason| CommandError::Invalid {
                    field: "checkpoint",
                    reason,
                })?,
            )
        }
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "checkpoint",
                expected: "a string",
            });
        }
    };
    if checkpoint.is_some() && scope != RewindScope::Code {
        return Err(CommandError::Invalid {
            field: "scope",
            reason: format!(
                "undoing a rewind (with `checkpoint`) restores code only; send scope `code`, \
                 not `{scope}`"
            ),
        });
    }
    Ok(CommandBody::Rewind {
        target,
        scope,
        on_conflict,
        dry_run,
        checkpoint,
    })
}

/// Parses and validates one command line against the current session and incarnation.
pub fn parse_command(line: &str, ctx: &ProtocolContext) -> Result<Command, CommandError> {
    if line.len() > MAX_COMMAND_BYTES {
        return Err(CommandError::TooLong(line.len()));
    }
    let mut o: Fields =
        serde_json::from_str(line).map_err(|e| CommandError::NotJson(e.to_string()))?;
    match o.take("schema_version") {
        Some(Value::Number(n)) if n.as_u64() == Some(SCHEMA_VERSION) => {}
        Some(v) => return Err(CommandError::SchemaVersion(v.to_string())),
        None => return Err(CommandError::Missing("schema_version")),
    }
    let session = take_str(&mut o, "session")?;
    if session != ctx.session.as_str() {
        return Err(CommandError::WrongSession {
            found: session,
            expected: ctx.session.as_str(),
        });
    }
    let incarnation = take_str(&mut o, "incarnation")?;
    if incarnation != ctx.incarnation.as_str() {
        return Err(CommandError::WrongIncarnation {
            found: incarnation,
            expected: ctx.incarnation.as_str().to_owned(),
        });
    }
    let turn = take_u64(&mut o, "turn")?;
    let command_id = CommandId::new(take_str(&mut o, "command_id")?).map_err(|reason| {
        CommandError::Invalid {
            field: "command_id",
            reason,
        }
    })?;
    let kind = take_str(&mut o, "type")?;
    let body = match kind.as_str() {
        "submit" => {
            let text = take_str(&mut o, "text")?;
            if text.trim().is_empty() {
                return Err(CommandError::Invalid {
                    field: "text",
                    reason: "must not be empty".into(),
                });
            }
            let mode = match o.take("mode") {
                None | Some(Value::Null) => Mode::Basic,
                Some(Value::String(m)) if m == "basic" => Mode::Basic,
                Some(Value::String(m)) if m == "plan" => Mode::Plan,
                Some(Value::String(m)) if m == "orchestrate" => Mode::Orchestrate,
                Some(Value::String(m)) => {
                    return Err(CommandError::Invalid {
                        field: "mode",
                        reason: format!(
                            "unknown mode `{m}`; expected `basic`, `plan` or `orchestrate`"
                        ),
                    });
                }
                Some(_) => {
                    return Err(CommandError::WrongType {
                        field: "mode",
                        expected: "a string",
                    });
                }
            };
            let mentions = take_mentions(&mut o)?;
            CommandBody::Submit {
                text,
                mode,
                mentions,
            }
        }
        "cancel" => CommandBody::Cancel {
            target: take_target(&mut o)?,
        },
        "resume" => CommandBody::Resume {
            target: take_target(&mut o)?,
        },
        "snapshot" => CommandBody::Snapshot {
            after_sequence: take_u64(&mut o, "after_sequence")?,
        },
        "transcript" => CommandBody::Transcript(transcript_query(&mut o)?),
        "tool_output" => tool_output(&mut o)?,
        "approve" => approve(&mut o)?,
        "checkpoints" => CommandBody::Checkpoints,
        "rewind" => rewind(&mut o)?,
        "diff" => CommandBody::Diff,
        "compact" => CommandBody::Compact,

        "story" => CommandBody::Story(transcript_query(&mut o)?),
        "models" => CommandBody::Models,
        "model" => CommandBody::Model(super::model::take_model_choice(&mut o)?),
        "child" => child(&mut o)?,
        "mcp_status" => CommandBody::McpStatus,
        _ => return Err(CommandError::UnknownType(kind)),
    };
    if let Some((field, _)) = o.0.into_iter().next() {
        return Err(CommandError::UnknownField {
            field,
            command: body.type_name(),
        });
    }
    Ok(Command {
        turn,
        command_id,
        body,
    })
}

impl Command {
    /// The command as one JSON line (no newline), in canonical field order.
    pub fn to_json(&self, ctx: &ProtocolContext) -> String {
        let mut m = Map::new();
        let mut put = |k: &str, v: Value| {
            m.insert(k.to_owned(), v);
        };
        put("schema_version", SCHEMA_VERSION.into());
        put("session", ctx.session.as_str().into());
        put("incarnation", ctx.incarnation.as_str().into());
        put("turn", self.turn.into());
        put("command_id", self.command_id.as_str().into());
        put("type", self.body.type_name().into());
        let body = match &self.body {
            CommandBody::Child { child, command } => {
                put("child", child.as_str().into());
                put("command", command.type_name().into());
                command.as_ref()
            }
            other => other,
        };
        match body {
            CommandBody::Submit {
                text,
                mode,
                mentions,
            } => {
                put("text", text.as_str().into());
                let mode = match mode {
                    Mode::Basic => "basic",
                    Mode::Plan => "plan",
                    Mode::Orchestrate => "orchestrate",
                };
                put("mode", mode.into());
                if !mentions.is_empty() {
                    put(
                        "mentions",
                        mentions.iter().map(|m| Value::from(m.as_str())).collect(),
                    );
                }
            }
            CommandBody::Cancel { target } | CommandBody::Resume { target } => {
                put("target", target.0.into())
            }
            CommandBody::Snapshot { after_sequence } => {
                put("after_sequence", (*after_sequence).into())
            }
            CommandBody::Transcript(q) | CommandBody::Story(q) => {
                put("before", q.before.into());
                put("limit", q.limit.into());
                put("forward", q.forward.into());
            }
            CommandBody::ToolOutput(q) => {
                if let Some(c) = &q.call_id {
                    put("call_id", c.0.as_str().into());
                }
                put("offset", q.offset.into());
                put("limit", q.limit.into());
            }
            CommandBody::Approve {
                target,
                call,
                decision,
                reason,
            } => {
                put("target", target.0.into());
                put("call", call.0.as_str().into());
                put("decision", decision.as_str().into());
                if let Some(r) = reason {
                    put("reason", r.as_str().into());
                }
            }
            CommandBody::Checkpoints
            | CommandBody::Diff
            | CommandBody::Compact
            | CommandBody::Models
            | CommandBody::Child { .. }
            | CommandBody::McpStatus => {}
            CommandBody::Model(choice) => {
                put("model", choice.model.as_str().into());
                if let Some(e) = choice.effort {
                    put("effort", e.as_str().into());
                }
            }
            CommandBody::Rewind {
                target,
                scope,
                on_conflict,
                dry_run,
                checkpoint,
            } => {
                put("target", target.0.into());
                put("scope", scope.as_str().into());
                put("on_conflict", on_conflict.as_str().into());
                put("dry_run", (*dry_run).into());
                if let Some(c) = checkpoint {
                    put("checkpoint", c.as_str().into());
                }
            }
        }
        // serde_json's Map without `preserve_order` sorts keys; write the canonical order by hand.
        let order = [
            "schema_version",
            "session",
            "incarnation",
            "turn",
            "command_id",
            "type",
            "child",
            "command",
            "text",
            "mode",
            "mentions",
            "target",
            "call",
            "decision",
            "reason",
            "scope",
            "on_conflict",
            "dry_run",
            "checkpoint",
            "after_sequence",
            "before",
            "call_id",
            "offset",
            "limit",
            "forward",
            "model",
            "effort",
        ];
        let mut out = String::from("{");
        for key in order {
            if let Some(v) = m.get(key) {
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.to_owned()).to_string());
                out.push(':');
                out.push_str(&v.to_string());
            }
        }
        out.push('}');
        out
    }
}

/// The paging fields shared by `transcript` and `story`.
fn transcript_query(o: &mut Fields) -> Result<TranscriptQuery, CommandError> {
    let before = take_u64(o, "before")?;
    let limit = take_u64(o, "limit")?;
    if limit == 0 || limit > u64::from(MAX_PAGE_ENTRIES) {
        return Err(CommandError::Invalid {
            field: "limit",
            reason: format!("{limit} is out of range; send 1..={MAX_PAGE_ENTRIES}"),
        });
    }
    let forward = match o.take("forward") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(_) => {
            return Err(CommandError::WrongType {
                field: "forward",
                expected: "a boolean",
            });
        }
    };
    Ok(TranscriptQuery {
        before,
        limit: limit as u32,
        forward,
    })
}
