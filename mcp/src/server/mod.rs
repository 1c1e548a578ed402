//! One server's life: connecting (spawn or HTTP, `initialize`, `tools/list` under the startup
//! timeout), watching the connection, restarting with backoff, refreshing its tools.

mod handler;
pub(crate) mod http;
pub(crate) mod stdio;
mod watch;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rmcp::service::{Peer, RunningServiceCancellationToken, ServiceExt};
use rmcp::{RoleClient, ServiceError};

use crate::config::{ChildEnv, ServerConfig, Transport};
use crate::hub::Notifier;
use crate::sanitize::one_line;
use crate::status::{ServerState, ServerStatus};
use crate::tool::McpTool;
use handler::Handler;
use stdio::ChildProcess;
use watch::{ListChanges, Watched};

/// First restart delay after a failed start; doubled per further failure up to `MAX_BACKOFF`.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A server's state as every thread sees it.
struct Shared {
    state: ServerState,
    tools: Arc<Vec<McpTool>>,
    last_error: Option<String>,
    /// Consecutive failed starts; 0 after a successful one.
    failed_starts: u32,
    /// No restart before this instant (backoff after a failed start).
    retry_at: Option<Instant>,
    /// Incremented per connection attempt, so a late event of an old connection is ignored.
    epoch: u64,
    connection: Option<Connection>,
    shut_down: bool,
}

struct Connection {
    peer: Peer<RoleClient>,
    stop: Option<RunningServiceCancellationToken>,
    process: Option<Arc<Mutex<ChildProcess>>>,
}

/// One configured server.
pub(crate) struct Server {
    pub config: ServerConfig,
    shared: Mutex<Shared>,
    /// Held while connecting, so a call waits for a start in progress instead of racing it.
    lifecycle: tokio::sync::Mutex<()>,
    notifier: Arc<Notifier>,
    log_dir: PathBuf,
    env: Arc<ChildEnv>,
    /// `tools/list_changed` notifications seen by the transport and refreshes done after them.
    list_changes: Arc<ListChanges>,
    /// Where the progress reports of running calls go, by their tokens.
    pub progress: Arc<crate::progress::Sinks>,
    /// Held while the tool list is fetched again (one refresh at a time): when the last ended.
    refreshing: tokio::sync::Mutex<Option<tokio::time::Instant>>,
}

/// The least time between the end of one tool-list refresh and the start of the next.
const REFRESH_GAP: Duration = Duration::from_millis(100);

/// Why a connection attempt failed, for `last_error`.
type StartError = String;

impl Server {
    pub fn new(
        config: ServerConfig,
        notifier: Arc<Notifier>,
        log_dir: PathBuf,
        env: Arc<ChildEnv>,
        initial: ServerState,
        last_error: Option<String>,
    ) -> Self {
        Self {
            config,
            shared: Mutex::new(Shared {
                state: initial,
                tools: Arc::new(Vec::new()),
                last_error,
                failed_starts: 0,
                retry_at: None,
                epoch: 0,
                connection: None,
                shut_down: false,
            }),
            lifecycle: tokio::sync::Mutex::new(()),
            notifier,
            log_dir,
            env,
            list_changes: Arc::default(),
            progress: Arc::default(),
            refreshing: tokio::sync::Mutex::new(None),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A panic while holding this lock cannot leave the state half-written (every update is
        // a few field stores), so a poisoned lock is still usable.
        self.shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn status(&self) -> ServerStatus {
        let shared = self.lock();
        ServerStatus {
            name: self.config.name.clone(),
            state: shared.state,
            tools: if shared.state == ServerState::Ready {
                shared.tools.len()
            } else {
                0
            },
            last_error: shared.last_error.clone(),
        }
    }

    pub fn state(&self) -> ServerState {
        self.lock().state
    }

    /// The tools offered now: empty unless ready.
    pub fn tools(&self) -> Arc<Vec<McpTool>> {
        let shared = self.lock();
        if shared.state == ServerState::Ready {
            Arc::clone(&shared.tools)
        } else {
            Arc::new(Vec::new())
        }
    }

    /// The background start of `McpHub::start`.
    pub async fn start(self: Arc<Self>) {
        let _guard = self.lifecycle.lock().await;
        if self.lock().state == ServerState::Starting {
            self.connect(ServerState::Starting).await;
        }
    }

    /// A peer to call: waits for a start in progress, restarts a failed or exited server when
    /// its backoff has passed.
    pub async fn ready_peer(self: &Arc<Self>) -> Result<(Peer<RoleClient>, u64), String> {
        let _guard = self.lifecycle.lock().await;
        {
            let shared = self.lock();
            if shared.shut_down {
                return Err("the session's MCP servers are shut down".into());
            }
            match shared.state {
                ServerState::Ready => {
                    if let Some(connection) = &shared.connection {
                        return Ok((connection.peer.clone(), shared.epoch));
                    }
                }
                ServerState::Disabled => return Err("disabled in the config".into()),
                ServerState::Failed | ServerState::Exited => {
                    if let Some(at) = shared.retry_at {
                        let now = Instant::now();
                        if now < at {
                            let wait = at - now;
                            return Err(format!(
                                "{}; next restart allowed in {:.1} s",
                                shared.last_error.as_deref().unwrap_or("not running"),
                                wait.as_secs_f64()
                            ));
                        }
                    }
                }
                ServerState::Starting | ServerState::Restarting => {}
            }
        }
        let state = match self.state() {
            ServerState::Starting => ServerState::Starting,
            _ => ServerState::Restarting,
        };
        self.connect(state).await;
        let shared = self.lock();
        match (&shared.connection, shared.state) {
            (Some(connection), ServerState::Ready) => Ok((connection.peer.clone(), shared.epoch)),
            _ => Err(shared
                .last_error
                .clone()
                .unwrap_or_else(|| "the server did not start".into())),
        }
    }

    /// Connects under the lifecycle lock; leaves the server Ready or Failed.
    async fn connect(self: &Arc<Self>, state: ServerState) {
        let epoch = {
            let mut shared = self.lock();
            if shared.shut_down {
                return;
            }
            shared.state = state;
            shared.epoch += 1;
            shared.epoch
        };
        self.notifier.bump();
        let handler = Handler::new(Arc::downgrade(self), epoch);
        let timeout = self.config.startup_timeout;
        // The handshake lists the tools: notifications seen before it are answered by it.
        let listed_upto = self.list_changes.seen();
        let (attempt, process) = match &self.config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => match stdio::spawn(
                &self.config.name,
                command,
                args,
                env,
                cwd.as_deref(),
                &self.env,
                &self.log_dir,
            ) {
                Ok(spawned) => {
                    let process = Arc::new(Mutex::new(spawned.process));
                    let attempt = tokio::time::timeout(
                        timeout,
                        handshake(
                            handler,
                            Watched::new(spawned.transport, Arc::clone(&self.list_changes)),
                        ),
                    )
                    .await;
                    (attempt, Some(process))
                }
                Err(why) => {
                    self.failed(epoch, why);
                    return;
                }
            },
            Transport::Http {
                url,
                headers,
                bearer_token,
            } => match http::transport(url, headers, bearer_token.as_ref()) {
                Ok(transport) => (
                    tokio::time::timeout(
                        timeout,
                        handshake(
                            handler,
                            Watched::new(transport, Arc::clone(&self.list_changes)),
                        ),
                    )
                    .await,
                    None,
                ),
                Err(why) => {
                    self.failed(epoch, why);
                    return;
                }
            },
        };
        match attempt {
            Ok(Ok((running, tools))) => {
                let stop = running.cancellation_token();
                let peer = running.peer().clone();
                let tools = self.filter(tools);
                let unwanted = {
                    let mut shared = self.lock();
                    if !shared.shut_down && shared.epoch == epoch {
                        shared.state = ServerState::Ready;
                        shared.tools = Arc::new(tools);
                        shared.last_error = None;
                        shared.failed_starts = 0;
                        shared.retry_at = None;
                        shared.connection = Some(Connection {
                            peer,
                            stop: Some(stop),
                            process: process.clone(),
                        });
                        None
                    } else {
                        Some(stop)
                    }
                };
                if let Some(stop) = unwanted {
                    // Shut down (or superseded) while connecting: this connection is unwanted.
                    stop.cancel();
                    stop_process(process).await;
                    return;
                }
                self.notifier.bump();
                self.list_changes.refreshed(listed_upto);
                let server = Arc::downgrade(self);
                tokio::spawn(async move {
                    let _ = running.waiting().await;
                    if let Some(server) = server.upgrade() {
                        server.closed(epoch).await;
                    }
                });
            }
            Ok(Err(why)) => {
                let why = describe_failure(why, process.as_ref());
                stop_process(process).await;
                self.failed(epoch, why);
            }
            Err(_) => {
                let mut why = format!(
                    "did not finish initialize and tools/list within {} ms (startup_timeout_ms)",
                    timeout.as_millis()
                );
                if let Some(process) = &process
                    && let Some(detail) = lock_process(process).failure()
                {
                    why = format!("{why}: {detail}");
                }
                stop_process(process).await;
                self.failed(epoch, why);
            }
        }
    }

    fn filter(&self, tools: Vec<rmcp::model::Tool>) -> Vec<McpTool> {
        let mut tools: Vec<McpTool> = tools
            .into_iter()
            .filter(|t| self.config.offers(&t.name))
            .map(|t| McpTool::from_rmcp(&self.config.name, t))
            .collect();
        // Same order every time, whatever order the server lists them in (stable prompts).
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools.dedup_by(|a, b| a.name == b.name);
        tools
    }

    /// The hub could not build its runtime: the server never starts.
    pub fn fail_without_runtime(&self, why: &str) {
        let epoch = self.lock().epoch;
        self.failed(epoch, why.to_string());
    }

    fn failed(&self, epoch: u64, why: StartError) {
        {
            let mut shared = self.lock();
            if shared.epoch != epoch || shared.shut_down {
                return;
            }
            shared.state = ServerState::Failed;
            shared.tools = Arc::new(Vec::new());
            shared.last_error = Some(one_line(&why, 500));
            shared.failed_starts = shared.failed_starts.saturating_add(1);
            shared.retry_at = Some(Instant::now() + backoff(shared.failed_starts));
            shared.connection = None;
        }
        self.notifier.bump();
    }

    /// The connection of `epoch` ended (process exit, transport error, protocol violation).
    async fn closed(&self, epoch: u64) {
        let process = {
            let shared = self.lock();
            if shared.epoch != epoch || shared.shut_down {
                return;
            }
            shared.connection.as_ref().and_then(|c| c.process.clone())
        };
        let why = match process {
            Some(process) => {
                // The leader had its chance to exit; what is left of its group is killed.
                let ended = tokio::task::spawn_blocking(move || {
                    let mut guard = lock_process(&process);
                    let status = guard.finish(Instant::now() + stdio::GRACE);
                    (status, guard.failure(), guard.last_stderr_line())
                })
                .await;
                match ended {
                    Ok((_, Some(failure), _)) => failure,
                    Ok((status, None, stderr)) => {
                        let mut why = match status {
                            Some(status) => format!("the server process exited ({status})"),
                            None => "the server closed its stdout".to_string(),
                        };
                        if let Some(line) = stderr {
                            why = format!("{why}; its last stderr line: {line}");
                        }
                        why
                    }
                    Err(e) => format!("the connection closed ({e})"),
                }
            }
            None => "the HTTP connection closed".to_string(),
        };
        {
            let mut shared = self.lock();
            if shared.epoch != epoch || shared.shut_down {
                return;
            }
            shared.state = ServerState::Exited;
            shared.tools = Arc::new(Vec::new());
            shared.last_error = Some(one_line(&why, 500));
            shared.connection = None;
            // An exit after a good start restarts at once on the next call; only failed
            // starts back off.
            shared.retry_at = None;
        }
        self.notifier.bump();
    }

    /// Waits (bounded) until the watcher has recorded why connection `epoch` ended, and
    /// returns that reason.
    pub async fn death_reason(&self, epoch: u64, fallback: &str) -> String {
        let until = Instant::now() + Duration::from_secs(2);
        loop {
            {
                let shared = self.lock();
                if shared.epoch != epoch || shared.state != ServerState::Ready {
                    return shared.last_error.clone().unwrap_or_else(|| fallback.into());
                }
            }
            if Instant::now() >= until {
                return fallback.into();
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// A call found the transport broken before the watcher did: the server is withdrawn now.
    pub fn mark_broken(&self, epoch: u64, why: &str) {
        {
            let mut shared = self.lock();
            if shared.epoch != epoch || shared.shut_down || shared.state != ServerState::Ready {
                return;
            }
            shared.state = ServerState::Exited;
            shared.tools = Arc::new(Vec::new());
            shared.last_error = Some(one_line(why, 500));
            // The watcher sees the service end and reaps the process (`closed`).
            if let Some(stop) = shared.connection.as_mut().and_then(|c| c.stop.take()) {
                stop.cancel();
            }
        }
        self.notifier.bump();
    }

    /// `notifications/tools/list_changed`: fetch the list again for the connection `epoch`.
    async fn refresh_tools(&self, epoch: u64, peer: Peer<RoleClient>) {
        // One fetch at a time, and none for a notification that a fetch started after it has
        // already answered: a burst of notifications (or a server that notifies again on every
        // list) costs one list at a time, not one request per notification.
        let mut last = self.refreshing.lock().await;
        if self.list_changes.done() >= self.list_changes.seen() {
            return;
        }
        // A server that notifies again on every list would otherwise be listed as fast as it
        // answers for as long as it runs; one notification after a quiet spell waits for nothing.
        if let Some(ended) = *last {
            tokio::time::sleep_until(ended + REFRESH_GAP).await;
        }
        let upto = self.list_changes.seen();
        self.list_tools_again(epoch, peer).await;
        *last = Some(tokio::time::Instant::now());
        // Listed or given up: a call waiting for the list stops waiting either way.
        self.list_changes.refreshed(upto);
    }

    /// Waits until the tool list is as fresh as every `tools/list_changed` received so far
    /// (bounded by the startup timeout, which also bounds each refresh). A call waits for it
    /// before returning, so the next request offers what the call changed.
    pub async fn tools_settled(&self) {
        self.list_changes.settled(self.config.startup_timeout).await;
    }

    async fn list_tools_again(&self, epoch: u64, peer: Peer<RoleClient>) {
        let listed = tokio::time::timeout(self.config.startup_timeout, peer.list_all_tools()).await;
        let Ok(Ok(tools)) = listed else {
            // The next call or restart lists again; keeping the old list is the honest fallback.
            return;
        };
        let tools = self.filter(tools);
        {
            let mut shared = self.lock();
            if shared.epoch != epoch || shared.state != ServerState::Ready {
                return;
            }
            shared.tools = Arc::new(tools);
        }
        self.notifier.bump();
    }

    /// First half of shutdown: no more starts, the service stopped, SIGTERM to the group.
    pub fn begin_shutdown(&self) -> Option<Arc<Mutex<ChildProcess>>> {
        let connection = {
            let mut shared = self.lock();
            shared.shut_down = true;
            if shared.state != ServerState::Disabled {
                shared.state = ServerState::Exited;
                shared
                    .last_error
                    .get_or_insert_with(|| "stopped with the session".into());
            }
            shared.tools = Arc::new(Vec::new());
            shared.connection.take()
        };
        let connection = connection?;
        if let Some(stop) = connection.stop {
            stop.cancel();
        }
        let process = connection.process?;
        lock_process(&process).terminate();
        Some(process)
    }
}

fn lock_process(process: &Mutex<ChildProcess>) -> MutexGuard<'_, ChildProcess> {
    process
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Kills what is left of a process group off the async threads.
async fn stop_process(process: Option<Arc<Mutex<ChildProcess>>>) {
    if let Some(process) = process {
        let _ = tokio::task::spawn_blocking(move || {
            let mut guard = lock_process(&process);
            guard.terminate();
            guard.finish(Instant::now() + stdio::GRACE);
        })
        .await;
    }
}

fn backoff(failed_starts: u32) -> Duration {
    let doublings = failed_starts.saturating_sub(1).min(16);
    FIRST_BACKOFF
        .saturating_mul(1u32 << doublings)
        .min(MAX_BACKOFF)
}

type Running = rmcp::service::RunningService<RoleClient, Handler>;

async fn handshake<T, E, A>(
    handler: Handler,
    transport: T,
) -> Result<(Running, Vec<rmcp::model::Tool>), String>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let running = handler
        .serve(transport)
        .await
        .map_err(|e| format!("initialize failed: {e}"))?;
    let tools = running
        .peer()
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list failed: {}", service_error(&e)))?;
    Ok((running, tools))
}

fn describe_failure(why: String, process: Option<&Arc<Mutex<ChildProcess>>>) -> String {
    let Some(process) = process else {
        return why;
    };
    let guard = lock_process(process);
    if let Some(failure) = guard.failure() {
        return failure;
    }
    match guard.last_stderr_line() {
        Some(line) => format!("{why}; its last stderr line: {line}"),
        None => why,
    }
}

/// A service error in words for a status line.
pub(crate) fn service_error(error: &ServiceError) -> String {
    match error {
        ServiceError::McpError(data) => format!("error {}: {}", data.code.0, data.message),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_one_second_and_stops_at_thirty() {
        let delays: Vec<u64> = (1..=7).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(delays, vec![1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }
}
