//! claim, release.

use crate::cli::args::{ClaimArgs, ReleaseArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::cli::owner;
use crate::core::claims::ClaimRequest;
use crate::core::model::{Authority, ClaimMode, Enforcement};
use crate::core::resources::Resource;
use crate::error::Result;
use crate::ids::ClaimId;
use crate::store::OpenMode;

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
    let verb = if out.renewed { "renewed" } else { "claimed" };
    Ok(Output::new(format!("{verb} {}", out.claim.resource), out))
}

pub fn release(inv: &Invocation<'_>, a: ReleaseArgs) -> Result<Output> {
    let authority = a.authority.as_deref().map(Authority::parse).transpose()?;
    let claim = a.claim.as_deref().map(ClaimId::parse).transpose()?;
    if let Some(r) = &a.resource {
        Resource::parse(r)?;
    }
    let owner = match authority {
        // A forced release may come from a person with no session.
        Some(_) => owner::optional(&a.owner, inv.env)?,
        None => Some(owner::required(&a.owner, inv.env)?),
    };
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let out = match (authority, claim, owner) {
        (Some(auth), Some(id), owner) => {
            core.force_release(owner.as_ref(), &id, auth, a.reason.as_deref())?
        }
        (None, Some(id), Some(owner)) => core.release_claim(&owner, &id)?,
        (None, None, Some(owner)) => {
            let raw = a.resource.as_deref().unwrap_or_default();
            let resource = inv.resource(&core, raw)?;
            core.release_resource(&owner, &resource)?
        }
        _ => unreachable!("clap requires --claim or --resource, and --claim with --authority"),
    };
    Ok(Output::new(format!("released {}", out.claim_id), out))
}
