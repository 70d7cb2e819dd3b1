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

pub fn claim(inv: &Invocation<'_>, a: ClaimArgs) -> Result<Output> {
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
    )?;
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

/// The refusal the claims proof beside the store ([`crate::store::claims_proof`]) proves
/// for this claim, answered without opening SQLite (most racers for a resource lose, and
/// opening the store is most of a claim's cost). It answers only what the store path would
/// answer, byte for byte: the caller is no hooked client's (no binding, no pin with a
/// client), the claimant's session is open at its generation and was never a takeover's
/// taker, and the first live claim overlapping the resource, in the store's order, that is
/// not the claimant's is another participant's and conflicts, its holder online (a later
/// heartbeat keeps it so) or closed. Anything else, and every grant, takes the store path
/// (`None`). Nothing is written, as on the store path, whose refusal rolls back.
/// A claim that finds the token withdrawn (a write in progress) waits for that write's
/// publication ([`claims_proof::PUBLICATION_WAIT`] at most) and judges from it, where the
/// store path would have waited for the same writer's lock.
pub fn proven_conflict(inv: &Invocation<'_>, a: &ClaimArgs) -> Option<AccError> {
    use crate::core::claims::{DEFAULT_LEASE_SECONDS, Held, MAX_LEASE_SECONDS, conflict_error};
    use crate::core::model::{Presence, SessionState};
    use crate::core::presence::{PresenceFacts, compute};
    use crate::store::{claims_proof, schema, shared_listener, tamper};
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
    let proof = claims_proof::vouched_or_awaited(&store, claims_proof::PUBLICATION_WAIT)?;
    let ports = inv.ports().ok()?;
    let now = ports.now();
    if shared_listener::is_shared_tag(&proof.tag)
        || proof.schema_version != schema::current_version()
        || now < proof.written_at_ms
    {
        return None;
    }
    let me = proof.session(owner.session.as_str())?;
    if !me.open || me.generation != owner.generation.as_str() || me.taker {
        return None;
    }
    let wanted = wanted.resolve_against(ws.checkout_root());
    for held in &proof.claims {
        if held.expires_at_ms <= now
            || held.owner_session_id == owner.session.as_str()
            || !crate::core::resources::spellings_overlap(&held.resource, wanted.as_str())
        {
            continue;
        }
        // A claim the store's join would drop (its session gone) is not read there.
        let holder = proof.session(&held.owner_session_id)?;
        // The same participant's: inherited or not, only the store can tell.
        if holder.participant_id == me.participant_id {
            return None;
        }
        let held_mode = ClaimMode::parse(&held.mode).ok()?;
        if held_mode != ClaimMode::Exclusive && mode != ClaimMode::Exclusive {
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
        let presence = compute(facts, now, ports.pids.as_ref());
        // Heartbeats since the proof only make a session fresher: online stays online, and
        // a closed session is offline whatever its heartbeat.
        if holder.open && presence != Presence::Online {
            return None;
        }
        return Some(conflict_error(
            &wanted,
            &Held {
                claim_id: &ClaimId::from_store(held.claim_id.clone()),
                resource: &Resource::from_store(held.resource.clone()),
                mode: held_mode,
                owner_participant_id: &ParticipantId::from_store(holder.participant_id.clone()),
                owner_session_id: &SessionId::from_store(held.owner_session_id.clone()),
                expires_at: held.expires_at_ms,
            },
            presence,
        ));
    }
    None
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
