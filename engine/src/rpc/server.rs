//! The RPC session loop: read, register, dispatch; the writer answers in order.

use super::frame::{DEFAULT_FRAME_CEILING, FrameReader, MAX_FRAME_CEILING, decode_payload};
use super::window::Window;
use super::writer::{self, Out};
use crate::bootstrap::{BootstrapCode, BootstrapError, exit};
use crate::cancel::CancelToken;
use crate::compute::{ComputePlane, host_parallelism};
use crate::deadline::Deadline;
use crate::protocol::{
    CancelResult, Data, ErrorCode, ErrorRecord, Op, OpMask, Request, RequestError, Response,
};
use crate::session::{Executed, Session};
use crate::sync::lock;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};

/// How an RPC server is sized.
#[derive(Debug, Clone)]
pub struct RpcSettings {
    /// Largest frame ceiling a client may negotiate (§9 decision 5).
    pub frame_max: u64,
    /// Tokio I/O workers; the in-flight cap is four times this.
    pub io_workers: usize,
    /// Compute workers.
    pub compute_workers: usize,
}

impl RpcSettings {
    /// §1 defaults from the host's parallelism C: I/O workers ceil(C/4) clamped to 2..8 (1 when
    /// C = 1), compute workers C.
    pub fn host() -> RpcSettings {
        let c = host_parallelism().max(1);
        let io_workers = if c == 1 { 1 } else { c.div_ceil(4).clamp(2, 8) };
        RpcSettings {
            frame_max: MAX_FRAME_CEILING as u64,
            io_workers,
            compute_workers: c,
        }
    }

    /// Requests that may execute at once (4 × I/O workers); one more is answered 602.
    pub fn in_flight_cap(&self) -> usize {
        4 * self.io_workers
    }

    /// Answers that may wait unwritten before reading pauses (4 × the in-flight cap).
    pub fn unwritten_cap(&self) -> usize {
        4 * self.in_flight_cap()
    }
}

fn internal(why: impl std::fmt::Display) -> BootstrapError {
    BootstrapError::new(BootstrapCode::Internal, exit::SOFTWARE, format!("{why}"))
}

/// Serves one RPC session: `input` carries frames from the client, `output` receives answer
/// frames; relative handshake roots resolve against `cwd`. Returns after a clean EOF once
/// every registered request is answered, or with the bootstrap error that ended the session.
pub fn serve(
    input: impl Read,
    output: Box<dyn Write + Send>,
    cwd: &Path,
    settings: &RpcSettings,
) -> Result<(), BootstrapError> {
    let mut reader = FrameReader::new(input);
    let first = reader
        .next_frame(DEFAULT_FRAME_CEILING)
        .map_err(|e| e.to_bootstrap())?
        .ok_or_else(|| {
            BootstrapError::new(
                BootstrapCode::MissingHandshake,
                exit::PROTOCOL,
                "input ended before the handshake frame; send a `t:0` handshake first",
            )
        })?;
    let doc = decode_payload(&first, DEFAULT_FRAME_CEILING, 1).map_err(|e| e.to_bootstrap())?;
    let plane = ComputePlane::new(settings.compute_workers)
        .map_err(|e| internal(format_args!("compute plane: {e}")))?;
    let (session, hello) =
        super::handshake::open_session(&doc, cwd, settings.frame_max, Arc::new(plane))?;
    let mut output = output;
    let written = output
        .write_all(&super::frame::encode_frame(hello.encode().as_bytes()))
        .and_then(|()| output.flush());
    written.map_err(|e| {
        BootstrapError::new(BootstrapCode::Io, exit::SOFTWARE, format!("writing: {e}"))
    })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(settings.io_workers)
        .max_blocking_threads(settings.in_flight_cap() + 1)
        .thread_name("ash-rpc")
        .build()
        .map_err(|e| internal(format_args!("tokio runtime: {e}")))?;
    let window = Arc::new(Window::default());
    let (tx, rx) = mpsc::channel();
    let writer = {
        let (session, window) = (session.clone(), Arc::clone(&window));
        std::thread::Builder::new()
            .name("ash-rpc-writer".into())
            .spawn(move || writer::run(session, rx, output, window))
            .map_err(|e| internal(format_args!("writer thread: {e}")))?
    };
    let mut loop_state = Dispatcher {
        session,
        ops: hello.ops,
        settings: settings.clone(),
        runtime: &runtime,
        window: Arc::clone(&window),
        active: Arc::new(Mutex::new(HashMap::new())),
        tx,
        next: 0,
    };
    let ceiling = usize::try_from(hello.frame).unwrap_or(MAX_FRAME_CEILING);
    let ended = loop_state.read_loop(&mut reader, ceiling);
    if ended.is_err() {
        // A fatal error stops all registered work; its answers still go out in order.
        for token in lock(&loop_state.active).values() {
            token.cancel();
        }
    }
    let _ = loop_state.tx.send(Out::Close(loop_state.next));
    window.wait_idle();
    drop(loop_state);
    let wrote = writer
        .join()
        .map_err(|_| internal("the writer thread panicked"))?;
    ended?;
    wrote.map_err(|e| {
        BootstrapError::new(BootstrapCode::Io, exit::SOFTWARE, format!("writing: {e}"))
    })
}

type Active = Arc<Mutex<HashMap<u64, CancelToken>>>;

struct Dispatcher<'r> {
    session: Session,
    ops: OpMask,
    settings: RpcSettings,
    runtime: &'r tokio::runtime::Runtime,
    window: Arc<Window>,
    active: Active,
    tx: Sender<Out>,
    next: u64,
}

impl Dispatcher<'_> {
    fn read_loop(
        &mut self,
        reader: &mut FrameReader<impl Read>,
        ceiling: usize,
    ) -> Result<(), BootstrapError> {
        let io_failed =
            || BootstrapError::new(BootstrapCode::Io, exit::SOFTWARE, "writing answers failed");
        loop {
            if !self.window.wait_for_room(self.settings.unwritten_cap()) {
                return Err(io_failed());
            }
            let Some(payload) = reader.next_frame(ceiling).map_err(|e| e.to_bootstrap())? else {
                return if self.window.failed() {
                    Err(io_failed())
                } else {
                    Ok(())
                };
            };
            let doc =
                decode_payload(&payload, ceiling, self.next + 2).map_err(|e| e.to_bootstrap())?;
            match Request::from_document(&doc) {
                Ok(request) => self.dispatch(request),
                Err(e) => {
                    let response = e.response().ok_or_else(|| no_usable_id(&e))?;
                    self.ordered(response);
                }
            }
        }
    }

    /// Queues an answer that needs no execution in the next input-order slot.
    fn ordered(&mut self, response: Response) {
        self.window.queued();
        let _ = self
            .tx
            .send(Out::Ordered(self.next, Box::new(Executed::ready(response))));
        self.next += 1;
    }

    fn dispatch(&mut self, request: Request) {
        let id = request.id;
        if let Op::Cancel(args) = &request.op {
            // Control plane: capability-free, exempt from the op mask, acting at once.
            let flipped = lock(&self.active)
                .get(&args.target)
                .is_some_and(CancelToken::cancel);
            let answer = Response::success(
                id,
                Data::Cancel(CancelResult {
                    target: args.target,
                    flipped,
                }),
            );
            // The cancel acted at once; its answer takes its place in input order like every
            // answer, after the answer of the request it cancelled (docs/contract/ash-protocol.md §7).
            return self.ordered(answer);
        }
        if !self.ops.allows(request.op.kind()) {
            return self.ordered(Response::error(id, ErrorRecord::operation_not_negotiated()));
        }
        let token = CancelToken::new();
        {
            let mut active = lock(&self.active);
            if active.contains_key(&id) {
                drop(active);
                return self.ordered(Response::error(
                    id,
                    ErrorRecord::typical(ErrorCode::DuplicateRequest),
                ));
            }
            if !self.window.try_start(self.settings.in_flight_cap()) {
                drop(active);
                return self.ordered(Response::error(
                    id,
                    ErrorRecord::typical(ErrorCode::ConcurrencyBudget),
                ));
            }
            active.insert(id, token.clone());
        }
        // The deadline is fixed at registration, so queueing counts against it.
        let deadline = Deadline::after_ms(request.budget.ms);
        let seq = self.next;
        self.next += 1;
        let (session, window, active, tx) = (
            self.session.clone(),
            Arc::clone(&self.window),
            Arc::clone(&self.active),
            self.tx.clone(),
        );
        self.runtime.spawn_blocking(move || {
            let executed = if token.is_cancelled() {
                Executed::ready(Response::error(
                    id,
                    ErrorRecord::typical(ErrorCode::Cancelled),
                ))
            } else {
                session.run(&request, token, deadline)
            };
            lock(&active).remove(&id);
            // The channel is unbounded: sending under the window's lock never blocks.
            window.finish_with(|| {
                let _ = tx.send(Out::Ordered(seq, Box::new(executed)));
            });
        });
    }
}

fn no_usable_id(e: &RequestError) -> BootstrapError {
    BootstrapError::new(
        BootstrapCode::Handshake,
        exit::PROTOCOL,
        format!("{e}; every request needs a nonzero id `i`"),
    )
}
