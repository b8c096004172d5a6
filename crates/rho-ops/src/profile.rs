//! `--profile NAME` after a run's report: benchmark NAME's table of functions (counted or sampled), or why
//! there is none; shared by a suite of files (crate::files) and module.yml mode (crate::module).

/// `--profile NAME`: its table, or one hint saying why there is none (in time mode, why perf could not
/// sample it); a note for each other benchmark asked to be sampled and not. Module.yml mode calls it per suite.
pub(crate) fn show_table(
    profiled: Option<&str>,
    summary: &rho_stats::RunSummary,
    sampling_notes: &[(String, String)],
    out: &mut dyn std::io::Write,
) -> crate::Result<()> {
    use rho_report::profile::{ProfileError, profile_table};
    for (bench, why) in sampling_notes {
        if Some(bench.as_str()) != profiled {
            crate::say(&format!("rho: note: {bench} not sampled: {why}"));
        }
    }
    let Some(name) = profiled else {
        return Ok(());
    };
    match profile_table(summary, name) {
        Ok(table) => crate::output::show(out, &table),
        Err(hint @ ProfileError::NotCounted { .. }) => {
            let why = sampling_notes
                .iter()
                .find(|(bench, _)| bench == name)
                .map_or(String::new(), |(_, why)| format!(" ({why})"));
            crate::say(&format!("rho: hint: {hint}{why}"))
        }
        Err(error) => return Err(error.into()),
    }
    Ok(())
}
