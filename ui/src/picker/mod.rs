//! Sessions for people: the one table every listing uses (`table`), and the `--resume`
//! picker (`screen`): this directory's sessions, type to filter, Enter opens one.

mod model;
mod pager;
mod screen;
mod table;

pub use model::{Picker, Step};
pub use pager::{PAGE, SessionsPager};
pub use screen::{first_frame, run_picker};
pub use table::{HEADINGS, ago, cut, size, state_label, table_lines};

/// The terminal's width in columns, when stdout is one.
pub fn terminal_width() -> Option<usize> {
    crossterm::terminal::size()
        .ok()
        .map(|(w, _)| usize::from(w))
}
