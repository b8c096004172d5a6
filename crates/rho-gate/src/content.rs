//! What a directory side holds, for the build cache: a side named as a directory (`--head .`) inside a git
//! repository is keyed by its content instead of a commit.
//!
//! The content is the tree id git would commit with every change in the working tree (`git add -A` into a
//! temporary index, a copy of the repository's own so that unchanged files are not read again; the user's
//! index is never written), and the names, sizes, modification and change times and inodes of the files git
//! ignores (a build directory, a local configuration the build reads), with the bytes' id of each one as new
//! as the listing (racily clean, as git calls it: an edit in the same clock tick leaves the times as they
//! were). The copy keeps the index's own modification time, which git's racy check compares each entry with
//! (a copy stamped now would make every racily clean entry look older than the index, and trusted). The same content twice is the same build; a build that
//! changes any of it (writes outside `RHO_BENCH_OUT`) is not cached, so a cache hit never skips a build whose
//! products a run would read from the directory.

use std::path::{Path, PathBuf};

use crate::file_ids::FileStamp;

/// A directory's content, as cache key lines, and the top of the repository it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DirectoryContent {
    pub top: PathBuf,
    pub lines: Vec<String>,
}

/// The content of the git repository `dir` is in, read with `index` as the temporary index. `Ok(None)` when
/// `dir` is in no repository (nothing to key it by); `Err` says why git could not tell.
pub(crate) fn content_of(dir: &Path, index: &Path) -> Result<Option<DirectoryContent>, String> {
    let Ok(top) = git(dir, None, &["rev-parse", "--show-toplevel"]) else {
        return Ok(None);
    };
    let top = PathBuf::from(top.trim());
    let own_index = git(
        &top,
        None,
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
    )?;
    let own_index = Path::new(own_index.trim());
    if own_index.is_file() {
        std::fs::copy(own_index, index)
            .map_err(|e| format!("cannot copy {}: {e}", own_index.display()))?;
        let stamped = std::fs::metadata(own_index)
            .and_then(|m| m.modified())
            .and_then(|t| {
                std::fs::File::options()
                    .write(true)
                    .open(index)?
                    .set_modified(t)
            });
        stamped.map_err(|e| format!("cannot stamp {}: {e}", index.display()))?;
    }
    git(&top, Some(index), &["add", "--all", "--", "."])?;
    let tree = git(&top, Some(index), &["write-tree"])?;
    let ignored = git(
        &top,
        None,
        &[
            "ls-files",
            "-z",
            "--others",
            "--ignored",
            "--exclude-standard",
        ],
    )?;
    let listed_at = std::time::SystemTime::now();
    let mut listing = String::new();
    let mut count = 0usize;
    let mut racy = Vec::new();
    for path in ignored
        .split('\0')
        .map(str::trim_end)
        .filter(|p| !p.is_empty())
    {
        let meta = std::fs::symlink_metadata(top.join(path)).ok();
        let stamp = meta.as_ref().map(FileStamp::of);
        if meta.is_some_and(|m| m.is_file()) && stamp.is_some_and(|s| s.as_new_as(listed_at)) {
            racy.push(top.join(path));
        }
        listing.push_str(&format!("{path}\0{}\n", listed(stamp.as_ref())));
        count += 1;
    }
    // The bytes of each file as new as the listing: its times cannot tell a second edit in the same tick.
    let ids = crate::file_ids::FileIds::none().ids(&racy);
    for (path, id) in racy.iter().zip(ids) {
        listing.push_str(&format!("{}\0{}\n", path.display(), id.unwrap_or_default()));
    }
    let lines = vec![
        format!("directory {}", tree.trim()),
        format!(
            "ignored {count} files {}",
            crate::cache::checksum(listing.as_bytes())
        ),
    ];
    Ok(Some(DirectoryContent { top, lines }))
}

/// What the listing of an ignored file holds: its size, modification and change times (nanoseconds; a change
/// time cannot be set back) and inode; zeros for a path that is gone.
fn listed(stamp: Option<&FileStamp>) -> String {
    stamp.map_or_else(
        || ["0"; 4].join("\0"),
        |s| format!("{}\0{}\0{}\0{}", s.size, s.mtime, s.ctime, s.ino),
    )
}

/// `git -C dir args...` (crate::side's), with `index` as `GIT_INDEX_FILE` when given; its stdout, or why not.
fn git(dir: &Path, index: Option<&Path>, args: &[&str]) -> Result<String, String> {
    match index {
        Some(index) => crate::side::git_with_index(dir, index, args),
        None => crate::side::git(dir, args),
    }
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn run(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t.invalid")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn the_content_follows_every_file_and_leaves_the_index_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::write(repo.join(".gitignore"), "build/\n").unwrap();
        std::fs::write(repo.join("a.c"), "int a;\n").unwrap();
        run(&repo, &["init", "--quiet"]);
        run(&repo, &["add", "."]);
        run(&repo, &["commit", "--quiet", "-m", "one"]);
        let index = tmp.path().join("index");
        let content = || content_of(&repo, &index).unwrap().unwrap();
        let first = content();
        assert_eq!(first, content(), "the same files, the same content");
        // An uncommitted change, a new untracked file, a new ignored file: each a new content.
        std::fs::write(repo.join("a.c"), "int a = 1;\n").unwrap();
        let edited = content();
        assert_ne!(first.lines[0], edited.lines[0]);
        std::fs::write(repo.join("b.c"), "int b;\n").unwrap();
        let added = content();
        assert_ne!(edited.lines[0], added.lines[0]);
        std::fs::create_dir_all(repo.join("build")).unwrap();
        std::fs::write(repo.join("build/x.o"), "o").unwrap();
        let built = content();
        assert_eq!(added.lines[0], built.lines[0]);
        assert_ne!(added.lines[1], built.lines[1]);
        // A same-size edit with its modification time put back, of a tracked and of an ignored file.
        let put_back = |path: &Path, text: &str| {
            let modified = std::fs::metadata(path).unwrap().modified().unwrap();
            std::fs::write(path, text).unwrap();
            let file = std::fs::File::options().write(true).open(path).unwrap();
            file.set_modified(modified).unwrap();
        };
        put_back(&repo.join("a.c"), "int a = 2;\n");
        let same_size = content();
        assert_ne!(built.lines[0], same_size.lines[0], "a tracked file");
        put_back(&repo.join("build/x.o"), "p");
        assert_ne!(same_size.lines[1], content().lines[1], "an ignored file");
        // The user's index still has only what was committed: nothing staged.
        let status = Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(["diff", "--cached", "--name-only"])
            .output()
            .unwrap();
        assert!(status.stdout.is_empty());
        assert_eq!(content_of(tmp.path(), &index).unwrap(), None);
    }
}
