//! The broker's resource limits, each with the reason for its value (`docs/security.md`,
//! "The broker's limits"). Together they bound the broker's memory whatever its clients send:
//! connections × read buffer, plus uploads × the HTTP/2 send buffer (1 MiB), plus the
//! responses' chunk channels.

use std::time::Duration;

use crate::wire::CONNECTION_IDLE_SECS;

/// Connections served at once. At the limit the broker stops accepting: new clients wait in
/// the socket's listen backlog (kernel memory, not the broker's), and once that is full their
/// connect fails and they go direct. 64 covers a shell running dozens of tasks in parallel,
/// and keeps the file descriptors a broker needs far below the usual limit of 1024.
pub(super) const MAX_CONNECTIONS: usize = 64;

/// Request bodies streamed to the provider at once; further requests wait for a slot without
/// their bodies being read. Each upload holds at most one HTTP/2 send buffer (1 MiB) and one
/// read buffer, so uploads cost at most about 9 MiB together; eight saturate any uplink.
pub(super) const MAX_UPLOADS: usize = 8;

/// How long a request waits for an upload slot. After it the request is refused (its body is
/// read and dropped first, so the client sees the refusal, not a broken pipe) and the client
/// sends it directly.
pub(super) const UPLOAD_WAIT: Duration = Duration::from_secs(30);

/// Longest pause in a request body while the broker waits for it. A client that stops
/// sending would otherwise hold an upload slot for good; its request is abandoned (the
/// provider sees an incomplete request and cannot act on it).
pub(super) const BODY_STALL: Duration = Duration::from_secs(30);

/// A connection's largest read buffer: it holds one request head (at most this size; the
/// forwarded headers may total 16 KiB) or the body bytes not yet passed on.
pub(super) const READ_BUFFER: usize = 64 * 1024;

/// How long a connection may wait for a whole request head: between requests, so this also
/// closes idle keep-alive connections, and a client that trickles a head. The client half
/// keeps idle connections for less (see [`crate::wire::CLIENT_IDLE_SECS`]).
pub(super) const HEAD_TIMEOUT: Duration = Duration::from_secs(CONNECTION_IDLE_SECS);

/// First pause of the accept loop when the process is out of file descriptors (or the kernel
/// out of memory for one); doubled at each failure up to [`ACCEPT_BACKOFF_MAX`]. Pausing
/// keeps the loop from spinning on a listener that stays readable, while connections that
/// end give their descriptors back.
pub(super) const ACCEPT_BACKOFF_FIRST: Duration = Duration::from_millis(20);

/// Longest pause of the accept loop.
pub(super) const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);
