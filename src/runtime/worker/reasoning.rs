//! The note that a host's reasoning is not carried between requests (`provider::reasoning`):
//! said once, when the first such item arrives in the context (a reopened session whose
//! context already holds one does not say it again).

use ansa_sessions::RequestId;
use ansa_sessions::protocol::{EventBody, ProviderNotice, ProviderNoticeKind};

use super::Worker;
use crate::provider::{ContextItem, NativeItem, reasoning};

impl Worker {
    /// Tells the frontends, the first time, that `native` holds reasoning the host cannot
    /// read back. Call before `native` is added to the context.
    pub(super) fn note_uncarried_reasoning(&self, id: RequestId, native: &[NativeItem]) {
        if !native.iter().any(reasoning::uncarried) {
            return;
        }
        let noted = self
            .context
            .items
            .iter()
            .any(|i| matches!(i, ContextItem::Native(n) if reasoning::uncarried(n)));
        if noted {
            return;
        }
        self.shared
            .lock()
            .answer(EventBody::ProviderNotice(ProviderNotice {
                request_id: id,
                kind: ProviderNoticeKind::ReasoningNotCarried,
                message: reasoning::NOT_CARRIED.to_owned(),
            }));
    }
}
