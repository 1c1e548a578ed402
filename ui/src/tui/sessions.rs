//! `/sessions`: the next page of the sessions table (`crate::picker`'s one formatter),
//! committed into the dialog one row per notice line.

use super::app::App;
use super::model::{Entry, Notice, Tone};

/// `/sessions`: commits the next page into the TUI's dialog, one row per notice line.
pub(crate) fn slash_sessions(app: &mut App) {
    // A notice line starts with four columns of indent and mark.
    let width = usize::from(app.width).saturating_sub(4).max(20);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let page = match app.sessions.as_mut() {
        Some(pager) => pager.next_page(now, width),
        None => Err("this run has no ansa home to list sessions from".to_owned()),
    };
    match page {
        Ok(lines) => {
            for line in lines {
                app.commit(Entry::Notice(Notice::new(Tone::Info, line)));
            }
        }
        Err(why) => app.say(Tone::Warn, format!("/sessions: {why}")),
    }
}
