//! Writing the wire stream (docs/wire-format.md, version 9): the records, formatted with `core::fmt` so the
//! same code serves a hosted run and a board. Reading it is rho-wire's job alone.

use core::fmt::{self, Write};

/// The wire format version this harness prints.
pub const WIRE_VERSION: u32 = 9;

/// A byte of a wire name: `[A-Za-z0-9_.:+-]`.
pub const fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'+' | b'-')
}

/// Whether `name` matches one `RHO_BENCH_FILTER` term, as the C harness matches it: the term's name
/// characters anywhere in the name, at its start when the term begins with `^`, at its end when it ends with
/// `$` (both: the whole name).
pub fn term_matches(term: &str, name: &str) -> bool {
    let (start, rest) = match term.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, term),
    };
    let (end, text) = match rest.strip_suffix('$') {
        Some(text) => (true, text),
        None => (false, rest),
    };
    match (start, end) {
        (true, true) => name == text,
        (true, false) => name.starts_with(text),
        (false, true) => name.ends_with(text),
        (false, false) => name.contains(text),
    }
}

/// The longest filter term's name characters: a family member's `NAME/ARG` (63 and an argument). Hosted only:
/// on a board the filter is compiled in.
#[cfg(feature = "std")]
pub const FILTER_TERM_MAX: usize = 85;

/// Whether `term` is one `RHO_BENCH_FILTER` term: 1 to [`FILTER_TERM_MAX`] name characters or `/`, maybe
/// with a leading `^` and a trailing `$`.
#[cfg(feature = "std")]
pub fn is_filter_term(term: &str) -> bool {
    let text = term.strip_prefix('^').unwrap_or(term);
    let text = text.strip_suffix('$').unwrap_or(text);
    (1..=FILTER_TERM_MAX).contains(&text.len())
        && text.bytes().all(|b| is_name_byte(b) || b == b'/')
}

/// 1 to 63 name bytes.
pub fn is_name(text: &str) -> bool {
    !text.is_empty() && text.len() <= 63 && text.bytes().all(is_name_byte)
}

/// A benchmark's printed name: its function's, or a family member's `FAMILY/ARG` (63 + 1 + 20 bytes at
/// most), held without allocating so a board can print it.
#[derive(Debug, Clone, Copy)]
pub struct Name {
    bytes: [u8; 84],
    len: usize,
}

impl Name {
    /// `family`, or `family/arg` for a member (`family` is a checked name: at most 63 bytes).
    pub fn new(family: &str, arg: Option<u64>) -> Name {
        let mut name = Name {
            bytes: [0; 84],
            len: 0,
        };
        let _ = name.write_str(family);
        if let Some(arg) = arg {
            let _ = write!(name, "/{arg}");
        }
        name
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl Write for Name {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let end = self.len + text.len();
        if end > self.bytes.len() {
            return Err(fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `@bench NAME`, with `family=F arg=A` for a family member (version 3 on).
pub fn bench(out: &mut impl Write, name: &Name, family: &str, arg: Option<u64>) -> fmt::Result {
    match arg {
        Some(arg) => writeln!(out, "@bench {} family={family} arg={arg}", name.as_str()),
        None => writeln!(out, "@bench {}", name.as_str()),
    }
}

/// `@rho-bench V` and `@target NAME arch= optimized= compiler=`.
pub fn target(
    out: &mut impl Write,
    target: &str,
    arch: &str,
    optimized: bool,
    compiler: &str,
) -> fmt::Result {
    write!(
        out,
        "@rho-bench {WIRE_VERSION}\n@target {target} arch={arch} optimized={}",
        u8::from(optimized)
    )?;
    if !compiler.is_empty() {
        write!(out, " compiler={compiler}")?;
    }
    out.write_char('\n')
}

/// `@clock ROLE NAME unit= hz= resolution=`.
pub fn clock(
    out: &mut impl Write,
    role: &str,
    name: &str,
    unit: &str,
    hz: u64,
    resolution: u64,
) -> fmt::Result {
    writeln!(
        out,
        "@clock {role} {name} unit={unit} hz={hz} resolution={resolution}"
    )
}

/// `@config iterations= warmup= time_cap_ms= stack_bytes= stack_guard=`.
pub fn config(
    out: &mut impl Write,
    iterations: u64,
    warmup: u64,
    time_cap_ms: u64,
    stack_bytes: u64,
    stack_guard: &str,
) -> fmt::Result {
    writeln!(
        out,
        "@config iterations={iterations} warmup={warmup} time_cap_ms={time_cap_ms} \
         stack_bytes={stack_bytes} stack_guard={stack_guard}"
    )
}

/// One sample line: `:A B`.
pub fn sample(out: &mut impl Write, figures: &[u64]) -> fmt::Result {
    for (i, figure) in figures.iter().enumerate() {
        out.write_char(if i == 0 { ':' } else { ' ' })?;
        write!(out, "{figure}")?;
    }
    out.write_char('\n')
}

/// The stack figure of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    Bytes(u64),
    Overrun,
    Off,
}

/// What closes a block: `@stack`, `@heap`, `@end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEnd<'a> {
    pub name: &'a str,
    pub stack: Stack,
    /// A `CountingAlloc` counted the heap: `false` prints `@heap off` and the figures below are not read.
    pub heap_measured: bool,
    pub heap_peak: u64,
    pub heap_live: u64,
    pub allocs: u64,
    pub frees: u64,
    pub iterations: u64,
    pub warmup: u64,
    pub capped: bool,
    pub unit: &'a str,
    pub per_iteration: u64,
    pub batch: u64,
    /// The CPU time the process's other threads used during the measured loop (`other_cpu_ns=`, version 7),
    /// where the harness reads the thread's CPU time; `None` elsewhere.
    pub other_cpu_ns: Option<u64>,
    /// Measured samples the scheduler interrupted, kept (`preempted=`, version 7) and measured again
    /// (`rerun=`, version 9), where the harness reads the thread's context switches; `None` elsewhere.
    pub preempted: Option<(u64, u64)>,
}

/// `@stack`, `@heap` and `@end` of a block.
pub fn block_end(out: &mut impl Write, end: &BlockEnd<'_>) -> fmt::Result {
    match end.stack {
        Stack::Bytes(n) => writeln!(out, "@stack {n}")?,
        Stack::Overrun => out.write_str("@stack overrun\n")?,
        Stack::Off => out.write_str("@stack off\n")?,
    }
    if end.heap_measured {
        writeln!(
            out,
            "@heap peak={} live={} allocs={} frees={} free_errors=0",
            end.heap_peak, end.heap_live, end.allocs, end.frees
        )?;
    } else {
        out.write_str("@heap off\n")?;
    }
    write!(
        out,
        "@end {} iterations={} warmup={} capped={} unit={} per_iteration={} batch={}",
        end.name,
        end.iterations,
        end.warmup,
        u8::from(end.capped),
        end.unit,
        end.per_iteration,
        end.batch
    )?;
    if let Some(other) = end.other_cpu_ns {
        write!(out, " other_cpu_ns={other}")?;
    }
    if let Some((kept, rerun)) = end.preempted {
        write!(out, " preempted={kept} rerun={rerun}")?;
    }
    out.write_char('\n')
}
