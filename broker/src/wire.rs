//! The broker's wire contract. A client sends one ordinary HTTP/1.1 request over the broker's
//! Unix socket, with the real target in [`TARGET`] and the capability token in [`TOKEN`]. The
//! broker answers either with the provider's response, passed through as it arrives, or,
//! before it forwarded anything, with a refusal carrying [`REFUSED`]: the client then sends
//! the request directly. A failure after forwarding carries [`FAILED`]: its outcome is
//! unknown, so the client must not send it again.

/// The capability token (hex), compared in constant time.
pub const TOKEN: &str = "x-ash-broker-token";
/// The absolute `https://` URL the request is for.
pub const TARGET: &str = "x-ash-broker-url";
/// On a refusal before forwarding: why (one line). Send the request directly.
pub const REFUSED: &str = "x-ash-broker-refused";
/// On a failure after forwarding: what failed (one line). The outcome is unknown.
pub const FAILED: &str = "x-ash-broker-failed";

/// Largest request body forwarded. A body must declare its length (`content-length`); it is
/// streamed to the provider, never held whole.
pub const MAX_BODY_BYTES: u64 = 32 * 1024 * 1024;
/// The broker closes a connection that has no request in progress and has not sent a whole
/// request head for this long (idle keep-alive connections included). Clients keep idle
/// connections to the broker for at most [`CLIENT_IDLE_SECS`], so they rarely pick one the
/// broker is closing.
pub const CONNECTION_IDLE_SECS: u64 = 20;
/// How long a client keeps an idle connection to the broker: well under
/// [`CONNECTION_IDLE_SECS`].
pub const CLIENT_IDLE_SECS: u64 = 10;
/// Largest total size of the forwarded request headers (names and values).
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Hex digits of a capability token (32 random bytes).
pub const TOKEN_HEX_DIGITS: usize = 64;

/// Request headers forwarded to the provider; everything else is dropped, so hop-by-hop
/// headers (`connection`, `te`, `upgrade`, `proxy-*`…) and the broker's own never leave.
pub const FORWARDED_HEADERS: &[&str] = &[
    "accept",
    "authorization",
    "chatgpt-account-id",
    "content-type",
    "openai-beta",
    "openai-organization",
    "openai-project",
    "originator",
    "session_id",
    "user-agent",
    "x-request-id",
];

/// Response headers never passed back (hop-by-hop, or recomputed by the broker's own HTTP
/// layer).
pub const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// The shell's variables that name the broker; never written to any file.
pub mod env {
    /// The broker's socket.
    pub const SOCKET: &str = "ASH_BROKER_SOCKET";
    /// The capability token.
    pub const TOKEN: &str = "ASH_BROKER_TOKEN";
    /// The lease file the broker refreshes.
    pub const LEASE: &str = "ASH_BROKER_LEASE";
}
