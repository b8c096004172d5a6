//! Duplicate keys in a JSON document rho reads: serde_json keeps the last of two silently, so
//! `{"a_ns": 1, "a_ns": 1000}` would read as 1000 and a regression could hide behind the first. No document
//! rho writes repeats a key, so every reader (the baseline, a saved run, the gate's last-line JSON) refuses
//! one, naming the key, where it is in the document and its line and column. The one check for all of them.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// A key that appears twice in one JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    pub key: String,
    /// Where the object is in the document (`targets.host.benchmarks[2].cycles`; empty at the top).
    pub at: String,
    /// 1-based line and column of the second occurrence's end, as serde_json reports them.
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for DuplicateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.at.is_empty() {
            "the top-level object".to_owned()
        } else {
            self.at.clone()
        };
        write!(
            f,
            "key \"{}\" appears twice in {at} (a JSON reader keeps only the last, and rho never writes a key \
             twice)",
            self.key
        )
    }
}

/// The first key that appears twice in one object of `text`, if any. Text that is not JSON gives `None`: the
/// reader's own parse reports it, with its own message.
pub fn first_duplicate_key(text: &str) -> Option<DuplicateKey> {
    let found = RefCell::new(None);
    let mut path = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let walk = Walk {
        path: &mut path,
        found: &found,
    };
    match walk.deserialize(&mut deserializer) {
        Ok(()) => None,
        Err(error) => found.into_inner().map(|(key, at)| DuplicateKey {
            key,
            at,
            line: error.line().max(1),
            column: error.column().max(1),
        }),
    }
}

/// Walks any JSON value, keeping the path to it, and stops at the first repeated key of an object.
struct Walk<'a> {
    path: &'a mut Vec<String>,
    found: &'a RefCell<Option<(String, String)>>,
}

impl Walk<'_> {
    fn nested(&mut self) -> Walk<'_> {
        Walk {
            path: &mut *self.path,
            found: self.found,
        }
    }

    fn at(&self) -> String {
        let mut at = String::new();
        for part in self.path.iter() {
            if !part.starts_with('[') && !at.is_empty() {
                at.push('.');
            }
            at.push_str(part);
        }
        at
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        for index in 0usize.. {
            self.path.push(format!("[{index}]"));
            let element = seq.next_element_seed(self.nested());
            self.path.pop();
            if element?.is_none() {
                break;
            }
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                let at = self.at();
                *self.found.borrow_mut() = Some((key, at));
                return Err(de::Error::custom("duplicate key"));
            }
            self.path.push(key.clone());
            let value = map.next_value_seed(self.nested());
            self.path.pop();
            value?;
            seen.insert(key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_line_of_the_issue_is_caught_with_its_place() {
        let duplicate = first_duplicate_key(r#"{"a_ns": 1, "a_ns": 1000}"#).unwrap();
        assert_eq!(
            (duplicate.key.as_str(), duplicate.at.as_str()),
            ("a_ns", "")
        );
        assert_eq!(duplicate.line, 1);
        assert!(duplicate.to_string().contains("the top-level object"));

        let text = "{\"targets\": {\"host\": {\"benchmarks\": [{}, {\"cycles\":\n {\"median\": 1, \"median\": -5}}]}}}";
        let duplicate = first_duplicate_key(text).unwrap();
        assert_eq!(duplicate.key, "median");
        assert_eq!(duplicate.at, "targets.host.benchmarks[1].cycles");
        assert_eq!(duplicate.line, 2);
    }

    #[test]
    fn the_same_key_in_different_objects_and_text_that_is_not_json_pass() {
        assert_eq!(
            first_duplicate_key(r#"{"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 2}]}"#),
            None
        );
        assert_eq!(first_duplicate_key("{\"a\": "), None);
        assert_eq!(first_duplicate_key("[1, 2"), None);
        // Keys compare after unescaping: "\u0061" is "a".
        assert!(first_duplicate_key(r#"{"a": 1, "\u0061": 2}"#).is_some());
    }
}
