//! Configuration errors: each names the file (or variable), the field and the reason.

use crate::home::HomeError;

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A field has an unknown name, a wrong type or a value out of bounds.
    #[error("{file}: field `{field}`: {reason}")]
    Field {
        /// The config file path, or `environment`.
        file: String,
        /// The field, e.g. `provider.base_url` or `exclude[2]`.
        field: String,
        /// What is wrong and what is accepted.
        reason: String,
    },
    /// The file is not a JSON object.
    #[error("{file}: not valid config JSON: {reason}")]
    Syntax {
        /// The config file path.
        file: String,
        /// The parser's explanation.
        reason: String,
    },
    /// The file exists but automatic loading must not use it.
    #[error("{file}: refused: {reason}")]
    Refused {
        /// The config file path.
        file: String,
        /// Why (symlink, hard link, not a regular file, too large).
        reason: String,
    },
    /// An environment variable holds a value that is not accepted.
    #[error("environment variable {var}: {reason}")]
    Env {
        /// The variable name.
        var: String,
        /// What is wrong.
        reason: String,
    },
    /// The sandbox settings cannot protect anything in this workspace (it is `/`, or it or a
    /// writable root holds ansa's home); nothing runs.
    #[error("sandbox: {0}")]
    Sandbox(String),
    /// The merged settings contradict each other.
    #[error("configuration: {0}")]
    Inconsistent(String),
    /// The home directory is unusable.
    #[error(transparent)]
    Home(#[from] HomeError),
    /// Reading a config file failed.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The config file path.
        file: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl ConfigError {
    pub(crate) fn field(file: &str, field: &str, reason: impl Into<String>) -> Self {
        ConfigError::Field {
            file: file.to_string(),
            field: field.to_string(),
            reason: reason.into(),
        }
    }

    pub(crate) fn env(var: &str, reason: impl Into<String>) -> Self {
        ConfigError::Env {
            var: var.to_string(),
            reason: reason.into(),
        }
    }
}
