//! "Did you mean" for unknown keys: the closest known key by edit distance.

/// Edit distance between two strings, counted in characters: insertions, deletions, substitutions and swaps
/// of two neighbouring characters each cost one (the "optimal string alignment" form of Damerau-Levenshtein),
/// because a swap (`biuld`) is as common a typo as a wrong letter.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between the first i characters of a and the first j of b.
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The known key closest to `unknown`, if it is close enough to be a plausible typo: at most a third of the
/// candidate's length away (and at least one edit allowed), the first candidate winning a tie.
pub(crate) fn closest<'a>(unknown: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for &candidate in candidates {
        let distance = edit_distance(unknown, candidate);
        let allowed = (candidate.chars().count() / 3).max(1);
        if distance <= allowed && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("max_stak_bytes", "max_stack_bytes"), 1);
        assert_eq!(edit_distance("flaw", "lawn"), 2);
        // A swap of neighbours is one edit.
        assert_eq!(edit_distance("biuld", "build"), 1);
        assert_eq!(edit_distance("bnech", "bench"), 1);
    }

    #[test]
    fn closest_picks_the_typo_target_and_refuses_far_words() {
        let keys = [
            "max_stack_bytes",
            "max_heap_bytes",
            "max_cycles_per_iteration",
        ];
        assert_eq!(closest("max_stak_bytes", &keys), Some("max_stack_bytes"));
        assert_eq!(closest("max_heap_byte", &keys), Some("max_heap_bytes"));
        assert_eq!(closest("colour", &keys), None);
        assert_eq!(closest("biuld", &["name", "build", "run"]), Some("build"));
        // A one-letter key still gets one edit of slack.
        assert_eq!(closest("x", &["y"]), Some("y"));
    }
}
