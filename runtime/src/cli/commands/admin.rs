//! prune, config init / validate, version.

use crate::cli::args::{ConfigCommand, InitArgs, PruneArgs};
use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::core::model::PruneClass;
use crate::core::prune::{PruneReport, PruneRequest};
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::EventSeq;
use crate::paths::realpath_lenient;
use crate::store::OpenMode;
use crate::workspace::config::{self, CONFIG_FILE};
use crate::workspace::hashed_id;
use serde_json::json;
use std::io::IsTerminal;

pub fn prune(inv: &Invocation<'_>, a: PruneArgs) -> Result<Output> {
    let classes = a
        .classes
        .iter()
        .map(|c| PruneClass::parse(c))
        .collect::<Result<Vec<_>>>()?;
    let before = a.before.as_deref().map(EventSeq::parse).transpose()?;
    let mut core = inv.open(OpenMode::ReadOnly)?;
    let r = core.prune(PruneRequest {
        apply: a.apply,
        classes,
        before,
    })?;
    Ok(Output::new(prune_line(&r), r))
}

fn prune_line(r: &PruneReport) -> String {
    let counts = format!(
        "{} session(s), {} intent(s), {} claim(s), {} participant(s), {} event(s)",
        r.sessions.len(),
        r.intents.len(),
        r.claims.len(),
        r.participants.len(),
        r.events
    );
    if r.applied {
        format!("pruned {counts}")
    } else {
        format!("would prune {counts}; rerun with --apply")
    }
}

pub fn config(inv: &Invocation<'_>, c: ConfigCommand) -> Result<Output> {
    match c {
        ConfigCommand::Init(a) => init(inv, a),
        ConfigCommand::Validate => validate(inv),
    }
}

fn the_dir(inv: &Invocation<'_>) -> Result<std::path::PathBuf> {
    let dir = inv
        .cwd
        .canonicalize()
        .map_err(|e| AccError::usage(format!("cannot use directory {}: {e}", inv.cwd.display())))?;
    Ok(dir)
}

fn validate(inv: &Invocation<'_>) -> Result<Output> {
    let dir = the_dir(inv)?;
    let path = dir.join(CONFIG_FILE);
    match config::read_no_follow(&path)? {
        None => Ok(Output::new(
            format!("no {CONFIG_FILE} in {}", dir.display()),
            json!({ "file": null, "valid": null }),
        )),
        Some(text) => {
            let cfg = config::parse_config(&text, &path)?;
            config::resolve_roots(&cfg, &dir, &path)?;
            Ok(Output::new(
                format!("{} is valid", path.display()),
                json!({ "file": path.display().to_string(), "valid": true, "workspaceId": cfg.workspace_id }),
            ))
        }
    }
}

fn init(inv: &Invocation<'_>, a: InitArgs) -> Result<Output> {
    let dir = the_dir(inv)?;
    let path = dir.join(CONFIG_FILE);
    let exists = std::fs::symlink_metadata(&path).is_ok();
    if exists && !a.force {
        return Err(AccError::new(
            ErrorCode::AlreadyExists,
            format!(
                "{} already exists; pass --force to overwrite it",
                path.display()
            ),
        )
        .with("file", path.display().to_string()));
    }
    // Keep the id acc uses here today, so existing sessions, claims and messages carry over.
    let current = inv.workspace().ok();
    let id = current
        .as_ref()
        .map(|w| w.id.clone())
        .unwrap_or_else(|| hashed_id(&realpath_lenient(&dir)));
    if !a.force {
        let mut core = inv.open(OpenMode::ReadOnly)?;
        let open = core.status(None, false)?.counts.live_sessions;
        if open > 0 {
            return Err(AccError::new(
                ErrorCode::SessionsAttached,
                format!(
                    "{open} session(s) are attached in this workspace; pass --force to write {CONFIG_FILE} anyway"
                ),
            ));
        }
    }
    if !a.yes {
        if !std::io::stdin().is_terminal() {
            return Err(AccError::new(
                ErrorCode::ConfirmationRequired,
                format!(
                    "acc config init would write {}; pass --yes to confirm",
                    path.display()
                ),
            ));
        }
        eprint!("write {}? [y/N] ", path.display());
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            return Err(AccError::new(
                ErrorCode::ConfirmationRequired,
                "nothing written",
            ));
        }
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "workspace".into());
    let text = config::render_config(&id, &name);
    crate::atomic_write::AtomicWrite::new().write(&path, text.as_bytes())?;
    Ok(Output::new(
        format!("wrote {}", path.display()),
        json!({ "file": path.display().to_string(), "workspaceId": id }),
    ))
}

pub fn version() -> Output {
    let v = env!("CARGO_PKG_VERSION");
    Output::new(format!("acc {v}"), json!({ "version": v }))
}
