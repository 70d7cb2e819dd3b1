//! `acc-certify record`: the command layer over [`crate::record::recording`].

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use acc_sdk::certification::Certification;
use acc_sdk::error::CERTIFICATION_FILE;
use clap::Args;

use crate::client_arg::ClientValues;
use crate::clients::{Cache, Client, obtain_in, offline};
use crate::envelope::{self, Exit};
use crate::record::kit::error::RecordError;
use crate::record::kit::install::Binaries;
use crate::record::kit::observations::Observations;
use crate::record::kit::run::{RunSettings, ScenarioRun};
use crate::record::kit::tuple::today_utc;
use crate::record::kit::verdict::ControlVerdict;
use crate::record::output::check::{Mismatch, RunRef, VerdictKey, compare};
use crate::record::output::evidence::decided;
use crate::record::recording::{
    ClientRecording, certification_name, persist_bundles, persist_evidence, record_client,
};
use crate::record::scenario::{Scenario, plan};
use crate::record::scenarios::coordinate::Pair;
use crate::record::scenarios::coordinate::record::{self as pairs, PairJob, PairOutcome};
use crate::record::scenarios::recipe;
use crate::record::summary::{self, ClientOutcome};

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The client to record: an adapter id with a `recorder.toml`, two of them joined by
    /// `+` (`claude-code+opencode`: both, and the coordinate pairs of the two), or all. One
    /// client's coordinate pairs run with it: its partner is obtained like any recorded
    /// client, none of the partner's own scenarios run.
    #[arg(long, value_name = "CLIENT", value_parser = ClientValues::new(parse_choice, &["all"]))]
    pub client: ClientChoice,
    /// Record this exact version instead of the pinned one (one client only).
    #[arg(long, value_name = "V")]
    pub version: Option<String>,
    /// Record only this scenario (repeatable): lifecycle, guard-write, guard-shell,
    /// guard-opaque, next-turn, solo-control, coordinate, live-wake, safe-point, heartbeat,
    /// session-resume, startup-injection, interactive-quit, before-read, child-sessions,
    /// guard-bridge (clients whose recorder file names a tool bridge). The solo control runs
    /// with next-turn; coordinate runs the pairs of the clients named (pinned versions only).
    #[arg(long = "scenario", value_name = "S", value_parser = parse_scenario)]
    pub scenarios: Vec<Scenario>,
    /// Record into a temporary directory and compare the verdicts with the committed
    /// evidence instead of writing: exit 1 naming every difference.
    #[arg(long)]
    pub check: bool,
    /// With --check: write the check's bundles under DIR/captures/ and keep them, outside
    /// the repository (default: a temporary directory, kept only when a verdict differs).
    #[arg(long, value_name = "DIR", requires = "check")]
    pub keep_bundle: Option<PathBuf>,
    /// The repository to write evidence into (default: the nearest directory at or above
    /// the current one holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Where `acc` and `acc-hook` are (default: beside acc-certify).
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// The deadline of one headless client run, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub timeout: u64,
    /// Print exactly one JSON envelope on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `--client`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientChoice {
    One(Client),
    /// Two clients, so their coordinate pairs can be recorded without every other pair.
    Two(Client, Client),
    All,
}

impl ClientChoice {
    pub fn clients(self) -> Vec<Client> {
        match self {
            ClientChoice::One(client) => vec![client],
            ClientChoice::Two(first, second) => vec![first, second],
            ClientChoice::All => Client::all().to_vec(),
        }
    }

    /// The coordinate pairs the choice records: one client's every pair, two clients' pairs
    /// of the two, or every pair.
    pub fn pairs(self) -> Vec<Pair> {
        match self {
            ClientChoice::One(client) => Pair::of(client),
            ClientChoice::Two(first, second) => Pair::among(&[first, second]),
            ClientChoice::All => Pair::among(Client::all()),
        }
    }

    /// Every client the recording runs: those named, and the partners of their pairs.
    pub fn obtained(self, pairs: &[Pair]) -> Vec<Client> {
        let mut clients = self.clients();
        for client in pairs.iter().flat_map(|pair| [pair.owner, pair.asker]) {
            if !clients.contains(&client) {
                clients.push(client);
            }
        }
        clients
    }
}

/// The pairs `args` records. A pair runs both clients at their pinned versions, so none
/// runs with `--version`; asking for `coordinate` with it is a usage error.
fn pairs_of(args: &RecordArgs) -> Result<Vec<Pair>, RecordError> {
    if !plan(&args.scenarios).contains(&Scenario::Coordinate) {
        return Ok(Vec::new());
    }
    if args.version.is_some() {
        if args.scenarios.contains(&Scenario::Coordinate) {
            return Err(RecordError::Usage(
                "coordinate records both clients of a pair at their pinned versions; drop --version or --scenario coordinate".to_owned(),
            ));
        }
        return Ok(Vec::new());
    }
    Ok(args.client.pairs())
}

fn parse_choice(text: &str) -> Result<ClientChoice, String> {
    if text == "all" {
        return Ok(ClientChoice::All);
    }
    if let Some((first, second)) = text.split_once('+') {
        let (first, second) = (parse_choice(first)?, parse_choice(second)?);
        return match (first, second) {
            (ClientChoice::One(a), ClientChoice::One(b)) if a != b => Ok(ClientChoice::Two(a, b)),
            _ => Err(format!(
                "{text:?} names two clients joined by `+`, each once, never all"
            )),
        };
    }
    text.parse::<Client>().map(ClientChoice::One).map_err(|_| {
        let names: Vec<&str> = Client::all().iter().map(|c| c.id()).collect();
        format!("unknown client {text:?}; use {} or all", names.join(", "))
    })
}

fn parse_scenario(text: &str) -> Result<Scenario, String> {
    text.parse()
}

/// The nearest directory at or above `start` holding `adapters/` and `Cargo.toml`.
pub fn find_repo(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join("adapters").is_dir() && dir.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// Runs the command; returns the exit code.
///
/// Recording happens in a network namespace holding only loopback
/// ([`crate::clients::offline`]): this process installs the clients from their registries,
/// then runs itself again inside one, where the doubles, sandboxes and clients all live.
pub fn execute(args: &RecordArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if std::env::var_os(offline::NAMESPACE_VAR).is_none() {
        return record_offline(args, out, err);
    }
    if !offline::loopback_only() {
        return report(
            args,
            Err(RecordError::Offline {
                message: format!(
                    "{} is set but this process's network namespace holds more than loopback; unset it and run again",
                    offline::NAMESPACE_VAR
                ),
            }),
            out,
            err,
        );
    }
    report(args, run(args, err), out, err)
}

/// Installs (or finds in the cache) every client the recording needs, while the network is
/// there, then runs this command again inside a loopback-only namespace and passes its
/// output and exit code on.
fn record_offline(args: &RecordArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let named = args.client.clients();
    // A usage error is the offline run's to report; nothing is installed for it.
    let pairs = pairs_of(args);
    let usable = (args.version.is_none() || named.len() == 1) && pairs.is_ok();
    let clients = args.client.obtained(&pairs.unwrap_or_default());
    if let (Ok(cache), true) = (Cache::from_process_env(), usable) {
        for client in clients {
            // A pair's partner is recorded at its pin.
            let version = match &args.version {
                Some(version) if named.contains(&client) => version.clone(),
                _ => client.pinned_version().to_owned(),
            };
            let mut progress = |line: &str| {
                if !args.json {
                    let _ = writeln!(err, "acc-certify: {line}");
                }
            };
            // A failure here is reported again, as the client's, by the offline run.
            if let Err(e) = obtain_in(&cache, client, &version, &mut progress)
                && !args.json
            {
                let _ = writeln!(err, "acc-certify: could not install {client}: {e}");
            }
        }
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            return report(
                args,
                Err(RecordError::Offline {
                    message: format!(
                        "cannot find acc-certify's own executable to run it offline: {e}"
                    ),
                }),
                out,
                err,
            );
        }
    };
    let mut command = std::process::Command::new(exe);
    command
        .args(std::env::args_os().skip(1))
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit());
    offline::enter_on_spawn(&mut command);
    match command.output() {
        Ok(output) => {
            let _ = out.write_all(&output.stdout);
            output.status.code().unwrap_or(Exit::CouldNotRun.code())
        }
        Err(e) => report(
            args,
            Err(RecordError::Offline {
                message: offline::setup_advice(&e),
            }),
            out,
            err,
        ),
    }
}

fn report(
    args: &RecordArgs,
    result: Result<Outcomes, RecordError>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let (exit, human, data) = match result {
        Ok((outcomes, pair_outcomes, exit)) => {
            let mut data = summary::json(&outcomes, args.check);
            data["pairs"] = pairs::json(&pair_outcomes);
            let human =
                summary::human(&outcomes, args.check) + &pairs::human(&pair_outcomes, args.check);
            (exit, human, data)
        }
        Err(e) => {
            let data = serde_json::json!({"code": e.code()});
            (e.exit(), format!("acc-certify: {e} [{}]\n", e.code()), data)
        }
    };
    if args.json {
        let envelope = match exit {
            Exit::Ok => envelope::success(data),
            _ => envelope::failure(exit, &failure_message(exit, &data), data),
        };
        let _ = writeln!(out, "{envelope}");
    } else if exit == Exit::CouldNotRun && human.starts_with("acc-certify:") {
        let _ = write!(err, "{human}");
    } else {
        let _ = write!(out, "{human}");
    }
    exit.code()
}

fn failure_message(exit: Exit, data: &serde_json::Value) -> String {
    match exit {
        Exit::Invalid => "the recorded verdicts differ from the committed evidence".to_owned(),
        _ => match data.get("code").and_then(serde_json::Value::as_str) {
            Some(code) => format!("record could not run [{code}]"),
            None => "some clients could not be recorded".to_owned(),
        },
    }
}

type Outcomes = (Vec<ClientOutcome>, Vec<PairOutcome>, Exit);

fn run(args: &RecordArgs, err: &mut dyn Write) -> Result<Outcomes, RecordError> {
    let clients = args.client.clients();
    if args.version.is_some() && clients.len() > 1 {
        return Err(RecordError::Usage(
            "--version names one client's version; use it with a single --client".to_owned(),
        ));
    }
    if args.timeout == 0 {
        return Err(RecordError::Usage(
            "--timeout must be at least 1 second".to_owned(),
        ));
    }
    let pairs = pairs_of(args)?;
    let repo = match &args.repo {
        Some(dir) => dir.clone(),
        None => {
            let cwd = std::env::current_dir().map_err(|e| {
                RecordError::Usage(format!("cannot read the current directory: {e}"))
            })?;
            find_repo(&cwd).ok_or(RecordError::NoRepository { from: cwd })?
        }
    };
    if !repo.join("adapters").is_dir() {
        return Err(RecordError::NoRepository { from: repo });
    }
    let binaries = match &args.bin_dir {
        Some(dir) => Binaries::in_dir(dir)?,
        None => Binaries::beside_current_exe()?,
    };
    let cache = Cache::from_process_env().map_err(|source| RecordError::Client {
        client: "cache".to_owned(),
        source,
    })?;
    let settings = RunSettings {
        binaries,
        timeout: Duration::from_secs(args.timeout),
    };
    let planned = plan(&args.scenarios);
    let scenarios: Vec<Scenario> = planned
        .iter()
        .copied()
        .filter(|s| !recipe(*s).is_pair())
        .collect();
    let observed_at = today_utc();
    // Progress goes to stderr with the time since the start; `--json` keeps stderr quiet.
    let started = Instant::now();
    let quiet = args.json;
    let say = |err: &mut dyn Write, line: &str| {
        if !quiet {
            let _ = writeln!(err, "acc-certify: [{}] {line}", elapsed(started.elapsed()));
        }
    };
    // `--check` writes nothing into the repository: its bundles go to `--keep-bundle`, or
    // to a directory removed at the end unless a verdict differs (then the difference names
    // the bundle that shows why).
    let scratch = tempfile::tempdir().map_err(|e| RecordError::Write {
        message: format!("creating a scratch directory: {e}"),
    })?;
    let kept = match &args.keep_bundle {
        Some(dir) => Some(keep_dir(dir, &repo)?),
        None => None,
    };
    let bundles_root = match (&kept, args.check) {
        (Some(dir), _) => dir.as_path(),
        (None, true) => scratch.path(),
        (None, false) => repo.as_path(),
    };

    // Clients run side by side (each in its own sandboxes); their progress lines reach
    // stderr through one channel so they never interleave mid-line.
    let (sender, lines) = mpsc::channel::<String>();
    let one_client = if scenarios.is_empty() {
        &[][..]
    } else {
        &clients[..]
    };
    let results: Vec<(Client, Result<ClientOutcome, RecordError>)> = thread::scope(|scope| {
        let handles: Vec<_> = one_client
            .iter()
            .map(|&client| {
                let sender = sender.clone();
                let (cache, repo, scenarios, settings) = (&cache, &repo, &scenarios[..], &settings);
                let (observed_at, check, version) = (&observed_at, args.check, &args.version);
                scope.spawn(move || {
                    let version = version
                        .clone()
                        .unwrap_or_else(|| client.pinned_version().to_owned());
                    let mut progress = |line: &str| {
                        let _ = sender.send(line.to_owned());
                    };
                    let job = Job {
                        cache,
                        repo,
                        bundles_root,
                        scenarios,
                        settings,
                        observed_at,
                        check,
                    };
                    (client, job.record(client, &version, &mut progress))
                })
            })
            .collect();
        drop(sender);
        for line in lines {
            say(err, &line);
        }
        handles
            .into_iter()
            .zip(one_client)
            .map(|(handle, &client)| {
                handle.join().unwrap_or_else(|_| {
                    (
                        client,
                        Err(RecordError::Write {
                            message: format!("recording {client} panicked"),
                        }),
                    )
                })
            })
            .collect()
    });
    let mut outcomes = Vec::new();
    for (client, result) in results {
        match result {
            Ok(outcome) => outcomes.push(outcome),
            Err(e @ RecordError::Client { .. }) => {
                let _ = writeln!(err, "acc-certify: could not record {client}: {e}");
                outcomes.push(ClientOutcome::Unavailable {
                    client: client.id().to_owned(),
                    code: e.code().to_owned(),
                    message: e.to_string(),
                });
            }
            Err(e) => return Err(e),
        }
    }
    // Pairs run after every client's own scenarios, one after another: each runs two real
    // clients in turn.
    let job = PairJob {
        cache: &cache,
        repo: &repo,
        bundles_root,
        settings: &settings,
        check: args.check,
    };
    let mut pair_outcomes = Vec::new();
    for pair in pairs {
        let outcome = job.record(pair, &mut |line: &str| say(err, line))?;
        if let PairOutcome::Unavailable { message, .. } = &outcome {
            let _ = writeln!(
                err,
                "acc-certify: could not record coordinate {pair}: {message}"
            );
        }
        pair_outcomes.push(outcome);
    }
    let unavailable = outcomes
        .iter()
        .any(|o| matches!(o, ClientOutcome::Unavailable { .. }))
        || pair_outcomes.iter().any(PairOutcome::unavailable);
    let mismatched = outcomes
        .iter()
        .any(|o| matches!(o, ClientOutcome::Recorded { mismatches, .. } if !mismatches.is_empty()))
        || pair_outcomes.iter().any(PairOutcome::mismatched);
    let exit = if unavailable {
        Exit::CouldNotRun
    } else if mismatched {
        Exit::Invalid
    } else {
        Exit::Ok
    };
    if mismatched && kept.is_none() {
        // The differences name bundles in it.
        let _ = scratch.keep();
    }
    Ok((outcomes, pair_outcomes, exit))
}

/// `--keep-bundle DIR`, created and made absolute; never the repository or inside it (a
/// check writes nothing there, and its `captures/` would overwrite the committed ones).
fn keep_dir(dir: &Path, repo: &Path) -> Result<PathBuf, RecordError> {
    let repo = repo.canonicalize().unwrap_or_else(|_| repo.to_path_buf());
    let inside = |dir: &Path| {
        dir.starts_with(&repo).then(|| {
            RecordError::Usage(format!(
                "--keep-bundle {} is inside the repository {}; name a directory outside it (a check writes nothing into the repository)",
                dir.display(),
                repo.display()
            ))
        })
    };
    let absolute = std::env::current_dir()
        .map(|cwd| lexical(&cwd.join(dir)))
        .unwrap_or_else(|_| dir.to_path_buf());
    // Refused before anything is created, and again once symbolic links are resolved.
    if let Some(e) = inside(&absolute) {
        return Err(e);
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        RecordError::Usage(format!(
            "--keep-bundle {}: cannot create it ({e}); name a writable directory",
            dir.display()
        ))
    })?;
    let dir = dir
        .canonicalize()
        .map_err(|e| RecordError::Usage(format!("--keep-bundle {}: {e}", dir.display())))?;
    match inside(&dir) {
        Some(e) => Err(e),
        None => Ok(dir),
    }
}

/// `path` with `.` and `..` resolved by name alone.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `m:ss` since the run started.
pub fn elapsed(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

/// What every client's recording shares.
struct Job<'a> {
    cache: &'a Cache,
    repo: &'a Path,
    bundles_root: &'a Path,
    scenarios: &'a [Scenario],
    settings: &'a RunSettings,
    observed_at: &'a str,
    check: bool,
}

impl Job<'_> {
    fn record(
        &self,
        client: Client,
        version: &str,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ClientOutcome, RecordError> {
        let installed = obtain_in(self.cache, client, version, progress).map_err(|source| {
            RecordError::Client {
                client: client.id().to_owned(),
                source,
            }
        })?;
        let adapter_rel = format!("adapters/{}", client.id());
        let adapter_dir = self.repo.join(&adapter_rel);
        let name = certification_name(&adapter_dir)?;
        let recording = record_client(
            &installed,
            &name,
            self.scenarios,
            self.settings,
            self.observed_at,
            &mut |tuple, scenario, run| match run {
                Some(run) => progress(&summary::progress_line(tuple, run)),
                None => progress(&summary::start_line(tuple, scenario)),
            },
        )?;
        let items = persist_bundles(&recording, self.bundles_root)?;
        if self.check {
            let mut mismatches = check_against(&adapter_dir, &recording, self.scenarios)?
                .into_iter()
                .map(|m| explained(m, &recording, self.bundles_root))
                .collect::<Vec<_>>();
            mismatches.extend(check_kernel_guard(self.repo, &recording, self.bundles_root));
            mismatches.extend(check_quit(self.repo, &recording, self.bundles_root));
            return Ok(ClientOutcome::Recorded {
                recording: Box::new(recording),
                evidence: None,
                mismatches,
            });
        }
        persist_evidence(&adapter_dir, &items)?;
        Ok(ClientOutcome::Recorded {
            recording: Box::new(recording),
            evidence: Some(format!("{adapter_rel}/{CERTIFICATION_FILE}")),
            mismatches: Vec::new(),
        })
    }
}

/// `mismatch` with the scenario run that decided its verdict now: the scenario, its first
/// failure and where its bundle is kept.
fn explained(mismatch: Mismatch, recording: &ClientRecording, bundles_root: &Path) -> Mismatch {
    let Some(capability) = mismatch.capability_now() else {
        return mismatch;
    };
    let found = recording.runs.iter().find_map(|run| {
        let verdict = run
            .verdicts
            .iter()
            .find(|v| v.capability.key() == capability)?;
        Some(run_ref(
            recording,
            run,
            verdict.passed(),
            &verdict.reasons,
            bundles_root,
        ))
    });
    match found {
        Some(found) => mismatch.with_run(found),
        None => mismatch,
    }
}

/// The guard-opaque outcome of `recording` against the committed capture's, judged again;
/// a difference names the run's first failure and the bundle kept for it in `bundles_root`.
fn check_kernel_guard(
    repo: &Path,
    recording: &ClientRecording,
    bundles_root: &Path,
) -> Vec<Mismatch> {
    use crate::record::scenarios::guard_opaque::outcome;
    check_control(
        repo,
        recording,
        bundles_root,
        |run| run.kernel_guard.as_ref(),
        |build, committed, run, _| {
            let committed = committed.map(|obs| outcome(&obs));
            crate::record::output::check::compare_kernel_guard(
                build,
                committed,
                outcome(&run.observations),
            )
        },
    )
}

/// The interactive-quit outcome of `recording` against the committed capture's, judged
/// again; a difference names the bundle kept for it in `bundles_root`.
fn check_quit(repo: &Path, recording: &ClientRecording, bundles_root: &Path) -> Vec<Mismatch> {
    use crate::record::scenarios::interactive_quit::judge;
    check_control(
        repo,
        recording,
        bundles_root,
        |run| run.quit.as_ref(),
        |build, committed, _, verdict| {
            let committed = committed.map(|obs| judge(&obs).passed);
            crate::record::output::check::compare_quit(build, committed, verdict.passed)
        },
    )
}

/// Each run's control (the verdict `control` picks) compared by `compare` with the committed
/// capture's observations (none when they cannot be read); a difference names the run's
/// first failure and its kept bundle.
fn check_control(
    repo: &Path,
    recording: &ClientRecording,
    bundles_root: &Path,
    control: impl Fn(&ScenarioRun) -> Option<&ControlVerdict>,
    compare: impl Fn(&str, Option<Observations>, &ScenarioRun, &ControlVerdict) -> Option<Mismatch>,
) -> Vec<Mismatch> {
    let t = &recording.tuple;
    let build = format!("{} {} {}", t.client, t.version, t.platform);
    recording
        .runs
        .iter()
        .filter_map(|run| {
            let verdict = control(run)?;
            let committed = crate::record::output::bundle::read_observations(
                &repo.join(t.bundle_path(run.scenario)),
            )
            .ok();
            compare(&build, committed, run, verdict).map(|m| {
                m.with_run(run_ref(
                    recording,
                    run,
                    verdict.passed,
                    &verdict.reasons,
                    bundles_root,
                ))
            })
        })
        .collect()
}

/// Where a run's outcome came from: its scenario, its first failure (none when it passed),
/// its kept bundle.
fn run_ref(
    recording: &ClientRecording,
    run: &ScenarioRun,
    passed: bool,
    reasons: &[String],
    bundles_root: &Path,
) -> RunRef {
    RunRef {
        scenario: run.scenario.name().to_owned(),
        first_failure: (!passed).then(|| reasons.first().cloned()).flatten(),
        bundle: bundles_root
            .join(recording.tuple.bundle_path(run.scenario))
            .display()
            .to_string(),
    }
}

fn check_against(
    adapter_dir: &Path,
    recording: &ClientRecording,
    scenarios: &[Scenario],
) -> Result<Vec<Mismatch>, RecordError> {
    let path = adapter_dir.join(CERTIFICATION_FILE);
    let bytes = std::fs::read(&path).map_err(|e| RecordError::Write {
        message: format!("{}: {e}", path.display()),
    })?;
    let certification =
        Certification::from_bytes(&bytes).map_err(|problems| RecordError::Write {
            message: format!(
                "{} is not valid: {}",
                path.display(),
                problems
                    .iter()
                    .map(|p| p.message.clone())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        })?;
    let committed: Vec<VerdictKey> = certification
        .evidence
        .iter()
        .map(|row| VerdictKey {
            client: row.client.clone(),
            version: row.version.clone(),
            platform: row.platform.clone(),
            capability: row.capability.clone(),
            result: row.result.as_str().to_owned(),
        })
        .collect();
    let t = &recording.tuple;
    let now: Vec<VerdictKey> = recording
        .runs
        .iter()
        .flat_map(|r| &r.verdicts)
        .map(|v| VerdictKey {
            client: t.client.clone(),
            version: t.version.clone(),
            platform: t.platform.clone(),
            capability: v.capability.key().to_owned(),
            result: v.result.as_str().to_owned(),
        })
        .collect();
    let caps: Vec<&str> = decided(scenarios).iter().map(|c| c.key()).collect();
    Ok(compare(&committed, &now, &caps))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_is_the_nearest_directory_with_adapters_and_a_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        fs_setup(&repo);
        let deep = repo.join("certify/src");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(find_repo(&deep), Some(repo.clone()));
        assert_eq!(find_repo(&repo), Some(repo));
        assert_eq!(find_repo(dir.path()), None);
    }

    fn fs_setup(repo: &Path) {
        std::fs::create_dir_all(repo.join("adapters")).unwrap();
        std::fs::write(repo.join("Cargo.toml"), "").unwrap();
    }

    #[test]
    fn elapsed_time_reads_minutes_and_seconds() {
        assert_eq!(elapsed(Duration::from_millis(4_999)), "0:04");
        assert_eq!(elapsed(Duration::from_secs(185)), "3:05");
    }

    #[test]
    fn one_client_brings_its_pairs_and_their_partner() {
        let copilot: Client = "copilot".parse().unwrap();
        let one = ClientChoice::One(copilot);
        let pairs = one.pairs();
        let named: Vec<String> = pairs.iter().map(Pair::to_string).collect();
        assert_eq!(named, ["claude-code+copilot", "copilot+claude-code"]);
        assert_eq!(one.obtained(&pairs), [copilot, Client::ClaudeCode]);
        assert_eq!(ClientChoice::One(Client::Grok).pairs(), []);
        assert_eq!(
            ClientChoice::One(Client::Grok).obtained(&[]),
            [Client::Grok]
        );
        let two = ClientChoice::Two(Client::ClaudeCode, copilot);
        assert_eq!(two.pairs(), pairs);
        assert_eq!(two.obtained(&pairs), [Client::ClaudeCode, copilot]);
        assert_eq!(
            ClientChoice::All.pairs(),
            *crate::record::scenarios::coordinate::PAIRS
        );
    }

    fn args(client: ClientChoice, version: Option<&str>, scenarios: &[Scenario]) -> RecordArgs {
        RecordArgs {
            client,
            version: version.map(str::to_owned),
            scenarios: scenarios.to_vec(),
            check: false,
            repo: None,
            bin_dir: None,
            timeout: 120,
            json: false,
            keep_bundle: None,
        }
    }

    #[test]
    fn pairs_run_at_pinned_versions_only() {
        let copilot = ClientChoice::One("copilot".parse().unwrap());
        assert_eq!(pairs_of(&args(copilot, None, &[])).unwrap().len(), 2);
        assert_eq!(
            pairs_of(&args(copilot, None, &[Scenario::Lifecycle])).unwrap(),
            []
        );
        assert_eq!(pairs_of(&args(copilot, Some("1.0.0"), &[])).unwrap(), []);
        let err = pairs_of(&args(copilot, Some("1.0.0"), &[Scenario::Coordinate])).unwrap_err();
        assert!(err.to_string().contains("drop --version"), "{err}");
    }

    #[test]
    fn client_choices_name_one_client_or_all() {
        assert_eq!(parse_choice("all"), Ok(ClientChoice::All));
        assert_eq!(parse_choice("grok"), Ok(ClientChoice::One(Client::Grok)));
        let opencode: Client = "opencode".parse().unwrap();
        assert_eq!(
            parse_choice("claude-code+opencode"),
            Ok(ClientChoice::Two(Client::ClaudeCode, opencode))
        );
        assert!(parse_choice("opencode+opencode").is_err());
        assert!(parse_choice("all+opencode").is_err());
        assert!(parse_choice("opencode+nope").is_err());
        assert_eq!(ClientChoice::All.clients(), Client::all().to_vec());
        let err = parse_choice("antigravity").unwrap_err();
        assert!(
            err.contains("opencode") && err.contains("qwen-code or all"),
            "{err}"
        );
    }
}
