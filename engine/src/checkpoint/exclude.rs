//! The config's `exclude` globs, read the way ansa's file tools read them
//! (`src/instructions/exclude.rs`): a pattern without `/` matches any single path component
//! (`*.key`, `node_modules`); a pattern with `/` matches the path relative to the workspace
//! (`build/**`, `secrets/dev`); a pattern starting with `/` matches the absolute path. The
//! walk asks about every directory before entering it, so "or one of its parents" holds.

use std::path::Path;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::checkpoint::error::CheckpointError;

/// Compiled `exclude` patterns.
#[derive(Debug, Clone)]
pub(crate) struct Exclude {
    component: GlobSet,
    relative: GlobSet,
    absolute: GlobSet,
}

impl Exclude {
    /// Compiles `patterns`; a bad one is an error naming it.
    pub(crate) fn new(patterns: &[String]) -> Result<Exclude, CheckpointError> {
        let mut component = GlobSetBuilder::new();
        let mut relative = GlobSetBuilder::new();
        let mut absolute = GlobSetBuilder::new();
        for pattern in patterns {
            let bad = |e: globset::Error| CheckpointError::BadExclude {
                pattern: pattern.clone(),
                reason: e.kind().to_string(),
            };
            let body = pattern.strip_prefix("./").unwrap_or(pattern);
            let body = body.trim_end_matches('/');
            if body.starts_with('/') {
                absolute.add(anchored(body).map_err(bad)?);
            } else if body.contains('/') {
                relative.add(anchored(body).map_err(bad)?);
            } else {
                component.add(Glob::new(body).map_err(bad)?);
            }
        }
        let build = |builder: GlobSetBuilder| {
            builder.build().map_err(|e| CheckpointError::BadExclude {
                pattern: patterns.join(", "),
                reason: e.kind().to_string(),
            })
        };
        Ok(Exclude {
            component: build(component)?,
            relative: build(relative)?,
            absolute: build(absolute)?,
        })
    }

    /// Whether the entry `name` at workspace-relative `path` (absolute `abs`) is excluded.
    pub(crate) fn matches(&self, name: &str, path: &str, abs: impl FnOnce() -> String) -> bool {
        self.component.is_match(name)
            || self.relative.is_match(path)
            || (!self.absolute.is_empty() && self.absolute.is_match(Path::new(&abs())))
    }
}

fn anchored(body: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(body).literal_separator(true).build()
}
