//! Nested AGENTS.md delivery (docs/contract/agent-behaviour.md §3): before a call touches a directory below the cwd,
//! every not-yet-delivered AGENTS.md on the way to it is prepended to that tool's output, once
//! per session, and the instruction token moves on.
//!
//! Output format (docs/protocol.md, "Agent tools"), one block per loaded file, outermost first:
//!
//! ```text
//! ⟦instructions token=<T> scope=<dir relative to the cwd>⟧
//! <AGENTS.md text, newline-terminated>
//! ⟦end instructions⟧
//! ```
//!
//! and one line per file that exists but was not loaded:
//! `⟦instructions skipped scope=<dir>⟧ AGENTS.md was not loaded: <reason>`. The tool's normal
//! answer follows. `T` is the token after this output's deliveries (the one to acknowledge).
//!
//! The token is the first 12 hex digits of a BLAKE3 chain: it starts from the digest of the
//! instructions loaded at session start, and each loaded nested file (in delivery order) hashes
//! the previous token, its scope and its text. Files that were skipped carry no text and leave
//! it unchanged.

use super::error::ToolExecError;
use super::hide::SharedNested;
use crate::instructions::{Instruction, InstructionSet, Skipped};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLockWriteGuard};

/// Hex digits of the instruction token.
const TOKEN_HEX: usize = 12;

/// What one call delivered.
#[derive(Debug, Default)]
pub(super) struct Delivery {
    /// Text to put before the tool's answer (empty when nothing was new).
    pub prefix: String,
    /// Scope directories newly delivered (absolute), in delivery order.
    pub dirs: Vec<PathBuf>,
}

/// Delivery state of one session: the shared nested-instruction tracker and the token.
#[derive(Debug, Clone)]
pub(super) struct Deliveries {
    nested: SharedNested,
    token: String,
}

impl Deliveries {
    /// A fresh session whose start-up instructions have `initial_digest`
    /// ([`InstructionSet::digest`]).
    pub fn new(nested: SharedNested, initial_digest: &str) -> Self {
        Deliveries {
            nested,
            token: seed(initial_digest),
        }
    }

    /// The current instruction token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Delivers what is new on the way to each of `dirs` (for `tool`'s error message). On an
    /// I/O error nothing is marked delivered, so the next access tries again.
    pub fn take<'a>(
        &mut self,
        tool: &'static str,
        dirs: impl IntoIterator<Item = &'a Path>,
    ) -> Result<Delivery, ToolExecError> {
        let mut nested = self.lock();
        let before = nested.clone();
        let mut found = Vec::new();
        for dir in dirs {
            match nested.take_for(dir) {
                Ok(set) => found.extend(in_order(set)),
                Err(e) => {
                    *nested = before;
                    return Err(ToolExecError::Instructions {
                        tool,
                        dir: dir.display().to_string(),
                        detail: e.to_string(),
                    });
                }
            }
        }
        if found.is_empty() {
            return Ok(Delivery::default());
        }
        let cwd = nested.cwd().to_path_buf();
        drop(nested);
        for item in &found {
            if let Found::Loaded(i) = item {
                self.token = step(&self.token, &scope(&cwd, &i.path), &i.text);
            }
        }
        let mut delivery = Delivery::default();
        for item in &found {
            let (path, scope) = match item {
                Found::Loaded(i) => (&i.path, scope(&cwd, &i.path)),
                Found::Skipped(s) => (&s.path, scope(&cwd, &s.path)),
            };
            match item {
                Found::Loaded(i) => {
                    let newline = if i.text.ends_with('\n') { "" } else { "\n" };
                    let _ = write!(
                        delivery.prefix,
                        "⟦instructions token={} scope={scope}⟧\n{}{newline}⟦end instructions⟧\n",
                        self.token, i.text
                    );
                }
                Found::Skipped(s) => {
                    let _ = writeln!(
                        delivery.prefix,
                        "⟦instructions skipped scope={scope}⟧ AGENTS.md was not loaded: {}",
                        s.reason
                    );
                }
            }
            if let Some(dir) = path.parent() {
                delivery.dirs.push(dir.to_path_buf());
            }
        }
        Ok(delivery)
    }

    /// A reopened session: `dirs` (from the journal, in delivery order) were delivered before.
    /// The token is rebuilt from their AGENTS.md as they are now; a file that changed or can
    /// no longer be read since makes it differ from the one in the saved outputs.
    pub fn restore(&mut self, dirs: impl IntoIterator<Item = PathBuf>) {
        let dirs: Vec<PathBuf> = dirs.into_iter().collect();
        let mut nested = self.lock();
        let cwd = nested.cwd().to_path_buf();
        let mut token = self.token.clone();
        for dir in &dirs {
            if let Ok(set) = nested.load_scope(dir) {
                for i in &set.instructions {
                    token = step(&token, &scope(&cwd, &i.path), &i.text);
                }
            }
        }
        nested.mark_delivered(dirs);
        drop(nested);
        self.token = token;
    }

    fn lock(&self) -> RwLockWriteGuard<'_, crate::instructions::NestedInstructions> {
        self.nested.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One file found by a delivery.
enum Found {
    Loaded(Instruction),
    Skipped(Skipped),
}

/// A set's files outermost first (they all lie on one path from the cwd, so path order is
/// depth order).
fn in_order(set: InstructionSet) -> Vec<Found> {
    let mut found: Vec<Found> = set
        .instructions
        .into_iter()
        .map(Found::Loaded)
        .chain(set.skipped.into_iter().map(Found::Skipped))
        .collect();
    found.sort_by(|a, b| path_of(a).cmp(path_of(b)));
    found
}

fn path_of(found: &Found) -> &Path {
    match found {
        Found::Loaded(i) => &i.path,
        Found::Skipped(s) => &s.path,
    }
}

/// An AGENTS.md's directory relative to the cwd, as the model sees it.
fn scope(cwd: &Path, file: &Path) -> String {
    let dir = file.parent().unwrap_or(file);
    dir.strip_prefix(cwd).unwrap_or(dir).display().to_string()
}

/// The token before any nested delivery.
fn seed(initial_digest: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"ansa-instruction-token/1\n");
    h.update(initial_digest.as_bytes());
    short(&h)
}

/// The next token after delivering `text` for `scope`.
fn step(token: &str, scope: &str, text: &str) -> String {
    let mut h = blake3::Hasher::new();
    for part in [token, scope, text] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    short(&h)
}

fn short(h: &blake3::Hasher) -> String {
    let hex = h.finalize().to_hex();
    hex.as_str()[..TOKEN_HEX].to_owned()
}
