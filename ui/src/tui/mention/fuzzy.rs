//! Fuzzy matching of a typed `@query` against the index: the query's characters must appear
//! in order (a subsequence, case-insensitive); matches whose file name alone holds the
//! subsequence come first, then shorter paths, then by path, so the order is deterministic.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::index::IndexedFile;

/// True when `needle`'s characters appear in `hay` in order.
fn subsequence(needle: &str, hay: &str) -> bool {
    let mut hay = hay.chars();
    needle.chars().all(|n| hay.any(|h| h == n))
}

/// A candidate's rank: smaller is better.
#[derive(Debug, PartialEq, Eq)]
struct Rank<'a> {
    outside_name: bool,
    len: usize,
    path: &'a str,
    at: usize,
}

impl Ord for Rank<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.outside_name, self.len, self.path).cmp(&(other.outside_name, other.len, other.path))
    }
}

impl PartialOrd for Rank<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The best `limit` files for `query`, best first (their positions in `files`).
pub fn best(files: &[IndexedFile], query: &str, limit: usize) -> Vec<usize> {
    if limit == 0 {
        return Vec::new();
    }
    let query = query.to_lowercase();
    // A max-heap of the best so far: its top is the worst kept, replaced by anything better.
    let mut kept: BinaryHeap<Rank<'_>> = BinaryHeap::with_capacity(limit + 1);
    for (at, file) in files.iter().enumerate() {
        if !subsequence(&query, &file.lower) {
            continue;
        }
        let rank = Rank {
            outside_name: !subsequence(&query, &file.lower[file.base..]),
            len: file.path.len(),
            path: &file.path,
            at,
        };
        if kept.len() < limit {
            kept.push(rank);
        } else if kept.peek().is_some_and(|worst| rank < *worst) {
            kept.pop();
            kept.push(rank);
        }
    }
    kept.into_sorted_vec().into_iter().map(|r| r.at).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(paths: &[&str]) -> Vec<IndexedFile> {
        paths
            .iter()
            .map(|p| IndexedFile::new((*p).to_owned()))
            .collect()
    }

    fn names<'a>(all: &'a [IndexedFile], query: &str, limit: usize) -> Vec<&'a str> {
        best(all, query, limit)
            .into_iter()
            .map(|i| all[i].path.as_str())
            .collect()
    }

    #[test]
    fn file_name_matches_first_then_shorter_paths() {
        let all = files(&[
            "docs/main-notes.md",
            "src/main.rs",
            "main.rs",
            "src/domain/ai/notes.rs",
            "src/tui/input.rs",
        ]);
        assert_eq!(
            names(&all, "main", 10),
            [
                "main.rs",
                "src/main.rs",
                "docs/main-notes.md",
                "src/domain/ai/notes.rs"
            ]
        );
        assert_eq!(
            names(&all, "MAIN", 2),
            ["main.rs", "src/main.rs"],
            "case-insensitive"
        );
        assert_eq!(
            names(&all, "stin", 10),
            ["src/tui/input.rs"],
            "across directories"
        );
        assert!(names(&all, "zzz", 10).is_empty());
        assert_eq!(
            names(&all, "", 3),
            ["main.rs", "src/main.rs", "src/tui/input.rs"],
            "an empty query lists the shortest paths"
        );
    }

    #[test]
    fn ties_are_broken_by_path() {
        let all = files(&["b/x.rs", "a/x.rs", "c/x.rs"]);
        assert_eq!(names(&all, "x", 2), ["a/x.rs", "b/x.rs"]);
    }
}
