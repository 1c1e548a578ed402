//! `ansa --resume [ID]`: with an ID (or a unique prefix of one) it is `--session ID`; without
//! one, the picker of this directory's sessions chooses (on a terminal only).

use std::io::{self, IsTerminal};

use ansa_sessions::Profile;
use ansa_sessions::catalog;

use super::super::{Args, Failure, start};
use crate::config::Env;
use crate::home::AnsaHome;

/// The arguments with `--resume` turned into `--session ID`; `Ok(None)` when the user left
/// the picker without choosing.
pub fn resume_args(home: &AnsaHome, env: &Env, args: &Args) -> Result<Option<Args>, Failure> {
    let Some(given) = &args.resume else {
        return Ok(Some(args.clone()));
    };
    let id = match given {
        Some(given) => catalog::resolve(&home.sessions(), given).map_err(Failure::usage)?,
        None => {
            if !(io::stdin().is_terminal() && io::stdout().is_terminal()) {
                return Err(Failure::usage(
                    "--resume without an ID opens a picker and needs a terminal; pass the ID (`ansa sessions` lists them) or use --continue for this directory's latest session",
                ));
            }
            let cwd = start::workspace(args.cwd.as_deref(), None)?;
            let config = start::load_config(home, &cwd, env, args)?;
            let profile = match start::offline(args, &config) {
                true => Profile::Offline,
                false => Profile::Live,
            };
            let mut rows = super::rows(home, None)?;
            // A session of the other profile could not be opened by this run.
            rows.retain(|r| r.profile.is_none_or(|p| p == profile));
            match ansa_ui::picker::run_picker(rows, cwd).map_err(Failure::io)? {
                Some(id) => id,
                None => return Ok(None),
            }
        }
    };
    let mut resumed = args.clone();
    resumed.session = Some(id.to_string());
    resumed.resume = None;
    Ok(Some(resumed))
}
