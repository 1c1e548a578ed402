//! Sign in with ChatGPT (docs/auth.md): where tokens live and how they are written, the lock
//! that serializes refreshes across processes, discovery, the browser flow (authorization URL,
//! loopback callback, code exchange, id_token verification), refresh and revocation. No
//! dependency on another workspace crate.
//!
//! Every file is reached through the store directory's descriptor, never by re-resolving a
//! path, so a local process that swaps a name for a symlink between a check and a use gains
//! nothing.

#![forbid(unsafe_code)]

mod authorize;
mod callback;
mod credentials;
mod device;
mod dir;
mod discovery;
mod error;
mod exchange;
mod host;
mod http;
mod idtoken;
mod keyring;
mod lease;
mod location;
mod lock;
mod refresh;
mod revoke;
mod signin;
mod status;

pub use authorize::{
    AGENT_NAME, Authorization, AuthorizeError, AuthorizeOptions, DYNAMIC_CLIENT_ID, RESOURCE,
    SCOPES, authorize,
};
pub use callback::{Callback, CallbackError, CallbackServer};
pub use credentials::{Credentials, StoreBackend, StoreChoice};
pub use device::{DeviceCode, SiwcDeviceFields, sign_in_device};
pub use dir::AuthDir;
pub use discovery::{Discovery, DiscoveryError};
pub use error::AuthError;
pub use exchange::{ExchangeError, SiwcFields, Tokens, exchange_code, refresh as refresh_tokens};
pub use host::HostId;
pub use http::{Http, HttpError};
pub use idtoken::{Expected, IdClaims, IdTokenError, verify as verify_id_token};
pub use lease::{AuthLease, LEASE_FILE, LOGOUT_FILE, LeaseError, signing_out};
pub use location::{Location, LocationSource, locate};
pub use lock::RefreshLock;
pub use refresh::{PENDING_FILE, REFRESH_MARGIN, RefreshError, ensure_fresh, now_ms};
pub use revoke::{Revocation, revoke};
pub use signin::{
    BROWSER_WAIT, BrowserSignIn, DISCOVERY_FILE, DeviceError, PLAN_SCOPE, SignInError, SignedIn,
    check_scope, discover, discover_cached, sign_in_browser,
};
pub use status::{AuthState, AuthStatus, LEASE_WAIT, SignedOut, account_hash, sign_out, status};
