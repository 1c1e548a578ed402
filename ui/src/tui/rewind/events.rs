//! The rewind screens and the session protocol: the commands they send (`checkpoints`, a
//! dry-run `rewind`, the real one) and what the answers (`checkpoints`, `rewind_plan`,
//! `rewind_done`, `error`) do to them. Wire values become the screens' view models here.

use std::time::{SystemTime, UNIX_EPOCH};

use ansa_sessions::protocol::{
    CheckpointItem, CommandBody, NotRestorable, PathKind as WirePathKind, PlannedPath as WirePath,
    RewindDone, RewindPlan,
};
use ansa_sessions::rewind::{ManifestHex, OnConflict, RewindScope};
use ansa_sessions::{CommandId, RequestId};

use super::super::app::{Action, App, Entry, Notice, Tone};
use super::model::{
    ConflictChoice, PathKind, PlanView, PlannedPath, PromptItem, Scope, Unrestorable,
};
use super::{Step, Wait};
use crate::sanitize::exact;

/// What the screens ask the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ask {
    /// The session's prompts.
    List,
    /// The plan of a rewind, changing nothing.
    Plan {
        /// The turn to return to.
        target: RequestId,
        /// What goes back.
        scope: Scope,
        /// The point before a rewind, to undo that rewind.
        undo: Option<ManifestHex>,
    },
    /// The rewind itself.
    Apply {
        /// The turn to return to.
        target: RequestId,
        /// What goes back.
        scope: Scope,
        /// What happens to the conflicts.
        choice: ConflictChoice,
        /// The point before a rewind, to undo that rewind.
        undo: Option<ManifestHex>,
    },
}

impl Ask {
    fn wait(&self) -> Wait {
        match self {
            Ask::List => Wait::List,
            Ask::Plan { .. } => Wait::Plan,
            Ask::Apply { .. } => Wait::Apply,
        }
    }

    fn body(self) -> CommandBody {
        match self {
            Ask::List => CommandBody::Checkpoints,
            Ask::Plan {
                target,
                scope,
                undo,
            } => CommandBody::Rewind {
                target,
                scope: wire_scope(scope),
                // A dry run changes nothing; the plan lists the conflicts either way.
                on_conflict: OnConflict::Refuse,
                dry_run: true,
                checkpoint: undo,
            },
            Ask::Apply {
                target,
                scope,
                choice,
                undo,
            } => CommandBody::Rewind {
                target,
                scope: wire_scope(scope),
                on_conflict: match choice {
                    ConflictChoice::KeepTheirs => OnConflict::Keep,
                    ConflictChoice::TakeCheckpoint => OnConflict::Take,
                },
                dry_run: false,
                checkpoint: undo,
            },
        }
    }
}

fn wire_scope(scope: Scope) -> RewindScope {
    match scope {
        Scope::Both => RewindScope::Both,
        Scope::Code => RewindScope::Code,
        Scope::Conversation => RewindScope::Conversation,
    }
}

fn scope_of(scope: RewindScope) -> Scope {
    match scope {
        RewindScope::Both => Scope::Both,
        RewindScope::Code => Scope::Code,
        RewindScope::Conversation => Scope::Conversation,
    }
}

/// How long ago `time_ms` was at `now_ms`, as the list shows it; `—` for a turn without a
/// checkpoint (it changed nothing).
pub(crate) fn ago(time_ms: Option<u64>, now_ms: u64) -> String {
    let Some(at) = time_ms else {
        return "—".to_owned();
    };
    let s = now_ms.saturating_sub(at) / 1000;
    match s {
        0..10 => "just now".to_owned(),
        10..60 => format!("{s} s ago"),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

/// A `checkpoints` item as the list shows it, its time relative to `now_ms`.
pub(crate) fn prompt_item(item: CheckpointItem, now_ms: u64) -> PromptItem {
    PromptItem {
        request: item.request_id,
        turn: item.turn,
        time: ago(item.time, now_ms),
        prompt: item.prompt,
        files: item.files_changed,
        more_files: 0,
        restorable: item.restorable,
        rewound: item.rewound,
        undo: item.checkpoint,
    }
}

fn planned(p: WirePath) -> PlannedPath {
    PlannedPath {
        path: p.path,
        kind: match p.kind {
            WirePathKind::File => PathKind::File,
            WirePathKind::Dir => PathKind::Dir,
            WirePathKind::Symlink => PathKind::Symlink,
        },
        added: p.added,
        removed: p.removed,
    }
}

fn unrestorable(u: NotRestorable) -> Unrestorable {
    Unrestorable {
        path: u.path,
        reason: u.reason,
    }
}

/// A `rewind_plan` as the plan screen shows it.
pub(crate) fn plan_view(plan: RewindPlan) -> PlanView {
    PlanView {
        restore: plan.restore.into_iter().map(planned).collect(),
        recreate: plan.recreate.into_iter().map(planned).collect(),
        delete: plan.delete.into_iter().map(planned).collect(),
        conflicts: plan.conflicts,
        not_restorable: plan.not_restorable.into_iter().map(unrestorable).collect(),
        unkept: plan.unkept,
        rewound: plan.rewound,
        changed_not_restored: plan
            .changed_not_restored
            .into_iter()
            .map(|c| (c.path, c.paths))
            .collect(),
    }
}

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl App {
    /// Sends `ask` and notes that the screens wait for its answer.
    pub(crate) fn send_rewind(&mut self, ask: Ask, out: &mut Vec<Action>) {
        let wait = ask.wait();
        let Some(command) = self.command(ask.body()) else {
            self.say(
                Tone::Info,
                "the session is still opening; try again in a moment",
            );
            return;
        };
        if let Some(rewind) = self.rewind.as_mut() {
            rewind.waiting = Some((command.command_id.clone(), wait));
        }
        out.push(Action::Send(command));
    }

    /// `checkpoints`: the history pane's marks follow it, and an open list shows it.
    pub(crate) fn on_checkpoints(&mut self, items: Vec<CheckpointItem>) {
        let now = wall_ms();
        let items: Vec<PromptItem> = items.into_iter().map(|i| prompt_item(i, now)).collect();
        self.on_prompts(items);
    }

    /// The session's prompts arrived (newest first).
    pub(crate) fn on_prompts(&mut self, items: Vec<PromptItem>) {
        self.history.marks_asked = true;
        // The point before a rewind shares its turn's request; only the turn's own item says
        // whether the turn was taken back.
        for item in items.iter().filter(|i| i.undo.is_none()) {
            if item.rewound {
                self.history.rewound.insert(item.request);
            } else {
                self.history.rewound.remove(&item.request);
            }
        }
        let Some(rewind) = self.rewind.as_mut().filter(|r| r.waits_for(Wait::List)) else {
            return;
        };
        rewind.waiting = None;
        rewind.selected = 0;
        rewind.list_top.set(0);
        rewind.items = items;
    }

    /// `rewind_plan`: the plan screen shows it when it is the plan of the chosen prompt and
    /// scope (a real rewind publishes its plan too, just before it applies it).
    pub(crate) fn on_rewind_plan(&mut self, plan: RewindPlan) {
        let Some(rewind) = self.rewind.as_mut() else {
            return;
        };
        let ours = rewind.step == Step::Plan
            && (rewind.waits_for(Wait::Plan) || rewind.waits_for(Wait::Apply))
            && rewind.chosen().is_some_and(|i| i.request == plan.target)
            && wire_scope(rewind.scope) == plan.scope;
        if !ours {
            return;
        }
        if rewind.waits_for(Wait::Plan) {
            rewind.waiting = None;
            rewind.set_plan(Some(plan_view(plan)));
        }
    }

    /// `rewind_done`: the screens close, the dialog says what was restored, the rewound turns
    /// are marked in the history pane and the prompt comes back to the input.
    pub(crate) fn on_rewind_done(&mut self, done: RewindDone) {
        let scope = scope_of(done.scope);
        let chosen = self
            .rewind
            .as_ref()
            .filter(|r| r.waits_for(Wait::Apply))
            .and_then(|r| r.chosen())
            .filter(|i| i.request == done.target);
        let turn = chosen.map(|i| i.turn);
        let undid = chosen.is_some_and(|i| i.undo.is_some());
        if self
            .rewind
            .as_ref()
            .is_some_and(|r| r.waits_for(Wait::Apply))
        {
            self.rewind = None;
        }
        if done.rolled_back {
            self.commit(Entry::Notice(Notice::new(
                Tone::Warn,
                rolled_back_text(&done),
            )));
            return;
        }
        self.history.rewound.extend(done.rewound.iter().copied());
        let what = match turn {
            Some(turn) if undid => format!("undid the rewind to turn {turn} (code only)"),
            Some(turn) => format!("rewound to before turn {turn} ({})", scope.label()),
            None => format!(
                "rewound to before request {} ({})",
                done.target,
                scope.label()
            ),
        };
        let mut text = what;
        if scope.code() {
            text.push_str(&format!(
                ": {} restored, {} recreated, {} deleted",
                done.restored, done.recreated, done.deleted
            ));
            if !done.kept.is_empty() {
                let kept: Vec<String> = done.kept.iter().map(|p| exact(p).into_owned()).collect();
                text.push_str(&format!("; kept as they were: {}", kept.join(", ")));
            }
        }
        if scope.conversation() {
            let n = done.rewound.len().max(1);
            text.push_str(&format!(
                "; {n} turn{} of the conversation taken back",
                if n == 1 { "" } else { "s" }
            ));
        }
        if !undid {
            text.push_str(" — the prompt is back in the input");
        }
        self.commit(Entry::Notice(Notice::new(Tone::Info, text)));
        if !undid {
            self.input.restore(&done.prompt);
        }
    }

    /// An error answering a command of the screens; true when it was one of theirs. The
    /// message is shown on the screen; after a refused rewind the plan is made again, since
    /// the files may have changed.
    pub(crate) fn on_rewind_error(
        &mut self,
        id: &CommandId,
        message: &str,
        out: &mut Vec<Action>,
    ) -> bool {
        let Some(rewind) = self.rewind.as_mut() else {
            return false;
        };
        let Some((_, wait)) = rewind.waiting.take_if(|(w, _)| w == id) else {
            return false;
        };
        match wait {
            Wait::List | Wait::Plan => rewind.problem = Some(message.to_owned()),
            Wait::Apply => {
                rewind.problem = Some(format!("nothing was rewound: {message}"));
                rewind.choice = None;
                let ask = rewind.chosen().map(|item| Ask::Plan {
                    target: item.request,
                    scope: rewind.scope,
                    undo: item.undo.clone(),
                });
                rewind.set_plan(None);
                if let Some(ask) = ask {
                    self.send_rewind(ask, out);
                }
            }
        }
        true
    }
}

/// The notice of a restore another process wrote during: nothing was rewound, and each path
/// it created again has two versions.
fn rolled_back_text(done: &RewindDone) -> String {
    let both: Vec<String> = done
        .conflicts
        .iter()
        .map(|c| {
            format!(
                "{} (theirs; the version from before the restore is now {})",
                exact(&c.path),
                exact(&c.set_aside)
            )
        })
        .collect();
    let mut text = format!(
        "rewind to before request {} rolled back: another process wrote the workspace during the restore, so nothing was rewound",
        done.target
    );
    if !both.is_empty() {
        text.push_str(&format!(
            "; both versions kept of {} — compare them, then rewind again",
            both.join(", ")
        ));
    }
    text
}
