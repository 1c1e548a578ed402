//! The prompt the model sees for a turn with `@` mentions: the user's text, then each file
//! as one short header line and the answer of a `read` of the whole file, made through the
//! session's executor (same budget, same cut marking, the same retained `@N` when cut).

use ansa_sessions::protocol::MentionPath;
use ash_engine::cancel::CancelToken;

use crate::tools::{ReadArgs, ReadMode, ToolArgs, ToolExecutor};

/// Lines asked for: the whole file; the read budget cuts a longer answer and retains it.
const WHOLE_FILE_LINES: u64 = 1 << 40;

/// The user message of a turn: `text`, then per mention `@path (attached read)` and the read.
/// A read refused now (the file went away since the submit was accepted) is attached as
/// its refusal, so the model knows the user meant a file it did not get.
pub fn prompt(
    text: &str,
    mentions: &[MentionPath],
    tools: &mut ToolExecutor,
    cancel: &CancelToken,
) -> String {
    let mut out = text.to_owned();
    for path in mentions {
        let args = ToolArgs::Read(ReadArgs {
            paths: vec![path.as_str().to_owned()],
            mode: ReadMode::Lines,
            offset: 1,
            length: Some(WHOLE_FILE_LINES),
        });
        out.push_str("\n\n");
        match tools.execute(&args, cancel) {
            Ok(read) => {
                out.push_str(&format!("@{path} (attached read)\n"));
                out.push_str(read.text.trim_end());
            }
            Err(e) => out.push_str(&format!("@{path} (not attached: {e})")),
        }
    }
    out
}
