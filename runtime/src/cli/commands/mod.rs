//! One function per command: parse values, call the core, shape the output.

pub(crate) mod admin;
mod claims;
pub mod install;
mod messages;
mod room;
mod sessions;
mod takeover;

use super::args::Command;
use super::context::Invocation;
use super::output::Output;
use crate::cli::agent;
use crate::error::Result;

pub fn dispatch(inv: &Invocation<'_>, command: Command) -> Result<Output> {
    // A claim resolves the cwd, the data home, the worktree root and the claimed file in
    // its judge, then again in its caller check and its store path, each through the same
    // few directories: in one claim each component is looked at once (the hook call's
    // rule, `paths::remember_real_paths`), so every step judges one view of the paths.
    // A refused claim did 23 `readlink`s for 5 components. The next command looks again.
    let _real_paths = matches!(command, Command::Claim(_)).then(crate::paths::remember_real_paths);
    // A refusal the claims proof shows, before anything opens the store; otherwise the
    // claim's turn on the store path.
    let mut turn = None;
    if let Command::Claim(a) = &command {
        match claims::judge_from_proof(inv, a) {
            claims::Judged::Refused(refused) => return Err(refused),
            claims::Judged::Store(lock) => turn = lock,
        }
    }
    judge_agent(inv, &command)?;
    match command {
        Command::Attach(a) => sessions::attach(inv, a),
        Command::Heartbeat(a) => sessions::heartbeat(inv, a),
        Command::Detach(a) => sessions::detach(inv, a),
        Command::Status(a) => room::status(inv, a),
        Command::Watch(a) => room::watch(inv, a),
        Command::Sync(a) => room::sync(inv, a),
        Command::Work(a) => room::work(inv, a),
        Command::Claim(a) => claims::claim(inv, a, turn),
        Command::Release(a) => claims::release(inv, a),
        Command::Message(a) => messages::message(inv, a),
        Command::Request(a) => messages::request(inv, a),
        Command::Inbox(a) => messages::inbox(inv, a),
        Command::Reply(a) => messages::reply(inv, a),
        Command::Ack(a) => messages::ack(inv, a),
        Command::Finish(a) => messages::finish(inv, a),
        Command::Takeover(c) => takeover::takeover(inv, c),
        Command::Prune(a) => admin::prune(inv, a),
        Command::Config(c) => admin::config(inv, c),
        Command::Install(a) => install::install(inv, a),
        Command::Uninstall(a) => install::uninstall(inv, a),
        Command::Doctor(a) => install::doctor(inv, a),
        Command::Version => Ok(admin::version()),
    }
}

/// An agent acts only as itself ([`crate::cli::agent`]): under a hooked client, the commands
/// that change acc for everyone are refused, and so is any other session named. The store
/// opened for the look is the one the command then uses.
fn judge_agent(inv: &Invocation<'_>, command: &Command) -> Result<()> {
    let Ok(data_home) = crate::paths::data_home(inv.env) else {
        return Ok(());
    };
    let person_only = match command {
        Command::Install(_) => Some("install"),
        Command::Uninstall(_) => Some("uninstall"),
        Command::Prune(_) => Some("prune"),
        Command::Config(crate::cli::args::ConfigCommand::Init(_)) => Some("config init"),
        _ => None,
    };
    if let Some(name) = person_only {
        // The workspace's store, where there is one, knows hooked clients too (a pin may
        // be missing); without one, the pins under the data home decide.
        return match inv.open(crate::store::OpenMode::ReadOnly) {
            Ok(mut core) => agent::require_person(Some(&mut core), &data_home, name),
            Err(_) => agent::require_person(None, &data_home, name),
        };
    }
    if let Command::Attach(a) = command {
        // No store yet: nobody is live under any name.
        return match inv.open(crate::store::OpenMode::ReadOnly) {
            Ok(mut core) => agent::require_free_name(&mut core, &data_home, &a.participant),
            Err(_) => Ok(()),
        };
    }
    let owner_args = match command {
        Command::Heartbeat(a) => &a.owner,
        Command::Detach(a) => &a.owner,
        Command::Status(a) => &a.owner,
        Command::Sync(a) => &a.owner,
        Command::Work(a) => &a.owner,
        Command::Claim(a) => &a.owner,
        // A forced release is judged as a person's act by `cli::person`, with its own reason.
        Command::Release(a) if a.authority.is_some() => return Ok(()),
        Command::Release(a) => &a.owner,
        Command::Message(a) => &a.owner,
        Command::Request(a) => &a.owner,
        Command::Inbox(a) => &a.owner,
        Command::Reply(a) => &a.owner,
        Command::Ack(a) => &a.owner,
        Command::Finish(a) => &a.owner,
        _ => return Ok(()),
    };
    let Some(owner) = crate::cli::owner::optional(owner_args, inv.env)? else {
        return Ok(());
    };
    inv.with_core(|core| {
        // No hooked client known (no pin names one, no binding is recorded): the caller is
        // no agent's, and no session has a live client to act outside of. One row read
        // instead of the three statements that would find nothing.
        let hooked = !crate::workspace::pin::client_pids(&data_home).is_empty()
            || core.has_hook_bindings()?;
        if hooked {
            agent::require_own_session(core, &data_home, &owner)?;
        }
        tell_outside_act(core, &data_home, &owner, command, hooked)
    })
}

/// A command run with a live agent session's credentials from outside its client is told to
/// that session and shown in status and watch (core::takeovers); a release or detach is held
/// by the command itself, and a session held since it attached under a live name claims
/// nothing.
fn tell_outside_act(
    core: &mut crate::core::Core,
    data_home: &std::path::Path,
    owner: &crate::core::Owner,
    command: &Command,
    hooked: bool,
) -> Result<()> {
    use crate::core::takeovers::{TakeoverKind, TakeoverRequest};
    use crate::error::{AccError, ErrorCode};
    let name = match command {
        // Read only, or held by the command itself.
        Command::Status(_) | Command::Release(_) | Command::Detach(_) => return Ok(()),
        Command::Heartbeat(_) => "heartbeat",
        Command::Sync(_) => "sync",
        Command::Work(_) => "work",
        Command::Claim(_) => "claim",
        Command::Message(_) => "message",
        Command::Request(_) => "request",
        Command::Inbox(_) => "inbox",
        Command::Reply(_) => "reply",
        Command::Ack(_) => "ack",
        Command::Finish(_) => "finish",
        _ => return Ok(()),
    };
    // Wrong credentials fail in the command itself, with its own error; nothing to tell.
    if core.check_owner(owner).is_err() {
        return Ok(());
    }
    if matches!(command, Command::Claim(_) | Command::Finish(_))
        && let Some(t) = core.held_taker(&owner.session)?
    {
        return Err(AccError::new(
            ErrorCode::TakeoverHeld,
            format!(
                "session {} attached under the name of a live agent session ({}) from outside that session's client, and takeover {} is held: it claims nothing until {} or a person confirms (`acc takeover confirm {}`)",
                owner.session,
                t.owner_session_id,
                t.sequence.0,
                t.owner_participant_id.as_deref().unwrap_or("its owner"),
                t.sequence.0
            ),
        )
        .with("takeover", t.sequence.0));
    }
    if !hooked {
        return Ok(());
    }
    let Some(out) = crate::cli::takeover::outside(core, data_home, &owner.session)? else {
        return Ok(());
    };
    core.record_takeover(
        None,
        &TakeoverRequest {
            kind: TakeoverKind::ActedAs,
            owner_session_id: owner.session.clone(),
            claim_id: None,
            taker_session_id: None,
            command: name.into(),
            process: out.process,
            held: false,
            authority: None,
            reason: None,
        },
    )?;
    Ok(())
}
