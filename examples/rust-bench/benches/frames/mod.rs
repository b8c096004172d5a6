//! The deep body of the example suite, also run by rho-bench's own stream test
//! (`crates/rho-bench/tests/stream.rs` includes this file): a recursion of 1 KiB frames.

use core::hint::black_box;

/// `depth` nested calls, each with a frame of at least 1 KiB: at least `depth` KiB of stack.
#[inline(never)]
pub fn recurse(depth: u32) -> u64 {
    let mut frame = [0u8; 1024];
    black_box(&mut frame);
    if depth <= 1 {
        return u64::from(frame[0]);
    }
    recurse(depth - 1) + u64::from(black_box(&frame)[1023])
}
