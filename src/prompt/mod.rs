//! What the model is told before the conversation: ansa's base instructions (compiled in from
//! `base.md`, with the `plan.md` addendum in plan mode), then the AGENTS.md instructions.
//!
//! The base text is versioned with the binary: [`Prompt::digest`] covers it, so a session bound
//! to one prompt refuses to continue under another (like a changed AGENTS.md).

use crate::tools::Mode;

/// ansa's base instructions, with the answer legend.
pub const BASE: &str = include_str!("base.md");

/// The addendum of a plan-mode turn.
pub const PLAN: &str = include_str!("plan.md");

/// The addendum of an orchestrate-mode turn (the `delegate` tool).
pub const ORCHESTRATE: &str = include_str!("orchestrate.md");

/// The instructions of a session, per mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    basic: String,
    plan: String,
    orchestrate: String,
    agents_digest: String,
}

impl Prompt {
    /// The session's instructions: the base text, then `agents` (rendered AGENTS.md files, may
    /// be empty) whose set has digest `agents_digest`.
    pub fn new(agents: &str, agents_digest: &str) -> Prompt {
        let join = |base: String| {
            if agents.is_empty() {
                base
            } else {
                format!("{base}\n{agents}")
            }
        };
        Prompt {
            basic: join(BASE.to_owned()),
            plan: join(format!("{BASE}{PLAN}")),
            orchestrate: join(format!("{BASE}{ORCHESTRATE}")),
            agents_digest: agents_digest.to_owned(),
        }
    }

    /// The instructions of a generation in `mode`.
    pub fn for_mode(&self, mode: Mode) -> &str {
        match mode {
            Mode::Basic => &self.basic,
            Mode::Plan => &self.plan,
            Mode::Orchestrate => &self.orchestrate,
        }
    }

    /// Digest of ansa's own instructions (the base text and the plan addendum) alone.
    pub fn base_digest() -> String {
        let mut h = blake3::Hasher::new();
        for part in [BASE, PLAN, ORCHESTRATE] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().to_hex().to_string()
    }

    /// The digest a session binds: the base prompt, the plan addendum and the AGENTS.md set.
    pub fn digest(&self) -> String {
        let mut h = blake3::Hasher::new();
        h.update(b"ansa-prompt/1\n");
        for part in [BASE, PLAN, ORCHESTRATE, &self.agents_digest] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().to_hex().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_text_follows_the_base_and_plan_adds_its_addendum() {
        let p = Prompt::new("# project instructions: /w/AGENTS.md\nuse cargo\n", "d1");
        assert!(p.for_mode(Mode::Basic).starts_with(BASE));
        assert!(p.for_mode(Mode::Basic).ends_with("use cargo\n"));
        assert!(!p.for_mode(Mode::Basic).contains("# Plan mode"));
        assert!(p.for_mode(Mode::Plan).contains("# Plan mode"));
        assert!(p.for_mode(Mode::Plan).ends_with("use cargo\n"));
    }

    #[test]
    fn the_digest_changes_with_the_agents_set() {
        assert_ne!(Prompt::new("", "a").digest(), Prompt::new("", "b").digest());
        assert_eq!(
            Prompt::new("x", "a").digest(),
            Prompt::new("y", "a").digest()
        );
    }
}
