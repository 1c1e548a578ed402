//! `files` → `f`: create/copy/move/remove, never overwriting.

use super::super::{FileActionKind, FilesArgs};
use super::error::ToolExecError;
use ash_engine::protocol::{Content, Digest, FsAction, FsArgs, FsOp, Op};

/// Builds the fs request; `digest_of` gives the expected digest of a copy/move/remove source.
pub fn fs(
    args: &FilesArgs,
    mut digest_of: impl FnMut(&str) -> Result<Digest, ToolExecError>,
) -> Result<Op, ToolExecError> {
    let mut actions = Vec::with_capacity(args.actions.len());
    for (index, action) in args.actions.iter().enumerate() {
        let to = || {
            action.to.clone().ok_or_else(|| ToolExecError::Invalid {
                tool: "files",
                detail: format!("`actions[{index}].to` is null, but copy and move need it"),
            })
        };
        let path = action.path.clone();
        let op = match action.kind {
            FileActionKind::Create => FsOp::Create {
                path,
                content: Content::Text(action.content.clone().unwrap_or_default()),
            },
            FileActionKind::Copy => FsOp::Copy {
                digest: digest_of(&path)?,
                from: path,
                to: to()?,
            },
            FileActionKind::Move => FsOp::Move {
                digest: digest_of(&path)?,
                from: path,
                to: to()?,
            },
            FileActionKind::Remove => FsOp::Remove {
                digest: digest_of(&path)?,
                path,
            },
        };
        actions.push(FsAction {
            id: index as u64 + 1,
            op,
        });
    }
    Ok(Op::Fs(FsArgs { actions }))
}
