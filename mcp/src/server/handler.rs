//! The client side of the session rmcp runs: who ansa says it is, and what it does with the
//! server's notifications.

use std::future::Future;
use std::sync::Weak;

use rmcp::ClientHandler;
use rmcp::RoleClient;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, NumberOrString, ProgressNotificationParam,
    ProtocolVersion,
};
use rmcp::service::{MaybeSendFuture, NotificationContext};

use super::Server;

/// One connection's handler; `epoch` ties its notifications to that connection.
pub(crate) struct Handler {
    server: Weak<Server>,
    epoch: u64,
}

impl Handler {
    pub fn new(server: Weak<Server>, epoch: u64) -> Self {
        Self { server, epoch }
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // No roots, sampling or elicitation: ansa offers tools only. The version is the newest
        // with an `initialize` handshake (rmcp's default names a revision without one, which
        // today's servers and the conformance suite do not accept).
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("ansa", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    fn on_tool_list_changed(
        &self,
        context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        let server = self.server.clone();
        let epoch = self.epoch;
        // Listing again is a request: it must not run inside the service loop that would
        // deliver its answer.
        tokio::spawn(async move {
            if let Some(server) = server.upgrade() {
                server.refresh_tools(epoch, context.peer).await;
            }
        });
        std::future::ready(())
    }

    fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        // Only tokens ansa gave (numbers) mean anything; a report for any other is dropped.
        if let (Some(server), NumberOrString::Number(token)) =
            (self.server.upgrade(), &params.progress_token.0)
        {
            server.progress.report(
                *token,
                params.progress,
                params.total,
                params.message.as_deref(),
            );
        }
        std::future::ready(())
    }
}
