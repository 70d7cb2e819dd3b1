//! The write guard's verdict: a tool call's targets against peers' guarded claims.
//!
//! Claims are compared as paths, not spellings: each peer's live guarded `file:` claim is
//! decoded into a root-relative path ([`crate::core::resources::FilePattern`]) and indexed
//! by path, and each target's root-relative path ([`targets::Reach`]) is looked up by its
//! ancestors, so a name no resource could hold raw (`src/Read Me.md`, `src/a*b.rs`) is judged
//! like any other, and the cost is linear in the number of targets.
//!
//! What cannot be judged is refused while a peer holds a guarded claim in the workspace,
//! never allowed silently: a command acc cannot read, targets too many to resolve within
//! the budget, a hard link whose twin could not be searched for in time. Each refusal says
//! how to proceed. With no such claim, nothing is at stake and everything is allowed.
//!
//! A hard link of a claimed file is that file: an existing target with more than one link
//! is compared by device and inode with the files under every guarded claim, in every
//! worktree.

use super::targets::{self, Inode, Reach, RelPath, Resolved, Roots};
use crate::core::Core;
use crate::core::claims::ClaimRecord;
use crate::core::resources::{FilePattern, Resource};
use crate::error::Result;
use crate::ids::SessionId;
use acc_sdk::event::{NamedPath, Targets};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Entries walked between two looks at the clock.
const CLOCK_EVERY: usize = 256;

/// A refused tool call: the reason the client shows, and the claim that refused it.
#[derive(Debug, Clone, PartialEq)]
pub struct Denial {
    pub reason: String,
    pub claim: ClaimRecord,
    /// The target, spelt as a resource, when the refusal is about one path.
    pub target: Option<Resource>,
}

/// `<resource> is claimed by <participantId> (session <sessionId>)`.
fn claimed_by(named: &Resource, claim: &ClaimRecord) -> String {
    format!(
        "{named} is claimed by {} (session {})",
        claim.owner_participant_id, claim.owner_session_id
    )
}

/// `<claim> is guarded by <participantId> (session <sessionId>)`.
fn guarded_by(claim: &ClaimRecord) -> String {
    format!(
        "{} is guarded by {} (session {})",
        claim.resource, claim.owner_participant_id, claim.owner_session_id
    )
}

/// Peers' live guarded claims on paths inside the workspace, indexed by path.
pub struct Guarded {
    /// Oldest first: when several cover a target, the oldest names the refusal.
    claims: Vec<(ClaimRecord, FilePattern)>,
    /// A file claim's path -> its first claim.
    files: HashMap<PathBuf, usize>,
    /// A tree claim's base path -> its first claim.
    trees: HashMap<PathBuf, usize>,
    /// Every claim's path and each of its ancestors -> the first claim at or under it.
    under: HashMap<PathBuf, usize>,
}

impl Guarded {
    /// The live guarded claims of sessions other than `me` on root-relative paths
    /// (claims spelt outside the root never judge its writes).
    pub fn load(core: &mut Core, me: &SessionId) -> Result<Guarded> {
        Ok(Guarded::of_records(core.guarded_file_claims_of_others(me)?))
    }

    pub fn of_records(records: Vec<ClaimRecord>) -> Guarded {
        Guarded::of(
            records
                .into_iter()
                .filter_map(|c| c.resource.relative_pattern().map(|p| (c, p)))
                .collect(),
        )
    }

    fn of(claims: Vec<(ClaimRecord, FilePattern)>) -> Guarded {
        let (mut files, mut trees, mut under) = (HashMap::new(), HashMap::new(), HashMap::new());
        for (i, (_, pattern)) in claims.iter().enumerate() {
            let own = if pattern.tree { &mut trees } else { &mut files };
            own.entry(pattern.path.clone()).or_insert(i);
            for a in pattern
                .path
                .ancestors()
                .filter(|a| !a.as_os_str().is_empty())
            {
                under.entry(a.to_path_buf()).or_insert(i);
            }
        }
        Guarded {
            claims,
            files,
            trees,
            under,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.claims.is_empty()
    }

    /// The oldest claim, which names refusals about the call as a whole.
    fn first(&self) -> Option<&ClaimRecord> {
        self.claims.first().map(|(c, _)| c)
    }

    /// The first claim covering `path` itself: a file claim on it or a tree claim on it or
    /// an ancestor.
    fn covering(&self, path: &Path) -> Option<usize> {
        let exact = self.files.get(path).copied();
        let trees = path
            .ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .filter_map(|a| self.trees.get(a).copied());
        exact.into_iter().chain(trees).min()
    }

    /// The refusal for one reach, if a claim covers it.
    fn judge(&self, reach: &Reach) -> Option<Denial> {
        let (own, inside) = match reach {
            Reach::File(p) => (self.covering(p.as_path()), None),
            Reach::Tree(p) => (
                self.covering(p.as_path()),
                self.under.get(p.as_path()).copied(),
            ),
            Reach::Workspace => (None, self.claims.first().map(|_| 0)),
        };
        let path = match reach {
            Reach::File(p) | Reach::Tree(p) => Some(p),
            Reach::Workspace => None,
        };
        // The target's own name when a claim covers the path itself; otherwise the claimed
        // resource inside it (`rm -rf src` names `file:src/a.txt`).
        let (i, named) = match (own, inside) {
            (Some(o), Some(u)) if u < o => (u, None),
            (Some(o), _) => (o, path.and_then(RelPath::resource)),
            (None, Some(u)) => (u, None),
            (None, None) => return None,
        };
        let claim = &self.claims[i].0;
        let named = named.unwrap_or_else(|| claim.resource.clone());
        Some(Denial {
            reason: claimed_by(&named, claim),
            claim: claim.clone(),
            target: path.and_then(RelPath::resource),
        })
    }
}

/// The refusal of a call acc cannot judge, naming the oldest guarded claim and what to do.
fn cannot_judge(guarded: &Guarded, why: &str, how: &str) -> Option<Denial> {
    let claim = guarded.first()?;
    Some(Denial {
        reason: format!(
            "{why}; acc denies what it cannot judge while {}: {how}, or ask {} to release the claim",
            guarded_by(claim),
            claim.owner_participant_id
        ),
        claim: claim.clone(),
        target: None,
    })
}

/// The refusal of a write-capable call whose targets the adapter could not read, when a
/// peer holds a guarded claim in the workspace; `None` (allowed, unguarded) otherwise.
/// `reader` is why the reader gave up, when it said.
pub fn unreadable(guarded: &Guarded, reader: Option<&str>) -> Option<Denial> {
    let claim = guarded.first()?;
    let why = reader.unwrap_or("acc cannot read which files this tool call writes");
    Some(Denial {
        reason: format!(
            "{why}; acc denies commands it cannot read while {}: name every file the command writes literally (no substitutions, variables, eval or inline scripts), or ask {} to release the claim",
            guarded_by(claim),
            claim.owner_participant_id
        ),
        claim: claim.clone(),
        target: None,
    })
}

/// The refusal of a call naming `raw_targets` (relative to `cwd`), judged against
/// `guarded` within `until`. `roots` are the worktrees of the workspace.
pub fn judge_paths(
    guarded: &Guarded,
    roots: &Roots,
    cwd: &Path,
    raw_targets: &[String],
    until: Instant,
) -> Option<Denial> {
    if guarded.is_empty() {
        return None;
    }
    match targets::resolve_all(cwd, roots, raw_targets, until) {
        Ok(resolved) => judge_resolved(guarded, roots, &resolved, until),
        Err(targets::OutOfTime) => too_many(guarded, raw_targets.len()),
    }
}

/// The refusal of paths that programs acc cannot bound name or write into (`chmod 000
/// src/lib.rs`, `tar xf a.tar` at the root): the first one a guarded claim covers, with a
/// reason naming the program, the claim and its owner, and how to proceed.
pub fn judge_named(
    guarded: &Guarded,
    roots: &Roots,
    cwd: &Path,
    named: &[NamedPath],
    until: Instant,
) -> Option<Denial> {
    if guarded.is_empty() {
        return None;
    }
    for one in named {
        let resolved =
            match targets::resolve_all(cwd, roots, std::slice::from_ref(&one.path), until) {
                Ok(resolved) => resolved,
                Err(targets::OutOfTime) => return too_many(guarded, named.len()),
            };
        if let Some(denial) = resolved.iter().find_map(|r| guarded.judge(&r.reach)) {
            return Some(unbounded(one, denial));
        }
    }
    None
}

/// The refusal of a [`Targets::Named`] call: its known paths first, then the paths
/// programs acc cannot bound name.
pub fn judge_unbounded(
    guarded: &Guarded,
    roots: &Roots,
    cwd: &Path,
    (paths, named): (&[String], &[NamedPath]),
    until: Instant,
) -> Option<Denial> {
    judge_paths(guarded, roots, cwd, paths, until)
        .or_else(|| judge_named(guarded, roots, cwd, named, until))
}

/// `denial` of a path `one.program` may write, reworded to say acc cannot bound it.
fn unbounded(one: &NamedPath, denial: Denial) -> Denial {
    let spelt = denial
        .target
        .as_ref()
        .map_or_else(|| "the whole workspace".to_owned(), ToString::to_string);
    let how = if one.into {
        format!(
            "`{}` writes into {spelt} (the directory it works in), where it may change any file",
            one.program
        )
    } else {
        format!(
            "`{}` is not known to be read-only and names {spelt}",
            one.program
        )
    };
    Denial {
        reason: format!(
            "{how}, and {}: acc cannot tell what it writes there; ask {} to release the claim, or name the files the command writes so acc can judge (the file tool, a redirection, cp or tee)",
            denial.reason, denial.claim.owner_participant_id
        ),
        ..denial
    }
}

fn too_many(guarded: &Guarded, count: usize) -> Option<Denial> {
    cannot_judge(
        guarded,
        &format!("this tool call names {count} paths, more than acc can judge in its time budget"),
        "split it into smaller calls",
    )
}

/// The refusal of resolved targets: the first one a claim covers, in target order, else a
/// hard link of a claimed file.
pub fn judge_resolved(
    guarded: &Guarded,
    roots: &Roots,
    resolved: &[Resolved],
    until: Instant,
) -> Option<Denial> {
    if let Some(denial) = resolved.iter().find_map(|r| guarded.judge(&r.reach)) {
        return Some(denial);
    }
    hard_links(guarded, roots, resolved, until)
}

/// The refusal of a write into a hard link of a file under a guarded claim.
fn hard_links(
    guarded: &Guarded,
    roots: &Roots,
    resolved: &[Resolved],
    until: Instant,
) -> Option<Denial> {
    let wanted: HashMap<Inode, &RelPath> = resolved
        .iter()
        .filter_map(|r| match (&r.reach, r.linked) {
            (Reach::File(p), Some(inode)) => Some((inode, p)),
            _ => None,
        })
        .collect();
    if wanted.is_empty() {
        return None;
    }
    let mut walked = 0usize;
    let mut visited: HashSet<PathBuf> = HashSet::new();
    for (claim, pattern) in &guarded.claims {
        for root in roots.all() {
            let base = root.join(&pattern.path);
            if !visited.insert(base.clone()) {
                continue;
            }
            let found = walk_for(&base, pattern.tree, &wanted, until, &mut walked);
            let found = match found {
                Ok(found) => found,
                Err(targets::OutOfTime) => {
                    return cannot_judge(
                        guarded,
                        "acc could not finish checking, in its time budget, whether a file this tool call writes is a hard link of a claimed file",
                        "write a file with a single link, or replace the link with a copy first",
                    );
                }
            };
            let Some((inode, twin)) = found else { continue };
            let target = wanted[&inode];
            let named = twin
                .strip_prefix(root)
                .ok()
                .and_then(|rel| Resource::from_relative_path(rel, false))
                .unwrap_or_else(|| claim.resource.clone());
            let spelt = target
                .resource()
                .map_or_else(|| "the target".to_string(), |r| r.to_string());
            return Some(Denial {
                reason: format!(
                    "{spelt} is a hard link of {named}, so writing it writes {named}, and {}",
                    claimed_by(&named, claim)
                ),
                claim: claim.clone(),
                target: target.resource(),
            });
        }
    }
    None
}

/// The first regular file at `base`, or under it for a tree (symlinks not followed), with
/// one of `wanted`'s identities, and its path.
fn walk_for(
    base: &Path,
    tree: bool,
    wanted: &HashMap<Inode, &RelPath>,
    until: Instant,
    walked: &mut usize,
) -> std::result::Result<Option<(Inode, PathBuf)>, targets::OutOfTime> {
    let mut stack = vec![base.to_path_buf()];
    while let Some(path) = stack.pop() {
        if (*walked).is_multiple_of(CLOCK_EVERY) && Instant::now() >= until {
            return Err(targets::OutOfTime);
        }
        *walked += 1;
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if !tree {
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.flatten().map(|e| e.path()));
            }
        } else if let Some(inode) = targets::linked_inode(&path)
            && wanted.contains_key(&inode)
        {
            return Ok(Some((inode, path)));
        }
    }
    Ok(None)
}

/// The refusal of one tool call by session `me` writing `targets` (relative to `cwd`),
/// reached before `until`; `None` allows it.
pub fn judge_call(
    core: &mut Core,
    me: &SessionId,
    cwd: &Path,
    targets: &Targets,
    until: Instant,
) -> Result<Option<Denial>> {
    let paths = match targets {
        Targets::None => return Ok(None),
        Targets::Unreadable { reason } => {
            return Ok(unreadable(&Guarded::load(core, me)?, Some(reason)));
        }
        Targets::Paths(paths) => paths,
        Targets::Named { paths, named } => {
            let roots = roots_of(core);
            // Only the claims that can decide one of the targets, as for `Paths`.
            let every: Vec<String> = paths
                .iter()
                .chain(named.iter().map(|n| &n.path))
                .cloned()
                .collect();
            let resolved = match targets::resolve_all(cwd, &roots, &every, until) {
                Ok(resolved) => resolved,
                Err(targets::OutOfTime) => {
                    return Ok(too_many(&Guarded::load(core, me)?, every.len()));
                }
            };
            let guarded = candidates(core, me, &resolved)?;
            return Ok(judge_unbounded(
                &guarded,
                &roots,
                cwd,
                (paths, named),
                until,
            ));
        }
    };
    let roots = roots_of(core);
    let resolved = match targets::resolve_all(cwd, &roots, paths, until) {
        Ok(resolved) => resolved,
        Err(targets::OutOfTime) => return Ok(too_many(&Guarded::load(core, me)?, paths.len())),
    };
    let guarded = candidates(core, me, &resolved)?;
    Ok(judge_resolved(&guarded, &roots, &resolved, until))
}

/// Targets few enough to look up one by one in the store's claim index.
const INDEXED_MAX: usize = 32;

/// The claims that can decide `resolved`: for a few targets, each spelt as a resource, the
/// ones the claim index finds overlapping them (spellings are canonical, so the index
/// compares paths); otherwise, or when the whole workspace or a hard link is at stake,
/// every guarded claim of a peer.
fn candidates(core: &mut Core, me: &SessionId, resolved: &[Resolved]) -> Result<Guarded> {
    match lookups(resolved) {
        Some(lookups) if lookups.is_empty() => Ok(Guarded::of(Vec::new())),
        Some(lookups) => Ok(Guarded::of_records(
            core.guarded_file_claims_overlapping(me, &lookups)?,
        )),
        None => Guarded::load(core, me),
    }
}

/// For a few targets, each spelt as a resource: only claims overlapping one of them can
/// decide `resolved`. `None` when every claim can (many targets, the whole workspace, a
/// hard link, a target no resource can spell).
pub fn lookups(resolved: &[Resolved]) -> Option<Vec<Resource>> {
    let few = resolved.len() <= INDEXED_MAX && resolved.iter().all(|r| r.linked.is_none());
    few.then(|| {
        resolved
            .iter()
            .map(|r| match &r.reach {
                Reach::File(p) => Resource::from_relative_path(p.as_path(), false),
                Reach::Tree(p) => Resource::from_relative_path(p.as_path(), true),
                Reach::Workspace => None,
            })
            .collect()
    })
    .flatten()
}

/// Every worktree of the session's workspace: its own checkout root first.
pub fn roots_of(core: &Core) -> Roots {
    roots_of_workspace(core.workspace())
}

/// Every worktree of `ws`: its own checkout root first.
pub fn roots_of_workspace(ws: &crate::workspace::WorkspaceDescriptor) -> Roots {
    let others = ws
        .git
        .as_ref()
        .map(|g| crate::workspace::git::worktree_roots(&g.common_dir))
        .unwrap_or_default();
    Roots::new(ws.checkout_root(), &others)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::{ClaimMode, Enforcement};
    use crate::ids::{ClaimId, ParticipantId};
    use std::time::Duration;

    fn claim(n: usize, resource: &str) -> (ClaimRecord, FilePattern) {
        let resource = Resource::parse(resource).unwrap();
        let pattern = resource.relative_pattern().unwrap();
        let record = ClaimRecord {
            claim_id: ClaimId::from_store(format!("claim_{n:022}")),
            owner_session_id: SessionId::from_store(format!("session_{n:020}")),
            owner_participant_id: ParticipantId::parse("peer").unwrap(),
            resource,
            mode: ClaimMode::Exclusive,
            enforcement: Enforcement::Guarded,
            reason: None,
            acquired_at: String::new(),
            expires_at: String::new(),
            live: true,
        };
        (record, pattern)
    }

    fn guarded(resources: &[&str]) -> Guarded {
        Guarded::of(
            resources
                .iter()
                .enumerate()
                .map(|(i, r)| claim(i, r))
                .collect(),
        )
    }

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    struct Ws {
        _dir: tempfile::TempDir,
        root: PathBuf,
    }

    fn ws() -> Ws {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("src/Read Me.md"), "claimed\n").unwrap();
        Ws { _dir: dir, root }
    }

    fn reason(g: &Guarded, w: &Ws, targets: &[&str]) -> Option<String> {
        let targets: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
        judge_paths(g, &Roots::new(&w.root, &[]), &w.root, &targets, later()).map(|d| d.reason)
    }

    const BY: &str = "is claimed by peer (session session_00000000000000000000)";

    #[test]
    fn names_no_resource_could_hold_raw_are_judged_as_paths() {
        let w = ws();
        let g = guarded(&["file:src/**"]);
        for (target, spelt) in [
            ("src/Read Me.md", "file:src/Read\\x20Me.md"),
            ("src/a*b.rs", "file:src/a\\*b.rs"),
            ("src/new\nline", "file:src/new\\x0aline"),
            ("src/trailing ", "file:src/trailing\\x20"),
            ("src/Read Me.md/**", "file:src/Read\\x20Me.md"),
        ] {
            assert_eq!(
                reason(&g, &w, &[target]),
                Some(format!("{spelt} {BY}")),
                "{target:?}"
            );
        }
        assert_eq!(reason(&g, &w, &["docs/Read Me.md", "srcx/a b"]), None);
    }

    #[test]
    fn claims_spelt_with_escapes_cover_the_paths_they_name() {
        let w = ws();
        let g = guarded(&["file:src/Read\\x20Me.md", "file:src/a\\*b/**"]);
        assert_eq!(
            reason(&g, &w, &["src/Read Me.md"]),
            Some(format!("file:src/Read\\x20Me.md {BY}"))
        );
        assert!(reason(&g, &w, &["src/a*b/x y.rs"]).is_some());
        // A literal `*` in a claim is not a pattern.
        assert_eq!(reason(&g, &w, &["src/ab/x.rs", "src/Read.md"]), None);
        // A directory written whole with a claimed file inside names the claim.
        assert_eq!(
            reason(&g, &w, &["src/**"]),
            Some(format!("file:src/Read\\x20Me.md {BY}"))
        );
    }

    #[test]
    fn the_oldest_covering_claim_names_the_refusal() {
        let w = ws();
        let g = guarded(&["file:src/deep/x.rs", "file:src/**", "file:lib/x.rs"]);
        let by = |n: usize| format!("is claimed by peer (session session_{n:020})");
        assert_eq!(
            reason(&g, &w, &["src/deep/x.rs"]),
            Some(format!("file:src/deep/x.rs {}", by(0)))
        );
        assert_eq!(
            reason(&g, &w, &["src/**"]),
            Some(format!("file:src/deep/x.rs {}", by(0)))
        );
        assert_eq!(
            reason(&g, &w, &["src/other.rs"]),
            Some(format!("file:src/other.rs {}", by(1)))
        );
        assert_eq!(
            reason(&g, &w, &["./**"]),
            Some(format!("file:src/deep/x.rs {}", by(0)))
        );
        assert_eq!(reason(&g, &w, &["lib"]), None, "`lib` gains an entry only");
    }

    #[test]
    fn without_guarded_claims_nothing_is_judged_or_refused() {
        let w = ws();
        let none = guarded(&[]);
        assert_eq!(reason(&none, &w, &["src/Read Me.md"]), None);
        assert_eq!(unreadable(&none, Some("why")), None);
        let spent = judge_paths(
            &none,
            &Roots::new(&w.root, &[]),
            &w.root,
            &["a".into()],
            Instant::now(),
        );
        assert_eq!(spent, None);
    }

    #[test]
    fn unreadable_commands_and_spent_budgets_are_refused_while_claims_are_guarded() {
        let w = ws();
        let g = guarded(&["file:src/**"]);
        let d = unreadable(&g, Some("the command substitutes $(…)")).unwrap();
        assert!(
            d.reason.starts_with(
                "the command substitutes $(…); acc denies commands it cannot read while file:src/** is guarded by peer (session session_00000000000000000000): "
            ),
            "{}",
            d.reason
        );
        assert!(d.reason.ends_with("or ask peer to release the claim"));
        let spent = judge_paths(
            &g,
            &Roots::new(&w.root, &[]),
            &w.root,
            &["docs/unclaimed".into()],
            Instant::now(),
        )
        .unwrap();
        assert!(
            spent.reason.starts_with(
                "this tool call names 1 paths, more than acc can judge in its time budget; acc denies what it cannot judge while file:src/** is guarded by peer"
            ),
            "{}",
            spent.reason
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_hard_link_of_a_claimed_file_is_the_claimed_file() {
        let w = ws();
        std::fs::hard_link(w.root.join("src/Read Me.md"), w.root.join("docs/twin.md")).unwrap();
        std::fs::write(w.root.join("docs/single.md"), "").unwrap();
        let g = guarded(&["file:src/**"]);
        assert_eq!(
            reason(&g, &w, &["docs/single.md", "docs/twin.md"]),
            Some(format!(
                "file:docs/twin.md is a hard link of file:src/Read\\x20Me.md, so writing it writes file:src/Read\\x20Me.md, and file:src/Read\\x20Me.md {BY}"
            ))
        );
        let g = guarded(&["file:src/Read\\x20Me.md"]);
        assert!(reason(&g, &w, &["docs/twin.md"]).is_some());
        // Removing the link leaves the claimed file alone.
        assert_eq!(reason(&g, &w, &["docs/twin.md/**"]), None);
        // A search that cannot finish is refused.
        let spent = hard_links(
            &guarded(&["file:src/**"]),
            &Roots::new(&w.root, &[]),
            &targets::resolve_all(
                &w.root,
                &Roots::new(&w.root, &[]),
                &["docs/twin.md".into()],
                later(),
            )
            .unwrap(),
            Instant::now(),
        )
        .unwrap();
        assert!(
            spent.reason.starts_with("acc could not finish checking"),
            "{}",
            spent.reason
        );
    }

    #[test]
    fn sixty_thousand_targets_are_judged_in_one_pass() {
        let w = ws();
        let claims: Vec<String> = (0..200).map(|i| format!("file:src/m{i:03}/**")).collect();
        let claims: Vec<&str> = claims.iter().map(String::as_str).collect();
        let g = guarded(&claims);
        let mut targets: Vec<String> = (0..60_000)
            .map(|i| format!("docs/padding-{i:06}-{}", "p".repeat(8)))
            .collect();
        targets.push("src/**".into());
        let got = judge_paths(
            &g,
            &Roots::new(&w.root, &[]),
            &w.root,
            &targets,
            Instant::now() + Duration::from_secs(600),
        )
        .unwrap();
        assert_eq!(
            got.reason,
            format!("file:src/m000/** {BY}"),
            "the last target decides"
        );
    }
}
