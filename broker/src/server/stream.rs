//! A response body fed by a channel, so the provider's chunks go back to the client as they
//! arrive (SSE passes through unbuffered).

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame};
use tokio::sync::mpsc;

/// Chunks in flight between the upstream reader and the client.
pub(super) const DEPTH: usize = 16;

/// The body of a passed-through response; an `Err` cuts the client's connection, so a
/// stream broken upstream is never seen as complete.
pub(super) struct ChannelBody {
    rx: Option<mpsc::Receiver<Result<Bytes, std::io::Error>>>,
}

impl ChannelBody {
    /// A body and the sender that feeds it.
    pub(super) fn new() -> (mpsc::Sender<Result<Bytes, std::io::Error>>, ChannelBody) {
        let (tx, rx) = mpsc::channel(DEPTH);
        (tx, ChannelBody { rx: Some(rx) })
    }

    /// A body of one piece.
    pub(super) fn full(bytes: impl Into<Bytes>) -> ChannelBody {
        let (tx, body) = ChannelBody::new();
        let _ = tx.try_send(Ok(bytes.into()));
        body
    }
}

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let Some(rx) = self.rx.as_mut() else {
            return Poll::Ready(None);
        };
        match rx.poll_recv(cx) {
            Poll::Ready(Some(Ok(bytes))) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
            Poll::Ready(Some(Err(e))) => {
                self.rx = None;
                Poll::Ready(Some(Err(e)))
            }
            Poll::Ready(None) => {
                self.rx = None;
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rx.is_none()
    }
}
