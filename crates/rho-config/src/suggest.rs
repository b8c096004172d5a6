//! "Did you mean" for unknown keys: the closest known key by edit distance.

/// Levenshtein distance between two strings, counted in characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b_chars: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b_chars.len()).collect();
    let mut current = vec![0; b_chars.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b_chars.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b_chars.len()]
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
        // A one-letter key still gets one edit of slack.
        assert_eq!(closest("x", &["y"]), Some("y"));
    }
}
