//! No function of the workspace (tests aside) is over 150 lines, from its `fn` to its closing brace. A failure
//! names each one, its file, line and length; the longest is printed either way.

use std::path::Path;

/// The project's limit on a function's length, in lines.
const MAX_LINES: usize = 150;

#[test]
fn no_function_of_the_workspace_is_over_150_lines() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut lengths = match rho_modgraph::workspace_function_lengths(&workspace) {
        Ok(lengths) => lengths,
        Err(error) => panic!("{error}"),
    };
    // The workspace's crates are all read: rho-wire and rho-cli stand for the rest.
    for expected in ["crates/rho-wire/src/parse.rs", "crates/rho-cli/src/main.rs"] {
        assert!(
            lengths.iter().any(|(file, _)| file == Path::new(expected)),
            "{expected} was not read"
        );
    }
    lengths.sort_by_key(|(_, length)| std::cmp::Reverse(length.lines));
    if let Some((file, longest)) = lengths.first() {
        println!(
            "{} functions; the longest is {} ({}:{}), {} lines",
            lengths.len(),
            longest.name,
            file.display(),
            longest.line,
            longest.lines
        );
    }
    let over: Vec<String> = lengths
        .iter()
        .filter(|(_, length)| length.lines > MAX_LINES)
        .map(|(file, length)| {
            format!(
                "{}:{}: {} is {} lines",
                file.display(),
                length.line,
                length.name,
                length.lines
            )
        })
        .collect();
    assert!(
        over.is_empty(),
        "functions over {MAX_LINES} lines (split them):\n{}",
        over.join("\n")
    );
}
