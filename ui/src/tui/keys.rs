//! The key map and the slash commands of the Carbon TUI.
//!
//! | key | effect |
//! |---|---|
//! | Enter | submit (while a task runs: queue it behind that task) or run a `/command` |
//! | Shift+Enter, Alt+Enter, Ctrl+J | new line |
//! | Tab / Shift+Tab | switch basic / plan for the next task |
//! | Up / Down | row above/below in the input, else previous/next submitted text; Up on an empty input recalls the last queued task |
//! | Left/Right, Home/End, Ctrl+A/Ctrl+E, Alt+B/Alt+F, Ctrl+Left/Right | move |
//! | Backspace, Delete, Ctrl+W, Ctrl+U, Ctrl+K | delete |
//! | Ctrl+C | cancel the running task; a second Ctrl+C in a row exits (code 130) |
//! | Ctrl+D | let the accepted task finish, then exit |
//! | Ctrl+F | expand / collapse the history pane |
//! | Ctrl+O | open / close the latest tool call's full output (←/→: the turn's other calls) |
//! | PgUp / PgDn | page through the open pane (the journal's transcript or the output) |
//! | Esc | close the status, history and output panes, clear the notice; a second Esc within a second on an empty input opens the rewind list (`rewind/`) |
//! | Ctrl+L | repaint the live region |
//! | Ctrl+T | expand the last collapsed paste (`[pasted 3,950 chars #1]`) in the input |
//! | y / a / n | while a call waits for approval (ask mode): once, for the session, deny (`approval.rs`) |

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Intent {
    /// Insert a character.
    Insert(char),
    /// Insert a line break.
    Newline,
    /// Submit the input or run a slash command.
    Submit,
    /// Delete before the cursor.
    Backspace,
    /// Delete under the cursor.
    Delete,
    /// Cursor left.
    Left,
    /// Cursor right.
    Right,
    /// Previous word.
    WordLeft,
    /// Next word.
    WordRight,
    /// Start of line.
    Home,
    /// End of line.
    End,
    /// Row up or history back.
    Up,
    /// Row down or history forward.
    Down,
    /// Delete the previous word.
    DeleteWordBack,
    /// Delete to the start of the line.
    KillToStart,
    /// Delete to the end of the line.
    KillToEnd,
    /// Switch basic / plan.
    ToggleMode,
    /// Ctrl+C.
    Interrupt,
    /// Ctrl+D.
    FinishThenExit,
    /// Ctrl+F.
    ToggleHistory,
    /// Ctrl+O.
    ToggleOutput,
    /// PgUp.
    PageUp,
    /// PgDn.
    PageDown,
    /// Esc.
    Dismiss,
    /// Ctrl+L.
    Repaint,
    /// Ctrl+T.
    ExpandPaste,
}

/// Maps a key press to an intent; `None` for keys without a meaning.
pub(crate) fn intent(key: KeyEvent) -> Option<Intent> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    Some(match key.code {
        KeyCode::Enter if shift || alt || ctrl => Intent::Newline,
        KeyCode::Enter => Intent::Submit,
        KeyCode::Char('j' | 'J') if ctrl => Intent::Newline,
        KeyCode::Char('c' | 'C') if ctrl => Intent::Interrupt,
        KeyCode::Char('d' | 'D') if ctrl => Intent::FinishThenExit,
        KeyCode::Char('f' | 'F') if ctrl => Intent::ToggleHistory,
        KeyCode::Char('o' | 'O') if ctrl => Intent::ToggleOutput,
        KeyCode::Char('l' | 'L') if ctrl => Intent::Repaint,
        KeyCode::Char('t' | 'T') if ctrl => Intent::ExpandPaste,
        KeyCode::Char('a' | 'A') if ctrl => Intent::Home,
        KeyCode::Char('e' | 'E') if ctrl => Intent::End,
        KeyCode::Char('b' | 'B') if ctrl => Intent::Left,
        KeyCode::Char('w' | 'W') if ctrl => Intent::DeleteWordBack,
        KeyCode::Char('u' | 'U') if ctrl => Intent::KillToStart,
        KeyCode::Char('k' | 'K') if ctrl => Intent::KillToEnd,
        KeyCode::Char('h' | 'H') if ctrl => Intent::Backspace,
        KeyCode::Char('p' | 'P') if ctrl => Intent::Up,
        KeyCode::Char('n' | 'N') if ctrl => Intent::Down,
        KeyCode::Char('b' | 'B') if alt => Intent::WordLeft,
        KeyCode::Char('f' | 'F') if alt => Intent::WordRight,
        KeyCode::Backspace if alt || ctrl => Intent::DeleteWordBack,
        KeyCode::Char(_) if ctrl || alt => return None,
        KeyCode::Char(c) => Intent::Insert(c),
        KeyCode::Tab | KeyCode::BackTab => Intent::ToggleMode,
        KeyCode::Backspace => Intent::Backspace,
        KeyCode::Delete => Intent::Delete,
        KeyCode::Left if ctrl || alt => Intent::WordLeft,
        KeyCode::Right if ctrl || alt => Intent::WordRight,
        KeyCode::Left => Intent::Left,
        KeyCode::Right => Intent::Right,
        KeyCode::Home => Intent::Home,
        KeyCode::End => Intent::End,
        KeyCode::Up => Intent::Up,
        KeyCode::Down => Intent::Down,
        KeyCode::PageUp => Intent::PageUp,
        KeyCode::PageDown => Intent::PageDown,
        KeyCode::Esc => Intent::Dismiss,
        _ => return None,
    })
}

/// A slash command typed into the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Slash {
    /// `/basic`.
    Basic,
    /// `/plan`.
    Plan,
    /// `/status`.
    Status,
    /// `/cancel`.
    Cancel,
    /// `/resume`.
    Resume,
    /// `/rewind`: take back a turn's changes and/or its conversation.
    Rewind,
    /// `/exit` (also `/quit`).
    Exit,
    /// `/help`.
    Help,
    /// A `/word` that is not a command.
    Unknown(String),
    /// `/diff`: what this session changed in the workspace (`diff/`).
    Diff,
    /// `/compact`: compact the context now (`compact.rs`).
    Compact,
    /// `/mcp`: the session's MCP servers (`mcp.rs`).
    Mcp,
    /// `/sessions`: the next page of the sessions table.
    Sessions,
    /// `/new`: a new session in this TUI.
    New,
    /// `/model`: switch the model (and reasoning effort) for the next turns (`model_picker/`).
    Model,
    /// `/orchestrate`: the next task may also delegate to child agents.
    Orchestrate,
}

/// The commands, for help texts: every one of [`SLASH_COMMANDS`] but `/help`, so that a
/// command added there is never missing here.
pub(crate) fn slash_help() -> String {
    let names: Vec<&str> = SLASH_COMMANDS
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| *name != "/help")
        .collect();
    names.join(" ")
}

/// Every command with its one-line help, in the order the menu shows them.
pub(crate) const SLASH_COMMANDS: &[(&str, &str)] = &[
    ("/basic", "the next task may use every tool"),
    ("/plan", "the next task may only read and search"),
    ("/status", "session, model, provider, tokens and sign-in"),
    ("/cancel", "cancel the running (or the paused) request"),
    ("/resume", "continue the paused request"),
    (
        "/rewind",
        "take back a turn: its files, its conversation or both",
    ),
    ("/exit", "leave now, or when the running task ends"),
    ("/help", "keys and commands"),
    ("/diff", "what this session changed in the workspace"),
    ("/compact", "compact the context now"),
    ("/mcp", "MCP servers: state, tools and last error"),
    (
        "/sessions",
        "list sessions, 20 at a time (ansa --resume ID opens one)",
    ),
    ("/new", "close this session and start a new one here"),
    (
        "/model",
        "switch the model and reasoning effort for the next turns",
    ),
    (
        "/orchestrate",
        "the next task may also delegate to child agents",
    ),
];

/// The commands a partly typed `/word` may be: all of them for a bare `/`, none once the
/// input is more than one word.
pub(crate) fn slash_matches(text: &str) -> Vec<(&'static str, &'static str)> {
    let Some(typed) = text.strip_prefix('/') else {
        return Vec::new();
    };
    if !typed.chars().all(|c| c.is_ascii_alphabetic()) {
        return Vec::new();
    }
    let typed = typed.to_ascii_lowercase();
    SLASH_COMMANDS
        .iter()
        .filter(|(name, _)| name[1..].starts_with(&typed))
        .copied()
        .collect()
}

/// What Tab completes a partly typed `/word` to: the one command it can be, else the longest
/// prefix all candidates share (when that adds something).
pub(crate) fn slash_completion(text: &str) -> Option<String> {
    let matches = slash_matches(text);
    let (first, _) = matches.first()?;
    let mut common = first.len();
    for (name, _) in &matches[1..] {
        common = common.min(
            first
                .bytes()
                .zip(name.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    let completed = if matches.len() == 1 {
        (*first).to_owned()
    } else {
        first[..common].to_owned()
    };
    (completed.len() > text.len()).then_some(completed)
}

/// Parses the input as a slash command: one line that is `/` and ASCII letters, optionally
/// followed by spaces. Anything else (`/usr/bin/env is missing`) is a task text.
pub(crate) fn slash(text: &str) -> Option<Slash> {
    let word = text.trim();
    let name = word.strip_prefix('/')?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    Some(match name.to_ascii_lowercase().as_str() {
        "basic" => Slash::Basic,
        "plan" => Slash::Plan,
        "status" => Slash::Status,
        "cancel" => Slash::Cancel,
        "resume" => Slash::Resume,
        "rewind" => Slash::Rewind,
        "exit" | "quit" => Slash::Exit,
        "help" => Slash::Help,
        "diff" => Slash::Diff,
        "compact" => Slash::Compact,
        "mcp" => Slash::Mcp,
        "sessions" => Slash::Sessions,
        "new" => Slash::New,
        "model" => Slash::Model,
        "orchestrate" => Slash::Orchestrate,
        _ => Slash::Unknown(word.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn newline_keys_and_submit() {
        assert_eq!(
            intent(key(KeyCode::Enter, KeyModifiers::NONE)),
            Some(Intent::Submit)
        );
        for k in [
            key(KeyCode::Enter, KeyModifiers::SHIFT),
            key(KeyCode::Enter, KeyModifiers::ALT),
            key(KeyCode::Char('j'), KeyModifiers::CONTROL),
        ] {
            assert_eq!(intent(k), Some(Intent::Newline), "{k:?}");
        }
        assert_eq!(
            intent(key(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(Intent::ToggleMode)
        );
        assert_eq!(intent(key(KeyCode::Char('x'), KeyModifiers::CONTROL)), None);
        assert_eq!(
            intent(key(KeyCode::Char('É'), KeyModifiers::SHIFT)),
            Some(Intent::Insert('É'))
        );
    }

    #[test]
    fn a_partly_typed_command_lists_its_matches_and_tab_completes_it() {
        assert_eq!(slash_matches("/").len(), SLASH_COMMANDS.len());
        let names = |t| slash_matches(t).iter().map(|(n, _)| *n).collect::<Vec<_>>();
        assert_eq!(names("/re"), ["/resume", "/rewind"]);
        assert_eq!(names("/res"), ["/resume"]);
        assert_eq!(names("/S"), ["/status", "/sessions"]);
        assert_eq!(names("/se"), ["/sessions"]);
        assert!(names("/x").is_empty());
        assert!(names("/plan this").is_empty(), "a task text, not a command");
        assert!(names("plan").is_empty());
        assert_eq!(slash_completion("/res").as_deref(), Some("/resume"));
        assert_eq!(slash_completion("/rew").as_deref(), Some("/rewind"));
        assert_eq!(slash_completion("/re"), None, "/resume or /rewind");
        assert_eq!(slash_completion("/resume"), None, "nothing to add");
        assert_eq!(
            slash_completion("/"),
            None,
            "no common prefix past the slash"
        );
        assert_eq!(slash_completion("/x"), None);
    }

    #[test]
    fn slash_commands_are_single_words() {
        assert_eq!(slash("/plan"), Some(Slash::Plan));
        assert_eq!(slash("  /STATUS  "), Some(Slash::Status));
        assert_eq!(slash("/quit"), Some(Slash::Exit));
        assert_eq!(slash("/nope"), Some(Slash::Unknown("/nope".into())));
        assert_eq!(slash("/usr/bin/env is missing"), None);
        assert_eq!(slash("/plan this"), None);
        assert_eq!(slash("plan"), None);
        assert_eq!(slash("/"), None);
    }
}
