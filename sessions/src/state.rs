//! The in-memory model of a session, rebuilt from the journal on open and updated on append.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::ids::{CallId, CommandId, RequestId, Seq};
use crate::record::{
    AcceptedAction, ApprovalDecision, Binding, Checkpoint, Mode, Record, Rewind, ToolOutcomeStatus,
    TurnState,
};
use crate::transcript::{Role, TranscriptEntry};

/// Sequence number given to records that could not be journaled (storage failed).
pub(crate) const NOT_JOURNALED: Seq = Seq(u64::MAX);

/// A tool intent that has no outcome yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenIntent {
    /// The turn.
    pub request_id: RequestId,
    /// Provider call ID.
    pub call_id: CallId,
    /// Tool name.
    pub tool: String,
    /// Record holding the intent.
    pub seq: Seq,
}

/// What the session knows about one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The turn's request ID.
    pub request_id: RequestId,
    /// The submit command that created it.
    pub command_id: CommandId,
    /// The user's text.
    pub text: String,
    /// Its mode.
    pub mode: Mode,
    /// Files its prompt attaches as reads (`@` mentions).
    pub mentions: Vec<crate::protocol::MentionPath>,
    /// Current state.
    pub state: TurnState,
    /// Reason attached to the last state change.
    pub reason: Option<String>,
    /// The final answer once done.
    pub final_text: Option<String>,
    /// A tool outcome was recorded as `effect_unknown`: Resume is blocked.
    pub effect_unknown: bool,
    /// Tool outcomes recorded for it.
    pub outcomes: u64,
    /// Last record about this turn.
    pub last_seq: Seq,
    /// The record that accepted it.
    pub first_seq: Seq,
}

/// Where one call's approval stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalStanding {
    /// Asked, not yet decided.
    Pending {
        /// The action digest asked about.
        digest: String,
        /// What it does, in words.
        summary: String,
    },
    /// Decided by an `approve` command.
    Decided {
        /// The decision.
        decision: ApprovalDecision,
        /// The command that decided.
        command_id: CommandId,
    },
}

/// The session model: turns, command IDs, open tool intents, transcript.
#[derive(Debug, Default)]
pub struct SessionState {
    binding: Option<Binding>,
    rebinding: Option<crate::rebinding::Rebinding>,
    turns: BTreeMap<RequestId, Turn>,
    commands: HashMap<CommandId, (RequestId, AcceptedAction)>,
    open_intents: BTreeMap<(RequestId, CallId), OpenIntent>,
    transcript: Vec<TranscriptEntry>,
    epoch: u64,
    provider_items: u64,
    records: u64,
    usage: UsageTotals,
    approvals: BTreeMap<(RequestId, CallId), ApprovalStanding>,
    approved_for_session: HashSet<String>,
    checkpoints: Vec<(Seq, Checkpoint)>,
    rewinds: Vec<(Seq, Rewind)>,
    rewound: BTreeSet<RequestId>,
    intent_tools: BTreeMap<RequestId, BTreeSet<String>>,
}

/// Token usage summed over the session's generations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageTotals {
    /// Generations that reported usage.
    pub generations: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cached input tokens.
    pub cached_tokens: u64,
}

impl SessionState {
    /// The binding, once recorded.
    pub fn binding(&self) -> Option<&Binding> {
        self.binding.as_ref()
    }

    /// The latest `rebinding`, if the model was ever changed.
    pub fn rebinding(&self) -> Option<&crate::rebinding::Rebinding> {
        self.rebinding.as_ref()
    }

    /// The model in force: the latest rebinding's, else the initial binding's.
    pub fn model_in_force(&self) -> Option<&str> {
        match (&self.rebinding, &self.binding) {
            (Some(r), _) => Some(&r.to.model),
            (None, Some(b)) => Some(&b.requested_model),
            (None, None) => None,
        }
    }

    /// All turns in request order.
    pub fn turns(&self) -> impl Iterator<Item = &Turn> {
        self.turns.values()
    }

    /// One turn.
    pub fn turn(&self, id: RequestId) -> Option<&Turn> {
        self.turns.get(&id)
    }

    /// The newest turn.
    pub fn latest_turn(&self) -> Option<&Turn> {
        self.turns.values().next_back()
    }

    /// The request ID the next accepted submit gets.
    pub fn next_request_id(&self) -> RequestId {
        RequestId(self.turns.keys().next_back().map_or(1, |r| r.0 + 1))
    }

    /// The accepted command with this ID, if any.
    pub fn command(&self, id: &CommandId) -> Option<(RequestId, &AcceptedAction)> {
        self.commands.get(id).map(|(r, a)| (*r, a))
    }

    /// Tool intents without an outcome, in order.
    pub fn open_intents(&self) -> impl Iterator<Item = &OpenIntent> {
        self.open_intents.values()
    }

    /// True when `id` is paused, has no unknown effect and no open intent.
    pub fn resume_available(&self, id: RequestId) -> bool {
        self.turns.get(&id).is_some_and(|t| {
            t.state == TurnState::Paused
                && !t.effect_unknown
                && !self
                    .open_intents
                    .values()
                    .any(|i| i.request_id == id && i.tool != crate::child::DELEGATE_TOOL)
        })
    }

    /// Where the approval of `call` in turn `request` stands (the latest request for it).
    pub fn approval(&self, request: RequestId, call: &CallId) -> Option<&ApprovalStanding> {
        self.approvals.get(&(request, call.clone()))
    }

    /// The approval turn `request` waits for, if any: its call and standing.
    pub fn pending_approval(&self, request: RequestId) -> Option<(&CallId, &ApprovalStanding)> {
        self.approvals
            .range((request, CallId(String::new()))..)
            .take_while(|((r, _), _)| *r == request)
            .find(|(_, s)| matches!(s, ApprovalStanding::Pending { .. }))
            .map(|((_, c), s)| (c, s))
    }

    /// Whether the user approved the action with this digest for the whole session.
    pub fn approved_for_session(&self, digest: &str) -> bool {
        self.approved_for_session.contains(digest)
    }

    /// The transcript projection (user text and final answers).
    pub fn transcript(&self) -> &[TranscriptEntry] {
        &self.transcript
    }

    /// Checkpoint records in journal order, with their sequence numbers.
    pub fn checkpoints(&self) -> &[(Seq, Checkpoint)] {
        &self.checkpoints
    }

    /// Rewind records in journal order, with their sequence numbers.
    pub fn rewinds(&self) -> &[(Seq, Rewind)] {
        &self.rewinds
    }

    /// The tools turn `id` journaled an intent for.
    pub fn intent_tools(&self, id: RequestId) -> impl Iterator<Item = &str> {
        self.intent_tools
            .get(&id)
            .into_iter()
            .flat_map(|s| s.iter().map(String::as_str))
    }

    /// True when a conversation rewind took turn `id` back.
    pub fn is_rewound(&self, id: RequestId) -> bool {
        self.rewound.contains(&id)
    }

    /// The last `before_rewind` checkpoint when no `rewind` record followed it: a rewind was
    /// interrupted (the engine's recovery decides whether its restore happened).
    pub fn interrupted_rewind(&self) -> Option<&(Seq, Checkpoint)> {
        let last = self
            .checkpoints
            .iter()
            .rev()
            .find(|(_, c)| c.phase == crate::record::CheckpointPhase::BeforeRewind)?;
        let resolved = self.rewinds.last().is_some_and(|(seq, _)| *seq > last.0);
        (!resolved).then_some(last)
    }

    /// Current context epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Token usage summed over every generation that reported it.
    pub fn usage(&self) -> UsageTotals {
        self.usage
    }

    /// Provider items recorded.
    pub fn provider_items(&self) -> u64 {
        self.provider_items
    }

    /// Data records applied (part headers excluded).
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Counts a provider item without decoding it (the open path skips their bodies).
    pub(crate) fn count_provider_item(&mut self) {
        self.provider_items += 1;
        self.records += 1;
    }

    /// Applies one record.
    pub(crate) fn apply(&mut self, seq: Seq, record: &Record) {
        self.records += 1;
        match record {
            Record::PartHeader(_) => self.records -= 1,
            Record::Binding(b) => self.binding = Some(b.clone()),
            Record::CommandAccepted(c) => {
                self.commands
                    .insert(c.command_id.clone(), (c.request_id, c.action.clone()));
                if let AcceptedAction::Submit {
                    text,
                    mode,
                    mentions,
                } = &c.action
                {
                    self.turns.insert(
                        c.request_id,
                        Turn {
                            request_id: c.request_id,
                            command_id: c.command_id.clone(),
                            text: text.clone(),
                            mode: *mode,
                            mentions: mentions.clone(),
                            state: TurnState::Queued,
                            reason: None,
                            final_text: None,
                            effect_unknown: false,
                            outcomes: 0,
                            last_seq: seq,
                            first_seq: seq,
                        },
                    );
                    self.push_entry(c.request_id, Role::User, text);
                } else {
                    self.touch(c.request_id, seq);
                }
            }
            Record::ProviderItem(p) => {
                self.provider_items += 1;
                self.touch(p.request_id, seq);
            }
            Record::ContextEpoch(e) => {
                self.epoch = e.epoch;
                if let Some(from) = e.rewound {
                    // Only turns that exist now: later submits are the new conversation.
                    self.rewound
                        .extend(self.turns.range(from..).map(|(id, _)| *id));
                    for entry in &mut self.transcript {
                        entry.rewound |= self.rewound.contains(&entry.request_id);
                    }
                }
            }
            Record::Checkpoint(c) => {
                self.checkpoints.push((seq, c.clone()));
                self.touch(c.request_id, seq);
            }
            Record::Rewind(r) => self.rewinds.push((seq, r.clone())),
            Record::Rebinding(r) => self.rebinding = Some(r.clone()),
            // Read back by recovery only (`McpTools` in the journal, issue 45).
            Record::McpTools(_) => {}
            Record::ToolIntent(i) => {
                self.intent_tools
                    .entry(i.request_id)
                    .or_default()
                    .insert(i.tool.clone());
                self.open_intents.insert(
                    (i.request_id, i.call_id.clone()),
                    OpenIntent {
                        request_id: i.request_id,
                        call_id: i.call_id.clone(),
                        tool: i.tool.clone(),
                        seq,
                    },
                );
                self.touch(i.request_id, seq);
            }
            Record::ToolOutcome(o) => {
                self.open_intents.remove(&(o.request_id, o.call_id.clone()));
                // A call that ends while waiting (cancelled) is no longer asked about.
                let key = (o.request_id, o.call_id.clone());
                if matches!(
                    self.approvals.get(&key),
                    Some(ApprovalStanding::Pending { .. })
                ) {
                    self.approvals.remove(&key);
                }
                if let Some(t) = self.turns.get_mut(&o.request_id) {
                    t.effect_unknown |= o.status == ToolOutcomeStatus::EffectUnknown;
                    t.outcomes += 1;
                    t.last_seq = seq;
                }
            }
            Record::TurnState(s) => {
                if let Some(t) = self.turns.get_mut(&s.request_id) {
                    t.state = s.state;
                    t.reason = s.reason.clone();
                    t.last_seq = seq;
                }
            }
            Record::Usage(u) => {
                self.usage.generations += 1;
                self.usage.input_tokens += u.input_tokens;
                self.usage.output_tokens += u.output_tokens;
                self.usage.cached_tokens += u.cached_tokens.unwrap_or(0);
            }
            Record::ApprovalRequested(a) => {
                let standing = ApprovalStanding::Pending {
                    digest: a.digest.clone(),
                    summary: a.summary.clone(),
                };
                self.approvals
                    .insert((a.request_id, a.call_id.clone()), standing);
                self.touch(a.request_id, seq);
            }
            Record::ApprovalDecided(d) => {
                if d.decision == ApprovalDecision::Session {
                    self.approved_for_session.insert(d.digest.clone());
                }
                let standing = ApprovalStanding::Decided {
                    decision: d.decision,
                    command_id: d.command_id.clone(),
                };
                self.approvals
                    .insert((d.request_id, d.call_id.clone()), standing);
                self.touch(d.request_id, seq);
            }
            Record::Done(d) => {
                if let Some(t) = self.turns.get_mut(&d.request_id) {
                    t.state = TurnState::Done;
                    t.reason = None;
                    t.final_text = Some(d.final_text.clone());
                    t.last_seq = seq;
                }
                self.push_entry(d.request_id, Role::Assistant, &d.final_text);
            }
        }
    }

    fn touch(&mut self, id: RequestId, seq: Seq) {
        if let Some(t) = self.turns.get_mut(&id) {
            t.last_seq = seq;
        }
    }

    fn push_entry(&mut self, request_id: RequestId, role: Role, text: &str) {
        self.transcript.push(TranscriptEntry {
            rewound: self.rewound.contains(&request_id),
            index: self.transcript.len() as u64 + 1,
            request_id,
            role,
            text: text.to_owned(),
            truncated: false,
        });
    }
}
