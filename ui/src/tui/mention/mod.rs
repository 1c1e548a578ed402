//! `@` file mentions in the input (issue 43 item 8): typing `@` opens a completion of the
//! workspace's files (fuzzy, `.gitignore` and the config's exclusions respected); Tab or
//! Enter puts the chosen path in, Esc closes the list. The paths mentioned in a sent text go
//! with the `submit` (`mentions`); the runtime attaches each file as a read, or refuses the
//! submit with the reason, and the text comes back to the input.
//!
//! The index is built on a thread of its own (`index`), after the first frame, and rebuilt
//! when a mention is typed after a turn ended (a turn may have changed the tree).

pub mod fuzzy;
pub mod index;
pub mod token;

use std::cell::{Cell, RefCell};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ansa_sessions::protocol::{MAX_MENTIONS, MentionPath};
use ratatui::text::{Line, Span};

use super::app::{App, Tone};
use super::blocks::{INDENT, truncate};
use super::input::Input;
use super::keys::Intent;
use super::wrap::display_width;
use crate::sanitize::flowing;
pub use index::MentionIndex;

/// Files shown in the completion list at most.
pub const SHOWN: usize = 8;

/// Paths the completion never offers (the config's exclusions, credential files), relative
/// to the workspace root.
pub type PathFilter = Arc<dyn Fn(&Path) -> bool + Send + Sync>;

/// Where `@` completion looks: the workspace root and what it must leave out.
#[derive(Clone)]
pub struct MentionSource {
    /// The workspace root (the session's cwd).
    pub root: PathBuf,
    /// True for a path the file tools never expose.
    pub hidden: PathFilter,
}

impl MentionSource {
    /// A source for `root` that hides what `hidden` says.
    pub fn new(root: PathBuf, hidden: PathFilter) -> Self {
        MentionSource { root, hidden }
    }
}

impl fmt::Debug for MentionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MentionSource")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl PartialEq for MentionSource {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root && Arc::ptr_eq(&self.hidden, &other.hidden)
    }
}

impl Eq for MentionSource {}

/// What the completion list shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Listing {
    /// The first index is still being built.
    Indexing,
    /// The best matches, best first.
    Matches(Vec<String>),
}

/// The open completion list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Popup {
    /// The typed query's bytes in the input (the `@` is just before).
    pub query: Range<usize>,
    /// What it lists.
    pub listing: Listing,
    /// The highlighted match.
    pub selected: usize,
    /// The index stopped at its file limit.
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Cached {
    query: String,
    /// Kept so a new list is never mistaken for this one.
    list: Arc<index::FileList>,
    listing: Listing,
    truncated: bool,
}

/// The completion state of the input.
#[derive(Debug, Default)]
pub(crate) struct Mentions {
    index: Option<MentionIndex>,
    /// The list has to be rebuilt before it is used again (a turn ended).
    stale: Cell<bool>,
    selected: Cell<usize>,
    /// The `@` (byte offset) whose list Esc closed.
    dismissed: Cell<Option<usize>>,
    cache: RefCell<Option<Cached>>,
}

impl Mentions {
    /// Completion over `index`.
    pub fn new(index: MentionIndex) -> Self {
        Mentions {
            index: Some(index),
            ..Mentions::default()
        }
    }

    /// A turn ended: the next completion rebuilds the list first.
    pub fn turn_ended(&self) {
        self.stale.set(true);
    }

    /// True while the list is open and waits for the first index (the loop redraws).
    pub fn waiting(&self, input: &Input) -> bool {
        matches!(
            self.popup(input),
            Some(Popup {
                listing: Listing::Indexing,
                ..
            })
        )
    }

    /// The list for the word at the cursor, if it is an `@` mention that Esc did not close.
    pub fn popup(&self, input: &Input) -> Option<Popup> {
        let index = self.index.as_ref()?;
        let Some(query) = token::at_cursor(input.text(), input.cursor()) else {
            self.dismissed.set(None);
            return None;
        };
        if self.dismissed.get() == Some(query.start - 1) {
            return None;
        }
        if self.stale.replace(false) {
            index.refresh();
        }
        let typed = &input.text()[query.clone()];
        let (listing, truncated) = match index.list() {
            None => (Listing::Indexing, false),
            Some(list) => {
                let mut cache = self.cache.borrow_mut();
                let hit = cache
                    .as_ref()
                    .filter(|c| c.query == typed && Arc::ptr_eq(&c.list, &list))
                    .map(|c| (c.listing.clone(), c.truncated));
                match hit {
                    Some(hit) => hit,
                    None => {
                        let listing = Listing::Matches(
                            fuzzy::best(&list.files, typed, SHOWN)
                                .into_iter()
                                .map(|i| list.files[i].path.clone())
                                .collect(),
                        );
                        self.selected.set(0);
                        *cache = Some(Cached {
                            query: typed.to_owned(),
                            list: Arc::clone(&list),
                            listing: listing.clone(),
                            truncated: list.truncated,
                        });
                        (listing, list.truncated)
                    }
                }
            }
        };
        let count = match &listing {
            Listing::Matches(m) => m.len(),
            Listing::Indexing => 0,
        };
        let selected = self.selected.get().min(count.saturating_sub(1));
        Some(Popup {
            query,
            listing,
            selected,
            truncated,
        })
    }

    /// The paths mentioned in `text`, as a submit carries them.
    pub fn in_text(&self, text: &str) -> Vec<String> {
        let list = self.index.as_ref().and_then(MentionIndex::list);
        token::mentions(text, |p| {
            list.as_ref()
                .is_some_and(|l| l.files.binary_search_by(|f| f.path.as_str().cmp(p)).is_ok())
        })
    }
}

impl App {
    /// Keys while the `@` list is open: Up/Down choose, Tab/Enter put the path in, Esc
    /// closes; true when the key was used here.
    pub(crate) fn mention_key(&mut self, intent: Intent) -> bool {
        let Some(popup) = self.mentions.popup(&self.input) else {
            return false;
        };
        let matches = match &popup.listing {
            Listing::Matches(m) => m.as_slice(),
            Listing::Indexing => &[],
        };
        match intent {
            Intent::Up if !matches.is_empty() => {
                self.mentions.selected.set(popup.selected.saturating_sub(1));
            }
            Intent::Down if !matches.is_empty() => {
                let last = matches.len() - 1;
                self.mentions.selected.set((popup.selected + 1).min(last));
            }
            Intent::ToggleMode | Intent::Submit if !matches.is_empty() => {
                let path = &matches[popup.selected];
                let at = popup.query.start - 1;
                self.input.splice(at..popup.query.end, &format!("@{path} "));
            }
            // Tab means the list here even when it is empty; it never switches the mode.
            Intent::ToggleMode => {}
            Intent::Dismiss => self.mentions.dismissed.set(Some(popup.query.start - 1)),
            _ => return false,
        }
        true
    }

    /// The mentions of the input about to be sent, checked against the protocol's limits;
    /// `None` (and a notice) when they cannot be sent as they are.
    pub(crate) fn mentions_to_send(&mut self) -> Option<Vec<MentionPath>> {
        let paths = self.mentions.in_text(self.input.text());
        if paths.len() > MAX_MENTIONS {
            self.say(
                Tone::Warn,
                format!(
                    "{} files are mentioned; at most {MAX_MENTIONS} can be attached to one prompt",
                    paths.len()
                ),
            );
            return None;
        }
        let mut out = Vec::with_capacity(paths.len());
        for path in paths {
            match MentionPath::new(path) {
                Ok(p) => out.push(p),
                Err(reason) => {
                    self.say(Tone::Warn, format!("{reason}; your text is kept"));
                    return None;
                }
            }
        }
        Some(out)
    }
}

/// The completion list's lines: the matches (the chosen one marked), or why there are none,
/// and the keys.
pub(crate) fn menu(app: &App, width: u16) -> Vec<Line<'static>> {
    let Some(popup) = app.mentions.popup(&app.input) else {
        return Vec::new();
    };
    let theme = app.theme;
    let room = usize::from(width).saturating_sub(INDENT.len() + 2).max(1);
    let mut lines = vec![Line::default()];
    match &popup.listing {
        Listing::Indexing => lines.push(Line::styled(
            format!("{INDENT}indexing the workspace's files…"),
            theme.dim(),
        )),
        Listing::Matches(m) if m.is_empty() => {
            let typed = &app.input.text()[popup.query.clone()];
            lines.push(Line::styled(
                truncate(
                    &format!("{INDENT}no file matches @{}", flowing(typed)),
                    usize::from(width),
                ),
                theme.dim(),
            ));
        }
        Listing::Matches(m) => {
            for (i, path) in m.iter().enumerate() {
                let shown = tail(&flowing(path), room);
                let (mark, style) = if i == popup.selected {
                    ("› ", theme.accent().patch(theme.bold()))
                } else {
                    ("  ", theme.user())
                };
                lines.push(Line::from(vec![
                    Span::raw(INDENT),
                    Span::styled(mark, theme.accent()),
                    Span::styled(shown, style),
                ]));
            }
        }
    }
    let mut keys = String::from("Tab/Enter attach · ↑/↓ choose · Esc close");
    if popup.truncated {
        keys.push_str(" · only the first files are indexed");
    }
    lines.push(Line::styled(
        truncate(&format!("{INDENT}{keys}"), usize::from(width)),
        theme.dim(),
    ));
    lines
}

/// The end of a long path (`…/deep/file.rs`): the file name matters most.
fn tail(path: &str, room: usize) -> String {
    if display_width(path) <= room {
        return path.to_owned();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut width = 1;
    for c in path.chars().rev() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if width + w > room {
            break;
        }
        width += w;
        kept.push(c);
    }
    kept.push('…');
    kept.into_iter().rev().collect()
}
