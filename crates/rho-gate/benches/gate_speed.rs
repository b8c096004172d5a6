//! The gate's wall time, old way against new, side by side in one run, on the project's kata (tests/kata) in
//! wire mode, as CI gates a pull request: base a git revision (the reference kata, committed), head the
//! working directory (the reference, or one of the ten planted slowdowns, uncommitted).
//! The kata's wire module is built one file at a time here (per_file_build), so that ccache can cache its
//! compiles. Run with `cargo bench -p rho-gate --bench gate_speed` (`-- --second` for the second gate alone,
//! `-- --quick` for one repetition and 10 A/A gates;
//! `-- --module` also compares the wire module's own 10 runs a side with adaptive 3 to 10; `-- --timeline`
//! prints only where the time of a few single gates goes, each progress line with its second).
//!
//! It prints, per repetition, the seconds the twelve gates took and their verdicts under
//! - old: `runs: 3`, `max_runs` 3 (every benchmark 3 runs), base then head built, no cache;
//! - uncapped: as new, but head keeps the module's time cap (the new way before head's cap was lowered);
//! - new: `runs: 3`, `max_runs` 10 (adaptive), both built at once, base (and a head gated before) from the
//!   cache, head's unchanged files from the compile cache, head's time cap lowered from base's run
//!   (crate::head_cap);
//! - lean: `runs: 2`, `max_runs` 10, parallel, cached, head's cap lowered;
//!
//! then the first gate against a fresh cache against a second with a new head and a third with the same head
//! (medians of 5 trials, 3 with `--quick`),
//! and N no-change gates (A/A) with adaptive runs beside two busy loops (`nice`, started and stopped here),
//! counting false alarms and the unchanged heads the lowered cap stopped (`-- --aa N` for N of them).

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Instant;

use rho_gate::compare::runs_per_benchmark;
use rho_gate::config::{bench_env_from_config, load_local_config, settings_from_config};
use rho_gate::{GateOutcome, GateRequest, Verdict};

#[path = "../tests/common/mod.rs"]
mod common;
use common::{copy_tree, gate_quiet, gate_timeline, kata_dir, request};

const BENCH_H: &str = include_str!("../../../c/include/rho/bench.h");

type Error = Box<dyn std::error::Error>;

fn git(dir: &Path, args: &[&str]) -> Result<(), Error> {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "rho bench")
        .env("GIT_AUTHOR_EMAIL", "bench@rho.invalid")
        .env("GIT_COMMITTER_NAME", "rho bench")
        .env("GIT_COMMITTER_EMAIL", "bench@rho.invalid")
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("git {args:?} failed").into())
    }
}

/// How a gate is run.
#[derive(Clone, Copy)]
struct Mode {
    name: &'static str,
    runs: u32,
    max_runs: u32,
    jobs: usize,
    cache: bool,
    /// Whether head's time cap is lowered from base's run (adaptive runs only).
    head_cap: bool,
}

const OLD: Mode = Mode {
    name: "old",
    runs: 3,
    max_runs: 3,
    jobs: 1,
    cache: false,
    head_cap: true,
};
const NEW: Mode = Mode {
    name: "new",
    runs: 3,
    max_runs: 10,
    jobs: 2,
    cache: true,
    head_cap: true,
};
/// The wire kata module's own setting: 10 runs a side for every benchmark, the rest as old.
const TEN: Mode = Mode {
    name: "ten",
    runs: 10,
    max_runs: 10,
    jobs: 1,
    cache: false,
    head_cap: true,
};
/// The new way as it was before head's time cap was lowered.
const UNCAPPED: Mode = Mode {
    name: "uncapped",
    head_cap: false,
    ..NEW
};
const LEAN: Mode = Mode {
    name: "lean",
    runs: 2,
    max_runs: 10,
    jobs: 2,
    cache: true,
    head_cap: true,
};

/// The request of one gate of the repository's `main` (the reference) against its working directory, from
/// `wire/`.
fn gate_request(repo: &Path, mode: Mode) -> Result<GateRequest, Error> {
    let cwd = repo.join("wire");
    let config = load_local_config(&cwd)?.ok_or("the kata has no module.yml")?;
    let mut settings = settings_from_config(&config)?;
    settings.set_runs(mode.runs)?;
    settings.set_max_runs(mode.max_runs)?;
    settings.set_build_jobs(mode.jobs)?;
    settings.set_cache(mode.cache);
    settings.set_lower_head_cap(mode.head_cap);
    Ok(GateRequest {
        env: bench_env_from_config(&config),
        bench_header: BENCH_H.to_owned(),
        // The compilers run through ccache, as with `rho bench gate`.
        compiler_cache: Some(PathBuf::from("ccache")),
        ..request(&cwd, "main", ".", settings)
    })
}

/// One gate of the repository's `main` against its working directory: the outcome and its seconds.
fn gate(repo: &Path, mode: Mode) -> Result<(GateOutcome, f64), Error> {
    let request = gate_request(repo, mode)?;
    let start = Instant::now();
    let outcome = gate_quiet(&request)?;
    Ok((outcome, start.elapsed().as_secs_f64()))
}

/// Where one gate's wall time goes: each progress line with the seconds since the start, for head `kernels`.
fn timeline(repo: &Path, mode: Mode, kernels: &Path, label: &str) -> Result<(), Error> {
    std::fs::copy(kernels, repo.join("kernels.c"))?;
    let (outcome, log) = gate_timeline(&gate_request(repo, mode)?);
    std::fs::copy(kata_dir().join("kernels.c"), repo.join("kernels.c"))?;
    let outcome = outcome?;
    println!(
        "timeline of one gate, {label} ({}):",
        outcome.comparison.verdict
    );
    for (seconds, line) in log {
        println!("  {seconds:6.3} s  {line}");
    }
    println!("  {}", runs_line(&outcome));
    Ok(())
}

/// `runs per benchmark (base/head): bench_matmul 3/3, ...` of one gate.
fn runs_line(outcome: &GateOutcome) -> String {
    let counts: Vec<String> = runs_per_benchmark(&outcome.comparison)
        .into_iter()
        .map(|(name, base, head)| format!("{name} {base}/{head}"))
        .collect();
    format!("runs per benchmark (base/head): {}", counts.join(", "))
}

/// The kernels each of the twelve gates puts in head: the ten slowdowns, then the reference twice.
fn heads() -> Result<Vec<(String, PathBuf)>, Error> {
    let mut slowdowns: Vec<PathBuf> = std::fs::read_dir(kata_dir().join("slowdowns"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    slowdowns.sort();
    let mut heads: Vec<(String, PathBuf)> = slowdowns
        .into_iter()
        .map(|p| {
            (
                p.file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                p,
            )
        })
        .collect();
    for name in ["reference (1)", "reference (2)"] {
        heads.push((name.to_owned(), kata_dir().join("kernels.c")));
    }
    Ok(heads)
}

/// The twelve gates under `mode`: seconds, slowdowns failed, no-change gates passed. Every head is new content
/// (a declaration naming the way, the repetition and the gate: a comment would not reach the compiler, and the
/// compile cache would take the file from an earlier gate), as every pull request's is: no head comes from the
/// caches of an earlier gate, only the unchanged base and the files head did not change do.
fn twelve(repo: &Path, mode: Mode, repetition: usize) -> Result<(f64, usize, usize), Error> {
    let (mut seconds, mut caught, mut passed) = (0.0, 0, 0);
    for (index, (name, kernels)) in heads()?.into_iter().enumerate() {
        let code = std::fs::read_to_string(&kernels)?;
        std::fs::write(
            repo.join("kernels.c"),
            format!(
                "{code}\n/* gate_speed: new content for the compiler too */\nextern int gate_speed_{}_{repetition}_{index};\n",
                mode.name
            ),
        )?;
        let (outcome, took) = gate(repo, mode)?;
        seconds += took;
        let verdict = outcome.comparison.verdict;
        if name.starts_with("reference") {
            passed += usize::from(verdict == Verdict::Ok);
        } else {
            caught += usize::from(verdict == Verdict::Regressed);
        }
        let stopped: Vec<String> = rho_gate::head_cap::capped_benchmarks(&outcome.head_runs)
            .into_iter()
            .map(|(bench, n)| format!("{bench} {n}"))
            .collect();
        let cap = match outcome.head_time_cap {
            Some(c) => format!("  head cap {} ms", c.cap_ms),
            None => String::new(),
        };
        let cap = if stopped.is_empty() {
            cap
        } else {
            format!("{cap}, stopped: {}", stopped.join(", "))
        };
        println!("  {:<8} {name:<42} {took:6.2} s  {verdict}{cap}", mode.name);
    }
    std::fs::copy(kata_dir().join("kernels.c"), repo.join("kernels.c"))?;
    Ok((seconds, caught, passed))
}

/// Head the reference kernels with a declaration naming `which`: new content for the compiler, the same code.
fn edit_reference(repo: &Path, which: &str) -> Result<(), Error> {
    let reference = std::fs::read_to_string(kata_dir().join("kernels.c"))?;
    std::fs::write(
        repo.join("kernels.c"),
        format!(
            "{reference}\n/* gate_speed: new content for the compiler too */\nextern int gate_speed_{which}_head;\n"
        ),
    )?;
    Ok(())
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// `trials` times with `jobs` builds at once: the first gate against an empty cache (both sides built, every
/// file compiled), a second with a new head (base from the build cache, head's unchanged files from the
/// compile cache) and a third with that head again (both sides from the build cache); each trial's seconds
/// and the medians (one gate is one sample of a noisy machine). The last second gate's outcome.
fn second_gates(repo: &Path, jobs: usize, trials: usize) -> Result<GateOutcome, Error> {
    let mode = Mode { jobs, ..NEW };
    let (mut firsts, mut news, mut sames) = (Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    for trial in 1..=trials {
        std::fs::remove_dir_all(repo.join(".git/rho-cache")).ok();
        edit_reference(repo, "first")?;
        let (_, first) = gate(repo, mode)?;
        edit_reference(repo, "second")?;
        let (outcome, new_head) = gate(repo, mode)?;
        let (_, same_head) = gate(repo, mode)?;
        println!(
            "  --jobs {jobs} trial {trial}: first {first:.2} s, a new head {new_head:.2} s, the same head \
             {same_head:.2} s"
        );
        firsts.push(first);
        news.push(new_head);
        sames.push(same_head);
        last = Some(outcome);
    }
    let (first, new_head, same_head) = (median(firsts), median(news), median(sames));
    println!(
        "second gate against an unchanged base, --jobs {jobs}, medians of {trials}: first {first:.2} s, second \
         with a new head {new_head:.2} s ({:.0}% faster), again with the same head {same_head:.2} s ({:.0}% \
         faster)",
        (1.0 - new_head / first) * 100.0,
        (1.0 - same_head / first) * 100.0
    );
    last.ok_or_else(|| "no gate ran".into())
}

/// The wire module built one file at a time (`cc -c` each, then the link), the same flags: ccache caches a
/// compile of one source, not the module's one-shot `cc -o bench_rho a.c b.c c.c`, which it hands to the
/// compiler every time (docs/gate.md, "The compile cache: ccache").
fn per_file_build(repo: &Path) -> Result<(), Error> {
    let path = repo.join("wire/module.yml");
    let text = std::fs::read_to_string(&path)?;
    let one_shot = "cc -std=c99 -O2 -falign-functions=64 -I\"$RHO_BENCH_INCLUDE\" -o \"$RHO_BENCH_OUT/bench_rho\"\n        ../bench_rho.c ../rho_impl.c ../kernels.c -lm";
    let per_file = "for f in bench_rho rho_impl kernels; do cc -std=c99 -O2 -falign-functions=64\n        -I\"$RHO_BENCH_INCLUDE\" -c ../$f.c -o \"$RHO_BENCH_OUT/$f.o\" || exit 1; done &&\n        cc -o \"$RHO_BENCH_OUT/bench_rho\" \"$RHO_BENCH_OUT\"/*.o -lm";
    if !text.contains(one_shot) {
        return Err("wire/module.yml's build is not the one this bench rewrites".into());
    }
    std::fs::write(&path, text.replace(one_shot, per_file))?;
    Ok(())
}

/// Two busy loops at the lowest priority: a loaded machine for the A/A gates.
fn load() -> Result<Vec<Child>, Error> {
    (0..2)
        .map(|_| {
            Command::new("nice")
                .args(["-n", "19", "sh", "-c", "while :; do :; done"])
                .spawn()
                .map_err(Error::from)
        })
        .collect()
}

fn main() -> Result<(), Error> {
    // `cargo test --benches` runs this with no `--bench`: do nothing then, it is a measurement, not a test.
    if !std::env::args().any(|a| a == "--bench") {
        return Ok(());
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let (repetitions, mut aa_gates) = if quick { (1, 10) } else { (3, 50) };
    let args: Vec<String> = std::env::args().collect();
    if let Some(n) = args
        .iter()
        .position(|a| a == "--aa")
        .and_then(|i| args.get(i + 1))
    {
        aa_gates = n.parse()?;
    }
    let tmp = tempfile::tempdir()?;
    let repo = tmp.path().join("kata");
    copy_tree(&kata_dir(), &repo)?;
    per_file_build(&repo)?;
    git(&repo, &["init", "--quiet", "--initial-branch=main"])?;
    git(&repo, &["add", "."])?;
    git(&repo, &["commit", "--quiet", "-m", "the reference kata"])?;

    // `--second`: only the second gate against an unchanged base (below).
    if std::env::args().any(|a| a == "--second") {
        let trials = if quick { 3 } else { 5 };
        for jobs in [2, 1] {
            second_gates(&repo, jobs, trials)?;
        }
        return Ok(());
    }
    // Where a gate's time goes: the first gate against a fresh cache, with a capped slowdown (s09) as head,
    // then the same gate again (base cached), then a no-change gate.
    if std::env::args().any(|a| a == "--timeline") {
        let s09 = kata_dir().join("slowdowns/s09_count_below_linear_search.c");
        std::fs::remove_dir_all(repo.join(".git/rho-cache")).ok();
        timeline(&repo, NEW, &s09, "s09 as head, new, empty cache")?;
        timeline(&repo, NEW, &s09, "s09 as head, new, base cached")?;
        timeline(&repo, NEW, &kata_dir().join("kernels.c"), "no change, new")?;
        let s03 = kata_dir().join("slowdowns/s03_matmul_twice.c");
        timeline(
            &repo,
            NEW,
            &s03,
            "s03 (2x, within the allowance) as head, new",
        )?;
        timeline(&repo, OLD, &s09, "s09 as head, old")?;
        return Ok(());
    }
    println!(
        "gate_speed: the kata's 12 gates in wire mode (base main, a revision; head the working directory)"
    );
    let mut totals = Vec::new();
    for repetition in 1..=repetitions {
        for mode in [OLD, UNCAPPED, NEW, LEAN] {
            let (seconds, caught, passed) = twelve(&repo, mode, repetition)?;
            println!(
                "repetition {repetition} {:<8}: {seconds:7.2} s, {caught}/10 slowdowns failed, {passed}/2 no-change passed",
                mode.name
            );
            totals.push((mode.name, seconds));
        }
    }
    let sum = |name: &str| {
        totals
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, s)| s)
            .sum::<f64>()
    };
    println!(
        "over {repetitions} repetitions: old {:.2} s, uncapped {:.2} s ({:.2} of old), new {:.2} s ({:.2} of old, \
         {:.2} of uncapped), lean {:.2} s ({:.2} of old)",
        sum("old"),
        sum("uncapped"),
        sum("uncapped") / sum("old"),
        sum("new"),
        sum("new") / sum("old"),
        sum("new") / sum("uncapped"),
        sum("lean"),
        sum("lean") / sum("old")
    );

    // `--module`: the wire module's own 10 runs a side (what its false-alarm rate was measured at) against
    // adaptive 3 to 10, once each.
    if std::env::args().any(|a| a == "--module") {
        let (ten, caught_ten, passed_ten) = twelve(&repo, TEN, 0)?;
        let (new, caught_new, passed_new) = twelve(&repo, NEW, 0)?;
        println!(
            "the module's 10 runs: {ten:.2} s ({caught_ten}/10, {passed_ten}/2); adaptive 3 to 10: {new:.2} s \
             ({caught_new}/10, {passed_new}/2), {:.2} of it",
            new / ten
        );
    }

    // The first gate against a fresh cache (both sides built), then a second with a new head (base from the
    // cache) and a third with that head again (both from the cache): with both built at once, and with one
    // build at a time (the cache's saving alone). Each head is the reference with a declaration of its own (new
    // content, the same code), so the three gates run the same code and differ only in what is cached.
    let trials = if quick { 3 } else { 5 };
    let mut second_outcome = None;
    for jobs in [2, 1] {
        let outcome = second_gates(&repo, jobs, trials)?;
        second_outcome.get_or_insert(outcome);
    }
    std::fs::copy(kata_dir().join("kernels.c"), repo.join("kernels.c"))?;
    let second_outcome = second_outcome.ok_or("no gate ran")?;
    println!("of that second gate, {}", runs_line(&second_outcome));

    let mut busy = load()?;
    let mut alarms = 0;
    let mut seconds = 0.0;
    let mut most_runs = 0;
    let mut heads_capped = 0;
    let outcome = (|| -> Result<(), Error> {
        for index in 1..=aa_gates {
            let (outcome, took) = gate(&repo, NEW)?;
            seconds += took;
            let most = runs_per_benchmark(&outcome.comparison)
                .into_iter()
                .map(|(_, b, h)| b.max(h))
                .max()
                .unwrap_or(0);
            most_runs = most_runs.max(most);
            let capped = rho_gate::head_cap::capped_benchmarks(&outcome.head_runs);
            if outcome.head_time_cap.is_some() && !capped.is_empty() {
                heads_capped += 1;
                println!("  A/A gate {index}: head stopped by the lowered cap: {capped:?}");
            }
            if outcome.comparison.verdict != Verdict::Ok {
                alarms += 1;
                println!("  A/A gate {index}: {}", outcome.comparison.verdict);
                for m in &outcome.comparison.metrics {
                    println!(
                        "    {}: {:?} -> {:?}, {:?}",
                        m.name,
                        m.base.map(|s| s.min),
                        m.head.map(|s| s.min),
                        m.outcome
                    );
                }
            }
        }
        Ok(())
    })();
    for child in &mut busy {
        let _ = child.kill();
        let _ = child.wait();
    }
    outcome?;
    println!(
        "{aa_gates} A/A gates beside two busy loops (adaptive, runs 3 to 10): {alarms} not ok, {seconds:.1} s, \
         at most {most_runs} runs a side, {heads_capped} heads stopped by the lowered cap"
    );
    Ok(())
}
