//! Running a suite: the settings, the header, `.overhead`, each benchmark and the end of the stream, on a
//! hosted target (`hosted`) or a Cortex-M without `std` (`bare`). A runner drives the measured loop
//! ([`crate::bench`]) over a suite's entries ([`crate::suite`]) with its platform's clocks, settings and
//! stack ([`crate::hosted`], [`crate::bare`]); the platform modules know no runner, so the measuring code
//! and the platform sit below it and nothing imports back up.

#[cfg(all(not(feature = "std"), feature = "cortex-m"))]
pub mod bare;
#[cfg(feature = "std")]
pub mod hosted;
