//! The hosted platform: its clocks, settings from the environment, the stack region on a thread of its own and
//! Valgrind's client requests. What the measured loop needs from the platform (the sample buffer, the clocks,
//! the largest batch) is here or in the leaf modules; the runner, which drives the loop, is above them all
//! (`crate::runner::hosted`), so that nothing here imports the loop back.

pub mod clock;
pub mod lockstep;
pub mod settings;
pub mod stack;
pub mod valgrind;

use crate::heap::Uncounted;

/// The sample buffer of a hosted run: `[cycles, time, cpu]`, the clocks it has printed.
pub(crate) type Samples = Uncounted<[u64; 3]>;
pub(crate) use settings::BATCH_MAX;
