//! The terminal: how wide the report may be, whether it is coloured, and (in [`progress`]) what is shown
//! while suites run. On a terminal: its width, colour and progress. Piped: 100 columns (or `COLUMNS`), no
//! colour, no progress. `NO_COLOR` (set and not empty) turns `--color auto` off.

use std::io::{IsTerminal as _, Write};

use clap::{Args, ValueEnum};

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always, piped too (and over NO_COLOR: the flag is the explicit ask).
    Always,
    /// Never.
    Never,
}

/// `--bmf FILE` and `--github-benchmark FILE`: the run for the dashboards projects already run
/// (docs/exports.md).
#[derive(Debug, Clone, Default, Args)]
pub struct DashboardArgs {
    /// Also write the run in Bencher Metric Format (`bencher run --adapter json --file FILE`); `-` is
    /// stdout (the report then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub bmf: Option<std::path::PathBuf>,

    /// Also write the run as github-action-benchmark's `customSmallerIsBetter` list; `-` is stdout (the
    /// report then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub github_benchmark: Option<std::path::PathBuf>,
}

impl DashboardArgs {
    pub fn exports(&self) -> rho_ops::output::Exports {
        rho_ops::output::Exports {
            bmf: self.bmf.clone(),
            github_benchmark: self.github_benchmark.clone(),
        }
    }
}

/// How the human report is shown: `rho bench` and `rho bench check`.
#[derive(Debug, Clone, Default, Args)]
pub struct OutputArgs {
    /// Every clock's row and every statistic in the report (mean, p95, max, iqr/med, heap live, ops per
    /// iteration), as wide as they make it. By default the report fits the terminal (100 columns when piped,
    /// or $COLUMNS): one row per benchmark with the first clock's median, p99 and spread, stack, heap peak
    /// and rate; `--json` keeps everything either way.
    #[arg(long)]
    pub wide: bool,

    #[command(flatten)]
    pub color: ColorArgs,
}

/// `--color WHEN`, shared with the gate.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ColorArgs {
    /// Colour regressions, broken budgets, leaks and overruns: `auto` on a terminal unless NO_COLOR is set
    /// (never when piped), `always`, or `never`.
    #[arg(long = "color", value_name = "WHEN", default_value = "auto")]
    pub choice: ColorChoice,
}

/// Which stream the human report goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    pub fn is_terminal(self) -> bool {
        match self {
            Stream::Stdout => std::io::stdout().is_terminal(),
            Stream::Stderr => std::io::stderr().is_terminal(),
        }
    }

    fn term(self) -> console::Term {
        match self {
            Stream::Stdout => console::Term::stdout(),
            Stream::Stderr => console::Term::stderr(),
        }
    }
}

/// The columns the report on `stream` may use: `COLUMNS` when it is a number, else the terminal's width,
/// else (piped) [`rho_report::DEFAULT_WIDTH`].
pub fn width(stream: Stream) -> usize {
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|&columns| columns > 0);
    if let Some(columns) = columns {
        return columns;
    }
    if stream.is_terminal()
        && let Some((_, columns)) = stream.term().size_checked()
    {
        return usize::from(columns);
    }
    rho_report::DEFAULT_WIDTH
}

/// Whether the report on `stream` is coloured.
pub fn colour(choice: ColorChoice, stream: Stream) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            !no_color && stream.is_terminal()
        }
    }
}

/// How the report on `stream` is laid out and coloured.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub layout: rho_report::Layout,
    pub colour: bool,
}

impl Style {
    pub fn new(output: &OutputArgs, stream: Stream) -> Style {
        Style {
            layout: rho_report::Layout::new(width(stream), output.wide),
            colour: colour(output.color.choice, stream),
        }
    }

    /// `inner`, with what is written through it escaped (no control character from a stream, a saved run or a
    /// config reaches the terminal) and then painted when colour is on: the painter's own escapes come after
    /// the sanitiser, so they are the only ones that reach `inner`.
    pub fn writer(&self, inner: Box<dyn Write>) -> Box<dyn Write> {
        let painted: Box<dyn Write> = if self.colour {
            Box::new(Painted(inner))
        } else {
            inner
        };
        Box::new(rho_text::Escaped(painted))
    }
}

/// The terminal as the commands' recipes (rho_ops) see it: the report on stdout, or on stderr when `--json -`
/// takes stdout, laid out and coloured for that stream.
impl rho_ops::Terminal for OutputArgs {
    fn report(&self, to_stderr: bool) -> (Box<dyn Write>, rho_report::Layout) {
        let (stream, writer): (_, Box<dyn Write>) = if to_stderr {
            (Stream::Stderr, Box::new(std::io::stderr()))
        } else {
            (Stream::Stdout, Box::new(std::io::stdout().lock()))
        };
        let style = Style::new(self, stream);
        (style.writer(writer), style.layout)
    }

    fn columns(&self, to_stderr: bool) -> usize {
        width(if to_stderr {
            Stream::Stderr
        } else {
            Stream::Stdout
        })
    }
}

/// A writer that paints each text written through it ([`rho_report::paint`]). Every write of the report is a
/// whole piece of text (`write_all` of a table or a line), so no painted word is split between two writes.
struct Painted(Box<dyn Write>);

impl Write for Painted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.0.write_all(rho_report::paint(text).as_bytes())?,
            Err(_) => self.0.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// What is shown on stderr while suites run, on a terminal only (piped, nothing): a spinner with the elapsed
/// time and, in words, the suite (k of n), the run (r of R, with `--repetitions`), the benchmark running (k,
/// of n once a run of the suite has counted them) and an estimate of the time left once a run has been timed.
/// One state for the process: the commands say which suite and how many runs, [`progress::run`] is called by
/// every run of a suite, and the stream reader says which benchmark started.
pub mod progress {
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

    struct State {
        suite: String,
        suite_number: usize,
        suites: usize,
        repetitions: u32,
        /// The runs of this suite started so far.
        run: u32,
        run_started: Instant,
        /// How long the last run of this suite took, and how many benchmarks it ran.
        last_run: Option<Duration>,
        last_count: Option<usize>,
        /// The benchmarks started in this run.
        benchmark: usize,
        bar: Option<ProgressBar>,
    }

    impl State {
        /// Suite `number` of `suites` (`what`), to run `repetitions` times; no run started yet.
        fn new(what: &str, number: usize, suites: usize, repetitions: u32) -> State {
            State {
                suite: what.to_string(),
                suite_number: number,
                suites,
                repetitions,
                run: 0,
                run_started: Instant::now(),
                last_run: None,
                last_count: None,
                benchmark: 0,
                bar: None,
            }
        }
    }

    static STATE: Mutex<Option<State>> = Mutex::new(None);

    fn with<R>(f: impl FnOnce(&mut State) -> R) -> Option<R> {
        let mut guard = STATE
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.as_mut().map(f)
    }

    /// The suite about to run: `what`, the `number`th of `suites`, run `repetitions` times.
    fn suite(what: &str, number: usize, suites: usize, repetitions: u32) {
        let mut guard = STATE
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *guard = Some(State::new(what, number, suites, repetitions));
    }

    /// The engine's progress (rho_suite::observe) shown here: its runs and benchmarks on the progress line,
    /// its lines without tearing it.
    pub struct Observer;

    impl rho_suite::observe::Observer for Observer {
        fn suite_started(&self, what: &str, number: usize, suites: usize, repetitions: u32) {
            suite(what, number, suites, repetitions);
        }

        fn run_started(&self, what: &str) {
            run_started(what);
        }

        fn run_ended(&self) {
            run_ended();
        }

        fn benchmark_started(&self, name: &str) {
            benchmark(name);
        }

        fn line(&self, text: &str) {
            eprintln(text);
        }
    }

    /// A run of the current suite (`what`, when no command said which) has started; its progress is shown
    /// until [`run_ended`].
    fn run_started(what: &str) {
        let mut guard = STATE
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let state = guard.get_or_insert_with(|| State::new(what, 1, 1, 1));
        state.run += 1;
        state.benchmark = 0;
        state.run_started = Instant::now();
        if super::Stream::Stderr.is_terminal() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed:>4} {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            state.bar = Some(bar);
            show(state, None);
        }
    }

    /// A benchmark of the current run started.
    fn benchmark(name: &str) {
        with(|state| {
            state.benchmark += 1;
            show(state, Some(name));
        });
    }

    /// Print `line` on stderr without tearing the progress line.
    pub fn eprintln(line: &str) {
        let printed = with(|state| match &state.bar {
            Some(bar) => {
                bar.suspend(|| eprintln!("{line}"));
                true
            }
            None => false,
        });
        if printed != Some(true) {
            eprintln!("{line}");
        }
    }

    /// The progress line's words for `state`, with `name` running.
    fn show(state: &State, name: Option<&str>) {
        let Some(bar) = &state.bar else { return };
        let mut parts = Vec::new();
        if state.suites > 1 {
            parts.push(format!(
                "suite {} of {}: {}",
                state.suite_number, state.suites, state.suite
            ));
        } else {
            parts.push(state.suite.clone());
        }
        if state.repetitions > 1 {
            parts.push(format!("run {} of {}", state.run, state.repetitions));
        }
        match (name, state.last_count) {
            (Some(name), Some(count)) => {
                parts.push(format!("{name} ({} of {count})", state.benchmark))
            }
            (Some(name), None) => parts.push(format!("{name} (benchmark {})", state.benchmark)),
            (None, _) => parts.push("starting".to_string()),
        }
        if let Some(last) = state.last_run {
            let this_run = last.saturating_sub(state.run_started.elapsed());
            let later = last * state.repetitions.saturating_sub(state.run);
            parts.push(format!("{} left", seconds(this_run + later)));
        }
        // The suite's label is a module.yml string and a file name: escaped like every line on stderr.
        bar.set_message(rho_text::escape_line(&parts.join(" · ")).into_owned());
    }

    fn seconds(duration: Duration) -> String {
        let secs = duration.as_secs_f64();
        if secs < 1.0 {
            "under 1 s".to_string()
        } else if secs < 60.0 {
            format!("about {secs:.0} s")
        } else {
            format!("about {:.0} min", secs / 60.0)
        }
    }

    /// The run in progress is over: its progress line goes, and how long it took is kept for the estimate of
    /// the next runs.
    fn run_ended() {
        with(|state| {
            if let Some(bar) = state.bar.take() {
                bar.finish_and_clear();
            }
            state.last_run = Some(state.run_started.elapsed());
            state.last_count = Some(state.benchmark);
        });
    }

    /// The gate's progress: a spinner with its latest step on a terminal, else one line a step (a log).
    pub struct Gate {
        bar: Option<ProgressBar>,
    }

    impl Gate {
        pub fn new() -> Gate {
            let bar = super::Stream::Stderr.is_terminal().then(|| {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {elapsed:>4} {wide_msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.enable_steady_tick(Duration::from_millis(120));
                bar
            });
            Gate { bar }
        }

        pub fn step(&self, text: &str) {
            match &self.bar {
                Some(bar) => {
                    bar.set_message(rho_text::escape_line(&format!("gate: {text}")).into_owned())
                }
                None => eprintln!("rho: gate: {text}"),
            }
        }
    }

    impl Drop for Gate {
        fn drop(&mut self) {
            if let Some(bar) = self.bar.take() {
                bar.finish_and_clear();
            }
        }
    }
}
