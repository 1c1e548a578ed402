//! The filesystem plane: the workspace root and its path rules, directory walks, file reads,
//! text search and snapshot capture. Operations (`ops`) build their answers on these; nothing
//! here knows the wire format of an answer.

pub(crate) mod capture;
pub(crate) mod content;
pub(crate) mod text_search;
pub(crate) mod walk;
pub mod workspace;
