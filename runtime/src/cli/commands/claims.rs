//! claim, release.

use crate::cli::args::{ClaimArgs, ReleaseArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::cli::owner;
use crate::cli::person;
use crate::cli::takeover;
use crate::core::claims::ClaimRequest;
use crate::core::model::{Authority, ClaimMode, Enforcement};
use crate::core::resources::Resource;
use crate::core::takeovers::{Takeover, TakeoverKind, TakeoverRequest};
use crate::core::{Core, Owner};
use crate::error::{AccError, Result};
use crate::ids::{ClaimId, ParticipantId, SessionId};
use crate::paths;
use crate::store::OpenMode;
use crate::workspace::pin;
use std::collections::BTreeSet;

/// `turn` is the claims lock [`judge_from_proof`] took: held until this claim's write is
/// published (inside [`Core::claim`]), so a racer waiting for it judges from that
/// publication; let go before this claim's checkpoint and the store's close, which nobody
/// waits for.
pub fn claim(
    inv: &Invocation<'_>,
    a: ClaimArgs,
    turn: Option<crate::store::claim_lock::ClaimLock>,
) -> Result<Output> {
    let owner = owner::required(&a.owner, inv.env)?;
    // Syntax first, so a bad spelling is refused before any store is touched.
    Resource::parse(&a.resource)?;
    let mode = ClaimMode::parse(&a.mode)?;
    let enforcement = Enforcement::parse(&a.enforcement)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let resource = inv.resource(&core, &a.resource)?;
    let out = core.claim(
        &owner,
        ClaimRequest {
            resource,
            mode,
            enforcement,
            reason: a.reason,
            lease_seconds: a.lease,
        },
    );
    drop(turn);
    // Outside the turn: the next claim opens, writes and publishes while this one syncs,
    // and `claimed` is printed only once the claim is on disk.
    if out.is_ok() {
        core.checkpoint_before_close();
    }
    let out = out?;
    let line = match (&out.adopted_from, out.renewed) {
        (Some(from), _) => format!(
            "adopted {} ({}) from ended session {from}",
            out.claim.resource, out.claim.claim_id
        ),
        (None, true) => format!("renewed {}", out.claim.resource),
        (None, false) => format!("claimed {}", out.claim.resource),
    };
    Ok(Output::new(line, out))
}

/// How [`judge_from_proof`] decided; with `ACC_BENCH_CLAIM_PATH=1` the claim names it on
/// stderr (the race bench counts them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    /// Refused from the proof published when the claim started.
    Proof,
    /// Refused from the proof the claim before it on the store path published.
    ProofAfterTurn,
    /// Refused from the proof a write in progress published (its token was withdrawn).
    ProofAfterToken,
    /// To the store: the claim's own checks or the caller rule the proof out.
    StoreChecks,
    /// To the store: no proof is vouched for (none published, a write in progress that did
    /// not publish in time, a store the proof cannot describe).
    StoreNoProof,
    /// To the store: the proof shows no conflict the store path would refuse.
    StoreNoConflict,
    /// To the store without the turn: another holder kept the lock past the wait.
    StoreTimedOut,
}

impl Path {
    fn name(self) -> &'static str {
        match self {
            Path::Proof => "proof",
            Path::ProofAfterTurn => "proof-after-turn",
            Path::ProofAfterToken => "proof-after-token",
            Path::StoreChecks => "store-checks",
            Path::StoreNoProof => "store-no-proof",
            Path::StoreNoConflict => "store-no-conflict",
            Path::StoreTimedOut => "store-timed-out",
        }
    }
}

/// What a claim does after [`judge_from_proof`].
pub enum Judged {
    /// Refused from the proof, without opening SQLite.
    Refused(AccError),
    /// The store path, holding the claims lock when it could be had
    /// ([`crate::store::claim_lock`]): passed to [`claim`], which lets go once its write is
    /// published.
    Store(Option<crate::store::claim_lock::ClaimLock>),
}

/// Judges a claim from the claims proof beside the store
/// ([`crate::store::claims_proof`]) before anything opens SQLite (most racers for a
/// resource lose, and opening the store is most of a claim's cost). A claim the proof
/// published now cannot refuse takes the claims lock, the turn to go to the store; one
/// that finds another claim holding it waits for that claim's publication (no CPU spent)
/// and judges again from it, where the store path would have waited for the same writer's
/// SQLite lock and then been refused by the store.
pub fn judge_from_proof(inv: &Invocation<'_>, a: &ClaimArgs) -> Judged {
    use crate::store::claim_lock::{self, Turn};
    use crate::store::claims_proof::{self, PUBLICATION_WAIT};
    let (path, judged) = match Judge::new(inv, a) {
        None => (Path::StoreChecks, Judged::Store(None)),
        Some(judge) => {
            // `None`: no proof vouched for; `Some(None)`: one that refuses nothing.
            let first = claims_proof::vouched(&judge.store, |p| judge.refusal(p));
            let first_vouched = first.is_some();
            match first.flatten() {
                Some(refused) => (Path::Proof, Judged::Refused(refused)),
                None => {
                    // Asked at each close while waiting: the proof published now (a token
                    // withdrawn means a write in progress: not waited on here, the lock's
                    // holder is still writing).
                    let mut early = None;
                    let settled = || {
                        early = claims_proof::vouched(&judge.store, |p| judge.refusal(p)).flatten();
                        early.is_some()
                    };
                    let (lock, waited) =
                        match claim_lock::take(&judge.store, claim_lock::WAIT, settled) {
                            Turn::Free(lock) => (Some(lock), false),
                            Turn::AfterAnother(lock) => (Some(lock), true),
                            Turn::Settled => (None, true),
                            Turn::Without { waited } => (None, waited),
                        };
                    if let Some(refused) = early {
                        let judged = (Path::ProofAfterTurn, Judged::Refused(refused));
                        return finish(inv, judged);
                    }
                    // Judged again when something may have been published since the first
                    // look: another claim's turn ended (or was waited for), or a write in
                    // progress had withdrawn the token. Whatever the lock, a refusal is only
                    // taken from a proof the token vouches for.
                    let again = (waited || !first_vouched)
                        .then(|| {
                            claims_proof::vouched_or_awaited(&judge.store, PUBLICATION_WAIT, |p| {
                                judge.refusal(p)
                            })
                        })
                        .flatten();
                    let again_vouched = again.is_some();
                    match again.flatten() {
                        Some(refused) if waited => (Path::ProofAfterTurn, Judged::Refused(refused)),
                        Some(refused) => (Path::ProofAfterToken, Judged::Refused(refused)),
                        None if waited && lock.is_none() => {
                            (Path::StoreTimedOut, Judged::Store(None))
                        }
                        None if !again_vouched && !first_vouched => {
                            (Path::StoreNoProof, Judged::Store(lock))
                        }
                        None => (Path::StoreNoConflict, Judged::Store(lock)),
                    }
                }
            }
        }
    };
    finish(inv, (path, judged))
}

fn finish(inv: &Invocation<'_>, (path, judged): (Path, Judged)) -> Judged {
    if inv.env.get("ACC_BENCH_CLAIM_PATH") == Some("1") {
        eprintln!("acc claim path: {}", path.name());
    }
    judged
}

/// What the proof must match for this claim: the checks the store path makes before it
/// reads the claims, done once.
struct Judge {
    owner: Owner,
    wanted: Resource,
    mode: ClaimMode,
    store: std::path::PathBuf,
    ports: crate::Ports,
}

impl Judge {
    /// `None` when the proof cannot answer for this claim or caller: the caller is a hooked
    /// client's (a binding, a pin with a client), the store is shared or marked as
    /// tampered with, or the claim's own syntax is for the store path to refuse.
    fn new(inv: &Invocation<'_>, a: &ClaimArgs) -> Option<Judge> {
        use crate::core::claims::{DEFAULT_LEASE_SECONDS, MAX_LEASE_SECONDS};
        use crate::store::tamper;
        let owner = owner::optional(&a.owner, inv.env).ok()??;
        let wanted = Resource::parse(&a.resource).ok()?;
        let mode = ClaimMode::parse(&a.mode).ok()?;
        Enforcement::parse(&a.enforcement).ok()?;
        if let Some(reason) = &a.reason {
            crate::text::check_peer_line("reason", reason).ok()?;
        }
        let lease = a.lease.unwrap_or(DEFAULT_LEASE_SECONDS);
        if lease == 0 || lease > MAX_LEASE_SECONDS {
            return None;
        }
        let data_home = paths::data_home(inv.env).ok()?;
        let ws = inv.workspace().ok()?;
        if ws.shared.is_some() || paths::refuse_inside_roots(&data_home, &ws.roots).is_err() {
            return None;
        }
        // A caller under a hooked client is judged from the process table and its bindings.
        if pin::all(&data_home)
            .iter()
            .any(|p| p.facts.client_pid.is_some())
        {
            return None;
        }
        let store = paths::store_file(&data_home, &ws.id);
        if tamper::marked(&store) {
            return None;
        }
        Some(Judge {
            owner,
            wanted: wanted.resolve_against(ws.checkout_root()),
            mode,
            store,
            ports: inv.ports().ok()?,
        })
    }

    /// The refusal `proof` proves for this claim, byte for byte the store path's: the
    /// claimant's session is open at its generation and was never a takeover's taker, and
    /// the first live claim overlapping the resource, in the store's order, that is not the
    /// claimant's is another participant's and conflicts, its holder online (a later
    /// heartbeat keeps it so) or closed. Anything else is for the store (`None`). Nothing
    /// is written, as on the store path, whose refusal rolls back.
    fn refusal(&self, proof: &crate::store::claims_proof::Proof<'_>) -> Option<AccError> {
        use crate::core::claims::{Held, conflict_error};
        use crate::core::model::{Presence, SessionState};
        use crate::core::presence::{PresenceFacts, compute};
        use crate::store::{schema, shared_listener};
        let owner = &self.owner;
        let now = self.ports.now();
        if shared_listener::is_shared_tag(proof.tag)
            || proof.schema_version != schema::current_version()
            || now < proof.written_at_ms
        {
            return None;
        }
        let me = proof.session(owner.session.as_str())?;
        if !me.open || me.generation != owner.generation.as_str() || me.taker {
            return None;
        }
        let wanted = &self.wanted;
        for held in &proof.claims {
            if held.expires_at_ms <= now
                || held.owner_session_id == owner.session.as_str()
                || !crate::core::resources::spellings_overlap(held.resource, wanted.as_str())
            {
                continue;
            }
            // A claim the store's join would drop (its session gone) is not read there.
            let holder = proof.session(held.owner_session_id)?;
            // The same participant's: inherited or not, only the store can tell.
            if holder.participant_id == me.participant_id {
                return None;
            }
            let held_mode = ClaimMode::parse(held.mode).ok()?;
            if held_mode != ClaimMode::Exclusive && self.mode != ClaimMode::Exclusive {
                continue;
            }
            let facts = PresenceFacts {
                state: if holder.open {
                    SessionState::Open
                } else {
                    SessionState::Closed
                },
                heartbeat_at_ms: holder.heartbeat_at_ms,
                cadence_ms: holder.cadence_ms,
                pid: holder.pid,
                host_pid: holder.host_pid,
            };
            let presence = compute(facts, now, self.ports.pids.as_ref());
            // Heartbeats since the proof only make a session fresher: online stays online,
            // and a closed session is offline whatever its heartbeat.
            if holder.open && presence != Presence::Online {
                return None;
            }
            return Some(conflict_error(
                wanted,
                &Held {
                    claim_id: &ClaimId::from_store(held.claim_id.to_string()),
                    resource: &Resource::from_store(held.resource.to_string()),
                    mode: held_mode,
                    owner_participant_id: &ParticipantId::from_store(
                        holder.participant_id.to_string(),
                    ),
                    owner_session_id: &SessionId::from_store(held.owner_session_id.to_string()),
                    expires_at: held.expires_at_ms,
                },
                presence,
            ));
        }
        None
    }
}

/// What `acc release` names: a claim by id, or this session's claim on a resource.
enum Target<'a> {
    Claim(ClaimId),
    Resource(&'a str),
}

pub fn release(inv: &Invocation<'_>, a: ReleaseArgs) -> Result<Output> {
    let authority = a.authority.as_deref().map(Authority::parse).transpose()?;
    let target = match (a.claim.as_deref(), a.resource.as_deref()) {
        (Some(id), None) => Target::Claim(ClaimId::parse(id)?),
        (None, Some(raw)) => {
            Resource::parse(raw)?;
            Target::Resource(raw)
        }
        (Some(_), Some(_)) => {
            return Err(AccError::usage(
                "pass --claim or --resource, not both; see `acc release --help`",
            ));
        }
        (None, None) => {
            return Err(AccError::usage(
                "acc release needs --claim <CLAIM> or --resource <RESOURCE>; see `acc release --help`",
            ));
        }
    };
    // Checked before any store is opened, so a refused release touches nothing.
    if let (Some(auth), Target::Resource(raw)) = (authority, &target) {
        return Err(AccError::usage(format!(
            "--authority {auth} releases another session's claim by its id: pass --claim <CLAIM> instead of --resource {raw} (`acc status --json` lists claim ids); see `acc release --help`"
        ))
        .with("flag", "--authority"));
    }
    let data_home = paths::data_home(inv.env)?;
    let out = match (authority, target) {
        (Some(auth), Target::Claim(id)) => {
            // A forced release may come from a person with no session.
            let owner = owner::optional(&a.owner, inv.env)?;
            let mut core = inv.open(OpenMode::ReadOnly)?;
            // Only a person may assert an authority (cli::person); checked before anything
            // is written.
            let mut hooked: BTreeSet<u32> = core.hooked_client_pids()?.into_iter().collect();
            hooked.extend(pin::client_pids(&data_home));
            person::require(&hooked, auth.as_str())?;
            if let Some(o) = &owner {
                core.check_owner(o)?;
            }
            // Every forced release is told to the claim's owner; one that reaches a live
            // agent waits for it or for a person (core::takeovers).
            let holder = core.claim_owner(&id)?;
            let outside = match &holder {
                Some(h) => takeover::outside(&mut core, &data_home, h)?,
                None => None,
            };
            let request = |held: bool, holder| TakeoverRequest {
                kind: TakeoverKind::ForcedRelease,
                owner_session_id: holder,
                claim_id: Some(id.clone()),
                taker_session_id: None,
                command: "release".into(),
                process: outside
                    .as_ref()
                    .map_or_else(takeover::this_chain, |o| o.process.clone()),
                held,
                authority: Some(auth),
                reason: a.reason.clone(),
            };
            if let (Some(out), Some(h)) = (&outside, &holder) {
                let actor = owner.as_ref().map(|o| &o.session);
                let t = core.record_takeover(actor, &request(true, h.clone()))?;
                return Ok(held(&t, out.client_pid));
            }
            let released = core.force_release(owner.as_ref(), &id, auth, a.reason.as_deref())?;
            core.record_takeover(
                owner.as_ref().map(|o| &o.session),
                &request(false, released.owner_session_id.clone()),
            )?;
            released
        }
        (_, Target::Claim(id)) => {
            let owner = owner::required(&a.owner, inv.env)?;
            let mut core = inv.open(OpenMode::ReadOnly)?;
            if let Some(out) = held_release(&mut core, &data_home, &owner, Some(&id))? {
                return Ok(out);
            }
            core.release_claim(&owner, &id)?
        }
        (_, Target::Resource(raw)) => {
            let owner = owner::required(&a.owner, inv.env)?;
            let mut core = inv.open(OpenMode::ReadOnly)?;
            let resource = inv.resource(&core, raw)?;
            let id = core.own_claim_on(&owner, &resource)?;
            if let Some(out) = held_release(&mut core, &data_home, &owner, id.as_ref())? {
                return Ok(out);
            }
            core.release_resource(&owner, &resource)?
        }
    };
    Ok(Output::new(format!("released {}", out.claim_id), out))
}

/// A release of a live agent's own claim, asked with its credentials from outside its
/// client, is held until the owner or a person confirms (core::takeovers).
fn held_release(
    core: &mut Core,
    data_home: &std::path::Path,
    owner: &Owner,
    claim: Option<&ClaimId>,
) -> Result<Option<Output>> {
    let Some(claim) = claim else {
        return Ok(None);
    };
    core.check_owner(owner)?;
    let Some(out) = takeover::outside(core, data_home, &owner.session)? else {
        return Ok(None);
    };
    let t = core.record_takeover(
        None,
        &TakeoverRequest {
            kind: TakeoverKind::Release,
            owner_session_id: owner.session.clone(),
            claim_id: Some(claim.clone()),
            taker_session_id: None,
            command: "release".into(),
            process: out.process,
            held: true,
            authority: None,
            reason: None,
        },
    )?;
    Ok(Some(held(&t, out.client_pid)))
}

/// The output of a held takeover: exit 0 (it is recorded), `state: held` in the JSON.
pub(super) fn held(t: &Takeover, client_pid: u32) -> Output {
    Output::new(
        takeover::held_line(t, client_pid),
        serde_json::json!({ "state": "held", "takeover": t }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::OwnerArgs;
    use crate::env::Env;

    fn release_args(claim: Option<&str>, resource: Option<&str>) -> ReleaseArgs {
        ReleaseArgs {
            owner: OwnerArgs {
                session: Some("session_AAAAAAAAAAAAAAAAAAAAAA".into()),
                generation: Some("generation_AAAAAAAAAAAAAAAAAAAAAA".into()),
            },
            claim: claim.map(Into::into),
            resource: resource.map(Into::into),
            authority: Some("human".into()),
            reason: None,
        }
    }

    #[test]
    fn authority_with_a_resource_is_a_usage_error_before_the_store_is_opened() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("data");
        let env = Env::new().with("ACC_DATA_HOME", home.to_str().unwrap());
        let inv = Invocation::new(&env, dir.path(), None);
        let e = release(&inv, release_args(None, Some("file:z.rs")))
            .err()
            .expect("refused");
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.message.contains("--claim") && e.message.contains("acc release --help"),
            "{}",
            e.message
        );
        for (claim, resource) in [(None, None), (Some("claim_x"), Some("file:z.rs"))] {
            let e = release(&inv, release_args(claim, resource))
                .err()
                .expect("refused");
            assert_eq!(e.exit_code(), 2, "{}", e.message);
        }
        assert!(!home.exists(), "nothing was written");
    }
}
