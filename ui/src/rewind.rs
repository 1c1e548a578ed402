//! `ansa --rewind [N]` in line mode: lists a session's checkpoints numbered by turn, or shows
//! the plan of a rewind to before turn N, asks (or takes `--yes`) and rewinds. Every path,
//! prompt and message comes from the session and the workspace, so all of it is sanitised.

use std::io::{BufRead, Write};

use ansa_sessions::protocol::{
    CheckpointItem, CommandBody, EventBody, PlannedPath, RewindDone, RewindPlan,
};
use ansa_sessions::{CommandId, OnConflict, RequestId, RewindScope};

use crate::SessionLink;
use crate::error::UiError;
use crate::follow::{Cursor, first_snapshot};
use crate::sanitize::{exact, flowing};
use crate::{EXIT_OK, EXIT_TASK_FAILED, ToRuntime};

/// Exit code when a rewind needs `--yes` and stdin is not a terminal.
pub const EXIT_USAGE: u8 = 2;

/// The point `--rewind` was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewindPick {
    /// `N`: to before turn N.
    Turn(u64),
    /// `undo` (the latest rewind) or `undo-K` (the K-th rewind of the session, as the list
    /// numbers them): the workspace back to just before that rewind (code only).
    Undo(Option<u64>),
}

/// Parses a `--rewind` value: `N` (from 1), `undo` or `undo-K` (from 1).
pub fn parse_rewind_pick(value: &str) -> Result<RewindPick, String> {
    let number = |s: &str| s.parse::<u64>().ok().filter(|n| *n >= 1);
    let pick = match value.strip_prefix("undo") {
        Some("") => Some(RewindPick::Undo(None)),
        Some(rest) => rest
            .strip_prefix('-')
            .and_then(number)
            .map(|k| RewindPick::Undo(Some(k))),
        None => number(value).map(RewindPick::Turn),
    };
    pick.ok_or_else(|| {
        format!("{value:?} is not a turn number (1, 2, …), `undo` or `undo-K` (K from 1)")
    })
}

/// What `--rewind` was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RewindRequest {
    /// Rewind to before a turn or undo a rewind; `None` lists the checkpoints.
    pub pick: Option<RewindPick>,
    /// What to take back.
    pub scope: RewindScope,
    /// What to do with paths something else changed.
    pub on_conflict: OnConflict,
    /// Rewind without asking.
    pub yes: bool,
}

/// Runs `--rewind`: `answers` is the terminal to ask on (`None` when stdin is not one).
/// Returns the exit code: 0 listed or rewound, 1 refused or declined, 2 `--yes` needed.
pub fn run_rewind(
    link: SessionLink,
    request: RewindRequest,
    answers: Option<&mut dyn BufRead>,
    mut output: impl Write,
    mut status: impl Write,
) -> Result<u8, UiError> {
    let (first, snapshot) = first_snapshot(&link)?;
    let mut session = Session {
        cursor: Cursor::new("rewind", &first, &snapshot),
        link,
    };
    let code = session.run(request, answers, &mut output, &mut status);
    let _ = session.link.commands.send(ToRuntime::InputClosed);
    // The runtime stops once its input is closed and nothing is queued.
    while session.link.events.recv().is_ok() {}
    code
}

struct Session {
    cursor: Cursor,
    link: SessionLink,
}

/// What the runtime answered a command with.
enum Answer {
    Event(EventBody),
    Error(String),
}

fn write_err(e: std::io::Error) -> UiError {
    UiError::Io {
        what: "writing the rewind",
        source: e,
    }
}

impl Session {
    fn send(&mut self, body: CommandBody) -> Result<CommandId, UiError> {
        let command = self.cursor.command(body)?;
        let id = command.command_id.clone();
        self.link
            .commands
            .send(ToRuntime::Command(command))
            .map_err(|_| UiError::stopped("before taking a command"))?;
        Ok(id)
    }

    /// Waits for the event `wanted` picks, or an error answering `id`.
    fn wait(
        &mut self,
        id: &CommandId,
        wanted: impl Fn(&EventBody) -> bool,
    ) -> Result<Answer, UiError> {
        loop {
            let event = self
                .link
                .events
                .recv()
                .map_err(|_| UiError::stopped("during the rewind"))?;
            self.cursor.observe(&event);
            match event.body {
                EventBody::Error {
                    command_id: Some(c),
                    message,
                    ..
                } if c == *id => return Ok(Answer::Error(message)),
                body if wanted(&body) => return Ok(Answer::Event(body)),
                _ => {}
            }
        }
    }

    fn run(
        &mut self,
        request: RewindRequest,
        answers: Option<&mut dyn BufRead>,
        output: &mut dyn Write,
        status: &mut dyn Write,
    ) -> Result<u8, UiError> {
        let id = self.send(CommandBody::Checkpoints)?;
        let items = match self.wait(&id, |b| matches!(b, EventBody::Checkpoints { .. }))? {
            Answer::Event(EventBody::Checkpoints { items }) => items,
            Answer::Event(_) => Vec::new(),
            Answer::Error(message) => return refused(status, &message),
        };
        let Some(pick) = request.pick else {
            write_list(output, &items).map_err(write_err)?;
            return Ok(EXIT_OK);
        };
        let (target, checkpoint, scope, label) = match pick {
            RewindPick::Turn(turn) => {
                if !items
                    .iter()
                    .any(|i| i.turn == turn && i.checkpoint.is_none())
                {
                    let known = match items
                        .iter()
                        .filter(|i| i.checkpoint.is_none())
                        .map(|i| i.turn)
                        .max()
                    {
                        Some(max) => format!("turns 1..={max} exist"),
                        None => "it has no turns yet".to_owned(),
                    };
                    return refused(
                        status,
                        &format!("this session has no turn {turn} ({known})"),
                    );
                }
                let label = format!("Rewind to before turn {turn}");
                (RequestId(turn), None, request.scope, label)
            }
            RewindPick::Undo(k) => {
                // Oldest first: undo-K is the K-th rewind of the session.
                let undos: Vec<&CheckpointItem> = items
                    .iter()
                    .filter(|i| i.checkpoint.is_some())
                    .rev()
                    .collect();
                let at = match k {
                    Some(k) => usize::try_from(k - 1).unwrap_or(usize::MAX),
                    None => undos.len().saturating_sub(1),
                };
                let Some(item) = undos.get(at) else {
                    let known = match undos.len() {
                        0 => "this session has no rewind to undo".to_owned(),
                        n => format!("this session has undo-1..=undo-{n}"),
                    };
                    return refused(status, &known);
                };
                let label = format!(
                    "Undo the rewind to turn {} (undo-{}: the workspace as just before it)",
                    item.turn,
                    at + 1
                );
                (
                    item.request_id,
                    item.checkpoint.clone(),
                    RewindScope::Code,
                    label,
                )
            }
        };
        let rewind = |dry_run| CommandBody::Rewind {
            target,
            scope,
            on_conflict: request.on_conflict,
            dry_run,
            checkpoint: checkpoint.clone(),
        };
        let id = self.send(rewind(true))?;
        let plan = match self.wait(&id, |b| matches!(b, EventBody::RewindPlan(_)))? {
            Answer::Event(EventBody::RewindPlan(p)) => p,
            Answer::Event(_) => return refused(status, "the runtime sent no plan"),
            Answer::Error(message) => return refused(status, &message),
        };
        write_plan(output, &plan).map_err(write_err)?;
        if !plan.conflicts.is_empty() && request.on_conflict == OnConflict::Refuse {
            return refused(
                status,
                "files changed after that turn by something other than this session (listed as conflicts); nothing changed. Choose --on-conflict keep (leave them) or take (the checkpoint's version wins)",
            );
        }
        if !request.yes {
            let Some(answers) = answers else {
                say(
                    status,
                    "stdin is not a terminal: add --yes to rewind; nothing changed",
                )?;
                return Ok(EXIT_USAGE);
            };
            write!(status, "{label}? [y/N] ").map_err(write_err)?;
            status.flush().map_err(write_err)?;
            let mut line = String::new();
            let read = answers.read_line(&mut line).map_err(|e| UiError::Io {
                what: "reading the answer",
                source: e,
            })?;
            if read == 0 || !matches!(line.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
                say(status, "nothing changed")?;
                return Ok(EXIT_TASK_FAILED);
            }
        }
        let id = self.send(rewind(false))?;
        let done = loop {
            match self.wait(&id, |b| matches!(b, EventBody::RewindDone(_)))? {
                Answer::Event(EventBody::RewindDone(done)) => break done,
                Answer::Event(_) => {}
                Answer::Error(message) => return refused(status, &message),
            }
        };
        write_done(output, &done).map_err(write_err)?;
        Ok(match done.rolled_back {
            true => EXIT_TASK_FAILED,
            false => EXIT_OK,
        })
    }
}

fn say(status: &mut dyn Write, line: &str) -> Result<(), UiError> {
    writeln!(status, "ansa: {}", exact(line)).map_err(write_err)
}

fn refused(status: &mut dyn Write, message: &str) -> Result<u8, UiError> {
    say(status, message)?;
    Ok(EXIT_TASK_FAILED)
}

/// `YYYY-MM-DD HH:MM UTC` of milliseconds since the Unix epoch.
fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days to a civil date (Howard Hinnant's algorithm), for the proleptic Gregorian calendar.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

fn files(paths: &[String]) -> String {
    let shown: Vec<String> = paths
        .iter()
        .take(6)
        .map(|p| exact(p).into_owned())
        .collect();
    match paths.len() {
        0 => "no files".to_owned(),
        n if n > 6 => format!("{} and {} more", shown.join(", "), n - 6),
        _ => shown.join(", "),
    }
}

fn write_list(out: &mut dyn Write, items: &[CheckpointItem]) -> std::io::Result<()> {
    if items.is_empty() {
        return writeln!(out, "no checkpoints: this session has no turns yet");
    }
    writeln!(
        out,
        "Rewind to before turn N with: ansa --rewind N; undo a rewind with: ansa --rewind undo-K (newest first)"
    )?;
    let mut undo = items.iter().filter(|i| i.checkpoint.is_some()).count();
    for item in items {
        let time = item.time.map_or_else(|| "-".to_owned(), utc);
        let mut marks = Vec::new();
        if item.rewound {
            marks.push("rewound");
        }
        if !item.restorable {
            marks.push("code not restorable");
        }
        let marks = match marks.is_empty() {
            true => String::new(),
            false => format!(" [{}]", marks.join(", ")),
        };
        match &item.checkpoint {
            Some(_) => {
                writeln!(
                    out,
                    "{:>6}  {time}  before the rewind to turn {} (code only){marks}",
                    format!("undo-{undo}"),
                    item.turn
                )?;
                undo = undo.saturating_sub(1);
            }
            None => writeln!(
                out,
                "{:>6}  {time}  {}{marks}\n          changed: {}",
                item.turn,
                exact(&item.prompt),
                files(&item.files_changed)
            )?,
        }
    }
    Ok(())
}

fn paths(out: &mut dyn Write, what: &str, paths: &[PlannedPath]) -> std::io::Result<()> {
    for p in paths {
        let counts = match (p.added, p.removed) {
            (0, 0) => String::new(),
            (a, r) => format!(" (+{a} −{r})"),
        };
        let kind = match p.kind {
            ansa_sessions::protocol::PathKind::File => "",
            ansa_sessions::protocol::PathKind::Dir => "/",
            ansa_sessions::protocol::PathKind::Symlink => " (symlink)",
        };
        writeln!(out, "  {what:<8} {}{kind}{counts}", exact(&p.path))?;
    }
    Ok(())
}

fn write_plan(out: &mut dyn Write, plan: &RewindPlan) -> std::io::Result<()> {
    writeln!(
        out,
        "Rewind to before turn {} ({}):",
        plan.target, plan.scope
    )?;
    paths(out, "restore", &plan.restore)?;
    paths(out, "recreate", &plan.recreate)?;
    paths(out, "delete", &plan.delete)?;
    if plan.restore.is_empty() && plan.recreate.is_empty() && plan.delete.is_empty() {
        writeln!(out, "  no file changes")?;
    }
    for c in &plan.conflicts {
        writeln!(
            out,
            "  conflict {} (changed outside this session)",
            exact(c)
        )?;
    }
    for n in &plan.not_restorable {
        writeln!(
            out,
            "  not restorable {}: {}",
            exact(&n.path),
            exact(&n.reason)
        )?;
    }
    for c in &plan.changed_not_restored {
        writeln!(
            out,
            "  changed, not restored {} ({} path{}: version control and ansa state are never restored)",
            exact(&c.path),
            c.paths,
            if c.paths == 1 { "" } else { "s" }
        )?;
    }
    for u in &plan.unkept {
        writeln!(
            out,
            "  unkept   {} (its current version was never kept: replacing it cannot be undone)",
            exact(u)
        )?;
    }
    if !plan.rewound.is_empty() {
        let turns: Vec<String> = plan.rewound.iter().map(|r| r.to_string()).collect();
        writeln!(out, "  conversation: turns {} taken back", turns.join(", "))?;
    }
    Ok(())
}

fn write_done(out: &mut dyn Write, done: &RewindDone) -> std::io::Result<()> {
    if done.rolled_back {
        writeln!(
            out,
            "Rewind to before turn {} rolled back: another process wrote the workspace during the restore; nothing was rewound.",
            done.target
        )?;
        for c in &done.conflicts {
            writeln!(
                out,
                "  conflict {} (the other process's version; the version from before the restore is now {})",
                exact(&c.path),
                exact(&c.set_aside)
            )?;
        }
        return writeln!(out, "Compare the versions, then rewind again.");
    }
    writeln!(
        out,
        "Rewound to before turn {}: {} restored, {} recreated, {} deleted.",
        done.target, done.restored, done.recreated, done.deleted
    )?;
    if !done.kept.is_empty() {
        writeln!(out, "Kept as they were: {}", files(&done.kept))?;
    }
    writeln!(
        out,
        "The prompt of turn {} was:\n{}",
        done.target,
        flowing(&done.prompt)
    )
}

#[cfg(test)]
mod tests {
    use super::{utc, write_done, write_plan};
    use ansa_sessions::protocol::{ChangedNotRestored, RewindConflict, RewindDone, RewindPlan};
    use ansa_sessions::{RequestId, RewindScope};

    #[test]
    fn the_plan_names_unkept_paths_visibly() {
        let plan = RewindPlan {
            target: RequestId(2),
            scope: RewindScope::Code,
            restore: Vec::new(),
            recreate: Vec::new(),
            delete: Vec::new(),
            conflicts: Vec::new(),
            not_restorable: Vec::new(),
            unkept: vec!["big\x1b[2J.bin".to_owned()],
            rewound: Vec::new(),
            changed_not_restored: vec![ChangedNotRestored {
                path: "vendor/x\x1b[2J/.git".to_owned(),
                paths: 12,
            }],
        };
        let mut out = Vec::new();
        write_plan(&mut out, &plan).unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.contains("unkept   big␛[2J.bin (its current version was never kept"),
            "{text}"
        );
        assert!(
            text.contains("changed, not restored vendor/x␛[2J/.git (12 paths"),
            "{text}"
        );
        assert!(!text.contains('\x1b'), "{text}");
    }

    #[test]
    fn a_rolled_back_rewind_names_both_versions_and_gives_no_prompt_back() {
        let done = RewindDone {
            target: RequestId(2),
            scope: RewindScope::Both,
            restored: 0,
            recreated: 0,
            deleted: 0,
            kept: Vec::new(),
            prompt: "the prompt".to_owned(),
            rewound: Vec::new(),
            checkpoint: None,
            rolled_back: true,
            conflicts: vec![RewindConflict {
                path: "f\x1b]0;x\x07".to_owned(),
                set_aside: "f\x1b]0;x\x07.ansa-rewind-conflict-1".to_owned(),
            }],
        };
        let mut out = Vec::new();
        write_done(&mut out, &done).unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("rolled back"), "{text}");
        assert!(text.contains("nothing was rewound"), "{text}");
        assert!(text.contains(".ansa-rewind-conflict-1"), "{text}");
        assert!(!text.contains("the prompt"), "{text}");
        assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text}");
    }

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_796_434_714_967), "2026-12-05 01:38 UTC");
    }
}
