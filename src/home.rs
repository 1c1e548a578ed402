//! The per-user home, `~/.ansa/` or `$ANSA_HOME`: its layout and the file modes inside it.

use std::ffi::OsString;
use std::fs::{DirBuilder, File, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Errors about the home directory, worded for the user.
#[derive(Debug, thiserror::Error)]
pub enum HomeError {
    /// Neither `ANSA_HOME` nor `HOME` names a directory.
    #[error(
        "cannot locate the ansa home: neither ANSA_HOME nor HOME is set; set ANSA_HOME to an absolute path"
    )]
    NotSet,
    /// The variable holds a relative path, which would change meaning with the cwd.
    #[error("{var} must be an absolute path, got {value:?}")]
    NotAbsolute {
        /// `ANSA_HOME` or `HOME`.
        var: &'static str,
        /// What the variable held.
        value: PathBuf,
    },
    /// A directory others may write to could have its config or tokens swapped.
    #[error(
        "insecure permissions on {path}: mode {mode:04o} lets group or others write; fix with chmod 700 {path}"
    )]
    Insecure {
        /// The offending directory or file.
        path: String,
        /// Its permission bits.
        mode: u32,
    },
    /// The path exists but is not a directory.
    #[error("{path} is not a directory")]
    NotADirectory {
        /// The offending path.
        path: String,
    },
    /// Any other filesystem failure.
    #[error("{what} {path}: {source}")]
    Io {
        /// What we were doing.
        what: &'static str,
        /// Where.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl HomeError {
    fn io(what: &'static str, path: &Path, source: std::io::Error) -> Self {
        HomeError::Io {
            what,
            path: path.display().to_string(),
            source,
        }
    }
}

/// The per-user `ansa` home directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnsaHome {
    root: PathBuf,
}

impl AnsaHome {
    /// `$ANSA_HOME`, else `$HOME/.ansa`, from the process environment.
    pub fn from_env() -> Result<Self, HomeError> {
        Self::from_lookup(|name| std::env::var_os(name))
    }

    /// Like [`AnsaHome::from_env`] with an explicit variable lookup (tests never touch the real home).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Result<Self, HomeError> {
        let get = |var: &'static str| -> Result<Option<PathBuf>, HomeError> {
            match lookup(var).filter(|v| !v.is_empty()).map(PathBuf::from) {
                Some(p) if p.is_absolute() => Ok(Some(p)),
                Some(p) => Err(HomeError::NotAbsolute { var, value: p }),
                None => Ok(None),
            }
        };
        if let Some(root) = get("ANSA_HOME")? {
            return Ok(Self::at(root));
        }
        match get("HOME")? {
            Some(home) => Ok(Self::at(home.join(".ansa"))),
            None => Err(HomeError::NotSet),
        }
    }

    /// A home at an explicit path.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The home directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<home>/config.json`, the user config file.
    pub fn config_file(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }

    /// `<home>/AGENTS.md`, the user's own instructions.
    pub fn agents_file(&self) -> PathBuf {
        self.root.join(AGENTS_FILE)
    }

    /// The same home as the sessions crate sees it (it owns the layout below `sessions/`).
    pub fn sessions(&self) -> ansa_sessions::SessionStore {
        ansa_sessions::SessionStore::at(&self.root)
    }

    /// `<home>/sessions`, as laid out by the sessions crate.
    pub fn sessions_dir(&self) -> PathBuf {
        self.sessions().sessions_dir()
    }

    /// `<home>/auth`, the default token store.
    pub fn auth_dir(&self) -> PathBuf {
        self.root.join("auth")
    }

    /// `<home>/runtime/spool`: where sessions spool large command captures, shared so that a
    /// crashed session's spool root is reclaimed by a later one.
    pub fn spool_dir(&self) -> PathBuf {
        self.root.join("runtime").join("spool")
    }

    /// `<home>/runtime/evidence/<session>`: the retained outputs (`@N`) of one session.
    pub fn evidence_dir(&self, session: &ansa_sessions::SessionId) -> PathBuf {
        self.root
            .join("runtime")
            .join("evidence")
            .join(session.as_str())
    }

    /// Creates the home (0700) if it is missing, then checks it is safe to use.
    pub fn ensure(&self) -> Result<(), HomeError> {
        ensure_private_dir(&self.root)
    }

    /// Checks the home if it exists; `Ok(false)` when it does not exist yet.
    pub fn verify_if_exists(&self) -> Result<bool, HomeError> {
        match std::fs::metadata(&self.root) {
            Ok(_) => verify_private_dir(&self.root).map(|()| true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(HomeError::io("cannot inspect", &self.root, e)),
        }
    }
}

/// File name of a config file, in the home and in `<cwd>/.ansa/`.
pub const CONFIG_FILE: &str = "config.json";
/// File name of an instruction file.
pub const AGENTS_FILE: &str = "AGENTS.md";

/// Creates `dir` and any missing parents with mode 0700, then verifies it.
pub fn ensure_private_dir(dir: &Path) -> Result<(), HomeError> {
    match DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        Ok(()) => verify_private_dir(dir),
        Err(e) => Err(HomeError::io("cannot create directory", dir, e)),
    }
}

/// Refuses a directory that group or others can write to (it follows a symlinked root: the user
/// chose the path, and the target is what gets checked).
pub fn verify_private_dir(dir: &Path) -> Result<(), HomeError> {
    let meta = std::fs::metadata(dir).map_err(|e| HomeError::io("cannot inspect", dir, e))?;
    if !meta.is_dir() {
        return Err(HomeError::NotADirectory {
            path: dir.display().to_string(),
        });
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(HomeError::Insecure {
            path: dir.display().to_string(),
            mode,
        });
    }
    Ok(())
}

/// Creates a new file with mode 0600; fails if the path already exists (never clobbers, never
/// follows a planted symlink).
pub fn create_private_file(path: &Path) -> Result<File, HomeError> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| HomeError::io("cannot create file", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn ansa_home_wins_over_home() {
        let h = AnsaHome::from_lookup(lookup(&[("ANSA_HOME", "/x/h"), ("HOME", "/u")])).unwrap();
        assert_eq!(h.root(), Path::new("/x/h"));
        let h = AnsaHome::from_lookup(lookup(&[("ANSA_HOME", ""), ("HOME", "/u")])).unwrap();
        assert_eq!(h.root(), Path::new("/u/.ansa"));
        assert_eq!(h.config_file(), Path::new("/u/.ansa/config.json"));
        assert_eq!(h.agents_file(), Path::new("/u/.ansa/AGENTS.md"));
        assert_eq!(h.sessions_dir(), Path::new("/u/.ansa/sessions"));
        assert_eq!(h.auth_dir(), Path::new("/u/.ansa/auth"));
    }

    #[test]
    fn unset_or_relative_is_an_error() {
        assert!(matches!(
            AnsaHome::from_lookup(lookup(&[])),
            Err(HomeError::NotSet)
        ));
        let err = AnsaHome::from_lookup(lookup(&[("ANSA_HOME", "rel/h")])).unwrap_err();
        assert!(
            err.to_string()
                .contains("ANSA_HOME must be an absolute path"),
            "{err}"
        );
    }

    #[test]
    fn ensure_creates_0700_and_files_are_0600() {
        let t = tempfile::tempdir().unwrap();
        let home = AnsaHome::at(t.path().join("a/b/home"));
        assert!(!home.verify_if_exists().unwrap());
        home.ensure().unwrap();
        assert!(home.verify_if_exists().unwrap());
        let mode = std::fs::metadata(home.root()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        create_private_file(&home.config_file()).unwrap();
        let mode = std::fs::metadata(home.config_file())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
        assert!(
            create_private_file(&home.config_file()).is_err(),
            "never clobbers"
        );
    }

    #[test]
    fn group_or_world_writable_home_is_refused() {
        let t = tempfile::tempdir().unwrap();
        for mode in [0o770, 0o702, 0o777] {
            std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(mode)).unwrap();
            let err = AnsaHome::at(t.path()).ensure().unwrap_err();
            let msg = err.to_string();
            assert!(
                msg.contains("insecure permissions") && msg.contains("chmod 700"),
                "{msg}"
            );
        }
        std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        AnsaHome::at(t.path()).ensure().unwrap();
    }

    #[test]
    fn a_file_is_not_a_home() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("f");
        std::fs::write(&f, "").unwrap();
        let err = AnsaHome::at(&f).verify_if_exists().unwrap_err();
        assert!(matches!(err, HomeError::NotADirectory { .. }), "{err}");
    }
}
