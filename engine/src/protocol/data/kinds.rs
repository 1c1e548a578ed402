//! Small enums of result rows.

wire_enum! {
    /// Exec result kind `k`.
    pub enum ExitKind: u8, "exit kind", as_u8, from_u8 {
        /// 0: the process exited (`c` is its exit code).
        Exited = 0,
        /// 1: killed by a signal (`c` is the signal number).
        Signaled = 1,
        /// 2: the deadline passed (`c` is `~`).
        TimedOut = 2,
        /// 3: cancelled.
        Cancelled = 3,
        /// 4: killed for another reason (reserved).
        Killed = 4,
    }
}

wire_enum! {
    /// Directory entry kind `k` of list and snapshot rows.
    pub enum EntryKind: u8, "entry kind", as_u8, from_u8 {
        /// 0: regular file.
        File = 0,
        /// 1: directory.
        Dir = 1,
        /// 2: symbolic link (never followed by walks).
        Symlink = 2,
        /// 3: anything else.
        Other = 3,
    }
}

wire_enum! {
    /// Mutation state `s` of patch, fs and materialize rows.
    pub enum MutationState: u8, "mutation state", as_u8, from_u8 {
        /// 0: committed.
        Committed = 0,
        /// 1: conflict (the row shows the observed digest).
        Conflict = 1,
        /// 2: rolled back.
        RolledBack = 2,
        /// 3: recovery required.
        RecoveryRequired = 3,
        /// 4: skipped.
        Skipped = 4,
    }
}

wire_enum! {
    /// Batch node state `s`.
    pub enum NodeState: u8, "node state", as_u8, from_u8 {
        /// 0: ran and succeeded.
        Ok = 0,
        /// 1: ran and failed.
        Failed = 1,
        /// 2: skipped because a dependency did not succeed.
        Skipped = 2,
        /// 3: cancelled.
        Cancelled = 3,
    }
}

wire_enum! {
    /// Snapshot row change `c`.
    pub enum Change: u8, "snapshot change", as_u8, from_u8 {
        /// 0: a captured entry.
        Captured = 0,
        /// 1: added since the baseline.
        Added = 1,
        /// 2: modified (any field differs).
        Modified = 2,
        /// 3: removed (the row shows the baseline entry).
        Removed = 3,
    }
}
