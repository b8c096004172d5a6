//! The interrupt actions, in a test process of their own (they kill every child group the process has).

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use rho_exec::{LineControl, Runner, Termination, interrupt};

#[test]
fn interrupt_actions_kill_running_children_and_run_cleanups_last_first() {
    let (started_tx, started_rx) = mpsc::channel();
    let runner = std::thread::spawn(move || {
        let mut command = Command::new("sh");
        command.arg("-c").arg("echo started; sleep 100 & sleep 100");
        Runner::new(command)
            .timeout(Duration::from_secs(120))
            .run(|_| {
                let _ = started_tx.send(());
                LineControl::Continue
            })
            .unwrap()
    });
    started_rx.recv_timeout(Duration::from_secs(30)).unwrap();

    let order = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = Arc::new(AtomicBool::new(false));
    let first = {
        let order = order.clone();
        interrupt::on_interrupt(move || order.lock().unwrap().push("first"))
    };
    let second = {
        let order = order.clone();
        interrupt::on_interrupt(move || order.lock().unwrap().push("second"))
    };
    let dropped = {
        let kept = kept.clone();
        interrupt::on_interrupt(move || kept.store(true, Ordering::SeqCst))
    };
    drop(dropped);

    interrupt::run_interrupt_actions();
    let finished = runner.join().unwrap();
    assert_eq!(finished.termination, Termination::Signaled(libc::SIGKILL));
    assert_eq!(*order.lock().unwrap(), ["second", "first"]);
    assert!(!kept.load(Ordering::SeqCst), "an unregistered cleanup ran");
    assert!(interrupt::interrupted());
    drop((first, second));
}
