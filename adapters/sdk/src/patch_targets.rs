//! Which files a Codex `apply_patch` body writes (CLIENTS.md §1.2).
//!
//! Codex sends the patch text as the tool input, for example
//! `"*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"`. Every file
//! operation is a header line of its own; hunk lines always start with `+`, `-`, ` ` or
//! `@@`, so they can never be mistaken for one.

use std::collections::HashSet;

const BEGIN: &str = "*** Begin Patch";

/// Header prefixes whose path the patch writes. `*** Move to:` follows an `*** Update File:`
/// header, so a rename yields both the old and the new path.
const FILE_HEADERS: [&str; 4] = [
    "*** Add File: ",
    "*** Update File: ",
    "*** Delete File: ",
    "*** Move to: ",
];

/// The paths the patch adds, updates, deletes or moves to, in order and without duplicates;
/// `None` when `patch` is not an `apply_patch` body (it must start with `*** Begin Patch`,
/// after optional whitespace).
pub fn apply_patch_targets(patch: &str) -> Option<Vec<String>> {
    let body = patch.trim_start();
    let first_line = body.lines().next()?;
    if first_line.trim_end() != BEGIN {
        return None;
    }
    let mut seen = HashSet::new();
    let targets = body
        .lines()
        .filter_map(|line| {
            FILE_HEADERS
                .iter()
                .find_map(|header| line.strip_prefix(header))
        })
        .map(str::trim)
        .filter(|path| !path.is_empty())
        .filter(|path| seen.insert(*path))
        .map(str::to_owned)
        .collect();
    Some(targets)
}
