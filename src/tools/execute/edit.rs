//! `edit` → `p`: `{old, new}` edits compiled against the bytes the model last read.

use super::super::{EditArgs, compile_edits};
use super::current::CurrentFile;
use super::error::ToolExecError;
use super::ledger::ReadLedger;
use ash_engine::protocol::{Content, Edit, Op, PatchArgs, PatchFile};

/// Builds the patch of `args` for `current`, the file as it is now.
///
/// The preimage digest is always the one the model last read. When the file still has it,
/// the current bytes *are* the bytes the model read and the edits compile against them. When
/// it changed, the patch still carries the old digest so the engine answers 501 (conflict)
/// and leaves the file untouched; the edits then compile against the current bytes if they
/// can, or become one empty edit, which the conflict check rejects before any write.
pub fn patch(
    args: &EditArgs,
    current: &CurrentFile,
    ledger: &ReadLedger,
) -> Result<Op, ToolExecError> {
    let seen = ledger
        .digest(&current.path)
        .ok_or_else(|| ToolExecError::NotRead {
            path: args.path.clone(),
        })?;
    let compiled = compile_edits(&current.bytes, &args.edits);
    let edits: Vec<Edit> = match compiled {
        Ok(edits) => edits
            .into_iter()
            .map(|e| Edit {
                offset: e.offset as u64,
                delete: e.len as u64,
                insert: Content::Text(e.new),
            })
            .collect(),
        Err(e) if seen == current.digest => return Err(e.into()),
        Err(_) => vec![Edit {
            offset: 0,
            delete: 0,
            insert: Content::Text(String::new()),
        }],
    };
    Ok(Op::Patch(PatchArgs {
        files: vec![PatchFile {
            path: current.path.clone(),
            digest: seen,
            edits,
        }],
    }))
}
