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
}
