//! Lock-step with the other side of a gate's round (`RHO_BENCH_LOCKSTEP`, docs/gate.md "Lock-step rounds"):
//! this test plays the gate's arbiter on a thread of its own, answering every `ready` with a `go` and counting
//! them. One test in its own process: the variable is process-wide. What is asserted holds under any load: a
//! suite that measures for far longer than a turn takes several turns (load only lengthens the samples) and its
//! stream parses; a malformed variable is refused naming it.

#![cfg(unix)]

use std::hint::black_box;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use rho_bench::{Bench, BuildInfo, Entry, Settings, Sink};

fn pipe() -> (std::fs::File, std::fs::File) {
    let mut fds = [-1; 2];
    // SAFETY: pipe(2) writes two descriptors into an array with room for two.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both were just made and are owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    (read.into(), write.into())
}

/// About 0.2 ms of work an iteration.
fn work(b: &mut Bench) {
    b.iter(|| {
        let mut x = black_box(1u64);
        for _ in 0..100_000 {
            x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        x
    });
}

#[test]
fn the_harness_takes_turns_between_samples_and_refuses_a_malformed_turn() {
    // SAFETY (set_var): this test is the only one in its process, and no other thread reads the environment.
    unsafe { std::env::set_var("RHO_BENCH_LOCKSTEP", "5,6") };
    let settings = Settings {
        iterations: 100,
        warmup: 2,
        ..Settings::default()
    };
    let entries = [Entry::new("work", work)];
    let mut sink = Sink::Memory(Vec::new(), false);
    let refused = rho_bench::run(
        &entries,
        &settings,
        BuildInfo { optimized: true },
        &mut sink,
    );
    let message = refused.expect_err("a turn is needed").to_string();
    assert!(message.contains("RHO_BENCH_LOCKSTEP"), "{message}");

    let (mut ready_read, ready_write) = pipe();
    let (go_read, mut go_write) = pipe();
    let value = format!("{},{},1000", ready_write.as_raw_fd(), go_read.as_raw_fd());
    // SAFETY: as above.
    unsafe { std::env::set_var("RHO_BENCH_LOCKSTEP", value) };
    let arbiter = std::thread::spawn(move || {
        let mut turns = 0u32;
        let mut byte = [0u8];
        // Each ready gets its go; the harness's end of the ready pipe closing (below) ends this.
        while ready_read.read_exact(&mut byte).is_ok() {
            turns += 1;
            if go_write.write_all(b"g").is_err() {
                break;
            }
        }
        turns
    });
    let mut sink = Sink::Memory(Vec::new(), false);
    rho_bench::run(
        &entries,
        &settings,
        BuildInfo { optimized: true },
        &mut sink,
    )
    .unwrap();
    drop(ready_write);
    let turns = arbiter.join().unwrap();
    let Sink::Memory(bytes, _) = sink else {
        unreachable!()
    };
    let text = String::from_utf8(bytes).unwrap();
    let run = rho_wire::parse_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(run.benchmarks.iter().any(|b| b.name == "work"), "{text}");
    // 100 iterations of 0.2 ms or more measured, in turns of 1 ms: at least one turn at the start and several
    // between samples (a loaded machine only makes the samples longer, and the turns more).
    assert!(turns >= 5, "{turns} turns");
}
