//! A request body on its way to the provider: read from the client only as fast as the
//! upstream connection takes it, so the broker holds a few buffers of it at a time instead of
//! the whole body. It holds an upload slot until its end, counts the bytes passed on (none
//! passed means the provider cannot have the whole request) and gives up on a client that
//! stops sending.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::{Instant, Sleep};

use super::limits::BODY_STALL;

/// The streamed body of one forwarded request.
pub(super) struct Upload {
    incoming: Incoming,
    slot: Option<OwnedSemaphorePermit>,
    passed: Arc<AtomicU64>,
    /// Armed when the body is asked for data and has none ready; only that wait is timed,
    /// never a pause of the provider's flow control.
    stall: Pin<Box<Sleep>>,
    waiting: bool,
}

impl Upload {
    /// `incoming`, holding `slot` until it ends; the returned counter tells how many bytes
    /// were passed on.
    pub(super) fn new(incoming: Incoming, slot: OwnedSemaphorePermit) -> (Upload, Arc<AtomicU64>) {
        let passed = Arc::new(AtomicU64::new(0));
        let upload = Upload {
            incoming,
            slot: Some(slot),
            passed: Arc::clone(&passed),
            stall: Box::pin(tokio::time::sleep(BODY_STALL)),
            waiting: false,
        };
        (upload, passed)
    }

    fn finish(&mut self) {
        self.slot = None;
    }
}

impl Body for Upload {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.incoming).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                this.waiting = false;
                if let Some(data) = frame.data_ref() {
                    this.passed.fetch_add(data.len() as u64, Ordering::SeqCst);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                this.finish();
                Poll::Ready(Some(Err(std::io::Error::other(e))))
            }
            Poll::Ready(None) => {
                this.finish();
                Poll::Ready(None)
            }
            Poll::Pending => {
                if !this.waiting {
                    this.waiting = true;
                    this.stall.as_mut().reset(Instant::now() + BODY_STALL);
                }
                if this.stall.as_mut().poll(cx).is_ready() {
                    this.finish();
                    return Poll::Ready(Some(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the client stopped sending the request body",
                    ))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.incoming.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.incoming.size_hint()
    }
}

/// Reads and drops the rest of a body that will not be forwarded, so the client can finish
/// sending and read the refusal; gives up on a client that stops sending.
pub(super) async fn drain(mut incoming: Incoming) {
    loop {
        let frame = std::future::poll_fn(|cx| Pin::new(&mut incoming).poll_frame(cx));
        match tokio::time::timeout(BODY_STALL, frame).await {
            Ok(Some(Ok(_))) => {}
            Ok(None | Some(Err(_))) | Err(_) => return,
        }
    }
}
