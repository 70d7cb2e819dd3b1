//! Which files a Codex `apply_patch` body writes, read by the grammar Codex's own parser
//! accepts, no more leniently and no less.
//!
//! Codex sends the patch text as the tool input, for example
//! `"*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"`. What its parser
//! accepts, and so what this reader must:
//! - The text is trimmed; its first line, trimmed, is `*** Begin Patch` and its last,
//!   trimmed, `*** End Patch`. A body wrapped in a heredoc (`<<EOF`, `<<'EOF'`, `<<"EOF"`
//!   on the first line, a last line ending in `EOF`, at least four lines) is unwrapped.
//! - Each hunk starts with a header line, read trimmed (so leading whitespace is allowed):
//!   `*** Add File: P` (followed by `+` lines), `*** Delete File: P`, or
//!   `*** Update File: P`, optionally followed directly by `*** Move to: Q` (read as is:
//!   no leading whitespace there) and then one or more chunks of `@@`, ` `, `+`, `-` lines,
//!   with an optional `*** End of File`.
//! - Anything else is an error and Codex applies nothing; this reader refuses it, so a
//!   patch that would fail is never mistaken for one that writes nothing.
//!
//! Every path an applied patch may change is a target: added, deleted and updated files,
//! and both sides of a move.

use std::collections::HashSet;

use crate::Unreadable;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE_TO: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";
const HEREDOC_OPENERS: [&str; 3] = ["<<EOF", "<<'EOF'", "<<\"EOF\""];

/// The paths the patch adds, updates, deletes or moves to, in order and without duplicates;
/// `None` when Codex could not parse `patch` (see [`read_apply_patch`] for why).
pub fn apply_patch_targets(patch: &str) -> Option<Vec<String>> {
    read_apply_patch(patch).ok()
}

/// Like [`apply_patch_targets`], with the reason a patch cannot be read.
pub fn read_apply_patch(patch: &str) -> Result<Vec<String>, Unreadable> {
    let lines: Vec<&str> = patch.trim().lines().collect();
    let body = boundaries(&lines).or_else(|why| match lines.as_slice() {
        [first, .., last]
            if lines.len() >= 4 && HEREDOC_OPENERS.contains(first) && last.ends_with("EOF") =>
        {
            boundaries(&lines[1..lines.len() - 1])
        }
        _ => Err(why),
    })?;
    let mut paths = Vec::new();
    let mut seen = HashSet::new();
    let mut add = |path: &str| {
        if seen.insert(path.to_owned()) {
            paths.push(path.to_owned());
        }
    };
    let mut rest = body;
    while let Some(first) = rest.first() {
        let header = first.trim();
        if let Some(path) = header.strip_prefix(ADD) {
            add(path);
            let added = rest[1..].iter().take_while(|l| l.starts_with('+')).count();
            rest = &rest[1 + added..];
        } else if let Some(path) = header.strip_prefix(DELETE) {
            add(path);
            rest = &rest[1..];
        } else if let Some(path) = header.strip_prefix(UPDATE) {
            add(path);
            rest = &rest[1..];
            if let Some(to) = rest.first().and_then(|l| l.strip_prefix(MOVE_TO)) {
                add(to);
                rest = &rest[1..];
            }
            rest = chunks(rest)?;
        } else {
            return Err(Unreadable::Patch {
                why: "a line where a hunk header belongs is not one",
            });
        }
    }
    Ok(paths)
}

fn boundaries<'a>(lines: &'a [&'a str]) -> Result<&'a [&'a str], Unreadable> {
    match lines {
        [first, .., last] if first.trim() == BEGIN && last.trim() == END => {
            Ok(&lines[1..lines.len() - 1])
        }
        [first, ..] if first.trim() != BEGIN => Err(Unreadable::Patch {
            why: "it does not start with `*** Begin Patch`",
        }),
        _ => Err(Unreadable::Patch {
            why: "it does not end with `*** End Patch`",
        }),
    }
}

/// The chunks of one `*** Update File:` hunk; what follows them.
fn chunks<'a>(mut rest: &'a [&'a str]) -> Result<&'a [&'a str], Unreadable> {
    let empty = Unreadable::Patch {
        why: "an update hunk has no change lines",
    };
    let mut count = 0;
    while let Some(line) = rest.first() {
        if line.trim().is_empty() {
            rest = &rest[1..];
            continue;
        }
        if line.starts_with('*') {
            break;
        }
        let start = if *line == "@@" || line.starts_with("@@ ") {
            1
        } else if count == 0 {
            0
        } else {
            return Err(Unreadable::Patch {
                why: "a chunk does not start with `@@`",
            });
        };
        let mut taken = 0;
        for line in &rest[start..] {
            if *line == END_OF_FILE {
                if taken == 0 {
                    return Err(empty);
                }
                taken += 1;
                break;
            }
            match line.chars().next() {
                None | Some(' ' | '+' | '-') => taken += 1,
                _ if taken == 0 => {
                    return Err(Unreadable::Patch {
                        why: "a change line does not start with ' ', '+' or '-'",
                    });
                }
                _ => break,
            }
        }
        if taken == 0 {
            return Err(empty);
        }
        count += 1;
        rest = &rest[start + taken..];
    }
    if count == 0 {
        return Err(empty);
    }
    Ok(rest)
}
