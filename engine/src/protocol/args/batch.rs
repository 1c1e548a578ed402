//! Arguments of `b` batch: `a[N]{i,d,o,a}`, a dependency graph of leaf operations.

use crate::ason::{Atom, Cell, Limits, Value, decode_canonical, encode};
use crate::protocol::caps::{Caps, OpKind};
use crate::protocol::emit;
use crate::protocol::op::Op;
use crate::protocol::schema::{
    Loc, Problem, SchemaError, atom, check_count, field_order, items, table, text, uint,
};
use std::collections::HashMap;

/// Most nodes in a batch.
pub const MAX_BATCH_NODES: usize = 256;
/// Most dependency edges in a batch.
pub const MAX_BATCH_EDGES: usize = 4096;
/// Largest embedded argument document.
const MAX_NODE_DOCUMENT: usize = 1 << 20;

/// One node of a batch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BatchNode {
    /// `i`: positive, strictly increasing across the table.
    pub id: u64,
    /// `d`: ids this node waits for, sorted, unique, existing, not itself.
    pub deps: Vec<u64>,
    /// `o` and `a`: the leaf operation (never `b` or `k`).
    pub op: Op,
}

/// `b` batch: `a[N]{i,d,o,a}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BatchArgs {
    /// 1..256 nodes in id order.
    pub nodes: Vec<BatchNode>,
}

impl BatchArgs {
    /// The union of the capabilities every leaf requires.
    pub fn required_caps(&self) -> Caps {
        self.nodes
            .iter()
            .fold(Caps::NONE, |acc, n| acc | n.op.required_caps())
    }

    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("a");
        let rows = table(v, at, ["i", "d", "o", "a"])?;
        check_count(rows.len(), at, 1, MAX_BATCH_NODES)?;
        let mut nodes: Vec<BatchNode> = Vec::with_capacity(rows.len());
        let mut edges = 0usize;
        for (r, [i, d, o, a]) in rows.into_iter().enumerate() {
            let at = at.row(r);
            let id = uint(atom(i, at.col("i"))?, at.col("i"))?;
            if id <= nodes.last().map_or(0, |n| n.id) {
                return Err(at.col("i").err(Problem::Rule(
                    "node ids must be positive and strictly increasing",
                )));
            }
            let deps = items(d, at.col("d"))?
                .iter()
                .enumerate()
                .map(|(k, a)| uint(a, at.col("d").item(k)))
                .collect::<Result<Vec<u64>, _>>()?;
            if deps.windows(2).any(|w| w[0] >= w[1]) {
                return Err(at.col("d").err(Problem::Rule(
                    "dependencies must be sorted ascending without duplicates",
                )));
            }
            if deps.contains(&id) {
                return Err(at
                    .col("d")
                    .err(Problem::Rule("a node cannot depend on itself")));
            }
            edges += deps.len();
            if edges > MAX_BATCH_EDGES {
                return Err(at.col("d").err(Problem::Rule(
                    "the batch has more than 4096 dependency edges",
                )));
            }
            let letter = text(atom(o, at.col("o"))?, at.col("o"))?;
            let kind = OpKind::from_letter(letter)
                .ok_or_else(|| at.col("o").err(Problem::UnknownOp(letter.to_owned())))?;
            if !kind.is_leaf() {
                return Err(at.col("o").err(Problem::Rule(
                    "batch nodes cannot be batch (b) or cancel (k)",
                )));
            }
            let op = node_op(kind, atom(a, at.col("a"))?, at.col("a"))?;
            nodes.push(BatchNode { id, deps, op });
        }
        check_graph(&nodes)?;
        Ok(BatchArgs { nodes })
    }

    pub(crate) fn to_value(&self) -> Value {
        let rows = self
            .nodes
            .iter()
            .map(|n| {
                vec![
                    emit::uint(n.id),
                    Cell::Vector(n.deps.iter().map(|d| Atom::uint(*d)).collect()),
                    emit::text(&n.op.letter().to_string()),
                    emit::text(&encode(&n.op.args_document())),
                ]
            })
            .collect();
        Value::table(&["i", "d", "o", "a"], rows)
    }
}

/// Decodes the embedded canonical one-field document `a…` and types it as `kind`'s args.
fn node_op(kind: OpKind, a: &Atom, at: Loc) -> Result<Op, SchemaError> {
    let Atom::Text(doc_text) = a else {
        return Err(at.err(Problem::Atom {
            expected: "quoted text holding a canonical one-field document a…",
            found: crate::protocol::schema::show(a),
        }));
    };
    let limits = Limits::with_document_bytes(MAX_NODE_DOCUMENT);
    let doc =
        decode_canonical(doc_text.as_bytes(), &limits).map_err(|e| at.err(Problem::Embedded(e)))?;
    let outer = format!("{} (embedded {} arguments)", at.render(), kind.letter());
    field_order(&doc, &["a"]).map_err(|e| e.within(&outer))?;
    let value = &doc.fields[0].value;
    Op::parse_args(kind, value).map_err(|e| e.within(&outer))
}

/// Every dependency names a node, and the graph is acyclic (Kahn's algorithm).
fn check_graph(nodes: &[BatchNode]) -> Result<(), SchemaError> {
    let index: HashMap<u64, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let mut indegree = vec![0usize; nodes.len()];
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for d in &n.deps {
            let Some(&j) = index.get(d) else {
                return Err(Loc::field("a").row(i).col("d").err(Problem::Detail(format!(
                    "dependency {d} does not name a node of this batch"
                ))));
            };
            indegree[i] += 1;
            dependents[j].push(i);
        }
    }
    let mut ready: Vec<usize> = (0..nodes.len()).filter(|&i| indegree[i] == 0).collect();
    let mut done = 0usize;
    while let Some(j) = ready.pop() {
        done += 1;
        for &i in &dependents[j] {
            indegree[i] -= 1;
            if indegree[i] == 0 {
                ready.push(i);
            }
        }
    }
    if done == nodes.len() {
        Ok(())
    } else {
        Err(Loc::field("a").err(Problem::Rule("the dependency graph has a cycle")))
    }
}
