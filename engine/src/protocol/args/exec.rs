//! Arguments of `x` exec: `a{x,v,c,e,in,f}`.

use super::MIB;
use crate::ason::{Atom, Cell, Value};
use crate::protocol::emit;
use crate::protocol::path::MAX_PATH_BYTES;
use crate::protocol::schema::{
    Loc, Problem, SchemaError, atom, check_bytes, check_count, clip, flags, items, record,
    reference, text, text_bytes,
};
use std::collections::HashSet;

/// Most argv items.
pub const MAX_ARGV: usize = 1024;
/// Most environment changes.
pub const MAX_ENV: usize = 256;
/// Longest environment entry in bytes.
pub const MAX_ENV_ENTRY: usize = 32 * 1024;

/// One environment change of `e`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EnvChange {
    /// `NAME=value`: set a variable.
    Set {
        /// The variable name.
        name: String,
        /// Its value.
        value: String,
    },
    /// `-NAME`: remove a variable.
    Remove(String),
}

impl EnvChange {
    /// The variable this change affects.
    pub fn name(&self) -> &str {
        match self {
            EnvChange::Set { name, .. } | EnvChange::Remove(name) => name,
        }
    }

    fn to_text(&self) -> String {
        match self {
            EnvChange::Set { name, value } => format!("{name}={value}"),
            EnvChange::Remove(name) => format!("-{name}"),
        }
    }

    fn parse(entry: &str, at: Loc) -> Result<EnvChange, SchemaError> {
        let change = match entry.strip_prefix('-') {
            Some(name) => EnvChange::Remove(name.to_owned()),
            None => match entry.split_once('=') {
                Some((name, value)) => EnvChange::Set {
                    name: name.to_owned(),
                    value: value.to_owned(),
                },
                None => {
                    return Err(at.err(Problem::Rule(
                        "an environment entry is NAME=value (set) or -NAME (remove)",
                    )));
                }
            },
        };
        if !is_env_name(change.name()) {
            return Err(at.err(Problem::Detail(format!(
                "{:?} is not a variable name ([A-Za-z_][A-Za-z0-9_]*)",
                clip(change.name())
            ))));
        }
        Ok(change)
    }
}

fn is_env_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

/// Standard input `in` of the child.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Stdin {
    /// `~`: stdin is the null device.
    Null,
    /// Inline text (≤1 MiB).
    Text(String),
    /// `@N`: the bytes of a retained value (≤64 MiB, checked when read).
    Ref(u64),
}

/// How the executable `x` is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program<'a> {
    /// No `/`: a bare name the OS resolves through `PATH`.
    Name(&'a str),
    /// Contains `/`: a workspace-relative logical path that must exist.
    Path(&'a str),
}

/// `x` exec: `a{x,v,c,e,in,f}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExecArgs {
    /// `x`: the executable, 1..4096 bytes; never absolute, never containing `\` or `:`.
    pub program: String,
    /// `v`: arguments after the executable (≤1024 items, each ≤1 MiB).
    pub argv: Vec<String>,
    /// `c`: working directory as a logical path.
    pub cwd: String,
    /// `e`: environment changes applied in order, each name at most once.
    pub env: Vec<EnvChange>,
    /// `in`: standard input.
    pub stdin: Stdin,
    /// Flag bit 0: start from an empty environment before applying `env`.
    pub clear_env: bool,
}

impl ExecArgs {
    /// How the executable is to be found.
    pub fn program_kind(&self) -> Program<'_> {
        if self.program.contains('/') {
            Program::Path(&self.program)
        } else {
            Program::Name(&self.program)
        }
    }

    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("a");
        let [x, vv, c, e, input, f] = record(v, at, ["x", "v", "c", "e", "in", "f"])?;
        let program = program(x, at.col("x"))?;
        let argv = argv(vv, at.col("v"))?;
        let cwd = text(atom(c, at.col("c"))?, at.col("c"))?.to_owned();
        let env = env(e, at.col("e"))?;
        let stdin = stdin(input, at.col("in"))?;
        let bits = flags(atom(f, at.col("f"))?, at.col("f"), 1)?;
        Ok(ExecArgs {
            program,
            argv,
            cwd,
            env,
            stdin,
            clear_env: bits == 1,
        })
    }

    pub(crate) fn to_value(&self) -> Value {
        let env: Vec<String> = self.env.iter().map(EnvChange::to_text).collect();
        let stdin = match &self.stdin {
            Stdin::Null => Atom::Null,
            Stdin::Text(t) => Atom::text(t.as_str()),
            Stdin::Ref(r) => Atom::Ref(*r),
        };
        Value::record(
            &["x", "v", "c", "e", "in", "f"],
            vec![
                emit::text(&self.program),
                emit::texts(&self.argv),
                emit::text(&self.cwd),
                emit::texts(&env),
                Cell::Atom(stdin),
                emit::boolean(self.clear_env),
            ],
        )
    }
}

fn program(c: &Cell, at: Loc) -> Result<String, SchemaError> {
    let x = text_bytes(atom(c, at)?, at, 1, MAX_PATH_BYTES)?;
    if x.contains(['\\', ':']) {
        return Err(at.err(Problem::Rule(
            "the executable must not contain '\\' or ':'; use a bare name or a workspace-relative path",
        )));
    }
    if x.starts_with('/') {
        return Err(at.err(Problem::Rule(
            "the executable must not be absolute; use a bare name or a workspace-relative path",
        )));
    }
    if x.contains('\0') {
        return Err(at.err(Problem::Nul));
    }
    Ok(x.to_owned())
}

fn argv(c: &Cell, at: Loc) -> Result<Vec<String>, SchemaError> {
    let list = items(c, at)?;
    check_count(list.len(), at, 0, MAX_ARGV)?;
    list.iter()
        .enumerate()
        .map(|(i, a)| text_bytes(a, at.item(i), 0, MIB).map(str::to_owned))
        .collect()
}

fn env(c: &Cell, at: Loc) -> Result<Vec<EnvChange>, SchemaError> {
    let list = items(c, at)?;
    check_count(list.len(), at, 0, MAX_ENV)?;
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(list.len());
    for (i, a) in list.iter().enumerate() {
        let at = at.item(i);
        let entry = text(a, at)?;
        check_bytes(entry, at, 1, MAX_ENV_ENTRY)?;
        let change = EnvChange::parse(entry, at)?;
        if !seen.insert(change.name().to_owned()) {
            return Err(at.err(Problem::Detail(format!(
                "variable {:?} appears more than once (a name may be set or removed once)",
                clip(change.name())
            ))));
        }
        out.push(change);
    }
    Ok(out)
}

fn stdin(c: &Cell, at: Loc) -> Result<Stdin, SchemaError> {
    match atom(c, at)? {
        Atom::Null => Ok(Stdin::Null),
        Atom::Text(t) => {
            check_bytes(t, at, 0, MIB)?;
            Ok(Stdin::Text(t.clone()))
        }
        a @ Atom::Ref(_) => reference(a, at).map(Stdin::Ref),
    }
}
