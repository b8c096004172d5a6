//! The gate's last-line JSON reader under a mutation fuzzer (see tests/fuzz/mutate.rs at the repository's
//! root): every side's stdout is read or refused, never a panic, and what is read holds only figures a run can
//! print: every usable figure a finite number of at least 0, and one metric per key of the line (a key twice
//! is refused, never read as its last value), counted here independently of the reader. A fixed budget here;
//! raise it with `RHO_FUZZ_ITERATIONS` (README: "Fuzzing").

#[path = "../../../tests/fuzz/mutate.rs"]
mod mutate;

use std::cell::Cell;
use std::fmt;

use rho_gate::metrics::metrics_from_json_line;
use rho_gate::{Figure, MetricsError};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

/// How many keys the top-level object of `line` has, repeats included; `None` when it is not one.
fn top_level_keys(line: &str) -> Option<usize> {
    struct Count;
    impl<'de> Visitor<'de> for Count {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
            let mut keys = 0;
            while map.next_entry::<String, IgnoredAny>()?.is_some() {
                keys += 1;
            }
            Ok(keys)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(line);
    let keys = (&mut deserializer).deserialize_map(Count).ok()?;
    deserializer.end().ok()?;
    Some(keys)
}

#[test]
fn fuzz_the_gate_json_line() {
    let seeds: Vec<Vec<u8>> = [
        "{\"matmul_ns\": 1200000, \"sum_ns\": 3000.5}\n",
        "matmul: 1.2 ms\nsum: 3 us\n{\"matmul_ns\": 1200000, \"sum_ns\": 3000.5, \"count\": 0}\n\n",
        "{\"a_ns\": 1, \"b_bytes\": 18446744073709551615, \"c\": 1e-9}",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let accepted = Cell::new(0u64);
    mutate::fuzz("gate JSON line", &seeds, 5_000, |input| {
        let stdout = String::from_utf8_lossy(input);
        match metrics_from_json_line(&stdout) {
            Ok(metrics) => {
                accepted.set(accepted.get() + 1);
                let line = stdout
                    .lines()
                    .map(str::trim)
                    .rfind(|l| !l.is_empty())
                    .unwrap_or_default();
                assert_eq!(
                    top_level_keys(line),
                    Some(metrics.len()),
                    "every key once: {line}"
                );
                for (name, figure) in metrics.iter() {
                    if let Figure::Value(value) = figure {
                        assert!(value.is_finite() && *value >= 0.0, "{name}: {value}");
                    }
                }
            }
            Err(error) => {
                assert!(!error.to_string().is_empty());
                assert!(matches!(
                    error,
                    MetricsError::Empty
                        | MetricsError::NotJson { .. }
                        | MetricsError::NoMetricsInJson
                ));
            }
        }
    });
    println!(
        "gate JSON line: {} inputs, {} accepted, each a line a run could print",
        mutate::iterations(5_000),
        accepted.get()
    );
}
