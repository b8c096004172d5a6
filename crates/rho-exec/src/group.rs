//! What is still running in a process group: the check that "nothing outlives a run" after a kill, for the
//! tests of every crate that runs children, and for any diagnostic that wants to name a survivor.

/// The processes of group `pgid` that still run, each as its pid and command name, in pid order.
///
/// A killed process stays a zombie until its parent (init, for an orphan) reaps it; it runs nothing, so it is
/// not listed. On Linux the group's members are read from `/proc`; elsewhere there is no portable list, so a
/// group with any member at all (a zombie included) is reported as one entry for its leader, with no name.
pub fn running_in_group(pgid: libc::pid_t) -> Vec<(libc::pid_t, String)> {
    #[cfg(target_os = "linux")]
    {
        let mut running = Vec::new();
        for_each_stat(|pid, stat| {
            if let Some((command, state, group)) = parse_stat(stat)
                && group == pgid
                && state != "Z"
            {
                running.push((pid, command.to_string()));
            }
        });
        running.sort();
        running
    }
    #[cfg(not(target_os = "linux"))]
    {
        // SAFETY: signal 0 only checks that the group exists and may be signalled; nothing is sent.
        let result = unsafe { libc::kill(-pgid, 0) };
        let exists =
            result == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH);
        if exists {
            vec![(pgid, String::new())]
        } else {
            Vec::new()
        }
    }
}

/// Each process in `/proc` with its `/proc/PID/stat` line. A process that has exited since the directory was
/// read has no stat (it is not running) and is left out; without a readable `/proc` there is none.
#[cfg(target_os = "linux")]
pub(crate) fn for_each_stat(mut visit: impl FnMut(libc::pid_t, &str)) {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        visit(pid, &stat);
    }
}

/// Each child of this process with its `/proc/PID/stat` line: the children each of its threads started or
/// was handed (`/proc/self/task/TID/children`), else, on a kernel without those files, every process in
/// `/proc`. Reading a few children's lines, rather than every process's, is what makes the sweep at the end of
/// every run cheap: on a busy CI machine `/proc` lists hundreds of processes (a tenth of a second of a gate's
/// CPU went to reading them). The kernel builds each list as it is read, so a child started or reparented
/// meanwhile may be missed; the sweeps that follow (one at the end of every run, one at exit) see it.
#[cfg(target_os = "linux")]
pub(crate) fn for_each_child_stat(mut visit: impl FnMut(libc::pid_t, &str)) {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return for_each_stat(visit);
    };
    let mut children = Vec::new();
    for task in tasks.flatten() {
        match std::fs::read_to_string(task.path().join("children")) {
            Ok(list) => children.extend(
                list.split_ascii_whitespace()
                    .filter_map(|pid| pid.parse::<libc::pid_t>().ok()),
            ),
            // A thread that ended since the listing has no file; a kernel without them has none at all.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && task.path().exists() => {
                return for_each_stat(visit);
            }
            Err(_) => {}
        }
    }
    children.sort_unstable();
    children.dedup();
    for pid in children {
        if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            visit(pid, &stat);
        }
    }
}

/// The command name, state and process group of a `/proc/PID/stat` line (`pid (comm) state ppid pgrp ...`).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_stat(stat: &str) -> Option<(&str, &str, libc::pid_t)> {
    parse_stat_fields(stat).map(|(command, state, _, group)| (command, state, group))
}

/// The command name, state, parent and process group of a `/proc/PID/stat` line. The name may hold spaces
/// and parentheses, so the fields are read after its last closing parenthesis.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn parse_stat_fields(stat: &str) -> Option<(&str, &str, libc::pid_t, libc::pid_t)> {
    let open = stat.find('(')?;
    let (head, rest) = stat.rsplit_once(") ")?;
    let command = head.get(open + 1..)?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some((command, state, parent, group))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_name_state_and_group_even_with_spaces_and_parentheses_in_the_name() {
        assert_eq!(
            parse_stat("4242 (sleep) S 1 4240 4240 0 -1 4194560"),
            Some(("sleep", "S", 4240))
        );
        assert_eq!(
            parse_stat("77 (a (b) c) Z 1 70 70 0"),
            Some(("a (b) c", "Z", 70))
        );
        assert_eq!(parse_stat("77 (sleep"), None);
        assert_eq!(parse_stat("77 (sleep) S 1 notanumber"), None);
    }

    /// The children the sweep looks at: one started by another thread is among them, its own child is not.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_children_of_every_thread_are_listed_and_no_grandchild() {
        let mut child = std::thread::spawn(|| {
            std::process::Command::new("sh")
                .args(["-c", "sleep 30 & echo $!; wait"])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .join()
        .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let grandchild: libc::pid_t = line.trim().parse().unwrap();
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        let mut listed = Vec::new();
        for_each_child_stat(|pid, stat| listed.push((pid, stat.to_owned())));
        unsafe {
            libc::kill(grandchild, libc::SIGKILL);
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(listed.iter().any(|(p, _)| *p == pid), "{listed:?}");
        assert!(!listed.iter().any(|(p, _)| *p == grandchild), "{listed:?}");
    }

    #[test]
    fn a_running_group_is_listed_and_a_killed_and_reaped_one_is_not() {
        let _alone = crate::OWN_GROUP_CHILDREN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        use std::os::unix::process::CommandExt as _;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = libc::pid_t::try_from(child.id()).unwrap();
        let running = running_in_group(pgid);
        assert_eq!(running.len(), 1, "{running:?}");
        assert_eq!(running[0].0, pgid);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(running_in_group(pgid), Vec::new());
    }
}
