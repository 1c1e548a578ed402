//! MCP servers in the TUI (issue 45): `/mcp` lists every server with its state, tool count
//! and last error; a server that goes down between requests is shown once as a warning.

use ansa_sessions::protocol::{CommandBody, McpServerRow, McpServers};

use super::app::App;
use super::model::{Action, Entry, Notice, Tone};

/// What the TUI knows of the session's MCP servers.
#[derive(Debug, Default)]
pub(crate) struct McpPane {
    /// `/mcp` was typed and its answer has not come yet.
    asked: bool,
    /// The rows of the last `mcp_servers` event.
    last: Vec<McpServerRow>,
}

impl App {
    /// `/mcp`: asks the runtime for its servers as they are now.
    pub(crate) fn mcp_slash(&mut self, out: &mut Vec<Action>) {
        match self.command(CommandBody::McpStatus) {
            Some(command) => {
                self.mcp.asked = true;
                out.push(Action::Send(command));
            }
            None => self.say(Tone::Warn, "the session is still opening; try again"),
        }
    }

    /// The runtime's servers: the answer to `/mcp`, or a change of their states.
    pub(crate) fn on_mcp_servers(&mut self, servers: McpServers) {
        if std::mem::take(&mut self.mcp.asked) {
            for (tone, line) in listing(&servers.servers) {
                self.commit(Entry::Notice(Notice::new(tone, line)));
            }
        } else {
            for row in servers.servers.iter().filter(|r| r.is_down()) {
                let was_down = self
                    .mcp
                    .last
                    .iter()
                    .any(|old| old.name == row.name && old.is_down());
                if !was_down {
                    self.commit(Entry::Notice(Notice::new(Tone::Warn, line(row))));
                }
            }
        }
        self.mcp.last = servers.servers;
    }
}

/// `/mcp`'s lines: a heading, then one per server (notices are sanitised when shown).
fn listing(rows: &[McpServerRow]) -> Vec<(Tone, String)> {
    if rows.is_empty() {
        return vec![(
            Tone::Info,
            "no MCP servers: add them under mcp_servers in ~/.ansa/config.json".to_owned(),
        )];
    }
    let plural = if rows.len() == 1 { "" } else { "s" };
    let mut out = vec![(Tone::Info, format!("{} MCP server{plural}:", rows.len()))];
    out.extend(rows.iter().map(|row| {
        let tone = if row.is_down() {
            Tone::Warn
        } else {
            Tone::Info
        };
        (tone, line(row))
    }));
    out
}

/// `mcp NAME · STATE · N tools · last error: …`.
fn line(row: &McpServerRow) -> String {
    let plural = if row.tools == 1 { "" } else { "s" };
    let mut line = format!(
        "mcp {} · {} · {} tool{plural}",
        row.name,
        row.state.as_str(),
        row.tools
    );
    if let Some(error) = &row.last_error {
        line.push_str(" · last error: ");
        line.push_str(error);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use ansa_sessions::protocol::McpServerState;

    fn row(name: &str, state: McpServerState, tools: usize, error: Option<&str>) -> McpServerRow {
        McpServerRow {
            name: name.into(),
            state,
            tools,
            last_error: error.map(str::to_owned),
        }
    }

    #[test]
    fn the_listing_names_state_tools_and_last_error() {
        let rows = [
            row("everything", McpServerState::Ready, 13, None),
            row(
                "hang",
                McpServerState::Failed,
                0,
                Some("no answer within 1500 ms"),
            ),
        ];
        let lines = listing(&rows);
        assert_eq!(lines[0], (Tone::Info, "2 MCP servers:".to_owned()));
        assert_eq!(
            lines[1],
            (Tone::Info, "mcp everything · ready · 13 tools".to_owned())
        );
        assert_eq!(
            lines[2],
            (
                Tone::Warn,
                "mcp hang · failed · 0 tools · last error: no answer within 1500 ms".to_owned()
            )
        );
        assert!(listing(&[])[0].1.contains("mcp_servers"));
    }
}
