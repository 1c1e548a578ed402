//! Tool executors end to end on a real temp workspace through the in-process engine.

mod edit;
mod exec;
mod read_side;

use ansa::config::AccessMode;
use ansa::tools::{ToolArgs, ToolExecError, ToolExecutor, ToolPolicy, ToolRegistry};
use ash_engine::compute::ComputePlane;
use std::sync::Arc;
use tempfile::TempDir;

/// A workspace, a temp `ANSA_HOME`, and an executor on it.
pub struct Harness {
    /// The workspace.
    pub dir: TempDir,
    /// Kept so nothing in the tests can touch the real home.
    pub _home: TempDir,
    /// The executor under test.
    pub tools: ToolExecutor,
    registry: ToolRegistry,
}

/// The default policy of the config spec.
pub fn policy() -> ToolPolicy {
    ToolPolicy {
        access_mode: AccessMode::FullAccess,
        allow_sudo: false,
        process_timeout_ms: 60_000,
        process_output_bytes: 16_384,
    }
}

impl Harness {
    /// A harness with the default policy and `files` written into the workspace.
    pub fn new(files: &[(&str, &str)]) -> Harness {
        Harness::with(policy(), files)
    }

    /// A harness with `policy`.
    pub fn with(policy: ToolPolicy, files: &[(&str, &str)]) -> Harness {
        let dir = tempfile::tempdir().expect("workspace");
        let home = tempfile::tempdir().expect("home");
        for (path, content) in files {
            let abs = dir.path().join(path);
            if let Some(parent) = abs.parent() {
                std::fs::create_dir_all(parent).expect("mkdir");
            }
            std::fs::write(abs, content).expect("write");
        }
        let plane = Arc::new(ComputePlane::new(2).expect("plane"));
        let tools = ToolExecutor::open(dir.path(), policy, plane).expect("open");
        let registry = ToolRegistry::standard().expect("registry");
        Harness {
            dir,
            _home: home,
            tools,
            registry,
        }
    }

    /// Validates `json` as arguments of `tool` the way admission does.
    pub fn args(&self, tool: &str, json: &str) -> ToolArgs {
        self.registry
            .get(tool)
            .expect("tool")
            .validate(json)
            .expect("valid arguments")
    }

    /// Runs one call.
    pub fn call(&mut self, tool: &str, json: &str) -> Result<String, ToolExecError> {
        let args = self.args(tool, json);
        self.tools.execute(&args)
    }

    /// Runs one call that must produce an answer.
    pub fn ok(&mut self, tool: &str, json: &str) -> String {
        self.call(tool, json).expect("answer")
    }

    /// A workspace file's content.
    pub fn file(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(path)).expect("read back")
    }
}

/// Lowercase hex BLAKE3 of `text`.
pub fn hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}
