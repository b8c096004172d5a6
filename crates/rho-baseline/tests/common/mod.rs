//! Shared by the integration tests: a baseline built from JSON text, the way a user's file is.

#![allow(dead_code)]

use rho_baseline::{BaselineFile, TargetBaseline};

/// A section for `target` with `benchmarks` benchmarks named `bench_0`, `bench_1`, ..., whose median cycles
/// are `base_cycles + i`.
pub fn section(target: &str, benchmarks: usize, base_cycles: u64) -> TargetBaseline {
    let mut text = format!(
        r#"{{
  "context": {{
    "target": "{target}", "arch": "x86_64", "optimized": true, "compiler": "gcc-12.2.0", "flags": "-O2",
    "tool": "rho 0.1.0", "recorded_at": "2026-12-02T13:20:15Z", "iterations": 20000, "warmup": 100,
    "repetitions": 3,
    "clocks": {{
      "cycles": {{ "name": "tsc", "unit": "cycle", "hz": 2899912000, "resolution": 1 }},
      "time": {{ "name": "clock_gettime", "unit": "ns", "hz": 1000000000, "resolution": 1 }}
    }},
    "time_source": "time_clock"
  }},
  "benchmarks": ["#
    );
    for i in 0..benchmarks {
        let cycles = base_cycles + i as u64;
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(
            r#"{{ "name": "bench_{i}", "unit": "byte", "per_iteration": 64, "iterations": 20000,
      "cycles": {{ "median": {cycles}, "p95": {p95}, "p99": {p99} }},
      "time_ns": {{ "median": {ns}, "p95": {ns}, "p99": {ns} }},
      "stack_bytes": 312, "heap_peak_bytes": 0 }}"#,
            p95 = cycles + 10,
            p99 = cycles + 20,
            ns = cycles / 3,
        ));
    }
    text.push_str("]\n}");
    serde_json::from_str(&text).unwrap()
}

/// A file holding `sections`.
pub fn file(sections: Vec<TargetBaseline>) -> BaselineFile {
    let mut file = BaselineFile::new();
    for section in sections {
        file.insert(section.into());
    }
    file
}
