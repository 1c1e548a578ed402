//! The client half: whether this process has a broker, from the shell's environment. The
//! request itself is sent by `ansa`'s own HTTP client over the socket (see [`crate::wire`]).

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::wire::{TOKEN_HEX_DIGITS, env};

/// Where this process's broker listens and how to prove the right to use it.
#[derive(Clone, PartialEq, Eq)]
pub struct Route {
    socket: PathBuf,
    token: String,
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Route")
            .field("socket", &self.socket)
            .finish_non_exhaustive()
    }
}

/// Why the broker variables cannot be used (the process then goes direct).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RouteError {
    /// The socket path is not absolute.
    #[error("{} must be an absolute path to the broker's socket", env::SOCKET)]
    RelativeSocket,
    /// The token is not 64 lowercase hex digits.
    #[error("{} must be {TOKEN_HEX_DIGITS} lowercase hex digits", env::TOKEN)]
    BadToken,
    /// One of the two variables is set without the other.
    #[error("{} and {} must be set together", env::SOCKET, env::TOKEN)]
    Incomplete,
}

impl Route {
    /// The route named by `socket` and `token` (the values of the two variables), `None` when
    /// neither is set.
    pub fn from_values(
        socket: Option<&str>,
        token: Option<&str>,
    ) -> Result<Option<Route>, RouteError> {
        let (socket, token) = match (socket, token) {
            (None | Some(""), None | Some("")) => return Ok(None),
            (Some(s), Some(t)) if !s.is_empty() && !t.is_empty() => (s, t),
            _ => return Err(RouteError::Incomplete),
        };
        if !Path::new(socket).is_absolute() {
            return Err(RouteError::RelativeSocket);
        }
        if !is_token(token) {
            return Err(RouteError::BadToken);
        }
        Ok(Some(Route {
            socket: PathBuf::from(socket),
            token: token.to_owned(),
        }))
    }

    /// The route of this process's environment.
    pub fn from_env() -> Result<Option<Route>, RouteError> {
        let socket = std::env::var(env::SOCKET).ok();
        let token = std::env::var(env::TOKEN).ok();
        Route::from_values(socket.as_deref(), token.as_deref())
    }

    /// The broker's socket.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The capability token, for the [`crate::wire::TOKEN`] header only.
    pub fn token(&self) -> &str {
        &self.token
    }
}

/// Whether `text` has the shape of a capability token.
pub fn is_token(text: &str) -> bool {
    text.len() == TOKEN_HEX_DIGITS
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_needs_both_variables_an_absolute_socket_and_a_token() {
        let token = "ab".repeat(32);
        assert_eq!(Route::from_values(None, None), Ok(None));
        assert_eq!(Route::from_values(Some(""), Some("")), Ok(None));
        assert_eq!(
            Route::from_values(Some("/run/b.sock"), None),
            Err(RouteError::Incomplete)
        );
        assert_eq!(
            Route::from_values(Some("b.sock"), Some(&token)),
            Err(RouteError::RelativeSocket)
        );
        assert_eq!(
            Route::from_values(Some("/run/b.sock"), Some("AB")),
            Err(RouteError::BadToken)
        );
        let route = Route::from_values(Some("/run/b.sock"), Some(&token))
            .ok()
            .flatten();
        assert_eq!(route.as_ref().map(Route::token), Some(token.as_str()));
        assert!(
            !format!("{route:?}").contains(&token),
            "Debug hides the token"
        );
    }
}
