//! Every message a server sends passes here in the order it was sent, before rmcp dispatches
//! it. rmcp runs notification handlers as tasks of their own but hands a response to its caller
//! at once, so a server that changes its tools during a call and then answers (an SDK server
//! sends `notifications/tools/list_changed` before the call's result) could have its answer
//! reach ansa before the new list is even asked for, and the next model request would offer
//! the old list. Counting the notifications here, in order, lets a call wait for the lists it
//! made stale.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// `tools/list_changed` notifications received and tool lists fetched after them.
#[derive(Default)]
pub(crate) struct ListChanges {
    /// Notifications received so far.
    seen: AtomicU64,
    /// Every notification up to this count has been followed by a finished refresh.
    done: AtomicU64,
    settled: tokio::sync::Notify,
}

impl ListChanges {
    fn saw(&self) {
        self.seen.fetch_add(1, Ordering::SeqCst);
    }

    /// The count a refresh starting now answers.
    pub fn seen(&self) -> u64 {
        self.seen.load(Ordering::SeqCst)
    }

    /// Every notification up to this count has been followed by a finished refresh.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::SeqCst)
    }

    /// A refresh that started when `seen` was `upto` ended (listed or gave up).
    pub fn refreshed(&self, upto: u64) {
        self.done.fetch_max(upto, Ordering::SeqCst);
        self.settled.notify_waiters();
    }

    /// Waits until every notification received so far has been followed by a refresh, at most
    /// `bound` (a refresh is itself bounded; this only guards against one never started).
    pub async fn settled(&self, bound: Duration) {
        let wait = async {
            loop {
                let notified = self.settled.notified();
                tokio::pin!(notified);
                // Registered before the check, so a refresh ending in between is not missed.
                notified.as_mut().enable();
                if self.done.load(Ordering::SeqCst) >= self.seen() {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(bound, wait).await;
    }
}

/// A transport that counts the `tools/list_changed` notifications it receives.
pub(crate) struct Watched<T> {
    inner: T,
    changes: Arc<ListChanges>,
}

impl<T> Watched<T> {
    pub fn new(inner: T, changes: Arc<ListChanges>) -> Self {
        Self { inner, changes }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Watched<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if let Some(JsonRpcMessage::Notification(n)) = &message
            && matches!(
                n.notification,
                ServerNotification::ToolListChangedNotification(_)
            )
        {
            self.changes.saw();
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
