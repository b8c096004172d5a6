//! Another harness's figures besides time (rho-import's extra metrics: Google Benchmark's user counters and
//! rates, Go's `B/op` and `allocs/op`, hyperfine's user and system time) as a baseline keeps them and as
//! `--diff` and `compare` judge them: each by its name, in its own direction (a rate that falls is a
//! regression, rho_judge::judge_change_toward), with the benchmark's regression limit.

use rho_stats::Better;

use crate::verdict::{Value, Verdict};
use rho_baseline::format::ExtraFigure;

/// One extra figure of a benchmark, compared.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtraComparison {
    pub name: String,
    pub unit: String,
    pub better: Better,
    pub base: Value,
    pub head: Value,
    /// `(head - base) / base * 100` (a rate that fell is negative); `None` without two figures or from 0.
    pub change_percent: Option<f64>,
    pub verdict: Verdict,
}

/// Each extra figure either side has (head's order, then the baseline's others), judged with `fraction` the
/// benchmark's regression limit (0.10 = 10%). A figure the baseline had and this run lacks is not measured
/// (a failure, as for any metric); a new one is added.
pub fn compare_extras(
    base: &[ExtraFigure],
    head: &[ExtraFigure],
    fraction: f64,
) -> Vec<ExtraComparison> {
    let find = |list: &[ExtraFigure], name: &str| list.iter().find(|e| e.name == name).cloned();
    let names = head.iter().chain(
        base.iter()
            .filter(|b| !head.iter().any(|h| h.name == b.name)),
    );
    names
        .map(|named| {
            let (base, head) = (find(base, &named.name), find(head, &named.name));
            let value = |side: &Option<ExtraFigure>| {
                side.as_ref()
                    .map_or(Value::Absent, |e| Value::Figure(e.value.0))
            };
            let (base_value, head_value) = (value(&base), value(&head));
            let (change_percent, verdict) = match (base_value, head_value) {
                (Value::Figure(b), Value::Figure(h)) => (
                    rho_judge::relative_change(b, h).map(|f| f * 100.0),
                    Verdict::of_change(rho_judge::judge_change_toward(
                        named.better,
                        b,
                        h,
                        fraction,
                        0.0,
                    )),
                ),
                (Value::Figure(_), _) => (None, Verdict::NotMeasured),
                _ => (None, Verdict::Added),
            };
            ExtraComparison {
                name: named.name.clone(),
                unit: named.unit.clone(),
                better: named.better,
                base: base_value,
                head: head_value,
                change_percent,
                verdict,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_baseline::format::Figure;

    fn figure(name: &str, better: Better, value: f64) -> ExtraFigure {
        ExtraFigure {
            name: name.into(),
            unit: String::new(),
            better,
            value: Figure(value),
        }
    }

    #[test]
    fn each_extra_figure_is_judged_in_its_own_direction() {
        let base = [
            figure("items_per_second", Better::Higher, 2.0e9),
            figure("B/op", Better::Lower, 64.0),
            figure("gone", Better::Lower, 1.0),
        ];
        let head = [
            figure("items_per_second", Better::Higher, 1.0e9),
            figure("B/op", Better::Lower, 32.0),
            figure("new", Better::Lower, 1.0),
        ];
        let rows = compare_extras(&base, &head, 0.10);
        let verdicts: Vec<(&str, Verdict)> =
            rows.iter().map(|r| (r.name.as_str(), r.verdict)).collect();
        assert_eq!(
            verdicts,
            [
                ("items_per_second", Verdict::Regressed),
                ("B/op", Verdict::Improved),
                ("new", Verdict::Added),
                ("gone", Verdict::NotMeasured),
            ]
        );
        assert_eq!(rows[0].change_percent, Some(-50.0));
        // Twice the rate is no regression.
        let rows = compare_extras(&head[..1], &base[..1], 0.10);
        assert_eq!(rows[0].verdict, Verdict::Improved);
    }
}
