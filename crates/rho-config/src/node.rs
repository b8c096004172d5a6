//! A YAML document as a tree of nodes, each carrying where it was written.
//!
//! The config is validated from this tree rather than by deriving `Deserialize` for the config types: every
//! message can then name the exact line and column, the dotted path of the mapping (`bench.budgets`), and a
//! "did you mean" for an unknown key, none of which serde's own errors carry.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::error::SourcePos;

/// One YAML node as written (after anchors and aliases are resolved).
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(Spanned<Node>, Spanned<Node>)>),
}

impl Node {
    /// How the node is described in "found ..." messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Node::Null => "nothing (an empty value)".to_owned(),
            Node::Bool(b) => format!("`{b}`"),
            Node::Int(i) => format!("`{i}`"),
            Node::Float(f) => format!("`{f:?}`"),
            Node::Str(s) => format!("the text '{}'", clip(s)),
            Node::Seq(_) => "a list".to_owned(),
            Node::Map(_) => "a mapping".to_owned(),
        }
    }
}

/// Keeps a quoted value short enough for a one-line message.
fn clip(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.escape_debug().to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{}...", head.escape_debug())
    }
}

/// Where a node was written: its use site, so an alias (`*a`) points at the alias rather than the anchor.
pub(crate) fn pos_of(node: &Spanned<Node>) -> SourcePos {
    SourcePos {
        line: node.referenced.line(),
        column: node.referenced.column(),
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Int(v))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Node, E> {
        // Beyond i128 no config value is meaningful; keep the magnitude as a float so range checks refuse it.
        Ok(i128::try_from(v).map_or(Node::Float(v as f64), Node::Int))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Node::Map(entries))
    }

    fn visit_bytes<E: de::Error>(self, _v: &[u8]) -> Result<Node, E> {
        Err(E::custom("binary values are not used in module.yml"))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}
