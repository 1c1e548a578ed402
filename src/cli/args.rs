//! The command line (docs/contract/agent-behaviour.md §1) as parsed by clap.

use std::path::PathBuf;

use ash_engine::exec::sandbox::SandboxMode;
use clap::Parser;

/// The end of `ansa --help` and of the man page: exit codes, files and the environment.
const AFTER_HELP: &str = "\
Exit status: 0 success; 1 the task failed, paused or was cancelled; 2 usage; 3 configuration; \
4 sign-in or API key required or refused; 5 session busy or unusable; 130 interrupted.

Files: ~/.ansa (ANSA_HOME moves it): config.json (user config; \"auth\": {\"issuer\": \
\"https://...\"} signs in with another issuer than https://auth.openai.com), sessions/ (one \
journal directory per session), auth/ (the sign-in; tokens in the OS keyring when one \
answers). ~/.ansa/AGENTS.md, then every AGENTS.md from / down to the workspace, is read at a \
session's start.

Environment: AI_PROVIDER (responses, chat, offline), AI_ENDPOINT, AI_MODEL, AI_API_KEY (else \
OPENAI_API_KEY), AI_CA_FILE; ANSA_HOME.";

/// A fast, durable terminal coding agent.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "ansa",
    version,
    disable_help_subcommand = true,
    after_long_help = AFTER_HELP
)]
pub struct Args {
    /// Run one task, print the verified final answer, exit. Without it: the TUI on a terminal, else line mode.
    pub task: Option<String>,

    /// Use the deterministic offline provider (no network).
    #[arg(long)]
    pub offline: bool,

    /// Replay the model turns in FILE (scripted provider; with any offline mode).
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,

    /// JSONL driver on stdin/stdout with the offline provider.
    #[arg(long)]
    pub offline_jsonl: bool,

    /// JSONL driver on stdin/stdout with the live provider of the config.
    #[arg(long, conflicts_with_all = ["offline", "offline_jsonl", "script"])]
    pub live_jsonl: bool,

    /// The model to request (overrides the config and AI_MODEL).
    #[arg(long, value_name = "M")]
    pub model: Option<String>,

    /// The exact model name the provider must report back (default: the requested model).
    #[arg(long, value_name = "EXACT")]
    pub returned_model: Option<String>,

    /// The reasoning effort of a reasoning model: minimal, low, medium or high, as the
    /// catalog allows (Responses `reasoning.effort`). With --continue/--session, --model and
    /// --effort switch the session's model for the following turns (a journaled rebinding).
    #[arg(long, value_name = "EFFORT", value_parser = parse_effort)]
    pub effort: Option<ansa_sessions::Effort>,

    /// List the provider's model catalog.
    #[arg(long, conflicts_with_all = ["offline_jsonl", "live_jsonl", "offline_demo", "self_check", "print_config"])]
    pub models: bool,

    /// Reopen a session by ID, or use the session directory DIR (created if missing).
    #[arg(long, value_name = "ID|DIR")]
    pub session: Option<String>,

    /// Reopen the newest session of this cwd and profile.
    #[arg(long = "continue", conflicts_with = "session")]
    pub continue_latest: bool,

    /// Work in DIR (default: the process cwd).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// One full offline round trip through the real loop and tools; exits 0.
    #[arg(long, conflicts_with_all = ["offline_jsonl", "self_check", "print_config"])]
    pub offline_demo: bool,

    /// Verify home dir modes, config, TLS roots, journal and engine; exit 0 or 1.
    #[arg(long, conflicts_with_all = ["offline_jsonl", "print_config"])]
    pub self_check: bool,

    /// Print the effective config (user + project merged) as JSON.
    #[arg(long, conflicts_with = "offline_jsonl")]
    pub print_config: bool,

    /// Ask before every command, edit and file change this run (access_mode "ask"); needs a
    /// terminal on stdin or a JSONL driver that answers `approve`.
    #[arg(long)]
    pub ask: bool,

    /// Run commands under the OS sandbox MODE this run (config `sandbox`): off (full rights),
    /// workspace-write (write only the workspace and temp dirs, no network unless
    /// `sandbox_network`), read-only (write nothing). Overrides both config files.
    #[arg(long, value_name = "MODE", value_enum)]
    pub sandbox: Option<SandboxFlag>,

    /// Soft JSON-context budget in bytes (at least 16384; default 262144).
    #[arg(long, value_name = "N")]
    pub compact_bytes: Option<u64>,

    /// Sign in with ChatGPT in a browser (the URL is printed; $BROWSER opens it if set).
    #[arg(long, conflicts_with_all = ["auth_status", "refresh_auth", "logout"])]
    pub login: bool,

    /// Sign in again, asking for consent anew.
    #[arg(long, conflicts_with_all = ["auth_status", "refresh_auth", "logout"])]
    pub login_consent: bool,

    /// With --login: sign in with a code entered on another device (RFC 8628).
    #[arg(long, requires = "login")]
    pub device: bool,

    /// Print the sign-in state, the account-binding hash and the time to expiry (no network).
    #[arg(long, conflicts_with_all = ["refresh_auth", "logout"])]
    pub auth_status: bool,

    /// Refresh the sign-in's tokens now (not before the issuer allows it).
    #[arg(long, conflicts_with = "logout")]
    pub refresh_auth: bool,

    /// Sign out: delete the local tokens, then ask the issuer to revoke them.
    #[arg(long)]
    pub logout: bool,

    /// Write the shell integration for SHELL (bash or zsh): an `ansa` function that shares
    /// provider connections through one ash-broker per interactive shell.
    #[arg(long, value_name = "SHELL", value_enum)]
    pub install_shell: Option<super::shell::Shell>,

    /// With --install-shell: replace an older integration.
    #[arg(long, requires = "install_shell")]
    pub overwrite: bool,

    /// Print the live provider's base URL the shell's broker may forward to (exit 1 when
    /// there is none); used by the shell integration.
    #[arg(long)]
    pub broker_upstream: bool,

    /// Print the completion script for SHELL on stdout (bash, zsh, fish, elvish, powershell).
    #[arg(long, value_name = "SHELL", exclusive = true)]
    pub completions: Option<clap_complete::Shell>,

    /// Use the sign-in kept in DIR (an absolute path) instead of ~/.ansa/auth, for the auth
    /// commands and for live runs.
    #[arg(long, value_name = "DIR")]
    pub auth_dir: Option<PathBuf>,

    /// List the checkpoints of this directory's latest session (or of --session ID), numbered
    /// by turn, and its rewinds as undo-1, undo-2 …; with N, show the plan of a rewind to
    /// before turn N, ask, and rewind; with `undo` (the latest) or `undo-K`, put the files
    /// back to just before that rewind (with --offline for offline sessions). Needs no
    /// provider credentials.
    #[arg(
        long,
        value_name = "N|undo|undo-K",
        num_args = 0..=1,
        value_parser = ansa_ui::parse_rewind_pick,
        conflicts_with_all = ["task", "offline_jsonl", "live_jsonl", "offline_demo", "self_check", "print_config", "models"]
    )]
    pub rewind: Option<Option<ansa_ui::RewindPick>>,

    /// With --rewind N: what to take back (the workspace, the conversation, or both).
    #[arg(long, value_name = "SCOPE", value_enum, default_value_t = RewindScopeArg::Both)]
    pub rewind_scope: RewindScopeArg,

    /// With --rewind N: what to do with files something other than this session changed after
    /// that turn: keep them, take the checkpoint's version, or refuse the rewind.
    #[arg(long, value_name = "CHOICE", value_enum, default_value_t = OnConflictArg::Refuse)]
    pub on_conflict: OnConflictArg,

    /// With --rewind N: rewind without asking (needed when stdin is not a terminal).
    #[arg(long, requires = "rewind")]
    pub yes: bool,

    /// Reopen session ID; without an ID, pick one of this directory's sessions in a list
    /// (on a terminal; Tab shows every directory's).
    #[arg(
        long,
        value_name = "ID",
        num_args = 0..=1,
        conflicts_with_all = ["session", "continue_latest", "task", "offline_jsonl", "live_jsonl", "rewind"]
    )]
    pub resume: Option<Option<String>>,

    /// What to do instead of running a task (`ansa sessions`).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `ansa <COMMAND>`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    /// List sessions (newest first), or delete them: `ansa sessions`, `ansa sessions rm ID…`,
    /// `ansa sessions prune --older-than 30d`.
    Sessions(SessionsArgs),
}

/// `ansa sessions`.
#[derive(Debug, Clone, clap::Args)]
#[command(args_conflicts_with_subcommands = true, disable_help_subcommand = true)]
pub struct SessionsArgs {
    /// Delete sessions or prune old ones instead of listing.
    #[command(subcommand)]
    pub action: Option<SessionsAction>,

    /// Only the sessions of the current directory (or of --cwd).
    #[arg(long)]
    pub here: bool,

    /// One JSON object per session and line, for scripts (fields in docs/sessions.md).
    #[arg(long)]
    pub json: bool,
}

/// `ansa sessions rm|prune`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum SessionsAction {
    /// Delete sessions with their evidence and checkpoints; a session open in another process
    /// is refused (session_busy). Every ID is checked before anything is deleted.
    Rm {
        /// Session IDs as `ansa sessions` lists them, or unique prefixes of them.
        #[arg(required = true, value_name = "ID")]
        ids: Vec<String>,
    },
    /// Delete every session not active for AGE (like 30d, 12h, 90m, 2w), skipping those open
    /// elsewhere, and reclaim the evidence of sessions deleted by hand.
    Prune {
        /// How long a session must have been idle: a number and a unit (s, m, h, d, w).
        #[arg(long, value_name = "AGE", required = true)]
        older_than: String,
    },
}

/// `--rewind-scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RewindScopeArg {
    /// The workspace only.
    Code,
    /// The conversation only.
    Conversation,
    /// Both.
    Both,
}

/// `--on-conflict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnConflictArg {
    /// Leave files changed outside the session as they are.
    Keep,
    /// The checkpoint's version wins.
    Take,
    /// Change nothing and say which files conflict.
    Refuse,
}

/// The `--sandbox` values (the engine's [`SandboxMode`] names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SandboxFlag {
    /// No OS sandbox: commands have your full rights.
    Off,
    /// Write only the workspace, $TMPDIR, /tmp and `sandbox_writable`; network per `sandbox_network`.
    WorkspaceWrite,
    /// Write nothing but /dev/null-like devices; no network.
    ReadOnly,
}

impl From<SandboxFlag> for SandboxMode {
    fn from(flag: SandboxFlag) -> SandboxMode {
        match flag {
            SandboxFlag::Off => SandboxMode::Off,
            SandboxFlag::WorkspaceWrite => SandboxMode::WorkspaceWrite,
            SandboxFlag::ReadOnly => SandboxMode::ReadOnly,
        }
    }
}

/// `--effort`'s value.
fn parse_effort(text: &str) -> Result<ansa_sessions::Effort, String> {
    text.parse()
}

impl Args {
    /// Whether a JSONL driver was asked for.
    pub fn jsonl(&self) -> bool {
        self.offline_jsonl || self.live_jsonl
    }

    /// Whether the offline profile was asked for on the command line.
    pub fn wants_offline(&self) -> bool {
        self.offline || self.offline_jsonl || self.offline_demo || self.script.is_some()
    }
}
