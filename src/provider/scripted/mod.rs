//! The scripted provider: the N-th generation of a session replays the N-th turn of a script.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

pub mod file;

use super::{Generated, GenerationRequest, ModelTurn, Provider, ProviderError, ToolCall, Usage};
use file::{Script, ScriptError, TurnKind};
use std::sync::Arc;

/// What `{{tool_output:K}}` shows for an output compaction removed from the context.
const COMPACTED: &str = "[tool output removed from the context by compaction]";

/// How often a delayed turn checks the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(10);

/// Replays a [`Script`]; stateless, so Resume only needs the generation counter.
#[derive(Debug, Clone)]
pub struct ScriptedProvider {
    script: Script,
}

impl ScriptedProvider {
    /// Loads the script at `path`.
    pub fn load(path: &std::path::Path) -> Result<Self, ScriptError> {
        Ok(Self {
            script: Script::load(path)?,
        })
    }

    /// Wraps an already parsed script.
    pub fn new(script: Script) -> Self {
        Self { script }
    }

    /// The script being replayed.
    pub fn script(&self) -> &Script {
        &self.script
    }
}

fn wait(delay_ms: u64, cancel: &std::sync::atomic::AtomicBool) -> Result<(), ProviderError> {
    let deadline = Instant::now() + Duration::from_millis(delay_ms);
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(ProviderError::Cancelled);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(());
        }
        std::thread::sleep(CANCEL_POLL.min(deadline - now));
    }
}

impl Provider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }

    fn catalog(
        &self,
        _cancel: &std::sync::atomic::AtomicBool,
    ) -> Result<Option<Vec<ansa_sessions::protocol::CatalogModel>>, ProviderError> {
        Ok(self.script.models.clone())
    }

    fn for_child(
        &self,
        index: u32,
        task: &str,
    ) -> Result<Option<Arc<dyn Provider>>, ProviderError> {
        let position = self
            .script
            .children
            .iter()
            .position(|c| c.selector.matches(index, task));
        let Some(position) = position else {
            return Err(ProviderError::ScriptHasNoChild {
                file: self.script.file.clone(),
                index,
                task: task.chars().take(60).collect(),
            });
        };
        let script = Script {
            file: format!("{} children[{position}]", self.script.file),
            turns: self.script.children[position].turns.clone(),
            models: None,
            children: Vec::new(),
        };
        Ok(Some(Arc::new(ScriptedProvider::new(script))))
    }

    fn generate_full(
        &self,
        request: &GenerationRequest<'_>,
        preview: &mut dyn FnMut(&str),
    ) -> Result<Generated, ProviderError> {
        let turn = self.generate(request, preview)?;
        let usage = usize::try_from(request.generation)
            .ok()
            .and_then(|i| self.script.turns.get(i))
            .and_then(|t| t.usage)
            .map(|(input, output)| Usage {
                input_tokens: input,
                output_tokens: output,
                total_tokens: input.saturating_add(output),
                cached_tokens: None,
                reasoning_tokens: None,
            });
        Ok(Generated {
            turn,
            commentary: None,
            native: Vec::new(),
            usage,
        })
    }

    fn generate(
        &self,
        request: &GenerationRequest<'_>,
        preview: &mut dyn FnMut(&str),
    ) -> Result<ModelTurn, ProviderError> {
        let file = &self.script.file;
        let turns = self.script.turns.len();
        let index = usize::try_from(request.generation)
            .ok()
            .filter(|index| *index < turns);
        let Some(index) = index else {
            return Err(ProviderError::ScriptExhausted {
                file: file.clone(),
                generation: request.generation,
                turns,
            });
        };
        let turn = &self.script.turns[index];
        wait(turn.delay_ms, request.cancel)?;
        match &turn.kind {
            TurnKind::Text(template) => {
                // `K` counts the session's outputs; those compaction removed are not shown.
                let removed = usize::try_from(request.compacted_outputs).unwrap_or(usize::MAX);
                let outputs: Vec<&str> = std::iter::repeat_n(COMPACTED, removed)
                    .chain(request.tool_outputs())
                    .collect();
                let text = template.render(&outputs).map_err(|missing| {
                    ProviderError::MissingToolOutput {
                        file: file.clone(),
                        turn: index,
                        index: missing,
                        available: outputs.len(),
                    }
                })?;
                // Word-sized previews exercise incremental rendering the way a stream would.
                for (at, _) in text.match_indices(' ') {
                    preview(&text[..at]);
                }
                preview(&text);
                Ok(ModelTurn::Final { text })
            }
            TurnKind::ToolCalls(calls) => Ok(ModelTurn::ToolCalls(
                calls
                    .iter()
                    .enumerate()
                    .map(|(position, call)| ToolCall {
                        call_id: call
                            .call_id
                            .clone()
                            .unwrap_or_else(|| format!("call-{}-{position}", request.generation)),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                    })
                    .collect(),
            )),
            TurnKind::Raw(raw) => Ok(ModelTurn::Malformed {
                raw: raw.clone(),
                reason: format!(
                    "turns[{index}] of script {file} is a raw (malformed) model output"
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests;
