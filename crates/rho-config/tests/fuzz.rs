//! The module.yml loader under a mutation fuzzer (see tests/fuzz/mutate.rs at the repository's root): every
//! input loads or is refused with an error that names the file, and never panics. A fixed budget here; raise
//! it with `RHO_FUZZ_ITERATIONS` (README: "Fuzzing").

#[path = "../../../tests/fuzz/mutate.rs"]
mod mutate;

use std::path::Path;

#[test]
fn fuzz_the_module_yml_loader() {
    let seeds: Vec<Vec<u8>> = [
        include_str!("../../../examples/project/module.yml"),
        include_str!("../../../tests/kata/module.yml"),
        include_str!("../../../tests/kata/wire/module.yml"),
    ]
    .iter()
    .map(|text| text.as_bytes().to_vec())
    .collect();
    let file = Path::new("module.yml");
    for seed in &seeds {
        rho_config::ModuleConfig::from_str(&String::from_utf8_lossy(seed), file).unwrap();
    }
    mutate::fuzz("module.yml loader", &seeds, 1_000, |input| {
        let text = String::from_utf8_lossy(input);
        if let Err(error) = rho_config::ModuleConfig::from_str(&text, file) {
            let message = error.to_string();
            assert!(message.contains("module.yml"), "{message}");
        }
    });
}
