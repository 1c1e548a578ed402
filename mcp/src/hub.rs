//! `McpHub`: every server of a session behind blocking methods for ansa's threads, driven by a
//! tokio runtime that exists only when at least one server is enabled.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, NumberOrString, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde_json::{Map, Value};

use crate::cancel::CancelFlag;
use crate::config::{ChildEnv, ServerConfig, ServerName};
use crate::content::CallResult;
use crate::error::CallError;
use crate::progress::ProgressSink;
use crate::server::{Server, service_error};
use crate::status::{ServerState, ServerStatus};
use crate::tool::McpTool;

/// How often a running call looks at its cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(5);
/// Bound on sending `notifications/cancelled` to a server that may be stuck.
const CANCEL_SEND: Duration = Duration::from_secs(1);

/// The generation counter and the condition `settle` and `watch` wait on.
pub(crate) struct Notifier {
    generation: AtomicU64,
    /// Whether [`McpHub::shutdown`] has begun (watchers stop then).
    lock: Mutex<bool>,
    changed: Condvar,
}

impl Notifier {
    fn new() -> Self {
        Self {
            generation: AtomicU64::new(0),
            lock: Mutex::new(false),
            changed: Condvar::new(),
        }
    }

    /// A server's state or tools changed.
    pub fn bump(&self) {
        let _guard = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_all();
    }
}

/// What [`McpHub::watch`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watched {
    /// The generation is now this one.
    Changed(u64),
    /// Nothing changed within the wait.
    Quiet,
    /// [`McpHub::shutdown`] has begun: nothing more to watch.
    Closed,
}

/// Owns every server of a session and the tokio runtime that drives them (ansa's runtime is threads).
pub struct McpHub {
    servers: Vec<Arc<Server>>,
    notifier: Arc<Notifier>,
    /// Servers waiting for [`McpHub::launch`].
    pending: Mutex<Vec<Arc<Server>>>,
    runtime: Mutex<Option<tokio::runtime::Runtime>>,
}

impl McpHub {
    /// Starts every enabled server in the background and returns at once: [`Self::new`], then
    /// [`Self::launch`].
    pub fn start(configs: Vec<ServerConfig>, log_dir: &Path, env: ChildEnv) -> McpHub {
        let hub = McpHub::new(configs, log_dir, env);
        hub.launch();
        hub
    }

    /// Every configured server in its first state (`starting`, `disabled` or `failed`), none
    /// started until [`Self::launch`].
    ///
    /// Stdio servers run in `log_dir` terms: stderr goes to `<log_dir>/<server>.log`, their
    /// environment is `env.base` plus the server's own `env`. A session without an enabled
    /// server creates no runtime and no thread.
    pub fn new(configs: Vec<ServerConfig>, log_dir: &Path, env: ChildEnv) -> McpHub {
        let notifier = Arc::new(Notifier::new());
        let env = Arc::new(env);
        let mut configs = configs;
        // Same order for `tools` and `statuses` whatever order the config map gave.
        configs.sort_by(|a, b| a.name.cmp(&b.name));
        let mut servers: Vec<Arc<Server>> = Vec::with_capacity(configs.len());
        for config in configs {
            let duplicate = servers.iter().any(|s| s.config.name == config.name);
            let checked = config.transport.check();
            let (state, error) = if duplicate {
                (
                    ServerState::Failed,
                    Some("another MCP server has the same name; this one is not started".into()),
                )
            } else if let Err(why) = checked {
                (ServerState::Failed, Some(why.to_string()))
            } else if config.enabled {
                (ServerState::Starting, None)
            } else {
                (ServerState::Disabled, None)
            };
            servers.push(Arc::new(Server::new(
                config,
                Arc::clone(&notifier),
                log_dir.to_path_buf(),
                Arc::clone(&env),
                state,
                error,
            )));
        }
        let pending: Vec<_> = servers
            .iter()
            .filter(|s| s.state() == ServerState::Starting)
            .cloned()
            .collect();
        McpHub {
            servers,
            notifier,
            pending: Mutex::new(pending),
            runtime: Mutex::new(None),
        }
    }

    /// Starts the servers not started yet in the background and returns at once; later calls
    /// do nothing. A TUI calls it once its first frame is drawn, so that servers starting
    /// (node takes a core for a while) do not compete with it; a request's
    /// [`Self::settle`] and a [`Self::call`] launch first, so nothing waits for a launch
    /// that never comes.
    pub fn launch(&self) {
        // The runtime's lock first: a `call` racing a launch waits for the runtime to exist
        // rather than finding none.
        let mut slot = self
            .runtime
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let starting = std::mem::take(
            &mut *self
                .pending
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        if starting.is_empty() {
            return;
        }
        match tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ansa-mcp")
            .enable_all()
            .build()
        {
            Ok(runtime) => {
                for server in starting {
                    runtime.spawn(server.start());
                }
                *slot = Some(runtime);
            }
            Err(e) => {
                for server in &starting {
                    server.fail_without_runtime(&format!("cannot start the MCP runtime: {e}"));
                }
            }
        }
    }

    /// Waits until every server is Ready/Failed or the deadline passes (used before a request).
    pub fn settle(&self, deadline: Instant) {
        self.launch();
        let mut guard = self
            .notifier
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if self.servers.iter().all(|s| s.state().is_settled()) {
                return;
            }
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            guard = match self.notifier.changed.wait_timeout(guard, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Tools of ready servers (filtered by enabled/disabled_tools), in a stable order.
    pub fn tools(&self) -> Vec<McpTool> {
        self.servers
            .iter()
            .flat_map(|s| s.tools().iter().cloned().collect::<Vec<_>>())
            .collect()
    }

    /// Bumped whenever a server's tool list or state changes (tools/list_changed, exit, restart).
    pub fn generation(&self) -> u64 {
        self.notifier.generation.load(Ordering::SeqCst)
    }

    /// For whoever shows the servers' states as they change: waits up to `wait` until the
    /// generation is not `seen` (`None`: returns at once); `Closed` once [`Self::shutdown`]
    /// has begun.
    pub fn watch(&self, seen: Option<u64>, wait: Duration) -> Watched {
        let deadline = Instant::now() + wait;
        let mut closed = self
            .notifier
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if *closed {
                return Watched::Closed;
            }
            let generation = self.generation();
            if seen != Some(generation) {
                return Watched::Changed(generation);
            }
            let now = Instant::now();
            if now >= deadline {
                return Watched::Quiet;
            }
            closed = match self.notifier.changed.wait_timeout(closed, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// [`Self::statuses`] unless [`Self::shutdown`] has begun: never the states stopping the
    /// servers leaves (`exited`, "stopped with the session"), no news to a user who ended the
    /// session. (`shutdown` closes under the lock this reads under, before it stops anything.)
    pub fn statuses_while_open(&self) -> Option<Vec<ServerStatus>> {
        let closed = self
            .notifier
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (!*closed).then(|| self.statuses())
    }

    /// One row per configured server, in name order.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.servers.iter().map(|s| s.status()).collect()
    }

    /// Blocking call from a worker thread; sends notifications/cancelled when `cancel` fires or the
    /// tool timeout passes; restarts a dead server (with backoff) before the call.
    pub fn call(
        &self,
        server: &ServerName,
        tool: &str,
        arguments: Map<String, Value>,
        cancel: &CancelFlag,
    ) -> Result<CallResult, CallError> {
        self.call_with_progress(server, tool, arguments, cancel, None)
    }

    /// [`Self::call`], asking the server for `notifications/progress` (a progress token in
    /// the request's `_meta`) and passing each report to `progress` until the call ends.
    pub fn call_with_progress(
        &self,
        server: &ServerName,
        tool: &str,
        arguments: Map<String, Value>,
        cancel: &CancelFlag,
        progress: Option<ProgressSink>,
    ) -> Result<CallResult, CallError> {
        let Some(server) = self.servers.iter().find(|s| &s.config.name == server) else {
            return Err(CallError::NoSuchServer);
        };
        self.launch();
        let handle = {
            let runtime = self
                .runtime
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let Some(runtime) = runtime.as_ref() else {
                return Err(CallError::NotReady(
                    server
                        .status()
                        .last_error
                        .unwrap_or_else(|| "the server is not running".into()),
                ));
            };
            runtime.handle().clone()
        };
        // The call runs on the runtime and this thread waits on a channel, so the method works
        // from any thread, even one inside another tokio runtime.
        let (send, receive) = std::sync::mpsc::sync_channel(1);
        let task = call(
            Arc::clone(server),
            tool.to_string(),
            arguments,
            cancel.clone(),
            progress,
        );
        handle.spawn(async move {
            let _ = send.send(task.await);
        });
        receive.recv().unwrap_or_else(|_| {
            Err(CallError::NotReady(
                "the MCP runtime stopped during the call".into(),
            ))
        })
    }

    /// Stops every server (stdio children killed, no orphans). Also on Drop.
    pub fn shutdown(&self) {
        {
            let mut closed = self
                .notifier
                .lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *closed = true;
            self.notifier.changed.notify_all();
        }
        // Servers never launched stay so.
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
        let processes: Vec<_> = self
            .servers
            .iter()
            .filter_map(|s| s.begin_shutdown())
            .collect();
        // Every group got SIGTERM at once; they share one grace period.
        let deadline = Instant::now() + crate::server::stdio::GRACE;
        for process in processes {
            let mut guard = process
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            guard.finish(deadline);
        }
        let runtime = self
            .runtime
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(runtime) = runtime {
            // Dropping a runtime inside another runtime's context panics; a plain thread is
            // never inside one.
            let _ = std::thread::Builder::new()
                .name("ansa-mcp-stop".into())
                .spawn(move || runtime.shutdown_timeout(Duration::from_millis(200)))
                .map(|t| t.join());
        }
        self.notifier.bump();
    }
}

impl Drop for McpHub {
    fn drop(&mut self) {
        self.shutdown();
    }
}

async fn call(
    server: Arc<Server>,
    tool: String,
    arguments: Map<String, Value>,
    cancel: CancelFlag,
    progress: Option<ProgressSink>,
) -> Result<CallResult, CallError> {
    let cancelled = async {
        while !cancel.is_cancelled() {
            tokio::time::sleep(CANCEL_POLL).await;
        }
    };
    tokio::pin!(cancelled);
    let (peer, epoch) = tokio::select! {
        ready = server.ready_peer() => ready.map_err(CallError::NotReady)?,
        () = &mut cancelled => return Err(CallError::Cancelled),
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new(tool).with_arguments(arguments),
    ));
    let mut handle = match peer
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
    {
        Ok(handle) => handle,
        Err(e) => return Err(died(&server, epoch, &service_error(&e)).await),
    };
    // rmcp gave the request a progress token; reports under it go to the sink until this
    // ends, however it ends. (One sent before this line runs is missed: a first step that
    // quick is rare, and progress is only shown.)
    let _progress = match (progress, &handle.progress_token.0) {
        (Some(sink), NumberOrString::Number(token)) => Some(server.progress.register(*token, sink)),
        _ => None,
    };
    let timeout = tokio::time::sleep(server.config.tool_timeout);
    tokio::pin!(timeout);
    let answer = tokio::select! {
        answer = &mut handle.rx => answer,
        () = &mut timeout => {
            let _ = tokio::time::timeout(CANCEL_SEND, handle.cancel(Some("tool_timeout passed".into()))).await;
            return Err(CallError::Timeout);
        }
        () = &mut cancelled => {
            let _ = tokio::time::timeout(CANCEL_SEND, handle.cancel(Some("cancelled by the user".into()))).await;
            return Err(CallError::Cancelled);
        }
    };
    // A server that changed its tools during the call notified it before answering; the
    // caller's next request must offer the new list.
    server.tools_settled().await;
    match answer {
        Ok(Ok(ServerResult::CallToolResult(result))) => CallResult::from_rmcp(result),
        Ok(Ok(other)) => Err(CallError::Protocol(format!(
            "tools/call was answered with a result that is not a tool result ({})",
            result_kind(&other)
        ))),
        Ok(Err(rmcp::ServiceError::McpError(error))) => Err(CallError::Protocol(format!(
            "the server refused the call: error {}: {}",
            error.code.0,
            crate::sanitize::one_line(&error.message, 500)
        ))),
        Ok(Err(e)) => Err(died(&server, epoch, &service_error(&e)).await),
        Err(_) => Err(died(&server, epoch, "the connection closed").await),
    }
}

/// The transport failed under a call: withdraw the server and say why it died.
async fn died(server: &Server, epoch: u64, fallback: &str) -> CallError {
    let why = server.death_reason(epoch, fallback).await;
    server.mark_broken(epoch, fallback);
    CallError::ServerDied(why)
}

fn result_kind(result: &ServerResult) -> &'static str {
    match result {
        ServerResult::EmptyResult(_) => "empty",
        _ => "another kind",
    }
}
