//! Records the compiler's version for the stream's `@target ... compiler=rustc-X.Y.Z`.

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.split_whitespace().nth(1).map(str::to_string))
        .unwrap_or_default();
    // Only name characters reach the stream ([A-Za-z0-9_.:+-]).
    let version: String = version
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "_.:+-".contains(*c))
        .collect();
    println!("cargo:rustc-env=RHO_BENCH_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");

    // The architecture a Cortex-M build names in `@target arch=`, from the target triple.
    let target = std::env::var("TARGET").unwrap_or_default();
    let arch = [
        ("thumbv6m", "armv6-m"),
        ("thumbv7em", "armv7e-m"),
        ("thumbv7m", "armv7-m"),
        ("thumbv8m.base", "armv8-m.base"),
        ("thumbv8m.main", "armv8-m.main"),
    ]
    .iter()
    .find(|(prefix, _)| target.starts_with(prefix))
    .map_or("arm", |(_, arch)| arch);
    println!("cargo:rustc-env=RHO_BENCH_ARCH={arch}");
    // A board's settings are compiled in (src/bare/mod.rs): a change rebuilds.
    for name in [
        "RHO_BENCH_ITERATIONS",
        "RHO_BENCH_WARMUP",
        "RHO_BENCH_SCALE",
        "RHO_BENCH_TIME_CAP_MS",
        "RHO_BENCH_STACK_BYTES",
        "RHO_BENCH_BATCH",
        "RHO_BENCH_FILTER",
        "RHO_BENCH_TARGET",
        "RHO_BENCH_CPU_HZ",
    ] {
        println!("cargo:rerun-if-env-changed={name}");
    }
}
