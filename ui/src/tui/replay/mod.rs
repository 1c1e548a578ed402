//! A reopened session's earlier turns, rebuilt from the runtime's `story` pages (never from the
//! journal itself) into the same dialog entries the live events produce — user prompts,
//! commentary, tool rows with their reports, final answers, how a turn ended, rewound turns
//! marked — so one rendering path draws both. On open only the last page is asked for: the
//! last three exchanges (and an unfinished request) go into scrollback expanded; older ones
//! stay collapsed behind one line and are read with Ctrl+F / PgUp, page by page.

use std::time::Instant;

use ansa_sessions::protocol::{CommandBody, StoryPage, StoryStep, ToolPhase, TurnStory};
use ansa_sessions::{CommandId, RequestId, Role, TranscriptEntry, TranscriptQuery, TurnState};

use super::app::App;
use super::model::{Action, Entry, Notice, Pending, Purpose, Tone, ToolLine};

/// Exchanges shown expanded on open (the seed: "the last three exchanges").
pub(crate) const OPEN_EXCHANGES: usize = 3;

/// The line that marks a turn a conversation rewind took back.
pub(crate) const REWOUND_MARK: &str = "↺ rewound (taken back by /rewind): the turn below is no \
                                       longer part of the conversation";

/// One turn of a page: its transcript entries and its story.
struct Exchange<'a> {
    entries: Vec<TranscriptEntry>,
    story: Option<&'a TurnStory>,
}

impl App {
    /// Asks for a `story` page for `purpose` (its answer comes back through [`Self::on_story`]).
    pub(crate) fn ask_story(
        &mut self,
        query: TranscriptQuery,
        purpose: Purpose,
        out: &mut Vec<Action>,
    ) -> bool {
        let Some(command) = self.command(CommandBody::Story(query)) else {
            return false;
        };
        self.queries.push(Pending {
            id: command.command_id.clone(),
            query,
            purpose,
        });
        out.push(Action::Send(command));
        true
    }

    /// A `story` page arrived.
    pub(crate) fn on_story(&mut self, page: StoryPage, out: &mut Vec<Action>) {
        let Some(i) = self.queries.iter().position(|p| p.query == page.page.query) else {
            return;
        };
        match self.queries.remove(i).purpose {
            Purpose::Replay => {
                self.history.rewound.extend(rewound(&page));
                self.replay_opening(page);
            }
            Purpose::Pane(older) => {
                let StoryPage { page, turns } = page;
                self.history
                    .rewound
                    .extend(turns.iter().filter(|t| t.rewound).map(|t| t.request_id));
                self.history
                    .stories
                    .extend(turns.into_iter().map(|t| (t.request_id, t)));
                self.on_pane_page(page, older, out);
                // Only the loaded entries' turns are drawn.
                let loaded: std::collections::BTreeSet<RequestId> =
                    self.history.entries.iter().map(|e| e.request_id).collect();
                self.history.stories.retain(|id, _| loaded.contains(id));
            }
            // Answered by transcript pages (`events.rs`), never by a story page.
            Purpose::Opening | Purpose::Recover(_) => {}
        }
    }

    /// The runtime could not answer a `story` command (its journal could not be read): the
    /// opening falls back to the plain transcript, prompts and answers only. True when `id`
    /// was such a command.
    pub(crate) fn on_story_error(&mut self, id: &CommandId, out: &mut Vec<Action>) -> bool {
        let Some(i) = self.queries.iter().position(|p| &p.id == id) else {
            return false;
        };
        let fallback = match self.queries[i].purpose {
            Purpose::Replay => Purpose::Opening,
            // The pane shows the page without the turns' steps.
            Purpose::Pane(older) => Purpose::Pane(older),
            Purpose::Opening | Purpose::Recover(_) => return false,
        };
        let pending = self.queries.remove(i);
        self.ask_transcript(pending.query, fallback, out);
        true
    }

    /// Commits the last exchanges of the opening page, expanded, under one line saying that
    /// older ones are collapsed.
    fn replay_opening(&mut self, story: StoryPage) {
        let StoryPage { page, turns } = story;
        let unfinished = self
            .paused
            .as_ref()
            .map(|p| p.request)
            .or_else(|| self.task.as_ref().and_then(|t| t.follow.about()));
        let mut exchanges: Vec<Exchange<'_>> = Vec::new();
        // Grouped by turn, not by neighbours: a task queued behind a running one is journaled
        // before the running one's answer, and neighbours made each such turn two exchanges
        // with its tool rows replayed in both.
        for entry in page.entries {
            match exchanges
                .iter_mut()
                .find(|x| x.entries[0].request_id == entry.request_id)
            {
                Some(x) => x.entries.push(entry),
                None => {
                    let story = turns.iter().find(|t| t.request_id == entry.request_id);
                    exchanges.push(Exchange {
                        entries: vec![entry],
                        story,
                    });
                }
            }
        }
        // A turn cut at the page's start has no prompt: it belongs to the collapsed part.
        if exchanges
            .first()
            .is_some_and(|x| x.entries[0].role != Role::User)
        {
            exchanges.remove(0);
        }
        let keep = match exchanges.last() {
            Some(x) if Some(x.entries[0].request_id) == unfinished => OPEN_EXCHANGES + 1,
            _ => OPEN_EXCHANGES,
        };
        let skip = exchanges.len().saturating_sub(keep);
        let shown: Vec<Exchange<'_>> = exchanges.into_iter().skip(skip).collect();
        let first = shown.first().map_or(page.end, |x| x.entries[0].index);
        self.history.anchor = Some(first);
        if first > 1 {
            self.commit(Entry::Notice(Notice::new(
                Tone::Info,
                "… earlier exchanges collapsed · Ctrl+F shows them, PgUp pages back",
            )));
        }
        for exchange in shown {
            let request = exchange.entries[0].request_id;
            if let Some(task) = self.task.as_mut()
                && task.follow.about() == Some(request)
            {
                task.text = exchange.entries[0].text.clone();
            }
            let current = unfinished == Some(request);
            let now = self.now;
            for entry in replay_entries(exchange.entries, exchange.story, current, now) {
                self.commit(entry);
            }
        }
    }
}

/// The dialog entries of one turn, in the order the live events commit them: the prompt, the
/// commentary and tool rows, the answer, then how it ended. `current`: the turn still runs or
/// waits for `/resume`, which the live region shows instead of an ending.
pub(crate) fn replay_entries(
    entries: Vec<TranscriptEntry>,
    story: Option<&TurnStory>,
    current: bool,
    now: Instant,
) -> Vec<Entry> {
    let mut out = Vec::new();
    if story.is_some_and(|s| s.rewound) {
        out.push(Entry::Notice(Notice::new(Tone::Info, REWOUND_MARK)));
    }
    let mut answers = Vec::new();
    for entry in entries {
        let cut = entry.truncated;
        let replayed = match entry.role {
            Role::User => {
                out.push(Entry::User(entry.text));
                &mut out
            }
            Role::Assistant => {
                answers.push(Entry::Answer(entry.text));
                &mut answers
            }
        };
        if cut {
            replayed.push(Entry::Notice(Notice::new(
                Tone::Info,
                "(cut to fit one transcript page)",
            )));
        }
    }
    if let Some(story) = story {
        out.extend(story.steps.iter().map(|step| step_entry(step, now)));
        if story.omitted > 0 {
            out.push(Entry::Notice(Notice::new(
                Tone::Info,
                format!("… {} more steps of this turn are not shown", story.omitted),
            )));
        }
    }
    out.append(&mut answers);
    if let Some(story) = story.filter(|_| !current) {
        out.extend(ending(story));
    }
    out
}

/// How the runtime names an MCP server's tool to the model (`mcp__SERVER__TOOL`).
const MCP_PREFIX: &str = "mcp__";

/// A step as the live events would have committed it.
fn step_entry(step: &StoryStep, now: Instant) -> Entry {
    match step {
        StoryStep::Commentary { text } => Entry::Commentary(text.clone()),
        StoryStep::Tool {
            call_id,
            tool,
            target,
            status,
            report,
        } => Entry::Tool(ToolLine {
            call_id: call_id.clone(),
            // An MCP call is journaled under the name the model was offered
            // (`mcp__SERVER__TOOL`); live its row reads `mcp SERVER TOOL`, the target naming
            // both, so a replayed row must too (it read `mcp__everything__echo everything
            // echo`, cut at 60 columns).
            name: if tool.starts_with(MCP_PREFIX) {
                "mcp".to_owned()
            } else {
                tool.clone()
            },
            target: target.clone(),
            phase: *status,
            // Durations are not journaled: a replayed row shows none rather than a made-up
            // one; a call left without an outcome reads `stopped`, as when its turn ended
            // under it live.
            started: None,
            ended: (*status == ToolPhase::Started).then_some(now),
            report: report.clone(),
        }),
    }
}

/// How a finished turn ended, as the live dialog said it (a done turn needs nothing: its
/// answer is the ending).
fn ending(story: &TurnStory) -> Option<Entry> {
    let reason = story.reason.as_deref().filter(|r| !r.trim().is_empty());
    let (tone, text) = match story.state {
        TurnState::Cancelled => (Tone::Warn, "cancelled".to_owned()),
        TurnState::Failed => (
            Tone::Error,
            reason.map_or_else(|| "failed".to_owned(), |r| format!("failed: {r}")),
        ),
        TurnState::Paused => (
            Tone::Warn,
            reason.map_or_else(|| "paused".to_owned(), |r| format!("paused: {r}")),
        ),
        TurnState::Done | TurnState::Queued | TurnState::Running => return None,
    };
    Some(Entry::Notice(Notice::new(tone, text)))
}

/// Which turns of `page` a rewind took back (for the history pane's marks).
fn rewound(page: &StoryPage) -> impl Iterator<Item = RequestId> + '_ {
    page.turns
        .iter()
        .filter(|t| t.rewound)
        .map(|t| t.request_id)
}

mod pane;

#[cfg(test)]
mod tests;
