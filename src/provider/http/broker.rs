//! Requests through the shell's `ash-broker` (docs/broker.md): a plain HTTP/1.1 client on
//! the broker's Unix socket, used while the broker answers; a refusal before forwarding, or a
//! socket that cannot be reached or trusted, sends the request (and the rest of this
//! process's requests) directly instead.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ash_broker::client::Route;
use ash_broker::wire::CLIENT_IDLE_SECS;

/// How long connecting to the broker's socket may take before the request goes direct.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// This process's broker, and whether it is still worth asking.
pub(crate) struct BrokerLink {
    route: Route,
    client: OnceLock<Option<reqwest::Client>>,
    down: AtomicBool,
}

impl std::fmt::Debug for BrokerLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrokerLink")
            .field("route", &self.route)
            .field("down", &self.down)
            .finish_non_exhaustive()
    }
}

impl BrokerLink {
    /// A link to the broker of `route` (nothing is opened yet).
    pub(crate) fn new(route: Route) -> BrokerLink {
        BrokerLink {
            route,
            client: OnceLock::new(),
            down: AtomicBool::new(false),
        }
    }

    /// The client on the broker's socket with its route, unless the broker refused, could
    /// not be reached or is not ours. Build it inside the runtime.
    pub(crate) fn usable(&self) -> Option<(&reqwest::Client, &Route)> {
        if self.down.load(Ordering::SeqCst) {
            return None;
        }
        let client = self
            .client
            .get_or_init(|| {
                trusted(&self.route)
                    .then(|| {
                        reqwest::Client::builder()
                            .unix_socket(self.route.socket())
                            .redirect(reqwest::redirect::Policy::none())
                            .connect_timeout(CONNECT_TIMEOUT)
                            // The broker closes idle connections itself; letting them go
                            // first keeps a request off one it is closing.
                            .pool_idle_timeout(Duration::from_secs(CLIENT_IDLE_SECS))
                            .user_agent(concat!("ansa/", env!("CARGO_PKG_VERSION")))
                            .referer(false)
                            .build()
                            .ok()
                    })
                    .flatten()
            })
            .as_ref();
        match client {
            Some(c) => Some((c, &self.route)),
            None => {
                self.mark_down();
                None
            }
        }
    }

    /// The broker refused or is gone: the rest of this process's requests go direct.
    pub(crate) fn mark_down(&self) {
        self.down.store(true, Ordering::SeqCst);
    }
}

/// Whether the socket is ours: a socket owned by this uid, in a directory of ours that no one
/// else may open. Another user cannot swap anything inside such a directory, so the check
/// holds when the connection is made; a socket that fails it never sees the credentials.
fn trusted(route: &Route) -> bool {
    let uid = nix::unistd::geteuid().as_raw();
    let socket = route.socket();
    let Some(dir) = socket.parent() else {
        return false;
    };
    let private_dir = std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == uid && m.mode() & 0o077 == 0);
    let own_socket = std::fs::symlink_metadata(socket)
        .is_ok_and(|m| m.file_type().is_socket() && m.uid() == uid);
    private_dir && own_socket
}

/// The URL a request for `target` is sent to on the socket: only its path and query matter
/// (the broker forwards to the target named in its header).
pub(crate) fn socket_url(target: &reqwest::Url) -> reqwest::Url {
    let mut url = target.clone();
    let _ = url.set_scheme("http");
    let _ = url.set_host(Some("ash-broker.localhost"));
    let _ = url.set_port(None);
    url
}
