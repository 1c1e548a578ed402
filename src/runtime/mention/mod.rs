//! `@` mentions (issue 43 item 8): a submit names workspace files that the prompt attaches as
//! reads. The control thread refuses a mention that cannot be attached before the submit is
//! accepted (`check`); the worker reads the files when the turn starts and journals the
//! resulting user message, so replay is exact (`attach`).

mod attach;
mod check;

pub use attach::prompt;
pub use check::MentionCheck;
