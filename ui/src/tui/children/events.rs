//! A child's own events, forwarded on the parent's stream as `child` events: an approval it
//! waits for becomes the TUI's approval prompt labelled with the child, and the rest goes to
//! its log. Events of a child without a row (another client's call) are ignored.

use ansa_sessions::child::ChildId;
use ansa_sessions::protocol::EventBody;

use super::super::app::App;
use super::super::approval::ChildLabel;

impl App {
    /// One event of `child`'s stream.
    pub(crate) fn on_child_event(&mut self, child: ChildId, event: EventBody) {
        if !self.children.record(&child, &event) {
            return;
        }
        match event {
            EventBody::ApprovalRequired(request) => {
                let index = self.children.row(&child).map_or(0, |r| r.index);
                let label = ChildLabel {
                    id: child.clone(),
                    index,
                };
                self.on_approval_required(*request, Some(label));
            }
            EventBody::ApprovalDecided {
                request_id,
                call_id,
                decision,
                reason,
            } => self.on_approval_decided(Some(&child), request_id, &call_id, decision, reason),
            _ => {}
        }
        self.refresh_child_view(&child);
    }
}
