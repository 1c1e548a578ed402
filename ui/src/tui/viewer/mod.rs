//! The output viewer (Ctrl+O): what a person wants to read of a tool call, paged in the live
//! region. A command's stdout and stderr as text, a read's file text, a search's matches, a
//! failure's whole reason — the runtime's readable view (`tool_output` with `view:
//! "readable"`) — or an edit's diff from its report; a running command's output so far,
//! asked for again while the viewer is open; the model-facing ASON only behind Tab. Lines are
//! made safe (escape sequences removed, other controls shown visibly), wrapped to the width
//! and numbered. `pane.rs` is the state and its keys, `text.rs` the rows, `draw.rs` the lines
//! the live region shows.

mod draw;
mod pane;
mod text;

pub(crate) use draw::lines;
#[cfg(test)]
pub(crate) use pane::OUTPUT_PAGE_LINES;
