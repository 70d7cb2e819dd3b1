//! One function per command: parse values, call the core, shape the output.

pub(crate) mod admin;
mod claims;
pub mod install;
mod messages;
mod room;
mod sessions;

use super::args::Command;
use super::context::Invocation;
use super::output::Output;
use crate::error::Result;

pub fn dispatch(inv: &Invocation<'_>, command: Command) -> Result<Output> {
    match command {
        Command::Attach(a) => sessions::attach(inv, a),
        Command::Heartbeat(a) => sessions::heartbeat(inv, a),
        Command::Detach(a) => sessions::detach(inv, a),
        Command::Status(a) => room::status(inv, a),
        Command::Watch(a) => room::watch(inv, a),
        Command::Sync(a) => room::sync(inv, a),
        Command::Work(a) => room::work(inv, a),
        Command::Claim(a) => claims::claim(inv, a),
        Command::Release(a) => claims::release(inv, a),
        Command::Message(a) => messages::message(inv, a),
        Command::Request(a) => messages::request(inv, a),
        Command::Inbox(a) => messages::inbox(inv, a),
        Command::Reply(a) => messages::reply(inv, a),
        Command::Ack(a) => messages::ack(inv, a),
        Command::Finish(a) => messages::finish(inv, a),
        Command::Prune(a) => admin::prune(inv, a),
        Command::Config(c) => admin::config(inv, c),
        Command::Install(a) => install::install(inv, a),
        Command::Uninstall(a) => install::uninstall(inv, a),
        Command::Doctor(a) => install::doctor(inv, a),
        Command::Version => Ok(admin::version()),
    }
}
