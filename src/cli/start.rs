//! Opening (or creating) the session and starting the runtime behind a frontend.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ansa_auth::AuthState;
use ansa_sessions::{
    Binding, ContextPolicy, InstructionSource, JournalOptions, Profile, Session, SessionError,
    SessionId,
};
use ansa_ui::SessionLink;
use ash_engine::compute::ComputePlane;

use super::{Args, Failure};
use crate::config::{self, Config, Env, ProviderKind};
use crate::home::AnsaHome;
use crate::instructions::{self, FileExclusion, InstructionSet};
use crate::prompt::Prompt;
use crate::provider::live::{LiveProvider, LiveSetupError, SignInSource};
use crate::provider::{OfflineProvider, Provider, ScriptedProvider};
use crate::runtime::{
    self, CheckpointSettings, DEFAULT_QUEUE, Limits, RuntimeError, RuntimeHandle, RuntimeSetup,
};
use crate::tools::{SandboxArgument, ToolExecutor, ToolFiles, ToolPolicy, ToolRegistry};
use ash_engine::exec::sandbox::SandboxMode;

/// A running runtime and the frontend's end of it.
pub struct Started {
    /// The frontend's link.
    pub link: SessionLink,
    /// Joins the runtime.
    pub handle: RuntimeHandle,
    /// How to reopen this session (`ansa --session <this>`).
    pub session_hint: String,
    /// The workspace.
    pub cwd: PathBuf,
    /// The requested model.
    pub model: String,
    /// Which provider answers, for `/status` (`responses at https://api.openai.com/v1`).
    pub provider: String,
    /// How requests are authorised, for `/status` (never the credential itself).
    pub credentials: String,
    /// Ask mode: every command and change waits for the user's approval.
    pub ask: bool,
    /// For a session with earlier exchanges: what it is (`resumed session … (3 exchanges, last
    /// active 2 h ago)`).
    pub resumed: Option<String>,
    /// The OS sandbox commands run under, for the footer and `/status`.
    pub sandbox: ansa_ui::tui::SandboxInfo,
    /// The access mode, for the footer and `/status`.
    pub access: ansa_ui::tui::AccessInfo,
    /// The model's context window in tokens, when the config gives it (footer, `/status`).
    pub context_window: Option<u64>,
    /// Every model's context window the config gives, for a model switched to later.
    pub context_windows: Vec<(String, u64)>,
    /// The files the tools never expose: `@` completion leaves them out too.
    pub exclusion: FileExclusion,
    /// The TUI's MCP servers, to start once its first frame is drawn (other frontends' are
    /// started already).
    pub mcp: Option<runtime::mcp::McpLauncher>,
}

/// The OS sandbox of `config` in `cwd` as frontends show it: the mode, the Landlock ABI this
/// kernel enforces, and why commands would be refused if the mode cannot be enforced.
pub fn sandbox_info(config: &Config, cwd: &Path) -> ansa_ui::tui::SandboxInfo {
    let support = ash_engine::exec::sandbox::probe();
    let policy = config.sandbox.policy();
    ansa_ui::tui::SandboxInfo {
        mode: policy.mode.as_str().to_owned(),
        landlock_abi: support.landlock_abi,
        description: policy.describe(cwd),
        refused: policy.check(&support).err().map(|e| e.to_string()),
    }
}

/// The line that tells a reopened session apart from a new one.
fn resumed_line(session: &Session) -> Option<String> {
    let exchanges = session
        .state()
        .transcript()
        .iter()
        .filter(|e| e.role == ansa_sessions::Role::User)
        .count();
    if exchanges == 0 {
        return None;
    }
    // The journal's newest part was written last. Only its parts count: opening the session
    // has just rewritten `summary.json`, which made every reopened session "last active 0 s
    // ago".
    let last = std::fs::read_dir(session.dir())
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name();
            let name = name.to_str()?;
            (name.starts_with("journal-") && name.ends_with(".jsonl")).then_some(())?;
            e.metadata().ok()?.modified().ok()
        })
        .max();
    let ago = last
        .and_then(|t| t.elapsed().ok())
        .map_or_else(String::new, |d| format!(", last active {}", ago(d)));
    let plural = if exchanges == 1 { "" } else { "s" };
    Some(format!(
        "resumed session {} ({exchanges} exchange{plural}{ago})",
        session.id()
    ))
}

/// A past duration in the largest unit that fits: `40 s`, `12 min`, `3 h`, `5 days`.
fn ago(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s ago"),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

/// The provider and the kind of credential a run uses, in words; no secret is read.
fn describe(args: &Args, plan: &Plan) -> (String, String) {
    let config = &plan.config;
    if args.script.is_some() {
        return ("scripted (--script)".to_owned(), "none needed".to_owned());
    }
    if offline(args, config) {
        return ("offline".to_owned(), "none needed".to_owned());
    }
    let provider = match &config.provider {
        crate::config::Provider::Responses { base_url }
        | crate::config::Provider::Chat { base_url, .. } => {
            format!("{} at {base_url}", config.provider.kind().as_str())
        }
        crate::config::Provider::Offline => "offline".to_owned(),
    };
    let credentials = match (&config.api_key, &plan.signin) {
        (Some(_), _) => "API key".to_owned(),
        (None, Some(_)) => "signed in with ChatGPT".to_owned(),
        (None, None) => "none (the server needs no key)".to_owned(),
    };
    (provider, credentials)
}

/// The workspace directory: `--cwd`, else the session's own cwd, else the process cwd.
pub fn workspace(cwd: Option<&Path>, session_cwd: Option<&Path>) -> Result<PathBuf, Failure> {
    let (dir, label) = match (cwd, session_cwd) {
        (Some(d), _) => (d.to_path_buf(), "--cwd"),
        (None, Some(d)) => (d.to_path_buf(), "the session's directory"),
        (None, None) => (
            std::env::current_dir().map_err(|e| {
                Failure::usage(format!(
                    "cannot read the current directory: {e}; pass --cwd DIR"
                ))
            })?,
            "the current directory",
        ),
    };
    // One exit code (usage) and one message shape for a missing path and for a file.
    let not_a_dir = |why: String| {
        Failure::usage(format!(
            "{label} {}: not a directory ({why}); pass an existing directory",
            dir.display()
        ))
    };
    let canonical = std::fs::canonicalize(&dir).map_err(|e| not_a_dir(e.to_string()))?;
    match std::fs::metadata(&canonical) {
        Ok(m) if m.is_dir() => Ok(canonical),
        Ok(_) => Err(not_a_dir("it is a file".into())),
        Err(e) => Err(not_a_dir(e.to_string())),
    }
}

/// The effective config with command-line overrides applied.
pub fn load_config(home: &AnsaHome, cwd: &Path, env: &Env, args: &Args) -> Result<Config, Failure> {
    let mut config = config::load(home, cwd, env).map_err(Failure::config)?;
    if let Some(model) = &args.model {
        if model.trim().is_empty() {
            return Err(Failure::usage("--model needs a model name"));
        }
        config.model = model.clone();
        config.returned_model = model.clone();
    }
    if let Some(exact) = &args.returned_model {
        if exact.trim().is_empty() {
            return Err(Failure::usage("--returned-model needs a model name"));
        }
        config.returned_model = exact.clone();
    }
    if args.ask {
        config.access_mode = config::AccessMode::Ask;
    }
    if let Some(mode) = args.sandbox {
        config.sandbox.mode = mode.into();
    }
    config
        .sandbox
        .check_workspace(cwd, home.root())
        .map_err(Failure::config)?;
    if let Some(n) = args.compact_bytes {
        let min = config::bounds::COMPACT_BYTES_MIN;
        if n < min {
            return Err(Failure::usage(format!(
                "--compact-bytes {n} is too small; use at least {min}"
            )));
        }
        config.compact_bytes = n;
    }
    Ok(config)
}

/// What a run is, decided once from the config of one workspace: the profile, the effective
/// config, and the sign-in a live run uses.
struct Plan {
    cwd: PathBuf,
    profile: Profile,
    config: Config,
    signin: Option<SignInSource>,
}

impl Plan {
    /// Loads the config for `cwd` and checks (without network) that the provider can work.
    fn for_cwd(home: &AnsaHome, env: &Env, args: &Args, cwd: &Path) -> Result<Plan, Failure> {
        let config = load_config(home, cwd, env, args)?;
        let (profile, signin) = if offline(args, &config) {
            (Profile::Offline, None)
        } else {
            // A rewind asks no model, so it needs neither a sign-in nor a working provider.
            if args.rewind.is_some() {
                return Ok(Plan {
                    cwd: cwd.to_path_buf(),
                    profile: Profile::Live,
                    config,
                    signin: None,
                });
            }
            let signin = signin_source(home, args, &config)?;
            // Fail before a session is created when the provider cannot work at all.
            LiveProvider::check(&config, signin.as_ref()).map_err(live_failure)?;
            (Profile::Live, signin)
        };
        Ok(Plan {
            cwd: cwd.to_path_buf(),
            profile,
            config,
            signin,
        })
    }
}

/// How the arguments name the session.
enum Target<'a> {
    /// `--session PATH`: a session directory, opened or created there.
    Dir(&'a Path),
    /// `--session ID`: a session in the home.
    Id(SessionId),
    /// `--continue`: the latest session of the workspace, or a new one.
    Latest,
    /// `--rewind` without `--session`: the latest session of the workspace, which must exist.
    LatestExisting,
    /// A new session.
    New,
}

fn target(args: &Args) -> Result<Target<'_>, Failure> {
    Ok(match (&args.session, args.continue_latest) {
        (Some(value), _) if looks_like_dir(value) => Target::Dir(Path::new(value)),
        (Some(value), _) => Target::Id(SessionId::parse(value).ok_or_else(|| {
            Failure::usage(format!(
                "--session {value}: not a session ID (like 20261130-142501-123456-4f9a2c) nor a directory path (use ./NAME for a directory here)"
            ))
        })?),
        (None, _) if args.rewind.is_some() => Target::LatestExisting,
        (None, true) => Target::Latest,
        (None, false) => Target::New,
    })
}

/// Opens the session the arguments name (or a new one) and starts the runtime on it.
/// `previews`: publish `text_preview` events (the TUI shows them; JSONL and line mode do not).
/// `can_ask`: the frontend can put approvals to the user (ask mode is refused otherwise,
/// before a session is opened).
pub fn start(
    home: &AnsaHome,
    env: &Env,
    args: &Args,
    previews: bool,
    can_ask: bool,
) -> Result<Started, Failure> {
    let given_cwd = match &args.cwd {
        Some(d) => Some(workspace(Some(d), None)?),
        None => None,
    };
    let start_cwd = match &given_cwd {
        Some(c) => c.clone(),
        None => workspace(None, None)?,
    };
    let mut plan = Plan::for_cwd(home, env, args, &start_cwd)?;
    refuse_unaskable(&plan.config, can_ask)?;
    let (sessions, options, profile) = (home.sessions(), JournalOptions::default(), plan.profile);
    let target = target(args)?;
    if !matches!(target, Target::Id(_)) {
        home.ensure().map_err(Failure::config)?;
    }
    let session = match target {
        Target::Dir(dir) => {
            Session::open_or_create_at(dir, Some(&sessions), &start_cwd, profile, options)
        }
        Target::Id(id) => Session::open_id(&sessions, &id, options),
        Target::Latest => match Session::continue_latest(&sessions, &start_cwd, profile, options) {
            Ok(Some(s)) => Ok(s),
            Ok(None) => Session::create_in_home(&sessions, &start_cwd, profile, options),
            Err(e) => Err(e),
        },
        Target::LatestExisting => {
            match Session::continue_latest(&sessions, &start_cwd, profile, options) {
                Ok(Some(s)) => Ok(s),
                Ok(None) => {
                    return Err(Failure::session(format!(
                        "there is no {} session of {} to rewind; name one with --session ID{}",
                        profile.as_str(),
                        start_cwd.display(),
                        match profile {
                            ansa_sessions::Profile::Offline => "",
                            ansa_sessions::Profile::Live =>
                                " (or add --offline for offline sessions)",
                        }
                    )));
                }
                Err(e) => Err(e),
            }
        }
        Target::New => Session::create_in_home(&sessions, &start_cwd, profile, options),
    }
    .map_err(session_failure)?;
    if session.meta().profile != profile {
        return Err(Failure::session(format!(
            "session {} belongs to the {} profile; this run is {}",
            session.id(),
            session.meta().profile.as_str(),
            profile.as_str()
        )));
    }
    // A session opened by ID works in its own directory, whose config may differ.
    let cwd = workspace(given_cwd.as_deref(), Some(&session.meta().cwd))?;
    if cwd != plan.cwd {
        plan = Plan::for_cwd(home, env, args, &cwd)?;
        refuse_unaskable(&plan.config, can_ask)?;
    }
    // A resumed session keeps the access mode and sandbox it was started with.
    if let Some(bound) = session.state().binding() {
        super::resume_access::restore(&mut plan.config, bound, args, &session.id().to_string())?;
        plan.config
            .sandbox
            .check_workspace(&cwd, home.root())
            .map_err(Failure::config)?;
        if plan.config.access_mode == config::AccessMode::Ask && !can_ask {
            return Err(Failure::usage(format!(
                "session {} was started in ask mode (every command and change waits for your approval) and resumes in it, but stdin is not a terminal; run ansa in a terminal, or drive it with --offline-jsonl/--live-jsonl and answer with `approve` commands",
                session.id()
            )));
        }
    }
    let instructions = instructions::discover(home, &cwd).map_err(Failure::config)?;
    let hint = session_hint(&session, home);
    let (provider, credentials) = describe(args, &plan);
    let resumed = resumed_line(&session);
    let mut setup = setup_for(home, &plan, &instructions, session, args)?;
    setup.previews = previews;
    let exclusion = setup.tools.exclusion().clone();
    let mcp = setup.mcp.as_ref().map(runtime::mcp::McpSession::launcher);
    let (link, handle) = runtime::start(setup).map_err(runtime_failure)?;
    // The TUI (the frontend with previews) starts its servers after its first frame.
    let mcp = match mcp {
        Some(launcher) if !previews => {
            launcher.launch();
            None
        }
        deferred => deferred,
    };
    let in_force = handle.model().to_string();
    // The model in force, which `--model` or an earlier rebinding may have made another than
    // the config's: its window is the one the fill is measured against.
    let context_window = config::window_of(&plan.config.context_windows, &handle.model().model);
    Ok(Started {
        link,
        handle,
        session_hint: hint,
        provider,
        credentials,
        resumed,
        ask: plan.config.access_mode == config::AccessMode::Ask,
        access: match plan.config.access_mode {
            config::AccessMode::FullAccess => ansa_ui::tui::AccessInfo::FullAccess,
            config::AccessMode::ReadOnly => ansa_ui::tui::AccessInfo::ReadOnly,
            config::AccessMode::Ask => ansa_ui::tui::AccessInfo::Ask,
        },
        sandbox: sandbox_info(&plan.config, &cwd),
        context_window,
        context_windows: plan.config.context_windows.clone(),
        exclusion,
        mcp,
        model: match (&args.script, offline(args, &plan.config)) {
            (Some(_), _) => "scripted".to_owned(),
            (None, true) => crate::config::OFFLINE_MODEL.to_owned(),
            (None, false) => in_force,
        },
        cwd,
    })
}

impl Started {
    /// What the TUI shows for this session (its header, hint, provider and sandbox).
    pub fn tui_info(&self, home: &AnsaHome) -> ansa_ui::tui::TuiInfo {
        ansa_ui::tui::TuiInfo {
            cwd: self.cwd.display().to_string(),
            model: self.model.clone(),
            session_hint: self.session_hint.clone(),
            provider: self.provider.clone(),
            credentials: self.credentials.clone(),
            resumed: self.resumed.clone(),
            sandbox: self.sandbox.clone(),
            access: self.access,
            context_window: self.context_window,
            context_windows: self.context_windows.clone(),
            sessions_home: Some(home.root().to_path_buf()),
            theme: ansa_ui::tui::Theme::detect(),
            mentions: Some(super::mention_source(&self.cwd, self.exclusion.clone())),
            prompts: ansa_ui::tui::PromptDirs {
                user: Some(home.root().join("prompts")),
                project: Some(self.cwd.join(".ansa").join("prompts")),
            },
        }
    }
}

/// The TUI's `/new`: the same start-up path as the first session ([`start`]), for a new
/// session in the workspace of the current one with the same arguments (so the same config,
/// provider and sign-in). It owns the running runtime's handle: the caller joins the latest
/// one with [`Renewer::join`] once the TUI has ended.
pub struct Renewer<'a> {
    home: &'a AnsaHome,
    env: &'a Env,
    args: Args,
    can_ask: bool,
    /// The running runtime (the first session's, then each new one's).
    handle: Option<RuntimeHandle>,
    /// How the running session is reopened (`--session` value).
    hint: String,
    /// Its workspace, which a new session keeps.
    cwd: PathBuf,
    /// The first session's MCP servers, started once the TUI's first frame is drawn.
    mcp: Option<runtime::mcp::McpLauncher>,
}

impl<'a> Renewer<'a> {
    /// Takes over the first session's runtime.
    pub fn new(
        home: &'a AnsaHome,
        env: &'a Env,
        args: &Args,
        can_ask: bool,
        started: Started,
    ) -> (Self, SessionLink, ansa_ui::tui::TuiInfo) {
        let info = started.tui_info(home);
        let renewer = Renewer {
            home,
            env,
            args: args.clone(),
            can_ask,
            hint: started.session_hint,
            cwd: started.cwd,
            handle: Some(started.handle),
            mcp: started.mcp,
        };
        (renewer, started.link, info)
    }

    /// Waits until the running runtime has stopped.
    pub fn join(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.join();
        }
    }

    /// Starts the TUI's runtime for `session` (`None`: a new one) in the current workspace.
    fn open(&mut self, session: Option<String>) -> Result<ansa_ui::tui::Renewed, Failure> {
        let mut args = self.args.clone();
        args.session = session;
        args.continue_latest = false;
        args.cwd = Some(self.cwd.clone());
        let started = start(self.home, self.env, &args, true, self.can_ask)?;
        // The TUI is on screen already: nothing to wait for.
        if let Some(launcher) = &started.mcp {
            launcher.launch();
        }
        let info = started.tui_info(self.home);
        self.hint = started.session_hint;
        self.cwd = started.cwd;
        self.handle = Some(started.handle);
        Ok(ansa_ui::tui::Renewed {
            link: started.link,
            info,
        })
    }
}

impl ansa_ui::tui::Renew for Renewer<'_> {
    fn first_frame_drawn(&mut self) {
        if let Some(launcher) = self.mcp.take() {
            launcher.launch();
        }
    }

    fn renew(&mut self) -> Result<ansa_ui::tui::Renewed, ansa_ui::tui::RenewError> {
        // The TUI closed the runtime's input and saw its events end; joining makes sure its
        // threads, and with them the session's journal and lock, are gone.
        self.join();
        let previous = self.hint.clone();
        match self.open(None) {
            Ok(renewed) => Ok(renewed),
            Err(failure) => Err(ansa_ui::tui::RenewError {
                reason: failure.message,
                // Back to where the user was rather than out of the TUI.
                restored: self.open(Some(previous)).ok().map(Box::new),
            }),
        }
    }
}

/// Ask mode needs someone to ask: a terminal on stdin or a JSONL driver.
fn refuse_unaskable(config: &Config, can_ask: bool) -> Result<(), Failure> {
    if config.access_mode == config::AccessMode::Ask && !can_ask {
        return Err(Failure::usage(
            "--ask (access_mode \"ask\") is interactive: every command and change waits for your approval, and stdin is not a terminal; run ansa in a terminal, drive it with --offline-jsonl/--live-jsonl and answer with `approve` commands, or use access_mode full_access or read_only",
        ));
    }
    Ok(())
}

/// Builds everything the runtime needs for an open session in `cwd` (the offline demo's
/// path: no sign-in is looked up for it).
pub fn build_setup(
    home: &AnsaHome,
    cwd: &Path,
    config: &Config,
    instructions: &InstructionSet,
    session: Session,
    args: &Args,
) -> Result<RuntimeSetup, Failure> {
    let plan = Plan {
        cwd: cwd.to_path_buf(),
        profile: session.meta().profile,
        config: config.clone(),
        signin: None,
    };
    setup_for(home, &plan, instructions, session, args)
}

fn setup_for(
    home: &AnsaHome,
    plan: &Plan,
    instructions: &InstructionSet,
    session: Session,
    args: &Args,
) -> Result<RuntimeSetup, Failure> {
    let (cwd, config) = (plan.cwd.as_path(), &plan.config);
    let mut account_hash = None;
    let provider: Box<dyn Provider> = match (&args.script, offline(args, config)) {
        (Some(file), _) => Box::new(ScriptedProvider::load(file).map_err(Failure::usage)?),
        (None, true) => Box::new(OfflineProvider),
        // A rewind asks no model: the live provider and its credentials are not needed.
        (None, false) if args.rewind.is_some() => Box::new(runtime::RewindOnly),
        (None, false) => {
            let live =
                LiveProvider::from_config(config, plan.signin.as_ref()).map_err(live_failure)?;
            if live.signed_in() {
                account_hash = plan.signin.as_ref().map(|s| s.account.clone());
            }
            Box::new(live)
        }
    };
    let prompt = Prompt::new(&instructions::render(instructions), &instructions.digest());
    let computed = Binding {
        account_hash,
        requested_model: config.model.clone(),
        returned_model: config.returned_model.clone(),
        context_policy: ContextPolicy {
            compact_bytes: config.compact_bytes,
            max_items: None,
        },
        config_digest: config.digest(),
        instructions_digest: prompt.digest(),
        config: Some(config.binding_fields()),
        instruction_sources: std::iter::once((
            "ansa's base instructions".to_owned(),
            Prompt::base_digest(),
        ))
        .chain(instructions.sources())
        .map(|(label, digest)| InstructionSource { label, digest })
        .collect(),
    };
    // A rewind makes no request: the session stays bound to what it was bound to, whatever
    // the environment of this run says (a shell without the provider's variables).
    let binding = match (args.rewind.is_some(), session.state().binding()) {
        (true, Some(bound)) => bound.clone(),
        _ => computed,
    };
    let sandbox_argument = if config.sandbox.mode == SandboxMode::Off {
        SandboxArgument::Absent
    } else {
        SandboxArgument::Offered
    };
    let registry = ToolRegistry::for_session(
        args.script.is_some() || offline(args, config),
        sandbox_argument,
    )
    .map_err(Failure::config)?;
    let plane = ComputePlane::host();
    let user_home = std::env::var_os("HOME").map(PathBuf::from);
    let exclusion = FileExclusion::new(home, user_home.as_deref(), cwd, &config.exclude)
        .map_err(Failure::config)?
        .with_private_dir(session.dir());
    // The store in use (an `--auth-dir`, a legacy directory) is as private as the default.
    let exclusion = match super::auth::location(home, args) {
        Ok(place) => exclusion.with_private_dir(&place.path),
        Err(e) if args.auth_dir.is_some() => return Err(e),
        Err(_) => exclusion,
    };
    let policy = ToolPolicy::from_config(config);
    let files = ToolFiles {
        exclusion,
        instructions_digest: instructions.digest(),
        session: session.id().to_string(),
        spool_base: Some(home.spool_dir()),
    };
    let tools = ToolExecutor::open(cwd, policy, Arc::new(plane), files).map_err(|e| {
        Failure::config(format!("cannot open the workspace {}: {e}", cwd.display()))
    })?;
    let evidence_dir = home.evidence_dir(session.id());
    crate::home::ensure_private_dir(&evidence_dir).map_err(Failure::config)?;
    let mcp = start_mcp(config, &session, args)?;
    let supervisor = std::env::current_exe().map_err(|e| {
        Failure::config(format!(
            "cannot locate the ansa executable to supervise commands: {e}"
        ))
    })?;
    // A rewind makes no request, so it neither switches nor checks the model.
    let rebind = match args.rewind {
        Some(_) => runtime::OpenRebind::default(),
        None => runtime::OpenRebind {
            model: args.model.clone(),
            returned_model: args.returned_model.clone(),
            effort: args.effort,
        },
    };
    let model = ansa_sessions::ModelBinding {
        model: binding.requested_model.clone(),
        returned_model: binding.returned_model.clone(),
        reasoning: config.reasoning,
        effort: None,
    };
    Ok(RuntimeSetup {
        session,
        provider,
        registry,
        tools,
        prompt,
        binding,
        model,
        rebind,
        limits: Limits {
            tool_rounds: config.tool_rounds,
            tool_calls: config.tool_calls,
            compact_bytes: config.compact_bytes,
            queue: DEFAULT_QUEUE,
            tokens: None,
        },
        previews: false,
        evidence_dir,
        supervisor: Some(supervisor),
        checkpoints: CheckpointSettings {
            max_file_bytes: config.checkpoint_max_file_bytes,
            budget_bytes: config.checkpoint_budget_bytes,
            exclude: config.exclude.clone(),
        },
        children: crate::runtime::ChildLimits {
            at_once: config.max_children as usize,
            tokens: config.child_token_budget,
        },
        mcp,
    })
}

/// The session's MCP servers, started in the background (this returns at once); their stderr
/// goes to `<session dir>/mcp/<server>.log`. A rewind asks no model and starts none.
fn start_mcp(
    config: &Config,
    session: &Session,
    args: &Args,
) -> Result<Option<runtime::mcp::McpSession>, Failure> {
    if config.mcp.servers.is_empty() || args.rewind.is_some() {
        return Ok(None);
    }
    let log_dir = session.dir().join("mcp");
    crate::home::ensure_private_dir(&log_dir).map_err(|e| {
        Failure::config(format!(
            "cannot create the MCP log directory {}: {e}",
            log_dir.display()
        ))
    })?;
    Ok(runtime::mcp::McpSession::start(
        &config.mcp,
        &log_dir,
        &config.withheld_env,
    ))
}

/// A new private directory under the system temp dir for `purpose` (the demo, the
/// self-check); the caller removes it.
pub fn scratch_dir(purpose: &str) -> Result<PathBuf, Failure> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!("ansa-{purpose}-{}-{nanos}", std::process::id());
    let dir = std::env::temp_dir().join(name);
    crate::home::ensure_private_dir(&dir).map_err(|e| {
        Failure::config(format!(
            "cannot create a scratch directory for the {purpose}: {e}; point TMPDIR at a writable directory"
        ))
    })?;
    Ok(dir)
}

/// Whether this run uses the offline profile: asked for, or the config's provider is offline.
pub fn offline(args: &Args, config: &Config) -> bool {
    args.wants_offline() || config.provider.kind() == ProviderKind::Offline
}

/// The sign-in a live run uses when no API key is configured: read from the store alone (no
/// network; a due refresh happens in the worker after a task is submitted). `None` when an
/// API key is set, the provider is not the Responses API, or nobody is signed in.
pub fn signin_source(
    home: &AnsaHome,
    args: &Args,
    config: &Config,
) -> Result<Option<SignInSource>, Failure> {
    if config.api_key.is_some() || config.provider.kind() != ProviderKind::Responses {
        return Ok(None);
    }
    let place = super::auth::location(home, args)?;
    let Some(store) = super::auth::existing(&place)? else {
        return Ok(None);
    };
    let status = ansa_auth::status(&store).map_err(Failure::config)?;
    match (status.state, status.account_hash) {
        (AuthState::SignedIn | AuthState::Expired, Some(account)) => Ok(Some(SignInSource {
            store: place.path,
            account,
        })),
        (AuthState::RefreshUncertain, _) => Err(Failure {
            exit: super::Exit::Auth,
            message: format!(
                "auth_refresh_uncertain: the sign-in in {} ended (an earlier refresh got no answer, so its token is never sent again); run `ansa --login`",
                place.path.display()
            ),
        }),
        _ => Ok(None),
    }
}

/// Maps a live provider that cannot be built: a missing key is an auth problem (4).
pub fn live_failure(e: LiveSetupError) -> Failure {
    match e {
        LiveSetupError::NoKey => Failure {
            exit: super::Exit::Auth,
            message: e.to_string(),
        },
        other => Failure::config(other),
    }
}

fn looks_like_dir(value: &str) -> bool {
    value.contains('/') || value == "." || value == ".." || Path::new(value).is_dir()
}

fn session_hint(session: &Session, home: &AnsaHome) -> String {
    if session.dir().starts_with(home.sessions_dir()) {
        session.id().to_string()
    } else {
        session.dir().display().to_string()
    }
}

/// Maps a session error to its exit code.
pub fn session_failure(e: SessionError) -> Failure {
    // The error's own text already says what to do (`session_busy: … close it there or start
    // a new session`); saying it twice only repeats it.
    Failure::session(e)
}

fn runtime_failure(e: RuntimeError) -> Failure {
    match e {
        RuntimeError::Session(s) => session_failure(s),
        RuntimeError::Model(runtime::OpenRebindError::Session(s)) => session_failure(s),
        RuntimeError::Model(m) => Failure::usage(m.to_string()),
        other => Failure::session(other),
    }
}
