//! `--shard K/N` and `RHO_SHARD=K/N`: which share of the run this job is.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// The most shares a run is split into: far more than any CI matrix runs at once.
pub const MAX_SHARES: u32 = 1024;

/// Share `index` of `count` (both from 1: `--shard 1/4` is the first of four).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` with 1 <= K <= N <= [`MAX_SHARES`]; the message says what was expected.
    fn from_str(text: &str) -> Result<Shard, String> {
        let expected = || {
            format!(
                "`{text}`: expected K/N, the share K of N shares, with 1 <= K <= N <= {MAX_SHARES} (e.g. 2/4)"
            )
        };
        let (k, n) = text.split_once('/').ok_or_else(expected)?;
        let number = |part: &str| {
            (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
                .then(|| part.parse::<u32>().ok())
                .flatten()
        };
        match (number(k), number(n)) {
            (Some(index), Some(count)) if 1 <= index && index <= count && count <= MAX_SHARES => {
                Ok(Shard { index, count })
            }
            _ => Err(expected()),
        }
    }
}

/// The share asked for: `--shard` when given, else `RHO_SHARD` from the environment (`env`, read by the
/// caller), else none. An empty `RHO_SHARD` is none, as CI systems set variables to "" to unset them.
pub fn resolve(flag: Option<Shard>, env: Option<&str>) -> Result<Option<Shard>, Error> {
    if flag.is_some() {
        return Ok(flag);
    }
    match env.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|message| Error::Environment { message }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_of_n_is_read_and_anything_else_refused_saying_what_was_expected() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("1/1".parse(), Ok(Shard { index: 1, count: 1 }));
        for bad in [
            "0/4", "5/4", "2", "2/", "/4", "a/4", "+1/4", "1/4/2", "1/2000", " 1/4",
        ] {
            let error = bad.parse::<Shard>().unwrap_err();
            assert!(error.contains("expected K/N"), "{bad}: {error}");
        }
    }

    #[test]
    fn the_flag_wins_over_the_environment_and_an_empty_variable_is_none() {
        let flag = Some(Shard { index: 1, count: 2 });
        assert_eq!(resolve(flag, Some("3/4")).unwrap(), flag);
        assert_eq!(
            resolve(None, Some("3/4")).unwrap(),
            Some(Shard { index: 3, count: 4 })
        );
        assert_eq!(resolve(None, Some("")).unwrap(), None);
        assert_eq!(resolve(None, None).unwrap(), None);
        let error = resolve(None, Some("4/3")).unwrap_err().to_string();
        assert!(error.starts_with("RHO_SHARD=`4/3`"), "{error}");
    }
}
