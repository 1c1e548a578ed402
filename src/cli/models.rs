//! `--models`: the provider's model catalog, one ID per line.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use ansa_ui::sanitize::exact;

use super::{Args, Exit, Failure, start};
use crate::config::Env;
use crate::home::AnsaHome;
use crate::provider::ProviderError;
use crate::provider::live::LiveProvider;

/// Prints the catalog of the configured live provider.
pub fn run(home: &AnsaHome, env: &Env, args: &Args) -> Result<Exit, Failure> {
    let cwd = start::workspace(args.cwd.as_deref(), None)?;
    let config = start::load_config(home, &cwd, env, args)?;
    if start::offline(args, &config) {
        println!("{}", exact(&config.model));
        return Ok(Exit::Success);
    }
    let signin = start::signin_source(home, args, &config)?;
    let provider =
        LiveProvider::from_config(&config, signin.as_ref()).map_err(start::live_failure)?;
    let ids = provider
        .models(&AtomicBool::new(false))
        .map_err(|e| match e {
            ProviderError::Auth(m) => Failure {
                exit: Exit::Auth,
                message: m,
            },
            other => Failure::io(format!("cannot list models: {other}")),
        })?;
    let mut out = std::io::stdout().lock();
    for id in ids {
        // The IDs are the server's text.
        let _ = writeln!(out, "{}", exact(&id));
    }
    Ok(Exit::Success)
}
