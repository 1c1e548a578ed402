//! Token usage, the same type for every provider (each maps its own wire fields onto it).

use serde::{Deserialize, Serialize};

/// Token usage reported by the provider for one generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Input (prompt) tokens.
    pub input_tokens: u64,
    /// Output (completion) tokens, reasoning included.
    pub output_tokens: u64,
    /// Total tokens.
    pub total_tokens: u64,
    /// Input tokens served from the provider's prompt cache, when reported.
    pub cached_tokens: Option<u64>,
    /// Output tokens spent on reasoning, when reported.
    pub reasoning_tokens: Option<u64>,
}
