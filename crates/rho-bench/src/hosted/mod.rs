//! The hosted platform: its clocks, settings from the environment, the stack region on a thread of its own,
//! Valgrind's client requests, and the runner (`run`). What the measured loop needs from the platform (the
//! sample buffer, the clocks, the largest batch) is here or in the leaf modules, apart from the runner, which
//! drives the loop.

pub mod clock;
pub mod run;
pub mod settings;
pub mod stack;
pub mod valgrind;

use crate::heap::Uncounted;

/// The sample buffer of a hosted run: `[cycles, time, cpu]`, the clocks it has printed.
pub(crate) type Samples = Uncounted<[u64; 3]>;
pub(crate) use settings::BATCH_MAX;
