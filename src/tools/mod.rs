//! Tools: compiled descriptors with strict schemas, typed arguments, and the pure parts of executors.

mod args;
pub mod delegate;
mod edit;
mod error;
mod execute;
pub mod mcp;
mod registry;
mod report;
mod rules;
mod schema;
mod spec;
mod standard;
mod test_value;
pub mod view;

pub use args::{
    EditArgs, EnvChange, EvidenceArgs, EvidenceKind, ExecArgs, FileAction, FileActionKind,
    FileEdits, FilesArgs, GetTestValueArgs, ListArgs, ListKind, ReadArgs, ReadMode, SearchArgs,
    SnapshotArgs, TextEdit, ToolArgs,
};
pub use edit::{ByteEdit, EditError, compile_edits};
pub use error::{RegistryError, ToolCallError};
pub use execute::{
    Approval, CurrentFile, HarnessError, MAX_EXEC_TIMEOUT_MS, PathNames, Prepared, READ_MS,
    READ_REC, READ_TOK, ReadLedger, ToolExecError, ToolExecutor, ToolFiles, ToolOpenError,
    ToolOutput, ToolPolicy, current_file, session_config,
};
pub use registry::{AdmittedCall, Mode, ProviderTool, ToolDescriptor, ToolRegistry};
pub use schema::{JsonType, Schema, SchemaError, Violation};
pub use spec::{ParseFn, ToolSpec};
pub use standard::{
    SandboxArgument, can_change_workspace, offline_specs, offline_specs_with, standard_specs,
    standard_specs_with,
};
pub use test_value::{TestValue, execute_get_test_value, test_value};
pub use view::{Refusal, call_error, exec_error, refusal};
