//! Names on the pages, shared by the page's opening (`headline`) and its charts (`html`): a suite's label and
//! a gate's metrics grouped by benchmark. Kept apart so the two modules need not import each other.

/// How a suite is named on the page: by its module (the directory its files share) or its one file, never by
/// every file it builds. `bench/a.c bench/b.c bench/c.c` reads `bench/ (3 files)`; files with nothing in
/// common read `main.c and 2 more files`; a command or any other one-part name is kept as it is.
pub fn suite_label(what: &str) -> String {
    let files: Vec<&str> = what.split_whitespace().collect();
    let source = |f: &&str| {
        f.rsplit_once('.')
            .is_some_and(|(_, ext)| ["c", "h", "S", "s", "cc", "cpp", "cxx", "rs"].contains(&ext))
    };
    if files.len() < 2 || !files.iter().all(source) {
        return what.to_string();
    }
    let dir = |f: &str| f.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
    let first = dir(files[0]);
    let mut shared = first.as_str();
    for file in &files[1..] {
        let own = dir(file);
        let within = |shared: &str| own == shared || own.starts_with(&format!("{shared}/"));
        while !shared.is_empty() && !within(shared) {
            shared = shared.rsplit_once('/').map_or("", |(up, _)| up);
        }
    }
    if shared.is_empty() {
        let more = files.len() - 1;
        format!(
            "{} and {more} more file{}",
            files[0],
            if more == 1 { "" } else { "s" }
        )
    } else {
        format!("{shared}/ ({} files)", files.len())
    }
}

/// The benchmark a gate's metric `BENCH.METRIC` belongs to, and the metric.
pub(crate) fn gate_metric_parts(name: &str) -> (&str, &str) {
    name.rsplit_once('.').unwrap_or((name, ""))
}

/// The gate's metrics grouped by benchmark, in the order they first appear.
pub(crate) fn gate_groups(
    comparison: &rho_gate::Comparison,
) -> Vec<(&str, Vec<&rho_gate::MetricComparison>)> {
    let mut groups: Vec<(&str, Vec<&rho_gate::MetricComparison>)> = Vec::new();
    for metric in &comparison.metrics {
        let (group, _) = gate_metric_parts(&metric.name);
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, members)) => members.push(metric),
            None => groups.push((group, vec![metric])),
        }
    }
    groups
}
