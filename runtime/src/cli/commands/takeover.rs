//! takeover list, confirm, refuse.

use crate::cli::args::{TakeoverCommand, TakeoverListArgs, TakeoverSettleArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::cli::person::{Surroundings, judge as judge_person};
use crate::cli::{owner, takeover as outside};
use crate::core::takeovers::{Settlement, Settler, Takeover, process_line};
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::EventSeq;
use crate::store::OpenMode;
use crate::workspace::pin;
use acc_sdk::identity::system_process_table;
use acc_sdk::peer_text::display;
use acc_sdk::projector::neutralise::neutralise_inline;
use serde_json::json;
use std::collections::BTreeSet;

pub fn takeover(inv: &Invocation<'_>, c: TakeoverCommand) -> Result<Output> {
    match c {
        TakeoverCommand::List(a) => list(inv, a),
        TakeoverCommand::Confirm(a) => settle(inv, a, Settlement::Confirm),
        TakeoverCommand::Refuse(a) => settle(inv, a, Settlement::Refuse),
    }
}

/// One takeover on one line, every stored text escaped (the caller chose its process names).
pub fn line(t: &Takeover) -> String {
    let owner = t
        .owner_participant_id
        .as_deref()
        .map_or_else(|| display(&t.owner_session_id), display);
    let mut out = format!(
        "{} {} {} {} of {owner}",
        t.sequence.0,
        display(&t.occurred_at),
        t.state.as_str(),
        t.kind.as_str(),
    );
    if let Some(claim) = &t.claim_id {
        out.push_str(&format!(" claim {}", display(claim)));
        if let Some(resource) = &t.claim_resource {
            out.push_str(&format!(" ({})", neutralise_inline(resource)));
        }
    }
    if let Some(taker) = &t.taker_session_id {
        out.push_str(&format!(" by session {}", display(taker)));
    }
    out.push_str(&format!(
        " from processes {}",
        neutralise_inline(&format!("{:?}", process_line(&t.process)))
    ));
    out
}

fn list(inv: &Invocation<'_>, a: TakeoverListArgs) -> Result<Output> {
    let owner = owner::optional(&a.owner, inv.env)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let mut found = core.takeovers(owner.as_ref().map(|o| &o.session), EventSeq(0))?;
    if a.held {
        found.listed.retain(Takeover::is_held);
    }
    let human = if found.listed.is_empty() {
        "no takeovers".to_string()
    } else {
        let mut lines: Vec<String> = found.listed.iter().map(line).collect();
        if found.total > found.listed.len() as u64 && !a.held {
            lines.push(format!(
                "and {} earlier (`acc sync --types session.takeover`)",
                found.total - found.listed.len() as u64
            ));
        }
        lines.join("\n")
    };
    Ok(Output::new(human, found))
}

fn settle(inv: &Invocation<'_>, a: TakeoverSettleArgs, settlement: Settlement) -> Result<Output> {
    let owner = owner::optional(&a.owner, inv.env)?;
    let data_home = crate::paths::data_home(inv.env)?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let seq = EventSeq(a.takeover);
    let settler = match &owner {
        Some(owner) => {
            core.check_owner(owner)?;
            // The owner settles from inside its own client; from outside it is the very
            // kind of caller a takeover is held against.
            if let Some(out) = outside::outside(&mut core, &data_home, &owner.session)? {
                return Err(AccError::new(
                    ErrorCode::AgentActsAsAnother,
                    format!(
                        "session {} runs in live process {}, and this command does not run under it: its owner settles a takeover from its own session; otherwise a person runs `acc takeover {} {}` in a terminal without --session",
                        owner.session,
                        out.client_pid,
                        verb(settlement),
                        seq.0
                    ),
                )
                .with("why", "outsideOwnClient")
                .with("clientPid", out.client_pid));
            }
            Settler::Owner {
                session_id: owner.session.as_str().to_string(),
            }
        }
        None => {
            let mut hooked: BTreeSet<u32> = core.hooked_client_pids()?.into_iter().collect();
            hooked.extend(pin::client_pids(&data_home));
            let table = system_process_table();
            judge_person(&Surroundings::of_this_process(table.as_ref()), &hooked).map_err(|_| {
                AccError::new(
                    ErrorCode::AuthorityNeedsPerson,
                    format!(
                        "settling takeover {} needs its owner (pass its --session and --generation from inside its own session) or a person (stdin and stderr terminals, no hooked agent among the ancestors): ask the user to run `acc takeover {} {}` in their own terminal",
                        seq.0,
                        verb(settlement),
                        seq.0
                    ),
                )
                .with("why", "needsOwnerOrPerson")
            })?;
            Settler::Person
        }
    };
    let t = core.settle_takeover(seq, settlement, &settler)?;
    Ok(Output::new(
        format!("{} takeover {}: {}", t.state.as_str(), seq.0, line(&t)),
        json!({ "takeover": t }),
    ))
}

fn verb(s: Settlement) -> &'static str {
    match s {
        Settlement::Confirm => "confirm",
        Settlement::Refuse => "refuse",
    }
}
