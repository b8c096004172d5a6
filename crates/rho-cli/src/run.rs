//! Running a built suite: its stdout goes line by line into the streaming wire parser while it runs, and
//! whatever goes wrong (a crash, a non-zero exit, a timeout, a malformed or truncated stream) becomes one error
//! naming what happened and where.

use std::io::IsTerminal as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::anyhow;
use rho_exec::{LineControl, Runner, Termination};
use rho_wire::{Event, MAX_LINE_BYTES, Run, StreamParser};

/// What the harness reads from its environment on a hosted target.
#[derive(Debug, Clone, Default)]
pub struct HarnessSettings {
    pub iterations: Option<u64>,
    pub warmup: Option<u64>,
    pub scale: Option<f64>,
}

impl HarnessSettings {
    /// The environment variables that carry these settings.
    pub fn environment(&self) -> Vec<(&'static str, String)> {
        let mut env = Vec::new();
        if let Some(iterations) = self.iterations {
            env.push(("RHO_BENCH_ITERATIONS", iterations.to_string()));
        }
        if let Some(warmup) = self.warmup {
            env.push(("RHO_BENCH_WARMUP", warmup.to_string()));
        }
        if let Some(scale) = self.scale {
            env.push(("RHO_BENCH_SCALE", scale.to_string()));
        }
        env
    }
}

/// How many noise lines are echoed to stderr as they arrive; the rest are only counted.
const NOISE_ECHO_LIMIT: u64 = 20;

/// Where the parser had got to, for "crashed while running bench_x".
fn whereabouts(parser: &StreamParser) -> String {
    if parser.is_done() {
        return String::new();
    }
    if let Some((name, samples)) = parser.in_progress() {
        return format!(" while running {name} (after {samples} iterations)");
    }
    match parser.benchmarks().last() {
        Some(last) => format!(" after {}", last.name),
        None => " before its first benchmark".to_string(),
    }
}

/// Run the built suite `executable` with `settings` in its environment; see [`run_stream`].
pub fn run_suite(
    executable: &Path,
    what: &str,
    settings: &HarnessSettings,
    timeout: Duration,
) -> anyhow::Result<Run> {
    let mut command = Command::new(executable);
    command.envs(settings.environment());
    run_stream(command, what, timeout)
}

/// Run `command` (any program that prints the wire stream: a built suite, a board's flash-and-run command),
/// parsing its stdout as the stream as it arrives, with `timeout` and its process group killed on any failure.
/// `what` names the suite in messages.
pub fn run_stream(command: Command, what: &str, timeout: Duration) -> anyhow::Result<Run> {
    let show_progress = std::io::stderr().is_terminal();

    let mut parser = StreamParser::new();
    let mut parse_error = None;
    let mut noise_echoed = 0u64;
    let finished = Runner::new(command)
        .timeout(timeout)
        // One byte more than the parser accepts, so that it sees an overlong line as one.
        .max_line(MAX_LINE_BYTES + 1)
        .run_bytes(|line| match parser.feed_line(line) {
            Ok(Some(Event::BenchStarted { name })) => {
                if show_progress && !name.starts_with('.') {
                    eprint!("\r\x1b[Krunning {name} ...");
                }
                LineControl::Continue
            }
            Ok(Some(Event::Noise(text))) => {
                if noise_echoed < NOISE_ECHO_LIMIT {
                    noise_echoed += 1;
                    if show_progress {
                        eprint!("\r\x1b[K");
                    }
                    eprintln!("rho: suite output: {}", String::from_utf8_lossy(text));
                }
                LineControl::Continue
            }
            Ok(_) => LineControl::Continue,
            Err(error) => {
                parse_error = Some(error);
                LineControl::Stop
            }
        })
        .map_err(|error| anyhow!("cannot run the benchmark suite {what}: {error}"))?;
    if show_progress {
        eprint!("\r\x1b[K");
    }

    let stderr_tail = || {
        let text = finished.stderr.trim_end();
        if text.is_empty() {
            String::new()
        } else {
            let mark = if finished.stderr_truncated {
                "[...]\n"
            } else {
                ""
            };
            format!("\nits stderr:\n{mark}{text}")
        }
    };

    // How the suite ended comes first: a crash often cuts its last line off, and the crash is the news.
    match finished.termination {
        Termination::Exited(0) | Termination::Stopped => {}
        Termination::TimedOut(after) => {
            return Err(anyhow!(
                "the benchmark suite {what} timed out after {}{}; its process group was killed \
                 (raise --timeout, or lower --iterations/--scale){}",
                format_seconds(after),
                whereabouts(&parser),
                stderr_tail()
            ));
        }
        termination @ (Termination::Exited(_) | Termination::Signaled(_)) => {
            return Err(anyhow!(
                "the benchmark suite {what} {termination}{}{}",
                whereabouts(&parser),
                stderr_tail()
            ));
        }
    }
    if let Some(error) = parse_error {
        return Err(anyhow!(
            "the benchmark suite {what} printed a malformed wire stream, so it was stopped: output {error}{}",
            stderr_tail()
        ));
    }
    let run = parser.finish().map_err(|error| {
        anyhow!(
            "the benchmark suite {what} exited normally but its wire stream is incomplete: output {error}{}",
            stderr_tail()
        )
    })?;
    // The harness's own messages on a successful run (a dropped benchmark, say) are the user's to see.
    let text = finished.stderr.trim_end();
    if !text.is_empty() {
        eprintln!("{text}");
    }
    Ok(run)
}

fn format_seconds(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds.fract() == 0.0 {
        format!("{seconds:.0} s")
    } else {
        format!("{seconds:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whereabouts_follow_the_stream() {
        let mut parser = StreamParser::new();
        assert_eq!(whereabouts(&parser), " before its first benchmark");
        for line in [
            "@rho-bench 1",
            "@target host arch=x86_64 optimized=1",
            "@clock cycles tsc unit=cycle hz=1000 resolution=1",
            "@config iterations=1 warmup=0 time_cap_ms=0 stack_bytes=0",
            "@bench bench_a",
            ":5",
        ] {
            parser.feed_line(line.as_bytes()).unwrap();
        }
        assert_eq!(
            whereabouts(&parser),
            " while running bench_a (after 1 iterations)"
        );
        for line in [
            "@stack off",
            "@heap peak=0 live=0 allocs=0 frees=0 free_errors=0",
        ] {
            parser.feed_line(line.as_bytes()).unwrap();
        }
        parser
            .feed_line(b"@end bench_a iterations=1 warmup=0 capped=0 unit=iter per_iteration=1")
            .unwrap();
        assert_eq!(whereabouts(&parser), " after bench_a");
        parser.feed_line(b"@done benchmarks=1 dropped=0").unwrap();
        assert_eq!(whereabouts(&parser), "");
    }

    #[test]
    fn settings_become_the_harness_environment() {
        let settings = HarnessSettings {
            iterations: Some(2000),
            warmup: None,
            scale: Some(0.5),
        };
        assert_eq!(
            settings.environment(),
            [
                ("RHO_BENCH_ITERATIONS", "2000".to_string()),
                ("RHO_BENCH_SCALE", "0.5".to_string())
            ]
        );
    }
}
