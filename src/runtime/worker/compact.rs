//! The worker's compaction step: asks the provider (or the offline summariser) for a summary
//! of the old part of the context, journals the new epoch durably, then swaps the context in
//! memory. What is due and how the new context is assembled is `runtime::compaction`.

use ansa_sessions::{Compaction, CompactionMethod, ContextEpoch, Record, RequestId};

use super::super::compaction;
use super::super::context::{count_outputs, encode_item};
use super::super::stop::{Pause, Stop};
use super::{Step, Worker};
use crate::provider::http::{Notify, Retrying};
use crate::provider::{COMPACTION_PROMPT, GenerationRequest, ProviderError};

impl Worker {
    /// Before a new turn (or once after a context-length error, `force`): compacts when due,
    /// syncing the summary and its provenance before the new epoch is used. Returns whether it
    /// compacted.
    pub(super) fn compact(&mut self, id: RequestId, force: bool) -> Step<bool> {
        let split = match compaction::split(
            &self.context.items,
            self.context.completed_in_epoch,
            self.limits.compact_bytes,
            force,
        ) {
            Ok(split) => split,
            Err(_) => return Ok(false),
        };
        self.compact_split(id, split)?;
        Ok(true)
    }

    /// Summarises `split.old` and makes the summary plus `split.kept` the new context epoch,
    /// durably, journaled under turn `id`.
    pub(super) fn compact_split(&mut self, id: RequestId, split: compaction::Split) -> Step<()> {
        let flag = self.shared.lock().cancel_handles().flag;
        let shared = &self.shared;
        let on_retry = |r: &Retrying| shared.lock().retrying(id, r);
        let request = GenerationRequest {
            generation: self.context.next_generation,
            session_id: self.session_id.as_str(),
            instructions: COMPACTION_PROMPT,
            context: &split.old,
            tools: &[],
            model: &self.in_force,
            cancel: &flag,
            compacted_outputs: self.context.compacted_outputs,
            on_retry: Some(Notify(&on_retry)),
            on_reasoning: None,
        };
        let (summary, method, model) = match self.provider.summarize(&request) {
            None => (
                compaction::offline_summary(&split.old),
                CompactionMethod::Offline,
                None,
            ),
            Some(Ok((summary, usage))) => {
                self.record_usage(id, self.context.next_generation, usage)?;
                (
                    summary,
                    CompactionMethod::Live,
                    Some(self.provider.name().to_owned()),
                )
            }
            Some(Err(ProviderError::Cancelled)) => return Err(Stop::Cancelled),
            Some(Err(e)) => return Err(Stop::Paused(Pause::CompactionFailed(e))),
        };
        let items = compaction::assemble(&split, summary);
        let encoded = items
            .iter()
            .map(encode_item)
            .collect::<Result<Vec<_>, _>>()?;
        let epoch = self.context.epoch + 1;
        let mut core = self.shared.lock();
        let covers_through = core.session().appended_seq();
        core.durable(Record::ContextEpoch(ContextEpoch {
            epoch,
            request_id: id,
            compaction: Some(Compaction {
                items: encoded,
                covers_through,
                method,
                model,
            }),
            rewound: None,
        }))
        .map_err(|e| Stop::Paused(Pause::CompactionNotSaved(e)))?;
        drop(core);
        let before = self.context.compacted_outputs + count_outputs(&self.context.items);
        self.context.compacted_outputs = before - count_outputs(&items).min(before);
        self.context.items = items;
        self.context.epoch = epoch;
        self.context.completed_in_epoch = 0;
        Ok(())
    }
}
