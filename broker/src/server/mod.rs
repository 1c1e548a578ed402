//! The broker: listens on its private socket, checks every request (peer, token, target,
//! headers, size) and forwards it on one shared HTTP client with a bounded per-host pool,
//! streaming the request body through and the answer back as they arrive, within the limits
//! of [`limits`]. It keeps no prompt, response or credential.

mod command_line;
mod error;
mod forward;
mod lease;
mod life;
mod limits;
mod listen;
mod options;
mod parent;
mod probe;
mod stream;
mod upload;

pub use command_line::BrokerArgs;
pub use error::BrokerError;
pub use options::{Options, Upstream};
pub use probe::{Probe, probe};

use std::sync::Arc;

use tokio::net::UnixListener;

/// Checks, before anything else is read, that the socket's directory is private.
pub fn check_directory(options: &Options) -> Result<(), BrokerError> {
    listen::socket_dir(&options.socket).and_then(listen::private_dir)
}

/// Runs the broker until a signal, the parent's exit or the idle expiry; removes its socket,
/// lease and lock on the way out.
pub fn run(options: Options, token: String) -> Result<(), BrokerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(BrokerError::Runtime)?;
    let client = forward::client(&options)?;
    let lease = Arc::new(lease::Lease::open(&options.lease)?);
    let claimed = listen::claim(&options)?;
    let result = runtime.block_on(async {
        let listener = UnixListener::from_std(claimed.listener()?).map_err(BrokerError::Listen)?;
        let state = Arc::new(forward::State::new(
            client,
            token,
            Arc::clone(&lease),
            &options,
        ));
        life::serve(listener, state, &options).await
    });
    claimed.release();
    lease.remove();
    result
}
