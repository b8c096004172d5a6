//! `rho bench merge` of the documents of `rho bench gate --shard K/N --json`: one gate document, the
//! unsharded gate's in its metrics and verdict. Each share judged its own benchmarks (a benchmark's share is
//! of its name alone, rho_gate::shard), so the merge takes each share's metrics as they are and decides as
//! the gate does: regressed when any metric regressed, undecided when a share could not run, a metric is
//! undecided or none was judged, ok otherwise.

use rho_gate::Verdict;
use std::collections::BTreeMap;

use serde_json::{Map, Value};

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

    /// Share `index` of 2 of one gate, with `metrics`.
    fn share(index: u32, head: &str, metrics: Value) -> (String, String) {
        let document = serde_json::json!({
            "verdict": "ok", "runs": 1, "metrics": metrics, "functions": [], "settings_file": null,
            "shard": {"index": index, "count": 2, "partition": "gate-name-fnv1a64", "base": "main",
                      "head": head, "target": null, "measure": "instructions"},
        });
        (format!("g{index}.json"), document.to_string())
    }

    fn metric(regressed: Value) -> Value {
        serde_json::json!({"base": 1.0, "head": 2.0, "regressed": regressed})
    }

    #[test]
    fn the_shares_metrics_merge_and_the_verdict_is_the_gates() {
        let one = share(
            1,
            "HEAD",
            serde_json::json!({"a.instructions": metric(Value::Bool(true))}),
        );
        let two = share(
            2,
            "HEAD",
            serde_json::json!({"b.instructions": metric(Value::Bool(false))}),
        );
        let merged = merge(&[two.clone(), one]).unwrap();
        assert_eq!(
            (merged.verdict, merged.exit_code()),
            (Verdict::Regressed, 1)
        );
        assert_eq!(merged.regressed, ["a.instructions"]);
        assert_eq!(merged.document["metrics"].as_object().unwrap().len(), 2);
        assert!(merged.document["shard"].is_null());
        let open = share(
            1,
            "HEAD",
            serde_json::json!({"a.instructions": metric(Value::Null)}),
        );
        assert_eq!(merge(&[open, two]).unwrap().exit_code(), 2);
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
}
