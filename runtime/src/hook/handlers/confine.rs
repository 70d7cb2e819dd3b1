//! The kernel-enforced half of the write guard: a shell call acc does not deny, made while
//! peers hold guarded claims on existing paths of the workspace, is rewritten to run under
//! `acc-hook guard-exec` ([`crate::guard_exec`]), which makes those paths read-only for
//! whatever the command runs (`make`, `python3 script.py`, `npm test`).
//!
//! Only where the adapter says its client's pre-tool hook may replace the call's input
//! (`rewrite_shell_outcome`), and only where this machine can set the namespace up: the
//! setup is probed for this call's paths before the call is rewritten. Everywhere else the
//! call is judged by the target rules alone. A call with no guarded peer claim on an
//! existing path is left alone.
//!
//! What is read-only is laid out per directory ([`layout`]): the hook lists each directory
//! holding claimed entries once and passes the runner the few mounts that cover them, not
//! one per claim. A claimed path that does not exist yet is covered too (its directory is
//! read-only whole, what it holds re-opened), in every worktree of the workspace. The
//! layout is remembered beside the workspace's store while the listed directories are
//! unchanged, and checked against the claims before it is used ([`layout_cache`]).
//!
//! Not covered: other names of a claimed file (a hard link outside the claim), and claims
//! the peer takes after the call started. A layout too long for one command line (over
//! [`LINE_BUDGET`]: thousands of claims each needing a mount of its own) is not rewritten,
//! and the call is judged by the target rules alone, as where namespaces are refused.

use super::super::call::Call;
use crate::core::Core;
use crate::core::claims::ClaimRecord;
use crate::core::model::{ClaimMode, Enforcement};
use crate::core::resources::Resource;
use crate::guard_exec::layout::{self, Mount, Unlisted};
use crate::guard_exec::layout_cache;
use crate::guard_exec::namespace::Plan;
use crate::guard_exec::spawn;
use crate::guard_exec::{ClaimLine, GuardExec};
use crate::hook::failure::Failure;
use crate::ids::{ClaimId, ParticipantId, SessionId, WorkspaceId};
use crate::store::guard_snapshot::ClaimLine as SnapshotClaimLine;
use acc_sdk::event::ToolClass;
use acc_sdk::outcome::HookOutcome;
use std::path::{Path, PathBuf};

/// Claims named on the runner's line (their stderr lines when the command fails); the rest
/// are counted (`--more`).
pub const NAMED_CLAIMS: usize = 16;

/// The longest runner line the hook hands the client: Linux refuses a single argument over
/// 128 KiB (`MAX_ARG_STRLEN`), and the client passes the line to its shell as one.
pub const LINE_BUDGET: usize = 96 * 1024;

/// What a rewritten call mounts, and the claims it names when the command fails.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confinement {
    pub mounts: Vec<Mount>,
    pub claims: Vec<ClaimLine>,
    pub more: usize,
}

/// The mounts that keep other sessions' live guarded `file:` claims read-only in each of
/// `roots` (the workspace's worktrees). `list` names a directory's entries
/// ([`layout::list_dir`] in the hook).
pub fn confinement(
    roots: &[PathBuf],
    me: &SessionId,
    claims: &[ClaimRecord],
    mut list: impl FnMut(&Path) -> std::io::Result<Option<Vec<(std::ffi::OsString, layout::Kind)>>>,
) -> Result<Confinement, Unlisted> {
    laid_out(roots, me, claims, |roots, paths| {
        let mut mounts = Vec::new();
        for root in roots {
            mounts.extend(layout::plan(root, paths.iter().copied(), &mut list)?);
        }
        Ok(mounts)
    })
}

/// [`confinement`] from the real directories, through the layout remembered in
/// `cache_file` while they are unchanged ([`layout_cache`]).
pub fn confinement_cached(
    cache_file: &Path,
    roots: &[PathBuf],
    me: &SessionId,
    claims: &[ClaimRecord],
) -> Result<(Confinement, layout_cache::Source), Unlisted> {
    let mut source = layout_cache::Source::Listed;
    let found = laid_out(roots, me, claims, |roots, paths| {
        let (mounts, from) = layout_cache::plan(cache_file, roots, paths)?;
        source = from;
        Ok(mounts)
    })?;
    Ok((found, source))
}

/// The claims to name, and the mounts `lay_out` makes of the claimed paths in the roots
/// (outer worktrees first: one inside another is mounted over what the outer re-opened).
fn laid_out(
    roots: &[PathBuf],
    me: &SessionId,
    claims: &[ClaimRecord],
    lay_out: impl FnOnce(&[&Path], &[&Path]) -> Result<Vec<Mount>, Unlisted>,
) -> Result<Confinement, Unlisted> {
    let mut out = Confinement::default();
    let mut paths = Vec::new();
    for claim in claims {
        if claim.enforcement != Enforcement::Guarded || &claim.owner_session_id == me {
            continue;
        }
        // Decoded from the claim's escapes, so a claimed `src/Read Me.md` is that file.
        let Some(pattern) = claim.resource.relative_pattern() else {
            continue;
        };
        paths.push(pattern.path);
        if out.claims.len() < NAMED_CLAIMS {
            out.claims.push(ClaimLine {
                resource: claim.resource.to_string(),
                participant: claim.owner_participant_id.to_string(),
                session: claim.owner_session_id.to_string(),
            });
        } else {
            out.more += 1;
        }
    }
    if paths.is_empty() {
        return Ok(Confinement::default());
    }
    let mut roots: Vec<&Path> = roots.iter().map(PathBuf::as_path).collect();
    roots.sort_by_key(|r| r.components().count());
    roots.dedup();
    let paths: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    out.mounts = lay_out(&roots, &paths)?;
    if out.mounts.is_empty() {
        return Ok(Confinement::default());
    }
    Ok(out)
}

/// The program a rewritten call runs, and whether it needs the subcommand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runner {
    pub program: PathBuf,
    /// `acc-hook` runs the runner as `acc-hook guard-exec`; `acc-guard` is only the runner.
    pub subcommand: bool,
}

impl Runner {
    /// `acc-guard` where it is installed beside `hook` (the running `acc-hook`): it starts
    /// in a fraction of `acc-hook`'s time, which every confined call pays. Otherwise
    /// `hook guard-exec`, the same runner.
    pub fn beside(hook: &Path) -> Runner {
        let guard = hook.parent().map(|dir| dir.join(GUARD_PROGRAM));
        match guard.filter(|p| p.metadata().is_ok_and(|m| m.is_file())) {
            Some(program) => Runner {
                program,
                subcommand: false,
            },
            None => Runner {
                program: hook.to_path_buf(),
                subcommand: true,
            },
        }
    }
}

/// The runner's own program, installed beside `acc-hook`.
pub const GUARD_PROGRAM: &str = "acc-guard";

/// The command line that runs `command` under `runner` with `confinement` and acc's own
/// paths `own` read-only, every word single-quoted for the client's shell.
pub fn runner_command(
    runner: &Runner,
    confinement: &Confinement,
    own: &[PathBuf],
    command: &str,
) -> String {
    let exec = GuardExec {
        mounts: confinement.mounts.clone(),
        own: own.to_vec(),
        claims: confinement.claims.clone(),
        more: confinement.more,
        command: command.into(),
    };
    let args = exec.to_args();
    let args = if runner.subcommand {
        &args[..]
    } else {
        &args[1..]
    };
    // Into one buffer: a `format!` and a `replace` per word were a tenth of the rewrite's
    // instructions at 200 claims.
    let mut line = String::with_capacity(
        runner.program.as_os_str().len() + args.iter().map(|a| a.len() + 3).sum::<usize>() + 2,
    );
    for word in
        std::iter::once(runner.program.as_os_str()).chain(args.iter().map(|a| a.as_os_str()))
    {
        if !line.is_empty() {
            line.push(' ');
        }
        quote_into(&mut line, &word.to_string_lossy());
    }
    line
}

/// `word` single-quoted for the client's shell, a quote inside spelt `'\''`.
fn quote_into(line: &mut String, word: &str) {
    line.push('\'');
    for part in word.split_inclusive('\'') {
        match part.strip_suffix('\'') {
            Some(head) => {
                line.push_str(head);
                line.push_str(r"'\''");
            }
            None => line.push_str(part),
        }
    }
    line.push('\'');
}

/// The rewritten answer for this call, or `None` when it is left to the target rules.
/// Claims are read, and the namespace probed, only once the adapter asks for the wrapped
/// command: a client that cannot rewrite this call costs nothing.
pub fn confine(
    call: &Call,
    core: &mut Core,
    me: &SessionId,
) -> Result<Option<HookOutcome>, Failure> {
    rewrite(call, |command| {
        let roots = crate::hook::verdict::roots_of_workspace(core.workspace());
        let cache = layout_cache_file(&call.data_home, &core.workspace().id);
        let claims = core.guarded_file_claims_of_others(me)?;
        wrapped(call, &cache, roots.all(), me, &claims, command)
    })
}

/// [`confine`] for the guard's fast path, with the peers' guarded claims its snapshot holds
/// (every live one not `me`'s, none of them inherited: the fast path leaves those to the
/// store).
pub fn confine_with(
    call: &Call,
    workspace: &WorkspaceId,
    roots: &[PathBuf],
    me: &SessionId,
    claims: &[ClaimRecord],
) -> Result<Option<HookOutcome>, Failure> {
    let cache = layout_cache_file(&call.data_home, workspace);
    rewrite(call, |command| {
        wrapped(call, &cache, roots, me, claims, command)
    })
}

/// A peer's claim line of the guard's snapshot as the rewrite reads it: what the layout and
/// the runner's stderr lines use (no times: formatting them for every claim cost more
/// than the layout at 10,000 claims).
pub fn peer_of(line: &SnapshotClaimLine<'_>) -> ClaimRecord {
    ClaimRecord {
        claim_id: ClaimId::from_store(line.claim_id.to_string()),
        owner_session_id: SessionId::from_store(line.owner_session_id.to_string()),
        owner_participant_id: ParticipantId::from_store(line.owner_participant_id.to_string()),
        resource: Resource::from_store(line.resource.to_string()),
        mode: ClaimMode::Exclusive,
        enforcement: Enforcement::Guarded,
        reason: None,
        acquired_at: String::new(),
        expires_at: String::new(),
        live: true,
    }
}

/// Where the workspace's layouts are remembered: acc's state for it, beside its store.
pub fn layout_cache_file(data_home: &Path, workspace: &WorkspaceId) -> PathBuf {
    crate::paths::store_dir(data_home, workspace).join(layout_cache::CACHE_FILE)
}

fn rewrite(
    call: &Call,
    mut wrap: impl FnMut(&str) -> Result<Option<String>, Failure>,
) -> Result<Option<HookOutcome>, Failure> {
    if call.event.tool.as_ref().map(|t| t.class) != Some(ToolClass::Shell) {
        return Ok(None);
    }
    let mut failure = None;
    let mut wrap = |command: &str| match wrap(command) {
        Ok(line) => line,
        Err(f) => {
            failure = Some(f);
            None
        }
    };
    let outcome =
        call.adapter
            .behaviour()
            .rewrite_shell_outcome(call.event, call.payload, &mut wrap);
    match failure {
        Some(f) => Err(f),
        None => Ok(outcome),
    }
}

/// `command` under the runner, or `None` when no peer claim needs a mount here, the
/// namespace cannot be set up for them, or their layout does not fit one command line.
fn wrapped(
    call: &Call,
    cache: &Path,
    roots: &[PathBuf],
    me: &SessionId,
    claims: &[ClaimRecord],
    command: &str,
) -> Result<Option<String>, Failure> {
    // A directory that cannot be listed leaves the call to the target rules.
    let Ok((confinement, _)) = confinement_cached(cache, roots, me, claims) else {
        return Ok(None);
    };
    if confinement.mounts.is_empty() {
        return Ok(None);
    }
    call.deadline.check()?;
    // The runner is this very binary (or `acc-guard` beside it), under the name the
    // kernel knows it by.
    let Ok(hook) = std::env::current_exe() else {
        return Ok(None);
    };
    let runner = Runner::beside(&hook);
    if !namespaces_work(&call.data_home, &confinement.mounts[0]) {
        return Ok(None);
    }
    let own = crate::hook::self_guard::own_files(call).confined();
    let line = runner_command(&runner, &confinement, &own, command);
    Ok((line.len() <= LINE_BUDGET).then_some(line))
}

/// How long a successful probe vouches for this machine. The runner still refuses to run a
/// command whose guard it cannot set up; a kernel that stops allowing the namespace within
/// this time costs such refusals until the next probe, not an unguarded command.
const PROBE_FOR: std::time::Duration = std::time::Duration::from_secs(60);

/// The marker of the last successful probe (its modification time).
pub fn probe_marker(data_home: &Path) -> PathBuf {
    data_home.join("acc").join("kernel-guard-probed")
}

/// Whether this process can set the guard up here: one mount proves the kernel lets it
/// (the runner sets up the rest, and refuses to run the command if any of them fails). A
/// probe forks and enters two namespaces, so a success is remembered for [`PROBE_FOR`].
fn namespaces_work(data_home: &Path, first: &Mount) -> bool {
    let marker = probe_marker(data_home);
    let recent = std::fs::metadata(&marker)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|at| std::time::SystemTime::now().duration_since(at).ok())
        .is_some_and(|age| age < PROBE_FOR);
    if recent {
        return true;
    }
    let Ok(plan) = Plan::of_mounts(std::slice::from_ref(first)) else {
        return false;
    };
    if spawn::probe(&plan).is_err() {
        return false;
    }
    // Best effort: without the marker the next call probes again.
    if let Ok(f) = std::fs::File::create(&marker) {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_single_quoted_and_bash_reads_it_back() {
        for word in [
            "",
            "plain",
            "it's",
            "'",
            "''",
            "a'b'c",
            "$(rm -rf src)",
            "x\ny",
            "é'",
        ] {
            let mut line = String::new();
            quote_into(&mut line, word);
            assert_eq!(
                line,
                format!("'{}'", word.replace('\'', r"'\''")),
                "{word:?}"
            );
            let out = std::process::Command::new("bash")
                .args(["-c", &format!("printf %s {line}")])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), word, "{word:?}");
        }
    }

    fn claim(resource: &str, owner: &str, enforcement: Enforcement) -> ClaimRecord {
        ClaimRecord {
            claim_id: ClaimId::parse("c1").unwrap(),
            owner_session_id: SessionId::parse(owner).unwrap(),
            owner_participant_id: ParticipantId::parse(&format!("p-{owner}")).unwrap(),
            resource: Resource::parse(resource).unwrap(),
            mode: ClaimMode::Exclusive,
            enforcement,
            reason: None,
            acquired_at: String::new(),
            expires_at: String::new(),
            live: true,
        }
    }

    type Listing = std::io::Result<Option<Vec<(std::ffi::OsString, layout::Kind)>>>;

    /// `/ws` holding `src/` (with `a.rs` and `b.rs`) and `README.md`.
    fn listing(dir: &Path) -> Listing {
        let entries: &[(&str, layout::Kind)] = match dir.to_str().unwrap() {
            "/ws" => &[
                ("src", layout::Kind::Dir),
                ("README.md", layout::Kind::File),
            ],
            "/ws/src" => &[("a.rs", layout::Kind::File), ("b.rs", layout::Kind::File)],
            _ => return Ok(None),
        };
        Ok(Some(entries.iter().map(|(n, k)| (n.into(), *k)).collect()))
    }

    fn mounts(found: &Confinement) -> Vec<(String, bool)> {
        found
            .mounts
            .iter()
            .map(|m| (m.path.display().to_string(), m.writable))
            .collect()
    }

    #[test]
    fn only_peers_guarded_file_claims_inside_the_root() {
        let me = SessionId::parse("me").unwrap();
        let claims = [
            claim("file:src/**", "alice", Enforcement::Guarded),
            claim("file:README.md", "me", Enforcement::Guarded),
            claim("file:docs/**", "bob", Enforcement::Advisory),
            claim("file:../other/x", "bob", Enforcement::Guarded),
            claim("file:/etc/passwd", "bob", Enforcement::Guarded),
            claim("git:refs/heads/main", "bob", Enforcement::Guarded),
            claim("file:src/a.rs", "bob", Enforcement::Guarded),
        ];
        let found = confinement(&["/ws".into()], &me, &claims, listing).unwrap();
        // `src/a.rs` is under `src/**`: one mount.
        assert_eq!(mounts(&found), [("/ws/src".to_owned(), false)]);
        let named: Vec<String> = found.claims.iter().map(ClaimLine::line).collect();
        assert_eq!(
            named,
            [
                "acc: file:src/** is read-only in this command: claimed by p-alice (session alice)",
                "acc: file:src/a.rs is read-only in this command: claimed by p-bob (session bob)",
            ]
        );
    }

    #[test]
    fn a_claim_not_yet_there_makes_its_directory_read_only_in_every_worktree() {
        let me = SessionId::parse("me").unwrap();
        let claims = [claim("file:src/new.rs", "alice", Enforcement::Guarded)];
        let found = confinement(&["/ws".into()], &me, &claims, listing).unwrap();
        assert_eq!(
            mounts(&found),
            [
                ("/ws/src".to_owned(), false),
                ("/ws/src/a.rs".to_owned(), true),
                ("/ws/src/b.rs".to_owned(), true),
            ]
        );
        // A worktree inside the first is laid out after it; one with nothing listed (the
        // directory is not there) adds nothing.
        let list = |dir: &Path| match dir.to_str().unwrap() {
            "/ws/wt/src" => Ok(Some(vec![("b.rs".into(), layout::Kind::File)])),
            "/ws/wt" => Ok(Some(vec![("src".into(), layout::Kind::Dir)])),
            _ => listing(dir),
        };
        let claims = [claim("file:src/b.rs", "alice", Enforcement::Guarded)];
        let found = confinement(
            &["/ws/wt".into(), "/ws".into(), "/gone".into()],
            &me,
            &claims,
            list,
        )
        .unwrap();
        assert_eq!(
            mounts(&found),
            [
                ("/ws/src/b.rs".to_owned(), false),
                ("/ws/wt/src/b.rs".to_owned(), false),
            ]
        );
    }

    #[test]
    fn a_path_claimed_twice_is_mounted_once_and_claims_past_the_named_are_counted() {
        let me = SessionId::parse("me").unwrap();
        let claims = [
            claim("file:src/**", "alice", Enforcement::Guarded),
            claim("file:src/**", "bob", Enforcement::Guarded),
        ];
        let found = confinement(&["/ws".into()], &me, &claims, listing).unwrap();
        assert_eq!(mounts(&found), [("/ws/src".to_owned(), false)]);
        assert_eq!((found.claims.len(), found.more), (2, 0));
        let many: Vec<ClaimRecord> = (0..NAMED_CLAIMS + 5)
            .map(|i| claim(&format!("file:src/m{i}/**"), "alice", Enforcement::Guarded))
            .collect();
        let found = confinement(&["/ws".into()], &me, &many, listing).unwrap();
        assert_eq!((found.claims.len(), found.more), (NAMED_CLAIMS, 5));
    }

    #[test]
    fn no_peer_claim_means_no_confinement() {
        let me = SessionId::parse("me").unwrap();
        let mine = [claim("file:src/**", "me", Enforcement::Guarded)];
        assert_eq!(
            confinement(&["/ws".into()], &me, &mine, listing).unwrap(),
            Confinement::default()
        );
        // Under a file nothing can be created: nothing to mount.
        let under_a_file = [claim("file:README.md/x", "alice", Enforcement::Guarded)];
        assert_eq!(
            confinement(&["/ws".into()], &me, &under_a_file, listing).unwrap(),
            Confinement::default()
        );
    }

    #[test]
    fn the_runner_command_survives_the_shell_word_for_word() {
        let confinement = Confinement {
            mounts: vec![Mount {
                path: "/ws/it's src".into(),
                writable: false,
            }],
            claims: vec![ClaimLine {
                resource: "file:it's/**".into(),
                participant: "alice".into(),
                session: "s1".into(),
            }],
            more: 0,
        };
        let command = r#"python3 -c "open('src/x','w').write('$HOME')" && echo `date`"#;
        let own = [PathBuf::from("/data/acc")];
        let hook = Runner {
            program: "/opt/acc/acc-hook".into(),
            subcommand: true,
        };
        let line = runner_command(&hook, &confinement, &own, command);
        // bash splits the line back into exactly the runner's words.
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%s\\0' {line}"))
            .output()
            .unwrap();
        let words: Vec<&str> = std::str::from_utf8(&out.stdout)
            .unwrap()
            .trim_end_matches('\0')
            .split('\0')
            .collect();
        assert_eq!(
            words,
            [
                "/opt/acc/acc-hook",
                "guard-exec",
                "--ro",
                "/ws/it's src",
                "--own",
                "/data/acc",
                "--claim",
                "file:it's/**",
                "alice",
                "s1",
                "--",
                command,
            ]
        );
    }

    #[test]
    fn the_runner_is_acc_guard_where_it_is_installed_beside_the_hook() {
        let dir = tempfile::tempdir().unwrap();
        let hook = dir.path().join("acc-hook");
        std::fs::write(&hook, "").unwrap();
        assert_eq!(
            Runner::beside(&hook),
            Runner {
                program: hook.clone(),
                subcommand: true
            }
        );
        // A directory of that name is not a program.
        std::fs::create_dir(dir.path().join(GUARD_PROGRAM)).unwrap();
        assert!(Runner::beside(&hook).subcommand);
        std::fs::remove_dir(dir.path().join(GUARD_PROGRAM)).unwrap();
        std::fs::write(dir.path().join(GUARD_PROGRAM), "").unwrap();
        let guard = Runner::beside(&hook);
        assert_eq!(
            guard,
            Runner {
                program: dir.path().join(GUARD_PROGRAM),
                subcommand: false
            }
        );
        let line = runner_command(&guard, &Confinement::default(), &[], "true");
        assert_eq!(
            line,
            format!("'{}' '--' 'true'", dir.path().join(GUARD_PROGRAM).display())
        );
    }
}
