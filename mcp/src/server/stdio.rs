//! The stdio transport: a child process in its own process group, a scrubbed environment,
//! stderr appended to the session's log, newline-delimited JSON-RPC on stdin/stdout.
//!
//! rmcp's own child-process transport is not used because it inherits ansa's environment
//! unless told otherwise, kills the child from a spawned task on drop (which never runs when
//! the runtime is shutting down), kills only the direct child (an `npx` wrapper's node process
//! survives), caps a message at 16 MiB (a 50 MB result would be dropped and the call would hang)
//! and skips non-JSON lines silently (a server writing garbage would only time out).

use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::future::Future;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use rmcp::RoleClient;
use rmcp::model::{
    CallToolResult, ErrorData, JsonRpcError, JsonRpcMessage, JsonRpcResponse, JsonRpcVersion2_0,
    RequestId, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::config::{ChildEnv, ServerName};
use crate::sanitize::one_line;

/// Largest message accepted from a server: a 50 MB result base64-encoded fits, a runaway
/// server without newlines does not eat the machine.
pub(crate) const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// Above this, the read buffer is released after each message instead of kept for the next.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;

/// How long a server gets to exit after SIGTERM before its group is killed.
pub(crate) const GRACE: Duration = Duration::from_millis(500);

/// Why the transport closed the connection on its own.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StdioError {
    #[error("writing to the server's stdin failed: {0}")]
    Write(#[from] std::io::Error),
    #[error("could not encode a message: {0}")]
    Encode(#[from] serde_json::Error),
}

/// The parts of a spawned server: the transport rmcp drives and the process ansa keeps.
pub(crate) struct Spawned {
    pub transport: StdioTransport,
    pub process: ChildProcess,
}

/// Starts `command` with exactly `env.base` plus `own_env`, in a new process group, stderr
/// appended to `<log_dir>/<server>.log`.
pub(crate) fn spawn(
    server: &ServerName,
    command: &str,
    args: &[String],
    own_env: &std::collections::BTreeMap<String, String>,
    cwd: Option<&Path>,
    env: &ChildEnv,
    log_dir: &Path,
) -> Result<Spawned, String> {
    std::fs::create_dir_all(log_dir).map_err(|e| {
        format!(
            "cannot create the MCP log directory {}: {e}",
            log_dir.display()
        )
    })?;
    let log_path = log_dir.join(format!("{server}.log"));
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| format!("cannot open the server log {}: {e}", log_path.display()))?;
    let log_start = log.metadata().map(|m| m.len()).unwrap_or(0);

    let mut cmd = Command::new(command);
    cmd.args(args)
        .env_clear()
        .envs(env.base.iter().map(|(k, v)| (k, v)))
        .envs(own_env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        // Its own group, so shutdown reaches what it spawns (npx → node) and a Ctrl+C in the
        // terminal does not reach it.
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            format!("cannot run `{}`: command not found", one_line(command, 200))
        }
        _ => format!("cannot run `{}`: {e}", one_line(command, 200)),
    })?;
    let pid = child.id().and_then(|id| i32::try_from(id).ok());
    let (Some(stdin), Some(stdout), Some(pid)) = (child.stdin.take(), child.stdout.take(), pid)
    else {
        return Err("the server process started without its pipes".into());
    };
    let failure = Arc::new(Mutex::new(None));
    Ok(Spawned {
        transport: StdioTransport {
            server: server.clone(),
            reader: BufReader::with_capacity(64 * 1024, stdout),
            line: Vec::new(),
            writer: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
            failure: Arc::clone(&failure),
        },
        process: ChildProcess {
            child: Some(child),
            group: Pid::from_raw(pid),
            log_path,
            log_start,
            failure,
        },
    })
}

/// The spawned server process; its whole group is killed on drop.
pub(crate) struct ChildProcess {
    child: Option<Child>,
    group: Pid,
    log_path: PathBuf,
    log_start: u64,
    /// Set by the transport when it closed the connection for a protocol violation.
    failure: Arc<Mutex<Option<String>>>,
}

impl ChildProcess {
    /// Asks the group to stop (SIGTERM); `finish` kills what is left.
    pub fn terminate(&self) {
        let _ = killpg(self.group, Signal::SIGTERM);
    }

    /// Waits up to `deadline` for the leader to exit, then kills the whole group and reaps the
    /// leader. Returns the leader's exit status when it had one.
    pub fn finish(&mut self, deadline: Instant) -> Option<ExitStatus> {
        let mut status = None;
        if let Some(child) = self.child.as_mut() {
            loop {
                match child.try_wait() {
                    Ok(Some(exit)) => {
                        status = Some(exit);
                        break;
                    }
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    _ => break,
                }
            }
        }
        // Whatever the leader left behind in its group goes too.
        let _ = killpg(self.group, Signal::SIGKILL);
        if let Some(mut child) = self.child.take()
            && status.is_none()
        {
            // SIGKILL was just sent: the wait is short.
            let until = Instant::now() + Duration::from_secs(2);
            while Instant::now() < until {
                if let Ok(Some(exit)) = child.try_wait() {
                    status = Some(exit);
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        status
    }

    /// The protocol violation that closed the connection, if the transport saw one.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().ok().and_then(|f| f.clone())
    }

    /// The last non-empty line the server wrote to stderr in this session, sanitised.
    pub fn last_stderr_line(&self) -> Option<String> {
        last_line(&self.log_path, self.log_start)
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        if self.child.is_some() {
            self.terminate();
            self.finish(Instant::now());
        }
    }
}

fn last_line(path: &Path, start: u64) -> Option<String> {
    const TAIL: u64 = 4096;
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let from = len.saturating_sub(TAIL).max(start);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut tail = Vec::new();
    file.take(TAIL).read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| one_line(l, 300))
}

/// rmcp's view of the server's stdin and stdout.
pub(crate) struct StdioTransport {
    server: ServerName,
    reader: BufReader<ChildStdout>,
    line: Vec<u8>,
    writer: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    failure: Arc<Mutex<Option<String>>>,
}

impl StdioTransport {
    fn fail(&self, why: String) {
        if let Ok(mut slot) = self.failure.lock() {
            slot.get_or_insert(why);
        }
    }

    /// Reads one line into `self.line`, refusing to buffer more than `MAX_MESSAGE_BYTES`.
    /// Cancellation-safe (rmcp polls `receive` in a `select!`): a partial line stays in
    /// `self.line` and the next call continues it; `fill_buf`/`consume` lose nothing.
    async fn read_line(&mut self) -> Result<bool, String> {
        loop {
            let available = self
                .reader
                .fill_buf()
                .await
                .map_err(|e| format!("reading the server's stdout failed: {e}"))?;
            if available.is_empty() {
                return Ok(!self.line.is_empty());
            }
            let newline = memchr_newline(available);
            let take = newline.map_or(available.len(), |i| i + 1);
            if self.line.len() + take > MAX_MESSAGE_BYTES {
                return Err(format!(
                    "server `{}` sent a message over {} MiB on stdout",
                    self.server,
                    MAX_MESSAGE_BYTES / (1024 * 1024)
                ));
            }
            self.line.extend_from_slice(&available[..take]);
            self.reader.consume(take);
            if newline.is_some() {
                return Ok(true);
            }
        }
    }

    async fn next_message(&mut self) -> Result<Option<RxJsonRpcMessage<RoleClient>>, String> {
        loop {
            if !self.read_line().await? {
                return Ok(None);
            }
            let value = match parse_json(&self.server, trim_line(&self.line)) {
                // Cut off by the end of stdout, not garbage: the server exited (or closed
                // stdout) in the middle of writing a message.
                Err(_) if !self.line.ends_with(b"\n") => Err(format!(
                    "server `{}` closed stdout in the middle of a message ({} bytes without \
                     their newline)",
                    self.server,
                    self.line.len()
                )),
                parsed => parsed,
            };
            // The line is not needed once parsed: a large one is freed before the message is
            // built from the value, so the two never coexist.
            self.line.clear();
            if self.line.capacity() > KEEP_BUFFER_BYTES {
                self.line = Vec::new();
            }
            if let Some(message) = value?.and_then(message) {
                return Ok(Some(message));
            }
        }
    }
}

/// One line as JSON: `None` for a blank line, an error for garbage.
fn parse_json(server: &ServerName, line: &[u8]) -> Result<Option<serde_json::Value>, String> {
    if line.is_empty() {
        return Ok(None);
    }
    match serde_json::from_slice::<serde_json::Value>(line) {
        Ok(value) => Ok(Some(value)),
        // The spec forbids anything but JSON-RPC on stdout; skipping it would leave the
        // client waiting for an answer that may be in the garbage.
        Err(_) => Err(format!(
            "server `{server}` wrote something that is not JSON-RPC on stdout: {:?} (a stdio MCP server must log to stderr)",
            one_line(&String::from_utf8_lossy(&line[..line.len().min(120)]), 120)
        )),
    }
}

/// JSON as a message, `None` for a shape this client does not know (a newer notification:
/// not a reason to drop the connection). From an owned value, strings move into the message
/// instead of being copied (a 50 MB result).
fn message(mut value: serde_json::Value) -> Option<RxJsonRpcMessage<RoleClient>> {
    if let Some(message) = tool_result(&mut value) {
        return Some(message);
    }
    if let Some(refused) = invalid_tool_list(&value) {
        return Some(refused);
    }
    serde_json::from_value(value).ok()
}

/// A `tools/list` answer (a response whose result has `tools`) with a tool that is not a valid
/// `Tool`, as a JSON-RPC error naming that tool and why; `None` for anything else. rmcp's own
/// parse reports only "Unexpected response type", which names neither.
fn invalid_tool_list(value: &serde_json::Value) -> Option<RxJsonRpcMessage<RoleClient>> {
    if value.get("method").is_some() || value.get("error").is_some() {
        return None;
    }
    let tools = value.get("result")?.get("tools")?.as_array()?;
    let id: RequestId = serde_json::from_value(value.get("id")?.clone()).ok()?;
    let (index, tool, why) = tools.iter().enumerate().find_map(|(index, tool)| {
        serde_json::from_value::<rmcp::model::Tool>(tool.clone())
            .err()
            .map(|e| (index, tool, e))
    })?;
    let name = tool.get("name").and_then(|n| n.as_str()).unwrap_or("");
    Some(JsonRpcMessage::Error(JsonRpcError {
        jsonrpc: JsonRpcVersion2_0,
        id: Some(id),
        error: ErrorData::internal_error(
            format!(
                "the server's tools/list result is not valid: tool {} ({:?}): {why}",
                index + 1,
                one_line(name, 64)
            ),
            None,
        ),
    }))
}

/// A response whose result has `content` is a `tools/call` answer (ansa's other requests are
/// `initialize` and `tools/list`), built as a `CallToolResult` directly. rmcp's `ServerResult`
/// is an untagged enum: its variants are tried in turn on a buffered copy of the result, and
/// with a 50 MB text result (sent twice, as `content` and `structuredContent`) about six
/// copies of it were alive at once, the peak of the whole call. A result that is not a valid
/// `CallToolResult` is answered as a JSON-RPC error naming why, so the call still ends.
fn tool_result(value: &mut serde_json::Value) -> Option<RxJsonRpcMessage<RoleClient>> {
    let object = value.as_object_mut()?;
    if object.contains_key("method") || object.contains_key("error") {
        return None;
    }
    let content = object.get("result")?.get("content")?;
    if !content.is_array() {
        return None;
    }
    let id: RequestId = serde_json::from_value(object.get("id")?.clone()).ok()?;
    let result = object.remove("result")?;
    Some(match serde_json::from_value::<CallToolResult>(result) {
        Ok(result) => JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id,
            result: ServerResult::CallToolResult(result),
        }),
        Err(e) => JsonRpcMessage::Error(JsonRpcError {
            jsonrpc: JsonRpcVersion2_0,
            id: Some(id),
            error: ErrorData::internal_error(
                format!("the server's tools/call result is not valid: {e}"),
                None,
            ),
        }),
    })
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

impl rmcp::transport::Transport<RoleClient> for StdioTransport {
    type Error = StdioError;

    fn name() -> Cow<'static, str> {
        "ansa-stdio".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        async move {
            let mut bytes = serde_json::to_vec(&item)?;
            bytes.push(b'\n');
            let mut guard = writer.lock().await;
            let Some(stdin) = guard.as_mut() else {
                return Err(StdioError::Write(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the server's stdin is closed",
                )));
            };
            stdin.write_all(&bytes).await?;
            stdin.flush().await?;
            Ok(())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        match self.next_message().await {
            Ok(message) => message,
            Err(why) => {
                self.fail(why);
                None
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Closing stdin is the spec's first step of a stdio shutdown.
        self.writer.lock().await.take();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_result_is_built_directly_and_anything_else_as_before() {
        let answer = json!({"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": "hello"}], "structuredContent": {"a": 1}}});
        let Some(JsonRpcMessage::Response(response)) = message(answer) else {
            panic!("not a response");
        };
        assert_eq!(response.id, RequestId::Number(3));
        let ServerResult::CallToolResult(result) = response.result else {
            panic!("not a tool result: {:?}", response.result);
        };
        assert_eq!(result.structured_content, Some(json!({"a": 1})));
        assert_eq!(result.content.len(), 1);

        // Content that is not content blocks: the call ends with the reason, not in silence.
        let bad = json!({"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "nope"}]}});
        let Some(JsonRpcMessage::Error(error)) = message(bad) else {
            panic!("not an error");
        };
        assert_eq!(error.id, Some(RequestId::Number(4)));
        assert!(
            error
                .error
                .message
                .contains("tools/call result is not valid")
        );

        // A tools/list answer with a tool rmcp cannot take names it and why.
        let bad = json!({"jsonrpc": "2.0", "id": 6, "result": {"tools": [
            {"name": "fine", "inputSchema": {"type": "object"}},
            {"name": "odd\u{1b}[31m", "inputSchema": "nope"}]}});
        let Some(JsonRpcMessage::Error(error)) = message(bad) else {
            panic!("not an error");
        };
        assert_eq!(error.id, Some(RequestId::Number(6)));
        let why = &error.error.message;
        assert!(
            why.contains("tools/list result is not valid: tool 2 (\"odd\u{fffd}[31m\")"),
            "{why}"
        );

        // A tools/list answer and a notification take rmcp's own path.
        let listed = json!({"jsonrpc": "2.0", "id": 5, "result": {"tools": []}});
        assert!(matches!(
            message(listed),
            Some(JsonRpcMessage::Response(JsonRpcResponse {
                result: ServerResult::ListToolsResult(_),
                ..
            }))
        ));
        let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
        assert!(matches!(
            message(changed),
            Some(JsonRpcMessage::Notification(_))
        ));
    }
}
