//! Capability bits, operation kinds and operation bits (docs/contract/ash-protocol.md §3.2).

use std::ops::{BitAnd, BitOr, BitOrAssign};

/// A capability mask: what a session may do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Caps(u8);

impl Caps {
    /// No capability.
    pub const NONE: Caps = Caps(0);
    /// 1: read the workspace.
    pub const READ: Caps = Caps(1);
    /// 2: write the workspace.
    pub const WRITE: Caps = Caps(2);
    /// 4: spawn host processes.
    pub const PROCESS: Caps = Caps(4);
    /// 8: access retained results.
    pub const RETAINED: Caps = Caps(8);
    /// Every defined capability.
    pub const ALL: Caps = Caps(15);

    /// The mask for raw bits, or `None` if an undefined bit is set.
    pub const fn from_bits(bits: u64) -> Option<Caps> {
        if bits & !(Caps::ALL.0 as u64) == 0 {
            Some(Caps(bits as u8))
        } else {
            None
        }
    }

    /// The mask for raw bits with undefined bits dropped (handshake negotiation).
    pub const fn truncate(bits: u64) -> Caps {
        Caps((bits & Caps::ALL.0 as u64) as u8)
    }

    /// The raw bits.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether every capability of `other` is present.
    pub const fn contains(self, other: Caps) -> bool {
        self.0 & other.0 == other.0
    }

    /// The capabilities of `self` missing from `granted`.
    pub const fn missing_from(self, granted: Caps) -> Caps {
        Caps(self.0 & !granted.0)
    }

    /// Whether no capability is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union of both masks.
    pub const fn union(self, other: Caps) -> Caps {
        Caps(self.0 | other.0)
    }
}

impl BitOr for Caps {
    type Output = Caps;
    fn bitor(self, rhs: Caps) -> Caps {
        self.union(rhs)
    }
}

impl BitOrAssign for Caps {
    fn bitor_assign(&mut self, rhs: Caps) {
        *self = self.union(rhs);
    }
}

impl BitAnd for Caps {
    type Output = Caps;
    fn bitand(self, rhs: Caps) -> Caps {
        Caps(self.0 & rhs.0)
    }
}

impl std::fmt::Display for Caps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The operation named by a request's `o` letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// `x`: run a process.
    Exec,
    /// `r`: read files.
    Read,
    /// `l`: list directory trees.
    List,
    /// `g`: search file contents.
    Search,
    /// `p`: patch files.
    Patch,
    /// `f`: transactional file actions.
    Fs,
    /// `b`: a dependency graph of leaf operations.
    Batch,
    /// `/`: byte slice of a retained value.
    Slice,
    /// `#`: line slice of a retained value.
    LineSlice,
    /// `?`: search inside a retained value.
    Find,
    /// `-`: release a retained value.
    Release,
    /// `|`: project columns of a retained ASON table.
    Project,
    /// `>`: write a retained value to a new workspace file.
    Materialize,
    /// `s`: snapshot capture or delta.
    Snapshot,
    /// `k`: cancel another request.
    Cancel,
}

impl OpKind {
    /// Every operation kind.
    pub const ALL: [OpKind; 15] = [
        OpKind::Exec,
        OpKind::Read,
        OpKind::List,
        OpKind::Search,
        OpKind::Patch,
        OpKind::Fs,
        OpKind::Batch,
        OpKind::Slice,
        OpKind::LineSlice,
        OpKind::Find,
        OpKind::Release,
        OpKind::Project,
        OpKind::Materialize,
        OpKind::Snapshot,
        OpKind::Cancel,
    ];

    /// The `o` letter.
    pub const fn letter(self) -> char {
        match self {
            OpKind::Exec => 'x',
            OpKind::Read => 'r',
            OpKind::List => 'l',
            OpKind::Search => 'g',
            OpKind::Patch => 'p',
            OpKind::Fs => 'f',
            OpKind::Batch => 'b',
            OpKind::Slice => '/',
            OpKind::LineSlice => '#',
            OpKind::Find => '?',
            OpKind::Release => '-',
            OpKind::Project => '|',
            OpKind::Materialize => '>',
            OpKind::Snapshot => 's',
            OpKind::Cancel => 'k',
        }
    }

    /// The kind named by an `o` value, which must be exactly one known letter.
    pub fn from_letter(s: &str) -> Option<OpKind> {
        let mut chars = s.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return None;
        };
        OpKind::ALL.into_iter().find(|k| k.letter() == c)
    }

    /// The operation bit index (x=0 … k=9; all formulas share 7).
    pub const fn bit_index(self) -> u8 {
        match self {
            OpKind::Exec => 0,
            OpKind::Read => 1,
            OpKind::List => 2,
            OpKind::Search => 3,
            OpKind::Patch => 4,
            OpKind::Fs => 5,
            OpKind::Batch => 6,
            OpKind::Slice
            | OpKind::LineSlice
            | OpKind::Find
            | OpKind::Release
            | OpKind::Project
            | OpKind::Materialize => 7,
            OpKind::Snapshot => 8,
            OpKind::Cancel => 9,
        }
    }

    /// Whether this is one of the six formulas.
    pub const fn is_formula(self) -> bool {
        self.bit_index() == 7
    }

    /// Whether this kind may be a batch node (everything but `b` and `k`).
    pub const fn is_leaf(self) -> bool {
        !matches!(self, OpKind::Batch | OpKind::Cancel)
    }

    /// Capabilities the kind itself requires. A batch requires the union of its leaves,
    /// which only [`crate::protocol::Op::required_caps`] knows; here it is empty.
    pub const fn base_caps(self) -> Caps {
        match self {
            OpKind::Exec => Caps::PROCESS,
            OpKind::Read | OpKind::List | OpKind::Search | OpKind::Snapshot => Caps::READ,
            OpKind::Patch | OpKind::Fs => Caps::WRITE,
            OpKind::Slice
            | OpKind::LineSlice
            | OpKind::Find
            | OpKind::Release
            | OpKind::Project => Caps::RETAINED,
            OpKind::Materialize => Caps::RETAINED.union(Caps::WRITE),
            OpKind::Batch | OpKind::Cancel => Caps::NONE,
        }
    }
}

impl std::fmt::Display for OpKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// An operation mask (bit per [`OpKind::bit_index`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct OpMask(u16);

impl OpMask {
    /// No operation.
    pub const NONE: OpMask = OpMask(0);
    /// Every defined operation bit (0x3ff).
    pub const ALL: OpMask = OpMask(0x3ff);

    /// The mask for raw bits, or `None` if an undefined bit is set.
    pub const fn from_bits(bits: u64) -> Option<OpMask> {
        if bits & !(OpMask::ALL.0 as u64) == 0 {
            Some(OpMask(bits as u16))
        } else {
            None
        }
    }

    /// The mask for raw bits with undefined bits dropped (handshake negotiation).
    pub const fn truncate(bits: u64) -> OpMask {
        OpMask((bits & OpMask::ALL.0 as u64) as u16)
    }

    /// The raw bits.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// The mask with only `kind`'s bit.
    pub const fn of(kind: OpKind) -> OpMask {
        OpMask(1 << kind.bit_index())
    }

    /// Whether `kind`'s bit is set.
    pub const fn allows(self, kind: OpKind) -> bool {
        self.0 & (1 << kind.bit_index()) != 0
    }
}

impl BitOr for OpMask {
    type Output = OpMask;
    fn bitor(self, rhs: OpMask) -> OpMask {
        OpMask(self.0 | rhs.0)
    }
}

impl std::fmt::Display for OpMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
