//! Executing what an install wrote: install into a sandbox, read back every hook command,
//! and run each one exactly as a client would (`sh -c`, no `PATH`, a decoy
//! `ACC_DATA_HOME`) with a probe payload for its event on stdin.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use acc_runtime::hook::failure::FAIL_OPEN_PREFIX;
use acc_sdk::define::Adapter;
use acc_sdk::event::EventKind;

use crate::hook_commands::{InstalledCommand, files_under, installed_commands};
use crate::probes::{PayloadCorpus, ProbeSource, ProbeTarget, probe_for};
use crate::sandbox::Sandbox;
use crate::snapshot::TreeSnapshot;

/// How long one hook command may run: far above the hook's own 5 s budget, so only a
/// command that ignores its budget is stopped.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// What one hook command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// `None` when a signal ended it (or it was stopped at the timeout).
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

impl HookRun {
    /// The reason code when the hook failed open (allowed, but did nothing).
    pub fn failed_open(&self) -> Option<String> {
        let line = self
            .stderr
            .lines()
            .find(|l| l.starts_with(FAIL_OPEN_PREFIX))?;
        let code = line
            .rsplit_once('(')
            .map(|(_, rest)| rest.trim_end_matches(')').to_owned())
            .unwrap_or_default();
        Some(code)
    }
}

/// Runs `command` through `/bin/sh -c` with no `PATH`, `HOME` set to the sandbox home and
/// `ACC_DATA_HOME` set to `decoy_data` (a pinned data home must win over it), in the
/// sandbox workspace, with `payload` on stdin.
pub fn run_hook_command(
    command: &str,
    payload: &[u8],
    sandbox: &Sandbox,
    decoy_data: &Path,
) -> std::io::Result<HookRun> {
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .env_clear()
        .env("HOME", &sandbox.home)
        .env("ACC_DATA_HOME", decoy_data)
        .current_dir(&sandbox.workspace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take();
    let input = payload.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(stdin) = stdin.as_mut() {
            // A hook may exit without reading its input; that is its business.
            let _ = stdin.write_all(&input);
        }
    });
    let reader = |stream: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut s) = stream {
                let _ = s.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + COMMAND_TIMEOUT;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= deadline {
            timed_out = true;
            let _ = child.kill();
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    Ok(HookRun {
        exit_code: if timed_out { None } else { status.code() },
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        timed_out,
    })
}

/// What is wrong with a command before it runs: acc's shape, an absolute and executable
/// `acc-hook`, this adapter's id, and the data home the install was run with.
pub fn static_problems(
    installed: &InstalledCommand,
    adapter: &Adapter,
    pinned_data_home: Option<&Path>,
) -> Vec<String> {
    let Some(parsed) = &installed.parsed else {
        return vec![
            "is not acc's hook command shape `\"/abs/acc-hook\" [--data-home \"DIR\"] <adapter-id> <event>`"
                .to_owned(),
        ];
    };
    let mut problems = Vec::new();
    if !parsed.executable.is_absolute() {
        problems.push(format!(
            "runs `{}` by a relative name: a hook's environment carries no PATH, so write the absolute path of acc-hook",
            parsed.executable.display()
        ));
    } else if !is_executable(&parsed.executable) {
        problems.push(format!(
            "runs {}, which does not exist or is not executable",
            parsed.executable.display()
        ));
    }
    if parsed.adapter_id != adapter.id() {
        problems.push(format!(
            "names adapter `{}`, not `{}`",
            parsed.adapter_id,
            adapter.id()
        ));
    }
    match (&parsed.data_home, pinned_data_home) {
        (Some(home), _) if !home.is_absolute() => problems.push(format!(
            "pins a relative data home {}",
            home.display()
        )),
        (written, Some(expected)) if written.as_deref() != Some(expected) => {
            problems.push(format!(
                "does not pin the data home the install ran with ({}); the hook would open another store than the CLI",
                expected.display()
            ))
        }
        _ => {}
    }
    problems
}

pub fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// One installed hook command, checked and (when it could be) run.
#[derive(Debug, Clone, PartialEq)]
pub struct WiredCommand {
    pub installed: InstalledCommand,
    /// What its probe payload normalises to, for ordering and reporting.
    pub kind: Option<EventKind>,
    pub probe: ProbeSource,
    /// Problems found before running it; a command with any is not run.
    pub problems: Vec<String>,
    pub run: Option<HookRun>,
}

impl WiredCommand {
    /// Ran, exited 0, and did not fail open.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
            && self.run.as_ref().is_some_and(|r| {
                r.exit_code == Some(0) && !r.timed_out && r.failed_open().is_none()
            })
    }
}

/// Everything a wiring run found.
#[derive(Debug, Clone, PartialEq)]
pub struct WireReport {
    /// Every file the install created or edited (trees walked), sorted.
    pub files: Vec<PathBuf>,
    pub commands: Vec<WiredCommand>,
    /// Whether the decoy data home appeared: some hook ignored the pinned one.
    pub decoy_used: bool,
    /// What the hooks wrote inside the workspace, where acc never writes.
    pub workspace_writes: Vec<PathBuf>,
}

impl WireReport {
    pub fn passed(&self) -> bool {
        !self.decoy_used
            && self.workspace_writes.is_empty()
            && self.commands.iter().all(WiredCommand::passed)
    }
}

/// The session id every probe of a wiring run carries.
pub fn probe_session_id(adapter: &Adapter) -> String {
    format!("acc-probe-{}-session", adapter.id())
}

/// Lifecycle order: a session starts first and ends last.
fn kind_rank(kind: Option<EventKind>) -> u8 {
    match kind {
        Some(EventKind::SessionStart) => 0,
        Some(EventKind::BeforeTurn) => 1,
        Some(EventKind::ChildStart) => 2,
        Some(EventKind::BeforeTool) => 3,
        Some(EventKind::AfterTool) => 4,
        Some(EventKind::Heartbeat) => 5,
        Some(EventKind::ChildEnd) => 6,
        Some(EventKind::Other) | None => 7,
        Some(EventKind::TurnEnd) => 8,
        Some(EventKind::SessionEnd) => 9,
    }
}

/// Installs `adapter` into `sandbox` and runs every hook command it wrote, in lifecycle
/// order, each with the probe for its event.
pub fn wire(root: &Path, sandbox: &Sandbox, adapter: &Adapter) -> Result<WireReport, String> {
    let report = sandbox
        .install(adapter)
        .map_err(|e| format!("install failed: {}", sandbox.redact(&e.message)))?;
    let written: Vec<PathBuf> = report
        .adapters
        .iter()
        .flat_map(|a| a.files.iter().map(|f| f.path.clone()))
        .collect();
    let files = files_under(&written);
    let corpus = PayloadCorpus::load(root, adapter.id());
    let session = probe_session_id(adapter);
    let target = ProbeTarget {
        workspace: &sandbox.workspace,
        home: &sandbox.home,
        session_id: &session,
    };
    let pinned = sandbox.context().pinned_data_home.clone();
    let mut commands: Vec<(WiredCommand, Vec<u8>)> = installed_commands(&files)
        .into_iter()
        .map(|installed| {
            let event = installed.event().unwrap_or("SessionStart").to_owned();
            let probe = probe_for(&corpus, adapter, &event, &target);
            let kind = probe.normalize(adapter).ok().map(|e| e.kind);
            let problems = static_problems(&installed, adapter, pinned.as_deref());
            let bytes = probe.bytes();
            (
                WiredCommand {
                    installed,
                    kind,
                    probe: probe.source,
                    problems,
                    run: None,
                },
                bytes,
            )
        })
        .collect();
    commands.sort_by_key(|(c, _)| kind_rank(c.kind));
    let decoy = sandbox.root.join("decoy-data");
    let workspace_before = TreeSnapshot::take(&sandbox.workspace)
        .map_err(|e| format!("cannot read the sandbox workspace: {e}"))?;
    for (command, payload) in &mut commands {
        if command.problems.is_empty() {
            let run = run_hook_command(&command.installed.command, payload, sandbox, &decoy)
                .map_err(|e| format!("could not start /bin/sh: {e}"))?;
            command.run = Some(run);
        }
    }
    let workspace_after = TreeSnapshot::take(&sandbox.workspace)
        .map_err(|e| format!("cannot read the sandbox workspace: {e}"))?;
    Ok(WireReport {
        files,
        commands: commands.into_iter().map(|(c, _)| c).collect(),
        decoy_used: decoy.exists(),
        workspace_writes: workspace_before
            .changes(&workspace_after)
            .into_iter()
            .map(|c| c.path)
            .collect(),
    })
}
