//! Tool executors end to end on a real temp workspace through the in-process engine.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod ask;
mod edit;
mod exec;
mod golden;
mod hidden;
mod nested;
mod race;
mod read_side;
mod sandbox;

use ansa::config::AccessMode;
use ansa::home::AnsaHome;
use ansa::instructions::{FileExclusion, InstructionSet};
use ansa::tools::{
    ToolArgs, ToolExecError, ToolExecutor, ToolFiles, ToolOutput, ToolPolicy, ToolRegistry,
};
use ash_engine::cancel::CancelToken;
use ash_engine::compute::ComputePlane;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tempfile::TempDir;

/// A workspace, a temp `ANSA_HOME`, and an executor on it.
pub struct Harness {
    /// The workspace.
    pub dir: TempDir,
    /// Holds the ansa home (`ansa/`) and a fake user home (`user/`), so nothing in the tests
    /// can touch the real ones.
    pub home: TempDir,
    /// The executor under test.
    pub tools: ToolExecutor,
    registry: ToolRegistry,
}

/// The default policy of the config spec.
pub fn policy() -> ToolPolicy {
    ToolPolicy {
        withheld_env: Vec::new(),
        access_mode: AccessMode::FullAccess,
        allow_sudo: false,
        allow_git_writes: false,
        process_timeout_ms: 60_000,
        process_output_bytes: 16_384,
        sandbox: ash_engine::exec::sandbox::SandboxPolicy::off(),
    }
}

impl Harness {
    /// A harness with the default policy and `files` written into the workspace.
    pub fn new(files: &[(&str, &str)]) -> Harness {
        Harness::with(policy(), files)
    }

    /// A harness with `policy`.
    pub fn with(policy: ToolPolicy, files: &[(&str, &str)]) -> Harness {
        Harness::setup(policy, files, &[], None)
    }

    /// A harness whose config excludes `exclude` and whose ansa home is `ansa_home` inside the
    /// workspace (else `home/ansa`).
    pub fn setup(
        policy: ToolPolicy,
        files: &[(&str, &str)],
        exclude: &[&str],
        ansa_home: Option<&str>,
    ) -> Harness {
        let dir = tempfile::tempdir().expect("workspace");
        let home = tempfile::tempdir().expect("home");
        for (path, content) in files {
            write(dir.path(), path, content);
        }
        let ansa = match ansa_home {
            Some(rel) => dir.path().join(rel),
            None => home.path().join("ansa"),
        };
        let user = home.path().join("user");
        std::fs::create_dir_all(&user).expect("user home");
        let patterns: Vec<String> = exclude.iter().map(|p| p.to_string()).collect();
        let exclusion = FileExclusion::new(&AnsaHome::at(ansa), Some(&user), dir.path(), &patterns)
            .expect("exclusion");
        let tools = open(dir.path(), policy, exclusion);
        // Every exec call here names `outside_sandbox`, as in a sandboxed session; what the
        // executor does with it without a sandbox is tested on its own.
        let registry = ToolRegistry::for_session(true, ansa::tools::SandboxArgument::Offered)
            .expect("registry");
        Harness {
            dir,
            home,
            tools,
            registry,
        }
    }

    /// The fake user home (`$HOME`).
    pub fn user_home(&self) -> PathBuf {
        self.home.path().join("user")
    }

    /// Validates `json` as arguments of `tool` the way admission does.
    pub fn args(&self, tool: &str, json: &str) -> ToolArgs {
        self.registry
            .get(tool)
            .expect("tool")
            .validate(json)
            .expect("valid arguments")
    }

    /// Runs one call, returning the whole output.
    pub fn output(&mut self, tool: &str, json: &str) -> Result<ToolOutput, ToolExecError> {
        let args = self.args(tool, json);
        self.tools.execute(&args, &CancelToken::new())
    }

    /// Runs one call, returning [`joined`].
    pub fn call(&mut self, tool: &str, json: &str) -> Result<String, ToolExecError> {
        self.output(tool, json).map(|out| joined(&out))
    }

    /// Runs one call that must produce an answer, returning what the model sees.
    pub fn view(&mut self, tool: &str, json: &str) -> String {
        self.output(tool, json).expect("answer").text
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

/// The delivered instructions and the canonical answer of an output (or its text when the
/// engine did not answer it).
pub fn joined(out: &ToolOutput) -> String {
    match &out.answer {
        Some(answer) => format!("{}{answer}", out.preamble),
        None => out.text.clone(),
    }
}

/// An executor on `root` whose session started with no instructions.
pub fn open(root: &Path, policy: ToolPolicy, exclusion: FileExclusion) -> ToolExecutor {
    let plane = Arc::new(ComputePlane::new(2).expect("plane"));
    let files = ToolFiles {
        exclusion,
        instructions_digest: InstructionSet::default().digest(),
        session: "tools-test".to_owned(),
        spool_base: None,
    };
    ToolExecutor::open(root, policy, plane, files).expect("open")
}

/// Writes `content` to `path` below `root`, creating parents.
pub fn write(root: &Path, path: &str, content: &str) {
    let abs = root.join(path);
    if let Some(parent) = abs.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(abs, content).expect("write");
}

/// The paths an ASON answer introduces (after any delivered instructions); a fresh session's
/// first answer introduces every path it names.
pub fn answer_paths(text: &str) -> Vec<String> {
    let start = text.find("t:3\n").expect("an ASON answer");
    let limits = ash_engine::ason::Limits::default();
    let response = ash_engine::protocol::Response::decode(&text.as_bytes()[start..], &limits)
        .expect("a valid answer");
    response.paths.into_iter().map(|(_, p)| p).collect()
}

/// Lowercase hex BLAKE3 of `text`.
pub fn hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}
