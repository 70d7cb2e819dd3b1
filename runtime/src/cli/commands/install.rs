//! `acc install`, `acc uninstall` and `acc doctor`: build the install context from the
//! invocation, run the installer, and print what it did.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use crate::cli::context::Invocation;
use crate::cli::output::Output;
use crate::error::{AccError, ErrorCode, Result};
use crate::installer::doctor::{ArtifactState, DoctorRun};
use crate::installer::report::{AdapterOutcome, RunAction, RunReport, command_for, home_flag};
use crate::installer::{
    self, ContextRequest, InstallError, InstallErrorKind, InstallOptions, UninstallOptions,
};
use acc_sdk::install::{DiagnosticLevel, InstallContext};

pub const INSTALL_ABOUT: &str = "Wire acc's hooks and skill into the coding agents on this machine. Without --adapter, every client whose `<command> --version` answers is wired and every other one is named with the reason it was skipped. Each client's files are written where the real client reads them; user files keep their formatting and their original bytes are kept so `acc uninstall` can give them back exactly. Installing twice changes nothing. --dry-run prints every file it would create or edit and writes nothing. A malformed client config is refused, naming file and line, before anything is written (exit 4); acc's wiring colliding with something that is not acc's exits 5. A run over several clients is all or nothing: a failure part way is rolled back and said so. A --home that does not exist is refused.";

pub const INSTALL_EXAMPLES: &str = "Examples:\n  acc install --dry-run\n  acc install\n  acc install --adapter claude-code --adapter codex\n  acc install --adapter gemini-cli --home /tmp/sandbox-home --json";

pub const UNINSTALL_ABOUT: &str = "Take acc's wiring back out. A user file still exactly as install left it gets its original bytes back (or is deleted when acc created it); one you edited since keeps your edits and loses only acc's entries; an acc file you changed is kept and named. A user file acc cannot read any more (made malformed, or a directory now) is left exactly as it is and named, the rest is still taken back, and the command exits 4 saying how to finish. Without --adapter, every adapter in the install record is uninstalled. Running it again does nothing.";

pub const UNINSTALL_EXAMPLES: &str =
    "Examples:\n  acc uninstall --dry-run\n  acc uninstall\n  acc uninstall --adapter codex --json";

pub const DOCTOR_ABOUT: &str = "Check acc's installation: the stores under the data home, each client's presence and version, what acc installed for it and whether that is intact, edited or missing, each adapter's own checks (hook commands, skill, Codex hook trust), and the one next step. It also names every store acc found removed, replaced by another workspace's, or robbed of guarded claims behind its back, with the claims it kept refusing and how to recover. Read-only unless --repair, which re-installs the adapters whose files were edited or went missing, or --accept-store-loss, which lifts those refusals once a person has decided the claims are gone.";

pub const DOCTOR_EXAMPLES: &str = "Examples:\n  acc doctor\n  acc doctor --json\n  acc doctor --repair\n  acc doctor --accept-store-loss";

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Wire only this client (repeatable): antigravity, claude-code, codex, gemini-cli, grok,
    /// kimi-code or qwen-code.
    #[arg(long = "adapter", value_name = "ID")]
    pub adapters: Vec<String>,

    /// The home directory to wire (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Print every file it would create or edit, and write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// May a peer's message wake an idle session of this client (live delivery)? `off`
    /// (the default), `actionable` (questions, requests, handoffs and anything awaiting a
    /// reply) or `all` addressed messages. Recorded in the install record; kept when omitted.
    #[arg(long, value_name = "POLICY")]
    pub delivery: Option<crate::live::policy::DeliveryPolicy>,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Uninstall only this adapter (repeatable); default: every adapter in the install record.
    #[arg(long = "adapter", value_name = "ID")]
    pub adapters: Vec<String>,

    /// The home directory to unwire (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Print what it would restore, remove or keep, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The home directory to check (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Re-install the adapters whose files were edited or are missing.
    #[arg(long)]
    pub repair: bool,

    /// Accept that a store acc found removed, replaced or robbed of guarded claims behind its
    /// back has lost them: the claims it kept stop being refused (their owners claim again).
    #[arg(long)]
    pub accept_store_loss: bool,
}

pub fn install(inv: &Invocation<'_>, a: InstallArgs) -> Result<Output> {
    let adapters = crate::registry::all();
    let ctx = context(inv, a.home.as_deref(), &adapters)?;
    let options = InstallOptions {
        adapters: a.adapters,
        dry_run: a.dry_run,
        home: a.home.is_some().then(|| ctx.home.clone()),
        delivery: a.delivery.map(|d| d.as_str().to_owned()),
    };
    let report = installer::run_install(&ctx, &adapters, &options).map_err(to_acc_error)?;
    Ok(Output::new(render_run(&report), report))
}

pub fn uninstall(inv: &Invocation<'_>, a: UninstallArgs) -> Result<Output> {
    let adapters = crate::registry::all();
    let ctx = context(inv, a.home.as_deref(), &adapters)?;
    let options = UninstallOptions {
        adapters: a.adapters,
        dry_run: a.dry_run,
        home: a.home.is_some().then(|| ctx.home.clone()),
    };
    let report = installer::run_uninstall(&ctx, &adapters, &options).map_err(to_acc_error)?;
    if let Some(refusal) = refusal_error(&report) {
        return Err(refusal);
    }
    Ok(Output::new(render_run(&report), report))
}

/// An uninstall that had to leave a user file it cannot read fails (exit 4) after doing the
/// rest, naming each such file and the command that finishes the job once it is fixed; the
/// whole report is in the error's details.
fn refusal_error(report: &RunReport) -> Option<AccError> {
    let refused = report.refused();
    let (first_adapter, first) = refused.first()?;
    let ids: Vec<String> = refused.iter().map(|(a, _)| a.adapter_id.clone()).collect();
    let again = command_for("uninstall", &ids, report.home.as_deref()).unwrap_or_default();
    let notes: Vec<&str> = refused
        .iter()
        .filter_map(|(_, f)| f.note.as_deref())
        .collect();
    let done = if report.dry_run {
        "the rest would be uninstalled"
    } else {
        "the rest was uninstalled"
    };
    let message = format!(
        "{}; fix it (or move it aside) and run `{again}` to finish; {done}",
        notes.join("; ")
    );
    let completed: Vec<&str> = report
        .adapters
        .iter()
        .filter(|a| !ids.contains(&a.adapter_id))
        .map(|a| a.adapter_id.as_str())
        .collect();
    let mut error = AccError::new(ErrorCode::MalformedUserFile, message)
        .with("file", first.path.display().to_string())
        .with("adapter", first_adapter.adapter_id.clone())
        .with("report", serde_json::to_value(report).unwrap_or_default());
    if !completed.is_empty() {
        error = error.with("completed", json!(completed));
    }
    Some(error)
}

pub fn doctor(inv: &Invocation<'_>, a: DoctorArgs) -> Result<Output> {
    let adapters = crate::registry::all();
    let ctx = context(inv, a.home.as_deref(), &adapters)?;
    let accepted = if a.accept_store_loss {
        installer::store_health::accept_loss(&ctx.acc_data_dir).map_err(|e| {
            AccError::new(
                ErrorCode::StoreIo,
                format!(
                    "cannot accept the store loss under {}: {e}",
                    ctx.acc_data_dir.display()
                ),
            )
        })?
    } else {
        Vec::new()
    };
    let mut run = installer::run_doctor(&ctx, &adapters, a.repair).map_err(to_acc_error)?;
    run.store.accepted_loss = accepted;
    // The current workspace's shared store, when it names one: the server must answer.
    if let Ok(ws) = crate::workspace::discover(&inv.cwd, inv.env)
        && let Some(shared) = &ws.shared
    {
        let (ok, line) = match crate::store::Store::check_shared(&shared.url, &ws.id) {
            Ok(line) => (true, line),
            Err(line) => (false, line),
        };
        if !ok {
            run.ok = false;
            run.next_step = line.clone();
        }
        run.shared_store = Some(installer::doctor::SharedStoreCheck { ok, line });
    }
    if let Some(repaired) = &mut run.repaired {
        let home = a.home.is_some().then(|| ctx.home.clone());
        let ids: Vec<String> = repaired
            .adapters
            .iter()
            .map(|o| o.adapter_id.clone())
            .collect();
        repaired.undo = command_for("uninstall", &ids, home.as_deref());
        repaired.home = home;
    }
    Ok(Output::new(render_doctor(&run), run))
}

fn context(
    inv: &Invocation<'_>,
    home: Option<&Path>,
    adapters: &[acc_sdk::define::Adapter],
) -> Result<InstallContext> {
    let exe = std::env::current_exe().map_err(|e| {
        AccError::new(
            ErrorCode::StoreIo,
            format!("cannot locate the running acc executable: {e}"),
        )
    })?;
    let mut ctx = installer::build_context(&ContextRequest {
        env: inv.env,
        home,
        cwd: &inv.cwd,
        acc_executable: &exe,
    })
    .map_err(to_acc_error)?;
    if home.is_some() {
        require_existing_home(&ctx.home)?;
    }
    installer::context::compose_receiver_sockets(&mut ctx, adapters);
    Ok(ctx)
}

/// A `--home` that does not exist is refused rather than created: a mistyped path would
/// otherwise grow a whole client tree where nobody looks.
fn require_existing_home(home: &Path) -> Result<()> {
    if std::fs::metadata(home).is_ok_and(|m| m.is_dir()) {
        return Ok(());
    }
    Err(to_acc_error(
        InstallError::new(
            InstallErrorKind::Usage,
            format!(
                "the home {} given with --home is not an existing directory; check the path, or create it first if a new home is what you want",
                home.display()
            ),
        )
        .at(home),
    ))
}

fn to_acc_error(e: InstallError) -> AccError {
    let mut err = AccError::new(e.kind.error_code(), e.message.clone());
    if let Some(path) = &e.path {
        err = err.with("file", path.display().to_string());
    }
    if let Some(adapter) = &e.adapter {
        err = err.with("adapter", adapter.clone());
    }
    if !e.completed.is_empty() {
        err = err.with("completed", json!(e.completed));
    }
    err
}

fn client_label(outcome: &AdapterOutcome, action: RunAction) -> String {
    let name = &outcome.display_name;
    match (action, &outcome.client) {
        (RunAction::Uninstall, _) | (_, None) => name.clone(),
        (_, Some(c)) if c.present => match &c.version {
            Some(v) => format!("{name} {v}"),
            None => format!("{name}, version unknown"),
        },
        _ => format!("{name}, not detected"),
    }
}

/// Human output of an install or uninstall: every file with what happened to it, the
/// skips, the steps left to the user, and how to undo.
pub fn render_run(report: &RunReport) -> String {
    let mut out = String::new();
    let verb = match report.action {
        RunAction::Install => "install",
        RunAction::Uninstall => "uninstall",
    };
    if report.adapters.is_empty() {
        let _ = write!(
            out,
            "nothing to {verb}: {}",
            match report.action {
                RunAction::Install => "no supported client was detected",
                RunAction::Uninstall => "acc's install record lists no adapter",
            }
        );
    } else if report.dry_run {
        let _ = write!(out, "would {verb} {} adapter(s)", report.adapters.len());
    } else {
        let _ = write!(out, "{verb}ed {} adapter(s)", report.adapters.len());
    }
    if let Some(data_home) = &report.data_home {
        let _ = write!(
            out,
            "\ndata home: {} ({})",
            data_home.path.display(),
            data_home.why
        );
    }
    for adapter in &report.adapters {
        let _ = write!(
            out,
            "\n{} ({}):",
            adapter.adapter_id,
            client_label(adapter, report.action)
        );
        if adapter.files.is_empty() {
            out.push_str("\n  nothing to do");
        }
        for file in &adapter.files {
            let action = if report.dry_run {
                format!("would {}", file.action.verb())
            } else {
                file.action.past().to_owned()
            };
            let _ = write!(out, "\n  {action} {}", file.path.display());
            if let Some(note) = &file.note {
                let _ = write!(out, " - {note}");
            }
        }
    }
    for skip in &report.skipped {
        let _ = write!(out, "\nskipped {}: {}", skip.adapter_id, skip.reason);
    }
    for adapter in &report.adapters {
        for step in &adapter.needs_action {
            let _ = write!(out, "\nneeds action ({}): {step}", adapter.adapter_id);
        }
    }
    let home = home_flag(report.home.as_deref());
    if report.dry_run && report.adapters.is_empty() && report.action == RunAction::Install {
        let _ = write!(
            out,
            "\nnothing was written, and without --dry-run nothing would be either: put a client's command on PATH so it is detected, or name the client with: acc install --adapter <id>{home}"
        );
    } else if report.dry_run {
        let _ = write!(
            out,
            "\nnothing was written; run without --dry-run to {verb}"
        );
    } else if let Some(undo) = &report.undo {
        let label = match report.action {
            RunAction::Install => "undo with",
            RunAction::Uninstall => "reinstall with",
        };
        let _ = write!(out, "\n{label}: {undo}");
    } else if report.adapters.is_empty() && report.action == RunAction::Install {
        let _ = write!(
            out,
            "\nwire a client explicitly with: acc install --adapter <id>{home}"
        );
    }
    if let Some(first) = report.adapters.first()
        && report.action == RunAction::Install
    {
        out.push_str(&names_line(&first.adapter_id));
    }
    out
}

/// How a person addresses the sessions an install wires, and how to choose another name.
fn names_line(adapter_id: &str) -> String {
    format!(
        "\nnames: a session acts as its client's name ({adapter_id}; {adapter_id}-2 while another is live), \
         the name `acc message --to` takes; set ACC_PARTICIPANT=<name> in the client's environment to choose one"
    )
}

/// Human output of doctor: store, record, hook runtime, each client, the next step.
pub fn render_doctor(run: &DoctorRun) -> String {
    let mut out = String::new();
    if let Some(repaired) = &run.repaired {
        out.push_str(&render_run(repaired));
        out.push_str("\nafter repair:\n");
    }
    let store = &run.store;
    let health = if store.healthy() {
        "healthy"
    } else {
        "UNHEALTHY"
    };
    let _ = write!(
        out,
        "store: {health} ({}, {} workspace store(s))",
        store.data_dir.display(),
        store.stores
    );
    if let Some(shared) = &run.shared_store {
        let _ = write!(out, "\nshared store: {}", shared.line);
    }
    for problem in &store.problems {
        let _ = write!(out, "\n  error: {problem}");
    }
    for accepted in &store.accepted_loss {
        let _ = write!(
            out,
            "\n  accepted the loss of {}: its kept claims are no longer refused",
            accepted.display()
        );
    }
    for t in &store.tampered {
        let _ = write!(
            out,
            "\n  TAMPERED: {}: {} (found {}): {}",
            t.store.display(),
            t.what,
            t.detected_at,
            t.detail
        );
        for c in &t.kept_claims {
            let _ = write!(
                out,
                "\n    kept claim {} on {} by {} (session {}) until {}",
                c.claim_id,
                acc_sdk::peer_text::display(&c.resource),
                c.owner_participant_id,
                c.owner_session_id,
                c.expires_at
            );
        }
        let _ = write!(
            out,
            "\n    kept in {}; to recover: {}",
            t.marker.display(),
            t.recovery
        );
    }
    let _ = write!(
        out,
        "\ninstall record: {} ({} adapter(s))",
        run.record.path.display(),
        run.record.installs
    );
    let _ = write!(
        out,
        "\nhook runtime: {}{}",
        run.hook_executable.path.display(),
        if run.hook_executable.executable {
            ""
        } else {
            " (missing or not executable)"
        }
    );
    for client in &run.clients {
        let presence = match (&client.client.present, &client.client.version) {
            (true, Some(v)) => format!("{} {v}", client.display_name),
            (true, None) => format!(
                "{}, installed: {}",
                client.display_name, client.client.detail
            ),
            (false, _) => format!(
                "{}, not detected: {}",
                client.display_name, client.client.detail
            ),
        };
        let installed = match (&client.installed_by, client.wiring.is_empty()) {
            (Some(version), _) => format!("installed by acc {version}"),
            (None, true) => "not installed".to_owned(),
            (None, false) => "wired, but not in this data home's install record".to_owned(),
        };
        let _ = write!(out, "\n{} ({presence}): {installed}", client.adapter_id);
        for wiring in &client.wiring {
            let home = match &wiring.data_home {
                Some(home) => format!("data home {} (pinned)", home.display()),
                None => "the data home of the hook's own environment (not pinned)".to_owned(),
            };
            let _ = write!(
                out,
                "\n  wired: {} acc hook(s) in {}, using {home}",
                wiring.hooks,
                wiring.file.display()
            );
        }
        for artifact in &client.artifacts {
            let state = match artifact.state {
                ArtifactState::Intact => "intact",
                ArtifactState::Edited => "edited",
                ArtifactState::Missing => "missing",
            };
            let _ = write!(out, "\n  {state} {}", artifact.path.display());
        }
        for d in &client.diagnostics {
            let level = match d.level {
                DiagnosticLevel::Ok => "ok",
                DiagnosticLevel::Warn => "warn",
                DiagnosticLevel::Error => "error",
            };
            let _ = write!(out, "\n  {level}: {}", d.message);
        }
        if client.installed_by.is_some() {
            let n = &client.native_delivery;
            let state = match (&n.eligible, &n.reason_code) {
                (true, _) => "eligible".to_owned(),
                (false, Some(reason)) => format!("not eligible ({reason})"),
                (false, None) => "not eligible".to_owned(),
            };
            let _ = write!(
                out,
                "\n  live delivery: {state}; policy {} (acc install --adapter {} --delivery off|actionable|all)",
                n.policy, client.adapter_id
            );
        }
    }
    let _ = write!(out, "\nnext step: {}", run.next_step);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::installer::record::RecordedKind;
    use crate::installer::report::{ClientFacts, FileAction, FileOutcome, Skip};

    fn report(dry_run: bool, action: RunAction) -> RunReport {
        RunReport {
            action,
            dry_run,
            adapters: vec![AdapterOutcome {
                adapter_id: "codex".to_owned(),
                display_name: "Codex CLI".to_owned(),
                client: Some(ClientFacts {
                    present: true,
                    version: Some("0.171.0".to_owned()),
                    detail: String::new(),
                }),
                files: vec![FileOutcome {
                    path: PathBuf::from("/h/.codex/hooks.json"),
                    kind: RecordedKind::Merge,
                    action: FileAction::Edited,
                    note: None,
                }],
                needs_action: vec!["trust them".to_owned()],
            }],
            skipped: vec![Skip {
                adapter_id: "grok".to_owned(),
                reason: "absent".to_owned(),
            }],
            undo: (!dry_run).then(|| "acc uninstall --adapter codex".to_owned()),
            home: None,
            data_home: None,
        }
    }

    #[test]
    fn a_dry_run_that_would_install_nothing_says_what_would_make_it() {
        let mut empty = report(true, RunAction::Install);
        empty.adapters.clear();
        empty.home = Some(PathBuf::from("/tmp/box"));
        let text = render_run(&empty);
        assert!(
            text.ends_with("name the client with: acc install --adapter <id> --home /tmp/box"),
            "{text}"
        );
        assert!(!text.contains("run without --dry-run"), "{text}");
    }

    #[test]
    fn runs_name_every_file_and_end_with_how_to_undo() {
        let text = render_run(&report(false, RunAction::Install));
        assert_eq!(
            text,
            "installed 1 adapter(s)\ncodex (Codex CLI 0.171.0):\n  edited /h/.codex/hooks.json\nskipped grok: absent\nneeds action (codex): trust them\nundo with: acc uninstall --adapter codex\n\
             names: a session acts as its client's name (codex; codex-2 while another is live), the name `acc message --to` takes; set ACC_PARTICIPANT=<name> in the client's environment to choose one"
        );
        let dry = render_run(&report(true, RunAction::Install));
        assert!(dry.starts_with("would install 1 adapter(s)"));
        assert!(dry.contains("\n  would edit /h/.codex/hooks.json"));
        assert!(dry.contains("nothing was written; run without --dry-run to install\nnames: "));
        let undone = render_run(&report(false, RunAction::Uninstall));
        assert!(!undone.contains("ACC_PARTICIPANT"), "{undone}");
    }

    #[test]
    fn install_errors_keep_their_codes() {
        for kind in [
            InstallErrorKind::Usage,
            InstallErrorKind::HookExecutableMissing,
            InstallErrorKind::MalformedUserFile,
            InstallErrorKind::RecordCorrupt,
            InstallErrorKind::Conflict,
            InstallErrorKind::Refused,
            InstallErrorKind::Io,
        ] {
            let e = to_acc_error(InstallError::new(kind, "x").at("/f"));
            assert_eq!(e.exit_code(), kind.exit_code());
            assert_eq!(e.code.as_str(), kind.code());
            assert_eq!(e.details["file"], "/f");
        }
    }
}
