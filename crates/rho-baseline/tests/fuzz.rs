//! The baseline reader under a mutation fuzzer (see tests/fuzz/mutate.rs at the repository's root): every
//! input reads or is refused with an error that names the file and a real line and column, and never panics.
//! A fixed budget here; raise it with `RHO_FUZZ_ITERATIONS` (README: "Fuzzing").

mod common;
#[path = "../../../tests/fuzz/mutate.rs"]
mod mutate;

use rho_baseline::{BaselineFile, Error};

#[test]
fn fuzz_the_baseline_reader() {
    let seeds: Vec<Vec<u8>> = [
        common::file(vec![common::section("host", 3, 1000)]),
        common::file(vec![
            common::section("host", 1, 7),
            common::section("mps2-an386", 2, 9000),
        ]),
    ]
    .iter()
    .map(|file| file.to_json().unwrap().into_bytes())
    .collect();
    mutate::fuzz("baseline reader", &seeds, 5_000, |input| {
        let text = String::from_utf8_lossy(input);
        if let Err(error) = BaselineFile::parse(&text, "bench/baseline.json") {
            let message = error.to_string();
            assert!(message.contains("bench/baseline.json"), "{message}");
            if let Error::Json { line, column, .. } = &error {
                let lines = text.lines().count().max(1);
                assert!(*line >= 1 && *line <= lines + 1, "{message}");
                assert!(*column >= 1, "{message}");
            }
        }
    });
}
