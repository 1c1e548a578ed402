//! The provider of an `ansa --rewind` run: a rewind (code, conversation or both) makes no
//! model request, so the session's live provider is not built and its credentials are not
//! needed. A turn the runtime would run anyway (one left queued by a crash) pauses with a
//! message saying how to resume it.

use crate::provider::{GenerationRequest, ModelTurn, Provider, ProviderError};

/// Answers every generation with a pause: `ansa --rewind` asks no model.
#[derive(Debug, Clone, Copy, Default)]
pub struct RewindOnly;

impl Provider for RewindOnly {
    fn name(&self) -> &str {
        "rewind-only"
    }

    fn generate(
        &self,
        _request: &GenerationRequest<'_>,
        _preview: &mut dyn FnMut(&str),
    ) -> Result<ModelTurn, ProviderError> {
        Err(ProviderError::Unavailable(
            "`ansa --rewind` makes no model request; resume this turn with `ansa --continue`"
                .to_owned(),
        ))
    }
}
