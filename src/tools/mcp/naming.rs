//! `mcp__SERVER__TOOL`: the names MCP tools are offered under. Providers accept
//! `[a-zA-Z0-9_-]{1,64}`; a server may name a tool anything. Names are sanitised, cut and
//! made unique deterministically: the same tool list always gives the same names, whatever
//! else changed, so a resumed session's journaled calls keep meaning what they meant.

use std::collections::{BTreeMap, BTreeSet};

/// The longest name providers accept.
pub const MAX_NAME: usize = 64;

/// The offered name of every `(server, tool)` pair, in the same order. A name that had to be
/// cut (over 64 bytes), or that had to be sanitised (a character outside `[a-zA-Z0-9_-]`) and
/// then collides with another's, ends in `_` and 8 hex digits of a hash of the server and tool
/// names, and so does an unsanitised name that another server's unsanitised name meets.
pub fn offered_names(tools: &[(&str, &str)]) -> Vec<String> {
    let bases: Vec<String> = tools
        .iter()
        .map(|(server, tool)| format!("mcp__{}__{}", sanitise(server), sanitise(tool)))
        .collect();
    let unsanitised =
        |(server, tool): &(&str, &str)| sanitise(tool) == *tool && sanitise(server) == *server;
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    // Unsanitised pairs per base: two can meet across servers, as `__` separates the parts and
    // may also be inside them (server `a` tool `b__c`, server `a__b` tool `c`).
    let mut untouched: BTreeMap<&str, usize> = BTreeMap::new();
    for (pair, base) in tools.iter().zip(&bases) {
        *counts.entry(base.as_str()).or_default() += 1;
        if unsanitised(pair) {
            *untouched.entry(base.as_str()).or_default() += 1;
        }
    }
    // A name that fits keeps its plain form when it is the only one, or when it is the only
    // one that needed no sanitising (a tool named `read_file` keeps its name when `read.file`
    // appears beside it).
    let plain = |pair: &(&str, &str), base: &String| {
        base.len() <= MAX_NAME
            && (counts[base.as_str()] == 1 || (unsanitised(pair) && untouched[base.as_str()] == 1))
    };
    // Plain names first, so a hashed one can never take a plain one's place.
    let mut taken: BTreeSet<String> = tools
        .iter()
        .zip(&bases)
        .filter(|(t, b)| plain(t, b))
        .map(|(_, b)| b.clone())
        .collect();
    tools
        .iter()
        .zip(&bases)
        .map(|(pair @ (server, tool), base)| {
            if plain(pair, base) {
                return base.clone();
            }
            let hash = blake3::hash(format!("{server}\0{tool}").as_bytes()).to_hex();
            let mut attempt = 0usize;
            loop {
                let suffix = match attempt {
                    0 => format!("_{}", &hash[..8]),
                    n => format!("_{}{n}", &hash[..8]),
                };
                let keep = MAX_NAME.saturating_sub(suffix.len()).min(base.len());
                let name = format!("{}{suffix}", &base[..keep]);
                if taken.insert(name.clone()) {
                    return name;
                }
                attempt += 1;
            }
        })
        .collect()
}

/// Every character outside `[a-zA-Z0-9_-]` as `_` (the result is ASCII, so any byte index
/// is a character boundary).
fn sanitise(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
