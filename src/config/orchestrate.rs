//! Orchestrate mode's child agents: how many of a `delegate` call's children run at once
//! (`max_children`) and how many tokens one child may use before it pauses
//! (`child_token_budget`).

/// Children at once unless the config says otherwise.
pub const DEFAULT_MAX_CHILDREN: u32 = 3;
/// Most children at once (a `delegate` call has at most eight tasks).
pub const MAX_CHILDREN_MAX: u64 = 8;
/// Tokens (input and output, summed over its generations) a child may use per Resume
/// segment before its turn pauses, unless the config says otherwise.
pub const DEFAULT_CHILD_TOKEN_BUDGET: u64 = 2_000_000;
/// Smallest `child_token_budget`: one ordinary generation fits.
pub const CHILD_TOKEN_BUDGET_MIN: u64 = 1_000;
/// Largest `child_token_budget`.
pub const CHILD_TOKEN_BUDGET_MAX: u64 = 1_000_000_000;
