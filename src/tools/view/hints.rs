//! What to do next about an error answer, in words the model can act on.

use ash_engine::protocol::{Data, ErrorCode, ExitKind, Response};

/// The `next` text of an error answer of `tool` (every code the engine can emit has one).
pub fn next_step(tool: &str, response: &Response) -> String {
    let Some(error) = &response.error else {
        return String::new();
    };
    let text = match error.code {
        ErrorCode::InvalidArgument => match tool {
            "search" => {
                "The request was invalid (often a regex that does not compile, or a path with `..`, a leading `/` or `:`): fix the arguments and call again."
            }
            "snapshot" => {
                "The request was invalid: a delta's baseline must be the `@N` a snapshot answered with (not another retained value), with the same paths, depth and include_hidden, and paths must be relative without `..`."
            }
            "edit" => {
                "The edit does not fit the file as last read (for example past its end): read the file again and redo the edit."
            }
            _ => {
                "The request was invalid (a path must be relative to the working directory, without `..`, a leading `/` or `:`): fix the arguments and call again."
            }
        },
        ErrorCode::UnsupportedOperation => {
            "This operation is not available in this session; use another tool."
        }
        ErrorCode::DuplicateRequest => {
            "An identical request is still running; wait for it instead of sending it again."
        }
        ErrorCode::WorkspaceEscape => {
            "The path leads outside the workspace (through a symlink); only paths inside the working directory can be used."
        }
        ErrorCode::PathNotFound => match tool {
            "exec" => {
                "The program or the cwd was not found: check the name (a bare name is looked up in PATH; a name with `/` is relative to the working directory) or list the directory."
            }
            _ => {
                "The path does not exist: check its spelling with `list` (paths are relative to the working directory)."
            }
        },
        ErrorCode::WrongFileType => match tool {
            "evidence" => {
                "That retained value is not text (or not a table): use kind \"bytes\" instead."
            }
            _ => {
                "The path is not a regular file (a directory, a symlink on the way, or a special file): list it and pick a file."
            }
        },
        ErrorCode::CapabilityDenied => {
            "That path or action is not available to tools in this session (a protected or reserved path, or a read-only session)."
        }
        ErrorCode::PermitRequired | ErrorCode::PermitInvalid => {
            "This action needs the user's approval, which was not given: say what you wanted to do and why, or do it another way."
        }
        ErrorCode::SpawnFailed => {
            "The program could not be started (not executable, or a bad format): check it, or run it through its interpreter (for example program \"sh\" with args [\"script.sh\"])."
        }
        ErrorCode::ProcessFailed => return process_failed(response),
        ErrorCode::TimedOut => match tool {
            "exec" => {
                "The command reached its deadline and was stopped (with its children): raise timeout_ms (up to 600000), or run a narrower command. What it printed is in d."
            }
            _ => {
                "The request reached its deadline: narrow it (fewer paths, a smaller depth, a more specific query)."
            }
        },
        ErrorCode::Cancelled => {
            "The user cancelled this call. Do not run it again unless the user asks."
        }
        ErrorCode::Filesystem => {
            "A filesystem error stopped it (for example a permission or an I/O error); check the path, or try again once."
        }
        ErrorCode::ContentConflict => match tool {
            "edit" => {
                "The file changed since you last read it (or someone else edited it): nothing was written. Read it again and redo the edit against its current text."
            }
            "files" => {
                "Nothing was changed: a destination already exists (files never overwrites) or a source changed since you read it. Pick another destination, or read the source again."
            }
            _ => {
                "The target already exists or changed: nothing was written. Read it again, or pick another path."
            }
        },
        ErrorCode::RecoveryRequired => {
            "A change may be half-applied after an interruption: read the affected files before changing anything else, and tell the user."
        }
        ErrorCode::OutputBudget => {
            "The answer would be too large to show: ask for less (fewer paths, a smaller length or depth, a more specific query)."
        }
        ErrorCode::StorageBudget => {
            "A size limit was reached (a file too large, too many entries or matches, or the session's retained store is full): narrow the paths or the query."
        }
        ErrorCode::ConcurrencyBudget => "Too many requests are running: try again.",
        ErrorCode::UnknownReference => {
            "That @N is not a retained value: use an r, ro or re value printed in an earlier answer (not the number of a request). Capture a new snapshot if the baseline is gone."
        }
        ErrorCode::ReferenceBusy => "That retained value is in use: try again.",
        ErrorCode::BatchFailed => {
            "Some steps failed or were skipped: see the rows and their retained answers."
        }
        ErrorCode::Internal => {
            "ash hit an internal error: try once more, and tell the user if it repeats."
        }
    };
    text.to_owned()
}

/// A nonzero exit is a result, not a tool failure.
fn process_failed(response: &Response) -> String {
    match &response.data {
        Some(Data::Exec(exec)) if exec.kind == ExitKind::Signaled => format!(
            "The command ran and was killed by signal {}; its output is in d.",
            exec.code.map_or_else(|| "?".to_owned(), |c| c.to_string())
        ),
        Some(Data::Exec(exec)) => format!(
            "The command ran and exited with status {}; this is its result, not a tool failure. Its output is in d.",
            exec.code.map_or_else(|| "?".to_owned(), |c| c.to_string())
        ),
        _ => "The command failed; its output is in d.".to_owned(),
    }
}
