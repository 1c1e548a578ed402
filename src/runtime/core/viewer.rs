//! What the `tool_output` command answers in the readable view besides the journal: the
//! running call's output so far (copied by the engine's capture while the command runs) and
//! the readable text of the session's recent calls. Both are bounded: the live copy keeps the
//! end of the output (`ash_engine::exec::LIVE_BYTES`), and only the last [`KEPT_CALLS`] calls'
//! texts, at most [`KEPT_BYTES`] in all, are kept; older calls are answered in the model view.

use std::collections::VecDeque;

use ansa_sessions::protocol::EventBody;
use ansa_sessions::{CallId, OutputView, StoredOutput, ToolOutputPage, ToolOutputQuery};
use ash_engine::exec::LiveOutput;

use super::Core;

/// Recent calls whose readable text is kept.
pub const KEPT_CALLS: usize = 32;
/// Most bytes of readable text kept in all.
pub const KEPT_BYTES: usize = 8 << 20;

/// The running call and the recent calls' readable texts.
#[derive(Debug, Default)]
pub(super) struct Viewed {
    running: Option<(CallId, String, LiveOutput)>,
    recent: VecDeque<StoredOutput>,
}

impl Viewed {
    fn keep(&mut self, output: StoredOutput) {
        self.recent.retain(|o| o.call_id != output.call_id);
        self.recent.push_back(output);
        let mut bytes: usize = self.recent.iter().map(|o| o.text.len()).sum();
        while self.recent.len() > KEPT_CALLS || (bytes > KEPT_BYTES && self.recent.len() > 1) {
            if let Some(old) = self.recent.pop_front() {
                bytes -= old.text.len();
            }
        }
    }

    /// The readable page `query` asks for, when this call's text is at hand.
    fn page(&self, query: &ToolOutputQuery) -> Option<ToolOutputPage> {
        let wanted = |id: &CallId| query.call_id.as_ref().is_none_or(|c| c == id);
        if let Some((call_id, tool, live)) = &self.running
            && wanted(call_id)
        {
            let snap = live.snapshot();
            let mut text = String::new();
            if snap.dropped > 0 {
                text.push_str(&format!(
                    "… {} earlier bytes are not kept while it runs\n",
                    snap.dropped
                ));
            }
            text.push_str(&snap.text);
            let output = StoredOutput {
                call_id: call_id.clone(),
                tool: tool.clone(),
                text,
            };
            let mut page = ansa_sessions::tool_output_page(&output, query.clone());
            page.view = OutputView::Readable;
            page.running = true;
            return Some(page);
        }
        let found = match &query.call_id {
            Some(id) => self.recent.iter().rev().find(|o| o.call_id == *id),
            // The latest call: the newest kept one only if no later call ran without one.
            None => self.recent.back(),
        }?;
        let mut page = ansa_sessions::tool_output_page(found, query.clone());
        page.view = OutputView::Readable;
        Some(page)
    }
}

impl Core {
    /// A call starts running: its output so far is `live` until [`Core::call_ended`].
    pub fn call_running(&mut self, call_id: CallId, tool: &str, live: LiveOutput) {
        self.viewed.running = Some((call_id, tool.to_owned(), live));
    }

    /// A call ended; `readable` is what a person reads of it (`None`: only the model's view).
    pub fn call_ended(&mut self, call_id: &CallId, tool: &str, readable: Option<String>) {
        if self
            .viewed
            .running
            .as_ref()
            .is_some_and(|(id, _, _)| id == call_id)
        {
            self.viewed.running = None;
        }
        match readable {
            Some(text) => self.viewed.keep(StoredOutput {
                call_id: call_id.clone(),
                tool: tool.to_owned(),
                text,
            }),
            None => self.viewed.recent.retain(|o| o.call_id != *call_id),
        }
    }

    /// Publishes the readable page `query` asks for; false when there is none at hand (the
    /// caller answers in the model's view).
    pub(super) fn publish_readable(&mut self, query: &ToolOutputQuery) -> bool {
        if query.view != OutputView::Readable {
            return false;
        }
        // The latest call without a readable text is answered in the model's view.
        if query.call_id.is_none()
            && self.viewed.running.is_none()
            && let (Some(last), Some(kept)) = (&self.last_output, self.viewed.recent.back())
            && last.call_id != kept.call_id
        {
            return false;
        }
        match self.viewed.page(query) {
            Some(page) => {
                self.events.publish(EventBody::ToolOutput(page));
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(id: &str, bytes: usize) -> StoredOutput {
        StoredOutput {
            call_id: CallId(id.to_owned()),
            tool: "exec".to_owned(),
            text: "x".repeat(bytes),
        }
    }

    fn query(id: Option<&str>) -> ToolOutputQuery {
        ToolOutputQuery {
            call_id: id.map(|i| CallId(i.to_owned())),
            offset: 0,
            limit: 10,
            view: OutputView::Readable,
        }
    }

    #[test]
    fn keeps_the_recent_calls_within_the_bounds() {
        let mut viewed = Viewed::default();
        for n in 0..(KEPT_CALLS + 5) {
            viewed.keep(output(&format!("c{n}"), 10));
        }
        assert_eq!(viewed.recent.len(), KEPT_CALLS);
        assert!(viewed.page(&query(Some("c0"))).is_none(), "the oldest went");
        let last = format!("c{}", KEPT_CALLS + 4);
        assert_eq!(viewed.page(&query(None)).unwrap().call_id.0, last);
        viewed.keep(output("big", KEPT_BYTES));
        viewed.keep(output("big2", KEPT_BYTES / 2 + 1));
        assert_eq!(viewed.recent.len(), 1, "bytes bound the texts kept");
    }

    #[test]
    fn a_running_call_answers_with_its_output_so_far() {
        let mut viewed = Viewed::default();
        let live = LiveOutput::new();
        viewed.running = Some((CallId("r".into()), "exec".into(), live.clone()));
        let page = viewed.page(&query(None)).unwrap();
        assert!(page.running && page.lines.is_empty());
        assert!(viewed.page(&query(Some("other"))).is_none());
    }
}
