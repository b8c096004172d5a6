//! The gate's JSON document, the last line of its stdout for a pipeline (docs/gate.md): data, not a report,
//! so it is written here and read back here (`rho bench merge` judges a share's again); rho-report lays the
//! gate out for a person.

use serde_json::{Map, Value, json};

use crate::compare::{Comparison, MetricOutcome};

/// The JSON document: `{"verdict": .., "runs": N, "metrics": {name: {...}}}`. Infinite changes (from a
/// base of zero) and infinite noise (a side whose best run was 0 and another was not) are `null`, as JSON has
/// no infinity (docs/gate.md says so).
pub fn to_json(comparison: &Comparison, runs: u32) -> Value {
    let mut metrics = Map::new();
    for m in &comparison.metrics {
        let mut entry = Map::new();
        entry.insert("base".into(), json!(m.base.map(|s| s.min)));
        entry.insert("head".into(), json!(m.head.map(|s| s.min)));
        entry.insert("change".into(), finite(m.change()));
        entry.insert("budget".into(), json!(m.budget));
        // What the verdict was judged with besides the figures, so `rho bench merge` judges a share's again.
        entry.insert("better".into(), json!(m.better));
        entry.insert("floor".into(), json!(m.floor));
        let regressed = match m.outcome {
            MetricOutcome::Ok => json!(false),
            MetricOutcome::Regressed => json!(true),
            MetricOutcome::Undecided(_) => Value::Null,
        };
        entry.insert("regressed".into(), regressed);
        entry.insert("noise_base".into(), finite(m.base.map(|s| s.noise())));
        entry.insert("noise_head".into(), finite(m.head.map(|s| s.noise())));
        entry.insert("noisy".into(), json!(m.noisy()));
        entry.insert("runs_base".into(), json!(m.base.map(|s| s.runs)));
        entry.insert("runs_head".into(), json!(m.head.map(|s| s.runs)));
        entry.insert("within_resolution".into(), json!(m.within_resolution));
        // Shown, not judged (compare::ShownRule): a wall-clock figure beside its benchmark's CPU time, or
        // a CPU time missing from a side beside the wall clock judged.
        entry.insert("shown".into(), json!(m.shown));
        entry.insert("paired".into(), paired_to_json(m.paired.as_ref()));
        if let MetricOutcome::Undecided(why) = &m.outcome {
            entry.insert("undecided".into(), json!(why));
        }
        metrics.insert(m.name.clone(), Value::Object(entry));
    }
    json!({
        "verdict": comparison.verdict,
        "runs": runs,
        "metrics": metrics,
    })
}

/// A metric's `paired` object in the gate's JSON (docs/gate.md, "The paired rule"): `null` for none.
pub fn paired_to_json(paired: Option<&rho_stats::PairedRatio>) -> Value {
    let Some(p) = paired else {
        return Value::Null;
    };
    json!({
        "rounds": p.rounds,
        "ratio": p.ratio,
        "low": p.low,
        "high": p.high,
        "median": p.median,
        "median_low": p.median_interval.map(|(low, _)| low),
        "median_high": p.median_interval.map(|(_, high)| high),
        "confidence": rho_stats::PAIRED_CONFIDENCE,
    })
}

/// [`paired_to_json`]'s object read back (`rho bench merge` judges a share again with it): `None` for
/// `null`; an error naming the field, for `metric`, when a ratio is not one above 0 or `rounds` is below 2.
pub fn paired_from_json(
    metric: &str,
    paired: &Value,
) -> Result<Option<rho_stats::PairedRatio>, String> {
    if paired.is_null() {
        return Ok(None);
    }
    let ratio = |key: &str| match paired[key].as_f64() {
        Some(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!(
            "metric {metric}: paired.{key} {}: expected a ratio above 0",
            paired[key]
        )),
    };
    let rounds = paired["rounds"]
        .as_u64()
        .filter(|&rounds| rounds >= 2)
        .ok_or_else(|| {
            format!(
                "metric {metric}: paired.rounds {}: expected a whole number of at least 2",
                paired["rounds"]
            )
        })?;
    let median_interval = match (&paired["median_low"], &paired["median_high"]) {
        (Value::Null, Value::Null) => None,
        _ => Some((ratio("median_low")?, ratio("median_high")?)),
    };
    Ok(Some(rho_stats::PairedRatio {
        rounds: rounds as usize,
        ratio: ratio("ratio")?,
        low: ratio("low")?,
        high: ratio("high")?,
        median: ratio("median")?,
        median_interval,
    }))
}

fn finite(value: Option<f64>) -> Value {
    match value {
        Some(v) if v.is_finite() => json!(v),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::compare;
    use crate::fixture::{run, sample};
    use crate::settings::Budgets;

    /// A base of zero (a clock's, the overhead clamped; a first heap byte) has no finite change: `null`.
    #[test]
    fn a_change_from_zero_is_null() {
        let side = |cycles: f64, heap: f64| {
            let mut run = run(&[
                ("bench_b.cycles", cycles),
                ("bench_b.heap_peak_bytes", heap),
            ]);
            run.set_floor("bench_b.cycles", 2.0);
            [run.clone(), run]
        };
        let comparison = compare(&side(0.0, 0.0), &side(677.0, 64.0), &Budgets::default());
        let doc = to_json(&comparison, 2);
        assert_eq!(doc["metrics"]["bench_b.cycles"]["change"], Value::Null);
        assert_eq!(
            doc["metrics"]["bench_b.heap_peak_bytes"]["change"],
            Value::Null
        );
    }

    #[test]
    fn the_json_names_every_metric_and_the_verdict() {
        let doc = to_json(&sample(), 2);
        assert_eq!(doc["verdict"], "regressed");
        assert_eq!(doc["runs"], 2);
        let matmul = &doc["metrics"]["matmul_ns"];
        assert_eq!(matmul["base"], 8.0);
        assert_eq!(matmul["head"], 16.0);
        assert_eq!(matmul["change"], 1.0);
        assert_eq!(matmul["budget"], 0.3);
        assert_eq!(matmul["regressed"], true);
        assert!((matmul["noise_base"].as_f64().unwrap() - 0.05).abs() < 1e-12);
        // Rounds of 2.0x and 1.96x: the paired interval lies wholly above 1.3.
        let paired = &matmul["paired"];
        assert_eq!(paired["rounds"], 2);
        assert!(paired["low"].as_f64().unwrap() > 1.3);
        assert_eq!(paired["confidence"], 0.95);
        let sum = &doc["metrics"]["sum_ns"];
        // Rounds of 2.0x and 1.01x: the interval holds the bound, and head's best run is base's: ok.
        assert_eq!(sum["regressed"], false);
        assert_eq!(sum["noisy"], true);
        assert!(sum["paired"]["low"].as_f64().unwrap() < 1.3);
        assert!(sum["paired"]["high"].as_f64().unwrap() > 1.3);
        let new = &doc["metrics"]["new_ns"];
        assert_eq!(new["regressed"], Value::Null);
        assert_eq!(new["base"], Value::Null);
        assert_eq!(new["undecided"], "only on head");
        assert_eq!(new["paired"], Value::Null);
        // One line: the document is the last stdout line.
        assert!(!doc.to_string().contains('\n'));
    }
}
