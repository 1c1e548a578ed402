//! `/mcp`'s rows: each server, its state, how many tools it offers and its last error.

use ansa_mcp::ServerStatus;

/// One line per server, in name order (text from servers is already one printable line).
pub fn status_lines(statuses: &[ServerStatus]) -> Vec<String> {
    statuses
        .iter()
        .map(|s| {
            let plural = if s.tools == 1 { "" } else { "s" };
            let mut line = format!(
                "{} · {} · {} tool{plural}",
                s.name,
                s.state.as_str(),
                s.tools
            );
            if let Some(e) = &s.last_error {
                line.push_str(" · last error: ");
                line.push_str(e);
            }
            line
        })
        .collect()
}
