//! Text handling of the Carbon TUI: sanitizing, word wrap and Markdown.

mod markdown;
mod rng;
mod sanitize;
mod wrap;
