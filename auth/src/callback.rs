//! The browser flow's loopback callback: a listener on 127.0.0.1 that accepts exactly one
//! request to `/callback` carrying the expected `state`, within a deadline, and then stops
//! listening. Requests for other paths (a browser's `/favicon.ico`) get a 404 and are
//! ignored; a callback with the wrong `state`, an `error=`, or an oversized request ends the
//! sign-in with a clear error.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// Longest request head accepted (a real callback is well under 2 KiB).
const MAX_REQUEST_BYTES: usize = 8 * 1024;

/// How long one connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The path of the redirect URI.
const CALLBACK_PATH: &str = "/callback";

/// What an accepted callback carried.
#[derive(Clone, PartialEq, Eq)]
pub struct Callback {
    /// The authorization code.
    pub code: String,
    /// The client ID the issuer registered for this sign-in, when it sent one.
    pub client_id: Option<String>,
}

impl std::fmt::Debug for Callback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callback")
            .field("code", &"<redacted>")
            .field("client_id", &self.client_id)
            .finish()
    }
}

/// Why no usable callback arrived.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CallbackError {
    /// The listener could not be set up or failed.
    #[error("the sign-in callback listener failed: {0}")]
    Io(String),
    /// Nothing arrived in time.
    #[error(
        "no sign-in arrived within {seconds} s; run `ansa --login` again and finish in the browser"
    )]
    Timeout {
        /// The wait.
        seconds: u64,
    },
    /// The callback's `state` is not this sign-in's: possibly a forged request.
    #[error(
        "the sign-in callback carried the wrong state, so it was refused (a request not started by this `ansa --login`); run `ansa --login` again"
    )]
    StateMismatch,
    /// The issuer reported an error instead of a code.
    #[error("the sign-in was not completed: {error}{}; run `ansa --login` again", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Denied {
        /// The `error` parameter.
        error: String,
        /// The `error_description` parameter, if any.
        description: Option<String>,
    },
    /// The callback lacks a parameter it needs.
    #[error("the sign-in callback has no `{0}`; run `ansa --login` again")]
    Missing(&'static str),
    /// The request was larger than any real callback.
    #[error(
        "the sign-in callback request is larger than {MAX_REQUEST_BYTES} bytes and was refused; run `ansa --login` again"
    )]
    TooLarge,
}

/// A bound callback listener.
#[derive(Debug)]
pub struct CallbackServer {
    listener: TcpListener,
    addr: SocketAddr,
}

impl CallbackServer {
    /// Listens on an ephemeral port of 127.0.0.1 (never another interface).
    pub fn bind() -> Result<CallbackServer, CallbackError> {
        let listener =
            TcpListener::bind("127.0.0.1:0").map_err(|e| CallbackError::Io(e.to_string()))?;
        let addr = listener
            .local_addr()
            .map_err(|e| CallbackError::Io(e.to_string()))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| CallbackError::Io(e.to_string()))?;
        Ok(CallbackServer { listener, addr })
    }

    /// The redirect URI to register with the authorization request.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.addr.port())
    }

    /// Waits up to `timeout` for the callback with `state`; the listener closes when this
    /// returns, so a second callback finds nobody listening.
    pub fn wait(self, state: &str, timeout: Duration) -> Result<Callback, CallbackError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(CallbackError::Timeout {
                    seconds: timeout.as_secs(),
                });
            }
            let mut fds = [PollFd::new(self.listener.as_fd(), PollFlags::POLLIN)];
            let wait = PollTimeout::try_from(left.as_millis().min(60_000) as u64)
                .unwrap_or(PollTimeout::MAX);
            match poll(&mut fds, wait) {
                Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
                Ok(_) => {}
                Err(e) => return Err(CallbackError::Io(e.to_string())),
            }
            let (stream, peer) = match self.listener.accept() {
                Ok(accepted) => accepted,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(CallbackError::Io(e.to_string())),
            };
            if !peer.ip().is_loopback() {
                continue;
            }
            if let Some(result) = handle(stream, state) {
                return result;
            }
        }
    }
}

/// One connection: `None` when it was not the callback (answered 404, keep waiting).
fn handle(mut stream: TcpStream, state: &str) -> Option<Result<Callback, CallbackError>> {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let head = match read_head(&mut stream) {
        Ok(head) => head,
        Err(Some(e)) => {
            respond(&mut stream, 431, "Request too large.");
            return Some(Err(e));
        }
        Err(None) => return None,
    };
    let Some(target) = head
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("GET "))
        .and_then(|rest| rest.split(' ').next())
    else {
        respond(&mut stream, 400, "Not a sign-in callback.");
        return None;
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if path != CALLBACK_PATH {
        respond(&mut stream, 404, "Not found.");
        return None;
    }
    let params = parse_query(query);
    let get = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let result = if !get("state").is_some_and(|s| constant_time_eq(s.as_bytes(), state.as_bytes()))
    {
        Err(CallbackError::StateMismatch)
    } else if let Some(error) = get("error") {
        Err(CallbackError::Denied {
            error,
            description: get("error_description"),
        })
    } else {
        match get("code").filter(|c| !c.is_empty()) {
            Some(code) => Ok(Callback {
                code,
                client_id: get("client_id").filter(|c| !c.is_empty()),
            }),
            None => Err(CallbackError::Missing("code")),
        }
    };
    match &result {
        Ok(_) => respond(
            &mut stream,
            200,
            "Signed in to ansa. You can close this tab and return to the terminal.",
        ),
        Err(e) => respond(&mut stream, 400, &e.to_string()),
    }
    Some(result)
}

/// The request head up to the blank line; `Err(None)` for a connection that sent nothing
/// usable, `Err(Some(TooLarge))` past the limit.
fn read_head(stream: &mut TcpStream) -> Result<String, Option<CallbackError>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            buf.truncate(end);
            return String::from_utf8(buf).map_err(|_| None);
        }
        if buf.len() > MAX_REQUEST_BYTES {
            return Err(Some(CallbackError::TooLarge));
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return Err(None),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn respond(stream: &mut TcpStream, status: u16, text: &str) {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        431 => "Request Header Fields Too Large",
        _ => "Bad Request",
    };
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>ansa</title><p>{}</p>\n",
        text.replace('&', "&amp;").replace('<', "&lt;")
    );
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.flush();
}

/// `application/x-www-form-urlencoded` pairs (`+` is a space, `%XX` a byte).
fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(hi), Some(lo)) => {
                    out.push((hi * 16 + lo) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    subtle::ConstantTimeEq::ct_eq(a, b).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode_percent_and_plus() {
        assert_eq!(
            parse_query("code=a%2Fb&x=1+2&bad=%zz&end=%4&u=%é1"),
            [
                ("code".to_owned(), "a/b".to_owned()),
                ("x".to_owned(), "1 2".to_owned()),
                ("bad".to_owned(), "%zz".to_owned()),
                ("end".to_owned(), "%4".to_owned()),
                ("u".to_owned(), "%é1".to_owned()),
            ]
        );
        assert!(constant_time_eq(b"abc", b"abc") && !constant_time_eq(b"abc", b"abd"));
    }
}
