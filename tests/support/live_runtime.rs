//! A live runtime in process against the mock provider: the real session, tools and provider,
//! for benchmarks and tests that need request bodies or latencies.

#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ansa::config::AccessMode;
use ansa::instructions::FileExclusion;
use ansa::prompt::Prompt;
use ansa::provider::http::ClientOptions;
use ansa::provider::live::{Credential, LiveProvider, Wire};
use ansa::runtime::{self, CheckpointSettings, DEFAULT_QUEUE, Limits, RuntimeSetup};
use ansa::tools::{ToolExecutor, ToolFiles, ToolPolicy, ToolRegistry};
use ansa_sessions::protocol::{Command, CommandBody, EventBody};
use ansa_sessions::{Binding, CommandId, ContextPolicy, JournalOptions, Mode, Profile, Session};
use ansa_ui::{SessionLink, ToRuntime};
use ash_engine::compute::ComputePlane;

/// Opens (or reopens) the session at `root/session` on workspace `ws` with `wire` against
/// `base_url`, and waits for the first snapshot. `compact_bytes` is the compaction budget.
pub fn start(
    base_url: &str,
    wire: Wire,
    root: &Path,
    ws: &Path,
    compact_bytes: u64,
) -> SessionLink {
    let session = Session::open_or_create_at(
        &root.join("session"),
        None,
        ws,
        Profile::Live,
        JournalOptions::default(),
    )
    .unwrap();
    let home = ansa::home::AnsaHome::at(root.join("home"));
    let provider = LiveProvider::new(
        wire,
        base_url,
        Credential::Key(None),
        &ClientOptions::default(),
        "gpt-5.5",
    )
    .unwrap();
    let policy = ToolPolicy {
        withheld_env: Vec::new(),
        access_mode: AccessMode::FullAccess,
        allow_sudo: false,
        allow_git_writes: false,
        process_timeout_ms: 10_000,
        process_output_bytes: 16_384,
        sandbox: ash_engine::exec::sandbox::SandboxPolicy::off(),
    };
    let files = ToolFiles {
        exclusion: FileExclusion::new(&home, None, ws, &[]).unwrap(),
        instructions_digest: String::new(),
        session: "live-test".to_owned(),
        spool_base: None,
    };
    let tools =
        ToolExecutor::open(ws, policy, Arc::new(ComputePlane::new(2).unwrap()), files).unwrap();
    let prompt = Prompt::new("", "");
    let setup = RuntimeSetup {
        session,
        provider: Box::new(provider),
        registry: ToolRegistry::standard().unwrap(),
        tools,
        binding: Binding {
            account_hash: None,
            requested_model: "gpt-5.5".into(),
            returned_model: "gpt-5.5".into(),
            context_policy: ContextPolicy {
                compact_bytes,
                max_items: None,
            },
            config_digest: "bench".into(),
            instructions_digest: prompt.digest(),
            config: None,
            instruction_sources: Vec::new(),
        },
        prompt,
        model: ansa_sessions::ModelBinding {
            model: "gpt-5.5".into(),
            returned_model: "gpt-5.5".into(),
            // A loopback server gets no reasoning parameters (the catalog's rule).
            reasoning: false,
            effort: None,
        },
        rebind: ansa::runtime::OpenRebind::default(),
        limits: Limits {
            tool_rounds: 64,
            tool_calls: 256,
            compact_bytes,
            queue: DEFAULT_QUEUE,
            tokens: None,
        },
        previews: true,
        evidence_dir: root.join("evidence"),
        supervisor: None,
        checkpoints: CheckpointSettings {
            max_file_bytes: 16 << 20,
            budget_bytes: 1 << 30,
            exclude: Vec::new(),
        },
        children: ansa::runtime::ChildLimits {
            at_once: ansa::config::DEFAULT_MAX_CHILDREN as usize,
            tokens: ansa::config::DEFAULT_CHILD_TOKEN_BUDGET,
        },
        mcp: None,
    };
    let (link, _handle) = runtime::start(setup).unwrap();
    wait(&link, |b| matches!(b, EventBody::Snapshot(_)));
    link
}

/// Submits a basic-mode task.
pub fn submit(link: &SessionLink, id: &str, text: &str) {
    let command = Command {
        turn: 0,
        command_id: CommandId::new(id.to_owned()).unwrap(),
        body: CommandBody::Submit {
            text: text.to_owned(),
            mode: Mode::Basic,
            mentions: Vec::new(),
        },
    };
    link.commands.send(ToRuntime::Command(command)).unwrap();
}

/// Waits for an event matching `pred`; panics if the turn pauses or fails first.
pub fn wait(link: &SessionLink, pred: impl Fn(&EventBody) -> bool) {
    loop {
        let event = link
            .events
            .recv_timeout(Duration::from_secs(20))
            .expect("event");
        if pred(&event.body) {
            return;
        }
        if let EventBody::TurnState { state, reason, .. } = &event.body
            && matches!(
                state,
                ansa_sessions::TurnState::Paused | ansa_sessions::TurnState::Failed
            )
        {
            panic!("turn stopped: {reason:?}");
        }
    }
}

/// Closes the input and waits until the runtime has stopped.
pub fn close(link: SessionLink) {
    let _ = link.commands.send(ToRuntime::InputClosed);
    while link.events.recv_timeout(Duration::from_secs(20)).is_ok() {}
}
