//! The control thread: every message from the frontend is handed to the core's transitions,
//! under the lock.

use std::sync::Arc;
use std::sync::mpsc::Receiver;

use ansa_sessions::protocol::{Command, CommandBody, ErrorCode};
use ansa_sessions::{Inbound, ToRuntime};

use super::core::{Decision, RewindJob, Shared};
use super::mention::MentionCheck;
use super::model::{self, ModelSwitch};

/// Runs until the input is closed and the worker has stopped. Interrupts keep arriving after
/// the frontend closed its input (a one-shot closes it right after acceptance), so the loop
/// ends only when both happened.
pub fn run(
    shared: &Arc<Shared>,
    mentions: &MentionCheck,
    models: &ModelSwitch,
    inbound: Receiver<Inbound>,
) {
    for message in inbound.iter() {
        match message {
            Inbound::Frontend(ToRuntime::Command(command)) => {
                if refused(shared, mentions, &command) || model::handles(shared, models, &command) {
                    continue;
                }
                handle(shared, command)
            }
            Inbound::Frontend(ToRuntime::Rejected { line, message }) => {
                shared.lock().error(
                    None,
                    ErrorCode::ParseError,
                    format!("input line {line}: {message}"),
                );
            }
            Inbound::Frontend(ToRuntime::InputClosed) => {
                let stopped = shared.lock().close_input();
                shared.notify();
                if stopped {
                    return;
                }
            }
            Inbound::Frontend(ToRuntime::Interrupt) => {
                shared.lock().interrupt();
                shared.notify();
            }
            Inbound::WorkerStopped => {
                if shared.lock().input_closed() {
                    return;
                }
            }
        }
    }
    shared.lock().close_input();
    shared.notify();
}

/// Refuses a new submit whose `@` mention cannot be attached, before it is accepted. The
/// files are checked outside the lock; a command already accepted replays unchecked.
fn refused(shared: &Shared, mentions: &MentionCheck, command: &Command) -> bool {
    let CommandBody::Submit {
        mentions: paths, ..
    } = &command.body
    else {
        return false;
    };
    if paths.is_empty() || shared.lock().knows(&command.command_id) {
        return false;
    }
    let Err(refusal) = mentions.check_all(paths) else {
        return false;
    };
    shared.lock().error(
        Some(command.command_id.clone()),
        ErrorCode::MentionRefused,
        refusal.to_string(),
    );
    shared.notify();
    true
}

fn handle(shared: &Shared, command: Command) {
    let id = command.command_id;
    if let CommandBody::Child { child, command } = command.body {
        super::core::child_command(shared, id, child, *command);
        shared.notify();
        return;
    }
    let mut core = shared.lock();
    match command.body {
        CommandBody::Submit {
            text,
            mode,
            mentions,
        } => core.submit(id, text, mode, mentions),
        CommandBody::Cancel { target } => core.cancel(id, target),
        CommandBody::Resume { target } => core.resume(id, target),
        CommandBody::Snapshot { .. } => core.publish_snapshot(),
        CommandBody::Transcript(query) => core.publish_transcript(query),
        CommandBody::ToolOutput(query) => core.publish_tool_output(id, query),
        CommandBody::Approve {
            target,
            call,
            decision,
            reason,
        } => core.approve(id, target, call, Decision { decision, reason }),
        CommandBody::Checkpoints => core.publish_checkpoints(),
        CommandBody::Story(query) => core.publish_story(id, query),
        CommandBody::Rewind {
            target,
            scope,
            on_conflict,
            dry_run,
            checkpoint,
        } => core.rewind(RewindJob {
            command_id: id,
            target,
            scope,
            on_conflict,
            dry_run,
            checkpoint,
        }),
        CommandBody::Diff => core.ask_diff(id),
        CommandBody::Compact => core.ask_compact(id),
        // Answered from their own thread (`model::handles`) before this match.
        CommandBody::Models | CommandBody::Model(_) => {}
        // Handled above, without the parent's lock.
        CommandBody::Child { .. } => {}
        CommandBody::McpStatus => core.mcp_status(),
    }
    drop(core);
    shared.notify();
}
