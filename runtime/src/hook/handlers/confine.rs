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
//! Not covered: paths of a claim that do not exist yet (a claimed file the command
//! creates), other names of a claimed file (a hard link outside the claim), and claims the
//! peer takes after the call started.

use super::super::call::Call;
use crate::core::Core;
use crate::core::claims::ClaimRecord;
use crate::core::model::Enforcement;
use crate::guard_exec::namespace::{self, Plan};
use crate::guard_exec::{ClaimLine, GuardExec};
use crate::hook::failure::Failure;
use crate::ids::SessionId;
use acc_sdk::event::ToolClass;
use acc_sdk::outcome::HookOutcome;
use std::path::{Path, PathBuf};

/// What a rewritten call makes read-only, and the claims it names when the command fails.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confinement {
    pub read_only: Vec<PathBuf>,
    pub claims: Vec<ClaimLine>,
}

/// The existing paths under other sessions' live guarded `file:` claims inside `root`.
/// `exists` is asked about each claimed path (the filesystem, in the hook).
pub fn confinement(
    root: &Path,
    me: &SessionId,
    claims: &[ClaimRecord],
    exists: impl Fn(&Path) -> bool,
) -> Confinement {
    let mut out = Confinement::default();
    for claim in claims {
        if claim.enforcement != Enforcement::Guarded || &claim.owner_session_id == me {
            continue;
        }
        // Decoded from the claim's escapes, so a claimed `src/Read Me.md` is that file.
        let Some(pattern) = claim.resource.relative_pattern() else {
            continue;
        };
        let path = root.join(pattern.path);
        if !exists(&path) {
            continue;
        }
        if !out.read_only.contains(&path) {
            out.read_only.push(path);
        }
        out.claims.push(ClaimLine {
            resource: claim.resource.to_string(),
            participant: claim.owner_participant_id.to_string(),
            session: claim.owner_session_id.to_string(),
        });
    }
    out
}

/// The command line that runs `command` under `runner guard-exec` with `confinement` and
/// acc's own paths `own` read-only, every word single-quoted for the client's shell.
pub fn runner_command(
    runner: &Path,
    confinement: &Confinement,
    own: &[PathBuf],
    command: &str,
) -> String {
    let exec = GuardExec {
        read_only: confinement.read_only.clone(),
        own: own.to_vec(),
        claims: confinement.claims.clone(),
        command: command.into(),
    };
    std::iter::once(runner.as_os_str().to_owned())
        .chain(exec.to_args())
        .map(|word| quote(&word.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The rewritten answer for this call, or `None` when it is left to the target rules.
/// Claims are read, and the namespace probed, only once the adapter asks for the wrapped
/// command: a client that cannot rewrite this call costs nothing.
pub fn confine(
    call: &Call,
    core: &mut Core,
    me: &SessionId,
) -> Result<Option<HookOutcome>, Failure> {
    if call.event.tool.as_ref().map(|t| t.class) != Some(ToolClass::Shell) {
        return Ok(None);
    }
    let mut failure = None;
    let mut wrap = |command: &str| match wrapped(call, core, me, command) {
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

/// `command` under the runner, or `None` when no peer claim has an existing path here or
/// the namespace cannot be set up for them.
fn wrapped(
    call: &Call,
    core: &mut Core,
    me: &SessionId,
    command: &str,
) -> Result<Option<String>, Failure> {
    let root = core.workspace().checkout_root().to_path_buf();
    let claims = core.guarded_file_claims_of_others(me)?;
    let confinement = confinement(&root, me, &claims, |p| p.symlink_metadata().is_ok());
    if confinement.read_only.is_empty() {
        return Ok(None);
    }
    call.deadline.check()?;
    // The runner is this very binary, under the name the kernel knows it by.
    let Ok(runner) = std::env::current_exe() else {
        return Ok(None);
    };
    // One path proves the kernel lets this process set the guard up; the runner sets up
    // the rest, and refuses to run the command if any of them fails.
    let Ok(plan) = Plan::new(&confinement.read_only[..1]) else {
        return Ok(None);
    };
    if namespace::probe(&plan).is_err() {
        return Ok(None);
    }
    let own = crate::hook::self_guard::own_files(call).confined();
    Ok(Some(runner_command(&runner, &confinement, &own, command)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::ClaimMode;
    use crate::core::resources::Resource;
    use crate::ids::{ClaimId, ParticipantId};

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

    #[test]
    fn only_peers_guarded_file_claims_on_existing_paths_inside_the_root() {
        let me = SessionId::parse("me").unwrap();
        let claims = [
            claim("file:src/**", "alice", Enforcement::Guarded),
            claim("file:README.md", "me", Enforcement::Guarded),
            claim("file:docs/**", "bob", Enforcement::Advisory),
            claim("file:missing/**", "bob", Enforcement::Guarded),
            claim("file:../other/x", "bob", Enforcement::Guarded),
            claim("file:/etc/passwd", "bob", Enforcement::Guarded),
            claim("git:refs/heads/main", "bob", Enforcement::Guarded),
            claim("file:src/a.rs", "bob", Enforcement::Guarded),
        ];
        let found = confinement(Path::new("/ws"), &me, &claims, |p| {
            !p.starts_with("/ws/missing")
        });
        assert_eq!(
            found.read_only,
            [PathBuf::from("/ws/src"), PathBuf::from("/ws/src/a.rs")]
        );
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
    fn a_path_claimed_twice_is_mounted_once_and_both_claims_are_named() {
        let me = SessionId::parse("me").unwrap();
        let claims = [
            claim("file:src/**", "alice", Enforcement::Guarded),
            claim("file:src/**", "bob", Enforcement::Guarded),
        ];
        let found = confinement(Path::new("/ws"), &me, &claims, |_| true);
        assert_eq!(found.read_only, [PathBuf::from("/ws/src")]);
        assert_eq!(found.claims.len(), 2);
    }

    #[test]
    fn no_peer_claim_means_no_confinement() {
        let me = SessionId::parse("me").unwrap();
        let mine = [claim("file:src/**", "me", Enforcement::Guarded)];
        assert_eq!(
            confinement(Path::new("/ws"), &me, &mine, |_| true),
            Confinement::default()
        );
    }

    #[test]
    fn the_runner_command_survives_the_shell_word_for_word() {
        let confinement = Confinement {
            read_only: vec!["/ws/it's src".into()],
            claims: vec![ClaimLine {
                resource: "file:it's/**".into(),
                participant: "alice".into(),
                session: "s1".into(),
            }],
        };
        let command = r#"python3 -c "open('src/x','w').write('$HOME')" && echo `date`"#;
        let own = [PathBuf::from("/data/acc")];
        let line = runner_command(Path::new("/opt/acc/acc-hook"), &confinement, &own, command);
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
}
