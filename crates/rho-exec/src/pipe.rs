//! A pipe whose two ends a child inherits (no close-on-exec), for a protocol over numbered file descriptors:
//! `perf record --control fd:C,A` and the harness it runs talk over two such pipes.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The two ends of a pipe, both inherited by the children started while it lives; dropping it closes them
/// here (a child keeps its own copies).
#[derive(Debug)]
pub struct InheritedPipe {
    pub read: OwnedFd,
    pub write: OwnedFd,
}

impl InheritedPipe {
    pub fn new() -> io::Result<InheritedPipe> {
        let mut fds: [RawFd; 2] = [-1, -1];
        // SAFETY: pipe(2) writes two descriptors into the array it is given, which has room for two. Without
        // O_CLOEXEC (pipe, not pipe2): both ends are inherited.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both descriptors were just made by pipe(2) and are owned by nothing else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(InheritedPipe { read, write })
    }

    /// The read end's number, as a child sees it.
    pub fn read_fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    /// The write end's number, as a child sees it.
    pub fn write_fd(&self) -> RawFd {
        self.write.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_writes_to_the_inherited_end_by_its_number() {
        let pipe = InheritedPipe::new().unwrap();
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf ok >&{}", pipe.write_fd()))
            .status()
            .unwrap();
        assert!(status.success());
        let InheritedPipe { read, write } = pipe;
        drop(write);
        let mut text = String::new();
        io::Read::read_to_string(&mut std::fs::File::from(read), &mut text).unwrap();
        assert_eq!(text, "ok");
    }
}
