//! claim, release.

use crate::cli::args::{ClaimArgs, ReleaseArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::cli::owner;
use crate::cli::person;
use crate::core::claims::ClaimRequest;
use crate::core::model::{Authority, ClaimMode, Enforcement};
use crate::core::resources::Resource;
use crate::error::{AccError, Result};
use crate::ids::ClaimId;
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
    let out = match (authority, target) {
        (Some(auth), Target::Claim(id)) => {
            // A forced release may come from a person with no session.
            let owner = owner::optional(&a.owner, inv.env)?;
            let mut core = inv.open(OpenMode::ReadOnly)?;
            // Only a person may assert an authority (cli::person); checked before anything
            // is written.
            let mut hooked: BTreeSet<u32> = core.hooked_client_pids()?.into_iter().collect();
            hooked.extend(pin::client_pids(&paths::data_home(inv.env)?));
            person::require(&hooked, auth.as_str())?;
            core.force_release(owner.as_ref(), &id, auth, a.reason.as_deref())?
        }
        (_, Target::Claim(id)) => {
            let owner = owner::required(&a.owner, inv.env)?;
            let mut core = inv.open(OpenMode::ReadOnly)?;
            core.release_claim(&owner, &id)?
        }
        (_, Target::Resource(raw)) => {
            let owner = owner::required(&a.owner, inv.env)?;
            let mut core = inv.open(OpenMode::ReadOnly)?;
            let resource = inv.resource(&core, raw)?;
            core.release_resource(&owner, &resource)?
        }
    };
    Ok(Output::new(format!("released {}", out.claim_id), out))
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
