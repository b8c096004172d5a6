//! `rho bench merge` of the documents of `rho bench gate --shard K/N --json`: one gate document, the
//! unsharded gate's in its metrics and verdict. Each share judged its own benchmarks (a benchmark's share is
//! of its name alone, rho_gate::shard), so the merge takes each share's metrics as they are and decides as
//! the gate does: regressed when any metric regressed, undecided when a share could not run, a metric is
//! undecided or none was judged, ok otherwise.

use rho_gate::Verdict;
use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::error::Error;

/// The shares' gate put back together.
#[derive(Debug)]
pub struct GateMerge {
    /// The merged document, shaped as an unsharded gate's (`shard` null).
    pub document: Value,
    pub verdict: Verdict,
    /// The metrics that regressed, in name order.
    pub regressed: Vec<String>,
    /// The shares that could not run (`2/3: error`).
    pub failed: Vec<String>,
}

impl GateMerge {
    /// The gate's exit status: 0 ok, 1 regressed, 2 undecided.
    pub fn exit_code(&self) -> u8 {
        self.verdict.exit_code()
    }
}

/// Whether `text` is a gate's document (a `verdict`, no `schema`) rather than a run's.
pub fn is_gate_document(text: &str) -> bool {
    serde_json::from_str::<Value>(text)
        .is_ok_and(|v| v.get("verdict").is_some() && v.get("schema").is_none())
}

/// The fields every share of one gate has alike.
const SAME: [&str; 6] = ["count", "partition", "base", "head", "target", "measure"];

/// Reads the shares' gate documents (`(file name, text)`, any order) and merges them; refuses a document
/// that is no gate share, shares of different gates, a share twice and a missing share, naming them.
pub fn merge(files: &[(String, String)]) -> Result<GateMerge, Error> {
    let mut shares: Vec<(&str, Value, Value)> = Vec::new();
    for (file, text) in files {
        let (document, shard) = read(file, text)?;
        judged_again(file, &document, &shard)?;
        if let Some((first, _, first_shard)) = shares.first() {
            for field in SAME {
                if shard[field] != first_shard[field] {
                    return Err(Error::Mismatch {
                        file: file.clone(),
                        first: first.to_string(),
                        what: format!("{field} {} against {}", shard[field], first_shard[field]),
                    });
                }
            }
        }
        shares.push((file, document, shard));
    }
    let Some((_, first, first_shard)) = shares.first() else {
        return Err(crate::merge::no_share_given());
    };
    let count = first_shard["count"].as_u64().unwrap_or(0) as u32;
    let indices: Vec<(u32, &str)> = shares
        .iter()
        .map(|(file, _, shard)| (shard["index"].as_u64().unwrap_or(0) as u32, *file))
        .collect();
    let order = crate::merge::in_order(count, &indices)?;
    let ordered: Vec<&Value> = order.iter().map(|at| &shares[*at].1).collect();
    Ok(combine(first, &ordered))
}

/// Head's lowered time cap of the merged gate: `null` when any share's was not lowered, else the largest
/// share's. Each share derives its cap from its base's first run, which (timed) runs every benchmark, so
/// the shares' caps are the unsharded gate's; should they differ (a base run slower on one job's machine)
/// the largest is kept, the one no share's head was held to less than.
fn head_time_cap(shares: &[&Value]) -> Value {
    let mut largest: Option<&Value> = None;
    for share in shares {
        let cap = &share["head_time_cap"];
        let Some(cap_ms) = cap["cap_ms"].as_u64() else {
            return Value::Null;
        };
        if largest.is_none_or(|l| l["cap_ms"].as_u64().is_some_and(|l| l < cap_ms)) {
            largest = Some(cap);
        }
    }
    largest.cloned().unwrap_or(Value::Null)
}

/// Each side's benchmarks a time cap stopped early, of every share, with the fewest iterations they did
/// (a share names only its own benchmarks, so no two shares name one; the fewest is kept all the same).
fn capped(shares: &[&Value]) -> Value {
    let fewest = |side: &str| {
        let mut fewest: BTreeMap<String, u64> = BTreeMap::new();
        for share in shares {
            let own: BTreeMap<String, u64> =
                serde_json::from_value(share["capped"][side].clone()).unwrap_or_default();
            for (bench, iterations) in own {
                let kept = fewest.entry(bench).or_insert(iterations);
                *kept = (*kept).min(iterations);
            }
        }
        fewest
    };
    serde_json::json!({"base": fewest("base"), "head": fewest("head")})
}

/// A share's document and its `shard` object, checked: a gate document with a share in range.
fn read(file: &str, text: &str) -> Result<(Value, Value), Error> {
    let not_a_share = |why: String| Error::NotAShare {
        file: file.to_string(),
        why,
    };
    let document: Value = serde_json::from_str(text).map_err(|e| {
        not_a_share(format!(
            "line {} column {}: {e} (expected a `rho bench gate --shard K/N --json` document)",
            e.line(),
            e.column()
        ))
    })?;
    if document.get("verdict").is_none() || !document["metrics"].is_object() {
        return Err(not_a_share(
            "no \"verdict\" and \"metrics\": not a gate's --json document".to_string(),
        ));
    }
    let shard = document["shard"].clone();
    if !shard.is_object() {
        return Err(not_a_share(
            "no \"shard\" object: the gate ran without --shard K/N".to_string(),
        ));
    }
    let (index, count) = (shard["index"].as_u64(), shard["count"].as_u64());
    match (index, count) {
        (Some(k), Some(n)) if 1 <= k && k <= n && n <= u64::from(crate::spec::MAX_SHARES) => {
            Ok((document, shard))
        }
        _ => Err(not_a_share(format!(
            "shard {}/{}: expected K/N with 1 <= K <= N",
            shard["index"], shard["count"]
        ))),
    }
}

/// Refuses a share whose figures contradict what it recorded: every metric is judged again from its figures
/// (`rho_gate::compare::judge_figures`, the rule the gate judged it by: the minima, and a time metric's recorded paired rounds) and must have the recorded `regressed`, the share's
/// `verdict` must be its metrics' (undecided with an `error`), each figure must be a figure (finite, at
/// least 0), and each metric must be of a benchmark the share's partition gives it (`partition`
/// [`rho_gate::shard::PARTITION`]; each metric records its `benchmark`: a wire metric's is what precedes its
/// last `.`, a JSON line's the metric itself).
fn judged_again(file: &str, document: &Value, shard: &Value) -> Result<(), Error> {
    let contradicts = |why: String| Error::Contradicts {
        file: file.to_owned(),
        why,
    };
    if shard["partition"] != rho_gate::shard::PARTITION {
        return Err(contradicts(format!(
            "partition {}: this rho cuts shares by \"{}\"",
            shard["partition"],
            rho_gate::shard::PARTITION
        )));
    }
    let (index, count) = (
        shard["index"].as_u64().unwrap_or(0) as u32,
        shard["count"].as_u64().unwrap_or(0) as u32,
    );
    let mut verdicts = Vec::new();
    // The gate's rule for a figure shown, not judged (a wall-clock figure beside its benchmark's CPU time, a
    // CPU time missing from a side beside the wall clock).
    let measured = |m: &Value| !m["base"].is_null() && !m["head"].is_null();
    let with_both = document["metrics"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, m)| measured(m))
        .map(|(name, _)| name.as_str());
    let rule = rho_gate::compare::ShownRule::of(with_both);
    for (name, metric) in document["metrics"].as_object().into_iter().flatten() {
        let Some(benchmark) = metric["benchmark"].as_str() else {
            return Err(contradicts(format!(
                "metric {name}: no benchmark (a share of this rho's gate records it): run every share with this rho"
            )));
        };
        // A wire metric is `BENCH.FIGURE`, a JSON line's its own benchmark: no other benchmark is claimed.
        let named = benchmark == name
            || name
                .strip_prefix(benchmark)
                .is_some_and(|figure| figure.starts_with('.') && !figure[1..].contains('.'));
        if !named {
            return Err(contradicts(format!(
                "metric {name} is not of benchmark {benchmark}"
            )));
        }
        if rho_gate::shard::share_of(benchmark, count) != index {
            return Err(contradicts(format!(
                "metric {name} is of benchmark {benchmark}, in share {}/{count}, not {index}/{count}",
                rho_gate::shard::share_of(benchmark, count)
            )));
        }
        let shown = rule.shown(name, measured(metric));
        if metric.get("shown").is_some_and(|s| *s != json!(shown)) {
            return Err(contradicts(format!(
                "metric {name}: shown {} recorded, {shown} from the share's metrics",
                metric["shown"]
            )));
        }
        // Its figures are checked either way; a shown one's verdict is never a regression.
        let from_figures = judged(name, metric).map_err(contradicts)?;
        let regressed = match shown {
            true => Some(false),
            false => from_figures,
        };
        if metric["regressed"] != json!(regressed) {
            return Err(contradicts(format!(
                "metric {name}: regressed {} recorded, {} from its figures (base {}, head {}, budget {})",
                metric["regressed"],
                json!(regressed),
                metric["base"],
                metric["head"],
                metric["budget"]
            )));
        }
        verdicts.push(match regressed {
            Some(true) => Verdict::Regressed,
            Some(false) => Verdict::Ok,
            None => Verdict::Undecided,
        });
    }
    let verdict = match document.get("error").is_some_and(|e| !e.is_null()) {
        true => Verdict::Undecided,
        false => Verdict::of(verdicts),
    };
    if document["verdict"] != json!(verdict) {
        return Err(contradicts(format!(
            "verdict {} recorded, {} from its metrics",
            document["verdict"],
            json!(verdict)
        )));
    }
    Ok(())
}

/// A metric of a share judged again from its figures: `Some(regressed)` with both sides' figures, `None`
/// (undecided) without one; an error when a figure is not one or what it was judged with is missing.
fn judged(name: &str, metric: &Value) -> Result<Option<bool>, String> {
    let figure = |key: &str| -> Result<Option<f64>, String> {
        match &metric[key] {
            Value::Null => Ok(None),
            value => match value.as_f64() {
                Some(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
                _ => Err(format!(
                    "metric {name}: {key} {value}: expected a finite figure of at least 0"
                )),
            },
        }
    };
    let required = |key: &str| {
        figure(key)?.ok_or_else(|| {
            format!(
                "metric {name}: no {key} (a share of this rho's gate records it): run every share with this rho"
            )
        })
    };
    let (budget, floor) = (required("budget")?, required("floor")?);
    let better: rho_stats::Better =
        serde_json::from_value(metric["better"].clone()).map_err(|_| {
            format!(
                "metric {name}: better {}: expected \"lower\" or \"higher\"",
                metric["better"]
            )
        })?;
    let (Some(base), Some(head)) = (figure("base")?, figure("head")?) else {
        return Ok(None);
    };
    let paired = rho_gate::json::paired_from_json(name, &metric["paired"])?;
    Ok(Some(matches!(
        rho_gate::compare::judge_figures(better, base, head, budget, floor, paired.as_ref()),
        rho_gate::compare::FiguresCall::Regressed
    )))
}

/// The shares' metrics and regressed functions together, and the gate's verdict over them.
fn combine(first: &Value, shares: &[&Value]) -> GateMerge {
    let mut metrics = Map::new();
    let mut functions = Vec::new();
    let mut failed = Vec::new();
    let mut runs = 0;
    for (at, share) in shares.iter().enumerate() {
        if let Some(error) = share.get("error").and_then(Value::as_str) {
            failed.push(format!("{}/{}: {error}", at + 1, shares.len()));
        }
        if let Some(own) = share["metrics"].as_object() {
            metrics.extend(own.clone());
        }
        if let Some(own) = share["functions"].as_array() {
            functions.extend(own.iter().cloned());
        }
        runs = runs.max(share["runs"].as_u64().unwrap_or(0));
    }
    functions.sort_by(|a, b| a["bench"].as_str().cmp(&b["bench"].as_str()));
    let regressed: Vec<String> = metrics
        .iter()
        .filter(|(_, m)| m["regressed"] == Value::Bool(true))
        .map(|(name, _)| name.clone())
        .collect();
    // A share that could not run leaves the gate undecided, as a side failing on one machine does.
    let verdict = if failed.is_empty() {
        Verdict::of(metrics.values().map(|m| match m["regressed"] {
            Value::Bool(true) => Verdict::Regressed,
            Value::Bool(false) => Verdict::Ok,
            _ => Verdict::Undecided,
        }))
    } else {
        Verdict::Undecided
    };
    let mut document = serde_json::json!({
        "verdict": verdict,
        "runs": runs,
        "metrics": metrics,
        "functions": functions,
        "head_time_cap": head_time_cap(shares),
        "capped": capped(shares),
        "settings_file": first["settings_file"],
        "shard": null,
    });
    if !failed.is_empty() {
        document["error"] = Value::String(failed.join("; "));
    }
    GateMerge {
        document,
        verdict,
        regressed,
        failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Share `index` of 2 of one gate, with `metrics`, and the verdict they give.
    fn share(index: u32, head: &str, metrics: Value) -> (String, String) {
        let verdict = Verdict::of(metrics.as_object().unwrap().values().map(
            |m| match m["regressed"] {
                Value::Bool(true) => Verdict::Regressed,
                Value::Bool(false) => Verdict::Ok,
                _ => Verdict::Undecided,
            },
        ));
        let document = serde_json::json!({
            "verdict": verdict, "runs": 1, "metrics": metrics, "functions": [], "settings_file": null,
            "shard": {"index": index, "count": 2, "partition": "gate-name-fnv1a64", "base": "main",
                      "head": head, "target": null, "measure": "instructions"},
        });
        (format!("g{index}.json"), document.to_string())
    }

    /// A benchmark's name that share `index` of 2 holds (`bench_N`, the first such N).
    fn of_share(index: u32) -> String {
        (0..)
            .map(|n| format!("bench_{n}"))
            .find(|name| rho_gate::shard::share_of(name, 2) == index)
            .unwrap()
    }

    /// `BENCH.instructions` of share `index`, as a share's document holds it.
    fn name(index: u32) -> String {
        format!("{}.instructions", of_share(index))
    }

    /// A metric whose figures give `regressed` (`null`: head has none), budget 10%.
    fn metric(regressed: Value) -> Value {
        let head = match regressed {
            Value::Bool(true) => json!(2.0),
            Value::Bool(false) => json!(1.05),
            _ => Value::Null,
        };
        serde_json::json!({"base": 1.0, "head": head, "budget": 0.1, "better": "lower", "floor": 0.0,
                           "regressed": regressed})
    }

    /// `metrics` as one share's object, each metric with its benchmark (what precedes the last `.`).
    fn metrics(pairs: &[(String, Value)]) -> Value {
        let mut object = Map::new();
        for (name, metric) in pairs {
            let mut metric = metric.clone();
            metric["benchmark"] = json!(name.rsplit_once('.').unwrap().0);
            object.insert(name.clone(), metric);
        }
        Value::Object(object)
    }

    #[test]
    fn the_shares_metrics_merge_and_the_verdict_is_the_gates() {
        let one = share(1, "HEAD", metrics(&[(name(1), metric(Value::Bool(true)))]));
        let two = share(2, "HEAD", metrics(&[(name(2), metric(Value::Bool(false)))]));
        let merged = merge(&[two.clone(), one]).unwrap();
        assert_eq!(
            (merged.verdict, merged.exit_code()),
            (Verdict::Regressed, 1)
        );
        assert_eq!(merged.regressed, [name(1)]);
        assert_eq!(merged.document["metrics"].as_object().unwrap().len(), 2);
        assert!(merged.document["shard"].is_null());
        let open = share(1, "HEAD", metrics(&[(name(1), metric(Value::Null))]));
        assert_eq!(merge(&[open, two]).unwrap().exit_code(), 2);
    }

    /// A time metric of several rounds is judged again by the paired rule, as the gate judged it: minima
    /// 15% apart at a 10% budget, with rounds whose interval lies wholly below the bound, passed; the same
    /// share recording it regressed is refused, and so is a paired record that is not one.
    #[test]
    fn a_timed_metric_is_judged_again_by_its_paired_rounds() {
        let timed = format!("{}.ns", of_share(1));
        let paired = json!({"rounds": 8, "ratio": 1.01, "low": 0.99, "high": 1.03, "median": 1.01,
                            "median_low": 0.995, "median_high": 1.02, "confidence": 0.95});
        let with = |regressed: bool, paired: Value| {
            let metric = json!({"base": 100.0, "head": 115.0, "budget": 0.1, "better": "lower",
                                "floor": 1.0, "regressed": regressed, "paired": paired});
            share(1, "HEAD", metrics(&[(timed.clone(), metric)]))
        };
        let two = share(2, "HEAD", metrics(&[]));
        let passed = merge(&[with(false, paired.clone()), two.clone()]).unwrap();
        assert_eq!(passed.exit_code(), 0);
        let forged = merge(&[with(true, paired.clone()), two.clone()])
            .unwrap_err()
            .to_string();
        assert!(
            forged.contains(&format!("metric {timed}: regressed true recorded, false")),
            "{forged}"
        );
        let mut broken = paired;
        broken["low"] = json!(-1.0);
        let refused = merge(&[with(false, broken), two]).unwrap_err().to_string();
        assert!(refused.contains("paired.low -1.0"), "{refused}");
    }

    #[test]
    fn the_merged_head_cap_is_the_largest_shares_and_capped_benchmarks_are_every_shares() {
        let cap = |ms: u64| {
            serde_json::json!({"cap_ms": ms, "factor": 4, "base_longest_ms": ms as f64 / 4.0,
                                                "module_cap_ms": 1000, "floored": false})
        };
        let with = |index: u32, head_cap: Value, capped: Value| {
            let (file, text) = share(index, "HEAD", serde_json::json!({}));
            let mut document: Value = serde_json::from_str(&text).unwrap();
            document["head_time_cap"] = head_cap;
            document["capped"] = capped;
            (file, document.to_string())
        };
        let one = with(
            1,
            cap(160),
            serde_json::json!({"base": {}, "head": {"slow": 412}}),
        );
        let two = with(
            2,
            cap(400),
            serde_json::json!({"base": {"odd": 7}, "head": {}}),
        );
        let merged = merge(&[two.clone(), one]).unwrap().document;
        assert_eq!(merged["head_time_cap"], cap(400));
        assert_eq!(
            merged["capped"],
            serde_json::json!({"base": {"odd": 7}, "head": {"slow": 412}})
        );
        let unlowered = with(1, Value::Null, serde_json::json!({"base": {}, "head": {}}));
        let merged = merge(&[unlowered, two]).unwrap().document;
        assert!(merged["head_time_cap"].is_null());
    }

    #[test]
    fn a_share_twice_another_gates_share_and_an_unsharded_gate_are_refused_naming_them() {
        let one = share(1, "HEAD", serde_json::json!({}));
        let twice = merge(&[one.clone(), one.clone()]).unwrap_err().to_string();
        assert_eq!(twice, "share 1/2 given twice: g1.json and g1.json");
        let other = share(2, "feature", serde_json::json!({}));
        let mismatch = merge(&[one.clone(), other]).unwrap_err().to_string();
        assert!(
            mismatch.starts_with("g2.json is not a share of the same run as g1.json: head"),
            "{mismatch}"
        );
        let unsharded = (
            "whole.json".to_string(),
            r#"{"verdict":"ok","runs":1,"metrics":{}}"#.to_string(),
        );
        let refused = merge(&[unsharded]).unwrap_err().to_string();
        assert!(
            refused.contains("whole.json: not a share: no \"shard\""),
            "{refused}"
        );
        let missing = merge(&[one]).unwrap_err().to_string();
        assert!(missing.starts_with("share 2/2 missing"), "{missing}");
    }

    /// The refusals of a share whose figures contradict what it records, each naming the file.
    #[test]
    fn a_share_contradicting_its_figures_is_refused_naming_it() {
        let two = share(2, "HEAD", metrics(&[(name(2), metric(Value::Bool(false)))]));
        let refused = |metric: Value| {
            let one = share(1, "HEAD", metrics(&[(name(1), metric)]));
            merge(&[one, two.clone()]).unwrap_err().to_string()
        };
        // `regressed: false` beside a head 10x its base.
        let mut passed = metric(Value::Bool(false));
        passed["head"] = json!(10.0);
        let error = refused(passed);
        assert!(
            error.starts_with("g1.json: its figures contradict what it records: metric bench_")
                && error.contains(
                    "regressed false recorded, true from its figures (base 1.0, head 10.0"
                ),
            "{error}"
        );
        // A negative, or huge-but-infinite, figure is no figure.
        for (key, bad) in [
            ("base", json!(-1.0)),
            ("head", json!(-5.0)),
            ("budget", json!(-0.1)),
        ] {
            let mut negative = metric(Value::Bool(false));
            negative[key] = bad;
            let error = refused(negative);
            assert!(
                error.contains(&format!("{key} -"))
                    && error.contains("expected a finite figure of at least 0"),
                "{error}"
            );
        }
        // A rate (higher is better) that halved, recorded as passed.
        let mut rate = metric(Value::Bool(false));
        rate["better"] = json!("higher");
        rate["head"] = json!(0.5);
        assert!(refused(rate).contains("regressed false recorded, true"));
        // Without what it was judged with (an older rho's share).
        let mut old = metric(Value::Bool(false));
        old.as_object_mut().unwrap().remove("floor");
        assert!(refused(old).contains("no floor"));
        // The share's verdict must be its metrics'.
        let (file, text) = share(1, "HEAD", metrics(&[(name(1), metric(Value::Bool(true)))]));
        let mut document: Value = serde_json::from_str(&text).unwrap();
        document["verdict"] = json!("ok");
        let error = merge(&[(file, document.to_string()), two.clone()])
            .unwrap_err()
            .to_string();
        assert!(
            error.ends_with("verdict \"ok\" recorded, \"regressed\" from its metrics"),
            "{error}"
        );
    }

    /// A forged partition: a share holding another share's benchmark, or cut by another rule.
    #[test]
    fn a_forged_partition_is_refused_naming_the_metric_and_its_share() {
        let two = share(2, "HEAD", metrics(&[(name(2), metric(Value::Bool(false)))]));
        // Share 1 claims share 2's benchmark, judged ok, while share 2 leaves it out.
        let forged = share(1, "HEAD", metrics(&[(name(2), metric(Value::Bool(false)))]));
        let empty_two = share(2, "HEAD", metrics(&[(name(2), metric(Value::Bool(false)))]));
        let error = merge(&[forged, empty_two]).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "g1.json: its figures contradict what it records: metric {} is of benchmark {}, in share \
                 2/2, not 1/2",
                name(2),
                of_share(2)
            )
        );
        // Share 1 names its own benchmark as the one share 2's metric is of.
        let (file, text) = share(1, "HEAD", metrics(&[(name(2), metric(Value::Bool(false)))]));
        let mut document: Value = serde_json::from_str(&text).unwrap();
        document["metrics"][name(2)]["benchmark"] = json!(of_share(1));
        let error = merge(&[(file, document.to_string()), two.clone()])
            .unwrap_err()
            .to_string();
        assert!(
            error.ends_with(&format!(
                "metric {} is not of benchmark {}",
                name(2),
                of_share(1)
            )),
            "{error}"
        );
        let (file, text) = share(1, "HEAD", metrics(&[(name(1), metric(Value::Bool(false)))]));
        let mut document: Value = serde_json::from_str(&text).unwrap();
        document["shard"]["partition"] = json!("alphabetical");
        let mut other = serde_json::from_str::<Value>(&two.1).unwrap();
        other["shard"]["partition"] = json!("alphabetical");
        let error = merge(&[(file, document.to_string()), (two.0, other.to_string())])
            .unwrap_err()
            .to_string();
        assert!(error.contains("partition \"alphabetical\""), "{error}");
    }
}
