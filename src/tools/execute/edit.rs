//! `edit` → `p`: `{old, new}` edits compiled against the bytes the model last read.

use super::super::{EditArgs, compile_edits};
use super::current::CurrentFile;
use super::error::ToolExecError;
use super::ledger::ReadLedger;
use ash_engine::protocol::{Content, Edit, Op, PatchArgs, PatchFile};

/// Builds the one patch of `args` from `current`, each file as it is now (same order as
/// `args.files`); the engine applies it to every file or to none.
///
/// Each file's preimage digest is the one the model last read (or, for a file it never read,
/// the current one). When a file still has it, the current bytes *are* the bytes the model
/// read and the edits compile against them. When it changed, the patch still carries the old
/// digest so the engine answers 501 (conflict) and leaves every file untouched; that file's
/// edits then compile against the current bytes if they can, or become one empty edit, which
/// the conflict check rejects before any write.
pub fn patch(
    args: &EditArgs,
    current: &[CurrentFile],
    ledger: &ReadLedger,
) -> Result<Op, ToolExecError> {
    let mut files = Vec::with_capacity(args.files.len());
    for (file, now) in args.files.iter().zip(current) {
        // A file the model never read is taken as it is now: its `old` texts must still
        // match exactly once, so nothing is edited blind.
        let seen = ledger.digest(&now.path).unwrap_or(now.digest);
        let edits: Vec<Edit> = match compile_edits(&now.bytes, &file.edits) {
            Ok(edits) => edits
                .into_iter()
                .map(|e| Edit {
                    offset: e.offset as u64,
                    delete: e.len as u64,
                    insert: Content::Text(e.new),
                })
                .collect(),
            Err(source) if seen == now.digest => {
                return Err(ToolExecError::Edit {
                    path: file.path.clone(),
                    source,
                });
            }
            Err(_) => vec![Edit {
                offset: 0,
                delete: 0,
                insert: Content::Text(String::new()),
            }],
        };
        files.push(PatchFile {
            path: now.path.clone(),
            digest: seen,
            edits,
        });
    }
    // ASH/1 wants a patch's paths strictly sorted by bytes.
    files.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    if let Some(pair) = files.windows(2).find(|w| w[0].path == w[1].path) {
        return Err(ToolExecError::Invalid {
            tool: "edit",
            detail: format!(
                "two entries of `files` name the same file `{}`; put all its edits in one entry",
                pair[0].path
            ),
        });
    }
    Ok(Op::Patch(PatchArgs { files }))
}
