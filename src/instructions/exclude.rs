//! Files the file tools never expose (docs/contract/agent-behaviour.md §3): dotenv files, known credential stores, ansa's
//! own auth and session data, and the config's `exclude` globs.
//!
//! `exclude` globs: a pattern without `/` matches any single path component below the cwd (like
//! `.gitignore`: `*.key`, `node_modules`) or the file name outside it; a pattern with `/` is
//! matched against the path relative to the cwd and each of its parent directories (`build/**`,
//! `secrets/dev`); a pattern starting with `/` against the absolute path and its parents.

use std::fmt;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use super::{InstructionError, normalize};
use crate::home::AnsaHome;

/// Directories that are credential stores wherever they appear.
/// Every name below is lowercase: names are compared case-insensitively.
const SECRET_DIRS: &[&str] = &[".ssh", ".gnupg", ".password-store", "keychains"];
/// File names that hold credentials wherever they appear.
const SECRET_FILES: &[&str] = &[
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".pgpass",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
    "credentials.json",
    ".htpasswd",
];
/// Extensions of private-key and key-store files wherever they appear. `.pem` is not among
/// them: public certificates share it, so a private `.pem` needs an `exclude` pattern.
const SECRET_EXTENSIONS: &[&str] = &[".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".kdbx"];
/// Multi-component credential locations wherever they appear.
const SECRET_PATHS: &[&[&str]] = &[
    &[".aws", "credentials"],
    &[".docker", "config.json"],
    &[".kube", "config"],
    &[".config", "gh", "hosts.yml"],
    &[".config", "gcloud"],
    &[".local", "share", "keyrings"],
];
/// Files that hold credentials when they sit directly in the user's home.
const HOME_SECRET_FILES: &[&str] = &[".npmrc", ".pypirc"];
/// `.env.<suffix>` templates that are meant to be committed and carry no secrets.
const DOTENV_TEMPLATES: &[&str] = &["example", "sample", "template", "dist"];

/// Why a path is hidden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExclusionReason {
    /// A dotenv file.
    Dotenv,
    /// A known credential store.
    CredentialStore,
    /// ansa's own auth or session data.
    AnsaPrivate,
    /// Matched a configured `exclude` pattern.
    Configured(String),
    /// A regular file with more than one hard link: it may be another name of a hidden file.
    HardLinked,
}

impl fmt::Display for ExclusionReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExclusionReason::Dotenv => f.write_str("dotenv files are never exposed to tools"),
            ExclusionReason::CredentialStore => {
                f.write_str("credential stores are never exposed to tools")
            }
            ExclusionReason::AnsaPrivate => {
                f.write_str("ansa's own auth and session data are never exposed to tools")
            }
            ExclusionReason::Configured(p) => write!(f, "excluded by the config pattern {p:?}"),
            ExclusionReason::HardLinked => f.write_str(
                "files with more than one hard link are never exposed to tools (the other name may be a hidden file)",
            ),
        }
    }
}

/// The predicate file tools consult before reading, listing or searching a path.
#[derive(Debug, Clone)]
pub struct FileExclusion {
    cwd: PathBuf,
    user_home: Option<PathBuf>,
    private: Vec<PathBuf>,
    component: (GlobSet, Vec<String>),
    anchored: (GlobSet, Vec<String>),
}

impl FileExclusion {
    /// Builds the predicate; `user_home` is `$HOME` (for home-only credential files) and
    /// `patterns` the config's `exclude` list.
    pub fn new(
        home: &AnsaHome,
        user_home: Option<&Path>,
        cwd: &Path,
        patterns: &[String],
    ) -> Result<Self, InstructionError> {
        let mut component = (GlobSetBuilder::new(), Vec::new());
        let mut anchored = (GlobSetBuilder::new(), Vec::new());
        for p in patterns {
            let body = p.strip_prefix("./").unwrap_or(p).trim_end_matches('/');
            let bad = |e: globset::Error| InstructionError::BadGlob {
                pattern: p.clone(),
                reason: e.kind().to_string(),
            };
            if body.contains('/') {
                let glob = GlobBuilder::new(body)
                    .literal_separator(true)
                    .build()
                    .map_err(bad)?;
                anchored.0.add(glob);
                anchored.1.push(p.clone());
            } else {
                component.0.add(Glob::new(body).map_err(bad)?);
                component.1.push(p.clone());
            }
        }
        let build = |(b, names): (GlobSetBuilder, Vec<String>)| -> Result<(GlobSet, Vec<String>), InstructionError> {
            let set = b.build().map_err(|e| InstructionError::BadGlob { pattern: names.join(", "), reason: e.kind().to_string() })?;
            Ok((set, names))
        };
        let mut this = Self {
            cwd: normalize(cwd),
            user_home: user_home.map(normalize),
            private: Vec::new(),
            component: build(component)?,
            anchored: build(anchored)?,
        };
        this = this
            .with_private_dir(&home.auth_dir())
            .with_private_dir(&home.sessions_dir());
        Ok(this)
    }

    /// Also hides `dir` (an `--auth-dir` or `--session DIR`), by its given and canonical paths.
    pub fn with_private_dir(mut self, dir: &Path) -> Self {
        let given = normalize(&self.cwd.join(dir));
        if let Ok(real) = std::fs::canonicalize(&given)
            && real != given
        {
            self.private.push(real);
        }
        self.private.push(given);
        self
    }

    /// Whether `path` (absolute, or relative to the cwd) must stay hidden, and why. The check is
    /// lexical, so a tool must also check the path it really opens once links are resolved.
    pub fn check(&self, path: &Path) -> Option<ExclusionReason> {
        let abs = normalize(&self.cwd.join(path));
        if self.private.iter().any(|p| abs.starts_with(p)) {
            return Some(ExclusionReason::AnsaPrivate);
        }
        // Case-insensitively: on a case-insensitive filesystem `.ENV` is `.env`.
        let lower: Vec<String> = abs
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .map(str::to_lowercase)
            .collect();
        let names: Vec<&str> = lower.iter().map(String::as_str).collect();
        if let Some(name) = names.last()
            && is_dotenv(name)
        {
            return Some(ExclusionReason::Dotenv);
        }
        if self.is_credential_store(&abs, &names) {
            return Some(ExclusionReason::CredentialStore);
        }
        self.configured(&abs).map(ExclusionReason::Configured)
    }

    /// Shorthand for `check(path).is_some()`.
    pub fn is_excluded(&self, path: &Path) -> bool {
        self.check(path).is_some()
    }

    fn is_credential_store(&self, abs: &Path, names: &[&str]) -> bool {
        let last = names.last().copied().unwrap_or("");
        if names.iter().any(|n| SECRET_DIRS.contains(n)) || SECRET_FILES.contains(&last) {
            return true;
        }
        if last.ends_with(".keychain")
            || last.ends_with(".keychain-db")
            || SECRET_EXTENSIONS
                .iter()
                .any(|ext| last.len() > ext.len() && last.ends_with(ext))
        {
            return true;
        }
        if SECRET_PATHS
            .iter()
            .any(|seq| names.windows(seq.len()).any(|w| w == *seq))
        {
            return true;
        }
        match (&self.user_home, abs.parent()) {
            (Some(home), Some(parent)) => {
                parent.to_string_lossy().to_lowercase() == home.to_string_lossy().to_lowercase()
                    && HOME_SECRET_FILES.contains(&last)
            }
            _ => false,
        }
    }

    fn configured(&self, abs: &Path) -> Option<String> {
        let first = |set: &(GlobSet, Vec<String>), candidate: &Path| {
            set.0.matches(candidate).first().map(|&i| set.1[i].clone())
        };
        if let Ok(rel) = abs.strip_prefix(&self.cwd) {
            for c in rel.components() {
                if let Some(p) = first(&self.component, Path::new(c.as_os_str())) {
                    return Some(p);
                }
            }
            for candidate in rel.ancestors().filter(|a| !a.as_os_str().is_empty()) {
                if let Some(p) = first(&self.anchored, candidate) {
                    return Some(p);
                }
            }
        } else if let Some(name) = abs.file_name()
            && let Some(p) = first(&self.component, Path::new(name))
        {
            return Some(p);
        }
        abs.ancestors().find_map(|a| first(&self.anchored, a))
    }
}

fn is_dotenv(name: &str) -> bool {
    if name == ".env" || name == ".envrc" {
        return true;
    }
    if let Some(suffix) = name.strip_prefix(".env.") {
        return !DOTENV_TEMPLATES.contains(&suffix);
    }
    name.len() > 4 && name.ends_with(".env")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(patterns: &[&str]) -> FileExclusion {
        let patterns: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        let home = AnsaHome::at("/h/.ansa");
        FileExclusion::new(
            &home,
            Some(Path::new("/h")),
            Path::new("/w/proj"),
            &patterns,
        )
        .unwrap()
    }

    #[test]
    fn dotenv_files() {
        let p = policy(&[]);
        for hidden in [
            ".env",
            "sub/.env.local",
            ".env.production",
            ".envrc",
            "docker/prod.env",
        ] {
            assert_eq!(
                p.check(Path::new(hidden)),
                Some(ExclusionReason::Dotenv),
                "{hidden}"
            );
        }
        for visible in [
            ".env.example",
            ".env.sample",
            "src/env.rs",
            "environment.md",
            ".envoy",
        ] {
            assert!(!p.is_excluded(Path::new(visible)), "{visible}");
        }
    }

    #[test]
    fn credential_stores() {
        let p = policy(&[]);
        for hidden in [
            "/h/.ssh/id_ed25519.pub",
            "/h/.ssh",
            "/h/.aws/credentials",
            "/h/.netrc",
            "/h/.git-credentials",
            "/h/.npmrc",
            "/h/Library/Keychains/login.keychain-db",
            "/h/.local/share/keyrings/x",
            "/h/.config/gh/hosts.yml",
            "keys/id_rsa",
            "/h/.docker/config.json",
            "tls/server.key",
            "certs/client.P12",
            "android/release.keystore",
            "deploy/prod.pfx",
            "app/credentials.json",
            "site/.htpasswd",
        ] {
            assert_eq!(
                p.check(Path::new(hidden)),
                Some(ExclusionReason::CredentialStore),
                "{hidden}"
            );
        }
        for visible in [
            "/h/.aws/config",
            "web/.npmrc",
            "src/ssh.rs",
            "id_rsa.pub",
            "/h/notes.txt",
            "tls/server.pem",
            "src/key.rs",
            "keystore.md",
            ".key",
        ] {
            assert!(!p.is_excluded(Path::new(visible)), "{visible}");
        }
    }

    #[test]
    fn ansa_private_data_even_through_dotdot() {
        let p = policy(&[]).with_private_dir(Path::new("/w/proj/.omh-session"));
        for hidden in [
            "/h/.ansa/auth/tokens.json",
            "/h/.ansa/sessions/x/journal-000001.jsonl",
            ".omh-session/lock",
            "/w/proj/../../h/.ansa/auth",
        ] {
            assert_eq!(
                p.check(Path::new(hidden)),
                Some(ExclusionReason::AnsaPrivate),
                "{hidden}"
            );
        }
        assert!(!p.is_excluded(Path::new("/h/.ansa/config.json")));
        assert!(!p.is_excluded(Path::new("/h/.ansa/AGENTS.md")));
    }

    #[test]
    fn configured_globs() {
        let p = policy(&[
            "*.secret",
            "node_modules",
            "build/**",
            "secrets/dev",
            "/opt/private/*",
        ]);
        let reason = |s: &str| p.check(Path::new(s));
        assert_eq!(
            reason("a/b/c.secret"),
            Some(ExclusionReason::Configured("*.secret".into()))
        );
        assert_eq!(
            reason("/etc/tls/c.secret"),
            Some(ExclusionReason::Configured("*.secret".into()))
        );
        assert!(p.is_excluded(Path::new("web/node_modules/x/index.js")));
        assert!(p.is_excluded(Path::new("build/out/a.o")));
        assert!(p.is_excluded(Path::new("secrets/dev/token")));
        assert!(p.is_excluded(Path::new("/opt/private/x")));
        for visible in [
            "src/build/x",
            "secrets/prod",
            "key.rs",
            "/home/node_modules_notes",
        ] {
            assert!(!p.is_excluded(Path::new(visible)), "{visible}");
        }
    }

    #[test]
    fn bad_glob_is_an_error() {
        let home = AnsaHome::at("/h/.ansa");
        let err =
            FileExclusion::new(&home, None, Path::new("/w"), &["a[".to_string()]).unwrap_err();
        assert!(err.to_string().contains("a["), "{err}");
    }
}
