//! With the handler installed (Linux: `rho` is a child subreaper), a process that left its run's process group
//! and session (`setsid`) is ended with the run. In a test process of its own: it makes the process a
//! subreaper.

use std::process::Command;
use std::time::{Duration, Instant};

use rho_exec::{Runner, interrupt};

/// Whether process `pid` still runs (a zombie does not).
fn running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_process_that_escaped_with_setsid_is_ended_with_the_run() {
    interrupt::install_handler().unwrap();
    // Sleeps of lengths no other process on the machine uses, to be found afterwards.
    let marker = format!("sleep 7{}", std::process::id());
    for run in [
        // The run ends by itself, its escapee still running in a session of its own.
        format!("setsid {marker}1 </dev/null >/dev/null 2>&1 & echo $!"),
        // The escapee forks again, and its child outlives it.
        format!("setsid sh -c '{marker}2 & {marker}3' </dev/null >/dev/null 2>&1 & echo $!"),
    ] {
        let mut command = Command::new("sh");
        command.arg("-c").arg(&run);
        let (finished, stdout) = Runner::new(command)
            .timeout(Duration::from_secs(60))
            .run_collect()
            .unwrap();
        assert!(finished.termination.success(), "{finished:?}");
        let pid: i32 = stdout.trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(5);
        while running(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!running(pid), "the escaped process {pid} outlived `{run}`");
        // Nothing the escapee started survives either.
        let survivors: Vec<String> = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .map(|raw| String::from_utf8_lossy(&raw).replace('\0', " "))
            .filter(|cmd| cmd.starts_with(&marker))
            .collect();
        assert!(survivors.is_empty(), "{survivors:?}");
    }
}
