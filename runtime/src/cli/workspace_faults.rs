//! What `acc status` says about a workspace whose files changed under its conversations.
//!
//! The hook keeps every attached conversation in the workspace it was pinned to
//! ([`crate::workspace::pin`]) whatever the files say; `acc status` is where a person sees
//! that those files disagree: a root config that became invalid (status then still shows
//! the bound workspace's room instead of failing), or a directory that discovery now puts
//! in another workspace than the conversations attached there.

use super::context::Invocation;
use crate::core::Core;
use crate::error::{ErrorCode, Result};
use crate::paths;
use crate::store::OpenMode;
use crate::workspace::pin;

/// Opens the core for `status` and lists the faults found on the way.
pub fn open_for_status(inv: &Invocation<'_>) -> Result<(Core, Vec<String>)> {
    let home = paths::data_home(inv.env)?;
    let here = inv.cwd.canonicalize().unwrap_or_else(|_| inv.cwd.clone());
    let bound = pin::bound_workspaces_holding(&home, &here);
    match inv.workspace() {
        Ok(ws) => {
            let faults = bound
                .iter()
                .filter(|b| b.id != ws.id)
                .map(|b| {
                    format!(
                        "conversations attached in {:?} stay bound to workspace {}, not {} that this directory now resolves to",
                        b.checkout_root(),
                        b.id,
                        ws.id
                    )
                })
                .collect();
            Ok((
                Core::open(ws, &home, OpenMode::ReadOnly, inv.ports()?)?,
                faults,
            ))
        }
        Err(e) if e.code == ErrorCode::WorkspaceConfigInvalid => {
            // The guard keeps answering from the bound workspace; so does status, saying why.
            let Some(ws) = bound.into_iter().next() else {
                return Err(e);
            };
            let fault = format!(
                "{} ({}); attached conversations stay bound to workspace {} and their guard still answers",
                e.message,
                e.code.as_str(),
                ws.id
            );
            Ok((
                Core::open(ws, &home, OpenMode::ReadOnly, inv.ports()?)?,
                vec![fault],
            ))
        }
        Err(e) => Err(e),
    }
}
