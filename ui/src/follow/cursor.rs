//! A frontend's place in one session's event stream: the command context, the latest turn
//! number, the last stream sequence seen (a jump means events were lost), the command IDs it
//! hands out, and the one catch-up snapshot that may be outstanding.

use ansa_sessions::CommandId;
use ansa_sessions::protocol::{
    Command, CommandBody, Event, EventBody, ProtocolContext, SnapshotEvent,
};

use crate::error::UiError;

/// What one event told the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Observed {
    /// Events were lost before this one (its `stream_sequence` is not the next).
    pub gap: bool,
    /// This snapshot is the answer to the outstanding catch-up request.
    pub caught_up: bool,
}

/// The cursor, created from the session's first snapshot.
#[derive(Debug, Clone)]
pub(crate) struct Cursor {
    ctx: ProtocolContext,
    kind: &'static str,
    turn: u64,
    last_sequence: u64,
    sent: u64,
    resync: Option<CommandId>,
}

impl Cursor {
    /// A cursor positioned on the first event (the snapshot); command IDs start with `kind`.
    pub fn new(kind: &'static str, first: &Event, snapshot: &SnapshotEvent) -> Self {
        Cursor {
            ctx: super::context(snapshot),
            kind,
            turn: snapshot.turn,
            last_sequence: first.stream_sequence,
            sent: 0,
            resync: None,
        }
    }

    /// The context every command echoes.
    pub fn context(&self) -> &ProtocolContext {
        &self.ctx
    }

    /// The latest turn number the runtime reported.
    pub fn turn(&self) -> u64 {
        self.turn
    }

    /// Notes one event: whether events were lost before it, the turn it reports, and whether
    /// it settles the outstanding catch-up (its snapshot, or an error answering the request).
    pub fn observe(&mut self, event: &Event) -> Observed {
        let gap = event.stream_sequence != self.last_sequence.saturating_add(1);
        self.last_sequence = self.last_sequence.max(event.stream_sequence);
        let mut caught_up = false;
        match &event.body {
            EventBody::CommandAccepted { turn, .. } | EventBody::CommandReplayed { turn, .. } => {
                self.turn = self.turn.max(*turn);
            }
            EventBody::Snapshot(s) => {
                self.turn = self.turn.max(s.turn);
                caught_up = self.resync.take().is_some();
            }
            EventBody::Error {
                command_id: Some(id),
                ..
            } if self.resync.as_ref() == Some(id) => {
                // The catch-up failed; the live stream is followed as it is.
                self.resync = None;
            }
            _ => {}
        }
        Observed { gap, caught_up }
    }

    /// A command with a fresh ID, unique across incarnations: `<kind>-<incarnation>-<n>`
    /// (command IDs are deduplicated across restarts, so a bare counter would collide with an
    /// earlier run).
    pub fn command(&mut self, body: CommandBody) -> Result<Command, UiError> {
        self.sent += 1;
        let id = format!(
            "{}-{}-{}",
            self.kind,
            self.ctx.incarnation.as_str(),
            self.sent
        );
        let command_id = CommandId::new(id)
            .map_err(|e| UiError::Protocol(format!("unusable incarnation: {e}")))?;
        Ok(Command {
            turn: self.turn,
            command_id,
            body,
        })
    }

    /// A snapshot request for the current state (not a catch-up: nothing was lost).
    pub fn snapshot(&mut self) -> Result<Command, UiError> {
        let after_sequence = self.last_sequence;
        self.command(CommandBody::Snapshot { after_sequence })
    }

    /// The snapshot request that catches up after lost events, unless one is outstanding.
    pub fn resync(&mut self) -> Result<Option<Command>, UiError> {
        if self.resync.is_some() {
            return Ok(None);
        }
        let after_sequence = self.last_sequence;
        let command = self.command(CommandBody::Snapshot { after_sequence })?;
        self.resync = Some(command.command_id.clone());
        Ok(Some(command))
    }
}
