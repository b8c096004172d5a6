//! What the engine tells whoever runs it while it works: which suite and run, which benchmark started, and
//! the lines a suite or a build printed that are the user's to see. The engine knows no terminal: the binary
//! installs an [`Observer`] that draws its progress line and prints the lines; without one they go to stderr,
//! escaped.

use std::sync::OnceLock;

/// Receives the engine's progress. Every method has a default, so an observer implements what it shows.
pub trait Observer: Send + Sync {
    /// The suite about to run: `what`, the `number`th of `suites`, to be run `repetitions` times (its runs
    /// follow). A command's recipe says this; the engine itself only knows one run at a time.
    fn suite_started(&self, what: &str, number: usize, suites: usize, repetitions: u32) {
        let _ = (what, number, suites, repetitions);
    }
    /// A run of a suite (`what`) started.
    fn run_started(&self, what: &str) {
        let _ = what;
    }
    /// The run started last is over (it ended, or failed).
    fn run_ended(&self) {}
    /// A benchmark of the current run started.
    fn benchmark_started(&self, name: &str) {
        let _ = name;
    }
    /// A line for the user (a warning, a suite's noise or stderr, a build's warnings), without its newline;
    /// it may quote what a program printed, so it is to be escaped before it reaches a terminal.
    fn line(&self, text: &str) {
        eprintln!("{}", rho_text::escape_text(text));
    }
}

/// The observer used until one is installed: lines to stderr, no progress.
struct Stderr;

impl Observer for Stderr {}

static OBSERVER: OnceLock<Box<dyn Observer>> = OnceLock::new();

/// Install the process's observer; `false` when one was installed already (the first stays).
pub fn install(observer: Box<dyn Observer>) -> bool {
    OBSERVER.set(observer).is_ok()
}

/// The installed observer, or the stderr one.
pub(crate) fn observer() -> &'static dyn Observer {
    match OBSERVER.get() {
        Some(observer) => observer.as_ref(),
        None => &Stderr,
    }
}

/// A line for the user (`text`, without its newline) through the installed observer: for the commands'
/// recipes, which print their warnings and notes where the engine prints its own.
pub fn say(text: &str) {
    observer().line(text);
}

/// The suite about to run, told to the installed observer ([`Observer::suite_started`]).
pub fn suite_started(what: &str, number: usize, suites: usize, repetitions: u32) {
    observer().suite_started(what, number, suites, repetitions);
}

/// A warning line (`rho: warning: TEXT`).
pub(crate) fn warning(text: &str) {
    observer().line(&format!("rho: warning: {text}"));
}

/// A note (`rho: note: TEXT`): something the run did without, that is not wrong.
pub(crate) fn note(text: &str) {
    observer().line(&format!("rho: note: {text}"));
}

/// A run in progress, for the observer: ended when dropped.
pub(crate) struct RunGuard;

impl RunGuard {
    pub(crate) fn start(what: &str) -> RunGuard {
        observer().run_started(what);
        RunGuard
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        observer().run_ended();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// What the engine told it, in order.
    struct Recorder(Mutex<Vec<String>>);

    impl Observer for Recorder {
        fn run_started(&self, what: &str) {
            self.record(format!("run {what}"));
        }
        fn run_ended(&self) {
            self.record("ended".to_string());
        }
        fn benchmark_started(&self, name: &str) {
            self.record(format!("bench {name}"));
        }
        fn line(&self, text: &str) {
            self.record(format!("line {text}"));
        }
    }

    impl Recorder {
        fn record(&self, event: String) {
            if let Ok(mut events) = self.0.lock() {
                events.push(event);
            }
        }
    }

    static RECORDER: Recorder = Recorder(Mutex::new(Vec::new()));

    struct Forward;

    impl Observer for Forward {
        fn run_started(&self, what: &str) {
            RECORDER.run_started(what);
        }
        fn run_ended(&self) {
            RECORDER.run_ended();
        }
        fn benchmark_started(&self, name: &str) {
            RECORDER.benchmark_started(name);
        }
        fn line(&self, text: &str) {
            RECORDER.line(text);
        }
    }

    #[test]
    fn the_engine_reports_to_the_installed_observer_and_a_run_ends_when_its_guard_goes() {
        assert!(install(Box::new(Forward)));
        assert!(!install(Box::new(Forward)), "the first observer stays");
        {
            let _run = RunGuard::start("suite.c");
            observer().benchmark_started("bench_a");
            warning("a figure to doubt");
        }
        let events = RECORDER.0.lock().unwrap().clone();
        // Other tests of this binary may report too: this one's events are there, in this order.
        let mine: Vec<&String> = events
            .iter()
            .filter(|e| {
                [
                    "run suite.c",
                    "bench bench_a",
                    "line rho: warning: a figure to doubt",
                    "ended",
                ]
                .contains(&e.as_str())
            })
            .collect();
        assert_eq!(
            mine,
            [
                "run suite.c",
                "bench bench_a",
                "line rho: warning: a figure to doubt",
                "ended"
            ]
        );
    }
}
