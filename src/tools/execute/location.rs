//! Where an engine schema error is, in the terms of the tool the model called: the engine
//! names ASH/1's fields (`a.p item 3`, `a item 4`), which the model never wrote.

use ash_engine::protocol::SchemaError;

/// The detail of a refused request: the tool's argument, then what is wrong with it.
pub fn detail(tool: &str, error: &SchemaError) -> String {
    format!("{}: {}", argument(tool, &error.at), error.problem)
}

/// The tool argument at ASH/1 location `at` (`a.p item 3` → `` `paths[2]` ``); a location with
/// no counterpart is described as the request the tool built.
fn argument(tool: &str, at: &str) -> String {
    let (field, item) = match at.rsplit_once(" item ") {
        Some((field, n)) => (field, n.parse::<usize>().ok()),
        None => (at, None),
    };
    let name = match (tool, field) {
        (_, "u.ms") => Some("timeout_ms"),
        ("read" | "list" | "search" | "snapshot", "a.p") => Some("paths"),
        ("read", "a.m") => Some("mode"),
        ("read", "a.o") => Some("offset"),
        ("read", "a.n") => Some("length"),
        ("list" | "snapshot", "a.d") => Some("depth"),
        ("search", "a.q") => Some("query"),
        ("snapshot", "a.r") => Some("baseline"),
        ("exec", "a.x") => Some("program"),
        ("exec", "a.v") => Some("args"),
        ("exec", "a.c") => Some("cwd"),
        ("exec", "a.e") => Some("env"),
        ("exec", "a.in") => Some("stdin"),
        ("edit", _) => Some("files"),
        ("files", _) => Some("actions"),
        // A formula's operands: `@ref`, offset, length, query, flags.
        ("evidence", "a") => match item {
            Some(1) => return "`ref`".to_owned(),
            Some(2) => return "`offset`".to_owned(),
            Some(3) => return "`length`".to_owned(),
            Some(4) => return "`query`".to_owned(),
            Some(_) => return "`regex` or `case_insensitive`".to_owned(),
            None => None,
        },
        _ => None,
    };
    match (name, item) {
        (Some(name), Some(n)) if !matches!(tool, "edit" | "files") => {
            format!("`{name}[{}]`", n.saturating_sub(1))
        }
        (Some(name), _) => format!("`{name}`"),
        (None, _) => format!("the request `{tool}` makes (at {at})"),
    }
}

#[cfg(test)]
mod tests {
    use super::argument;

    #[test]
    fn engine_locations_read_as_the_tools_arguments() {
        assert_eq!(argument("read", "a.p"), "`paths`");
        assert_eq!(argument("read", "a.p item 3"), "`paths[2]`");
        assert_eq!(argument("evidence", "a item 4"), "`query`");
        assert_eq!(argument("exec", "u.ms"), "`timeout_ms`");
        assert_eq!(argument("edit", "a.h item 1"), "`files`");
        assert_eq!(argument("list", "b.z"), "the request `list` makes (at b.z)");
    }
}
