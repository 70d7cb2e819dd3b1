//! The command line: parsing with clap, dispatch, and the one place exit codes and the
//! JSON envelope are applied. `main.rs` only calls [`run`].

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use acc_sdk::certification::lexical::is_evidence_platform;
use acc_sdk::certification::validate_adapter_dir;
use acc_sdk::define::AdapterDir;
use acc_sdk::error::Problem;
use acc_sdk::resolution::ClientFacts;
use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};

use crate::adapter_arg::{ADAPTER_HELP, adapter_dir};
use crate::envelope::{self, Exit};
use crate::explain::explain;
use crate::native_cmd::{self, NativeInput};
use crate::report::{plural, problem_json, problem_line};
use crate::setup::SetupError;
use crate::validate::validate_dirs;

#[derive(Debug, Parser)]
#[command(
    name = "acc-certify",
    version,
    about = "Certify acc adapters: record real clients, validate evidence, diff installs, run wiring, gate releases"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check adapter directories: manifest, certification, provenance, digests, fixtures.
    ///
    /// Exit 0 when valid, 1 when invalid (one problem per line), 2 when it could not run.
    Validate(ValidateArgs),
    /// Show every capability's verdict for one client version on one platform.
    ///
    /// The directory must pass `validate` first: exit 0 with the verdicts, 1 with the
    /// problems `validate` reports when it is invalid (nothing is granted), 2 when it could
    /// not run.
    Explain(ExplainArgs),
    /// Judge one client version against the native delivery contract.
    ///
    /// With --probe, eligibility against a feature probe; with --handshake, a handshake
    /// verdict; with neither, the static version rule. There is no platform input. The
    /// directory must pass `validate` first: exit 1 with its problems when it is invalid.
    Native(NativeArgs),
    /// Record real clients against a model double and write judged evidence.
    ///
    /// Exit 0 when recorded (or, with --check, when the verdicts match the committed
    /// evidence), 1 when --check found a difference, 2 when it could not run.
    Record(crate::record::RecordArgs),
    /// Compare an adapter's install plan with what install does in a sandbox home.
    ///
    /// The home is a copy of fixtures/homes/<id>/ unless --home-fixture names another.
    /// Exit 0 when they agree, 1 naming every difference, 2 when it could not run.
    DiffInstall(crate::diff_install::DiffInstallArgs),
    /// Install an adapter into a sandbox home and run every hook command it wrote.
    ///
    /// Each command runs through `sh -c` with no PATH, exactly as written, with a probe
    /// payload for its event. Exit 0 when all exit 0, 1 when any fails or is not an
    /// absolute, executable acc-hook, 2 when it could not run.
    Wire(crate::wire::WireArgs),
    /// The release gate: run every certification check for every adapter.
    ///
    /// Every conformance check, validate, diff-install, wire and the evidence replay for
    /// every adapter, and the matrix drift check. Writes report.json and junit.xml.
    /// Exit 0 pass, 1 fail (a failure, or a stale baseline entry), 2 could not run.
    Gate(crate::gate::command::GateArgs),
    /// Write docs/CAPABILITIES.md, the certified-support matrix, and docs/index.md's per-client
    /// lines from the evidence.
    ///
    /// With --check, compare instead: exit 1 when the document drifted.
    Matrix(crate::matrix::command::MatrixArgs),
    /// List, per client, the newest published version against the newest evidence.
    ///
    /// Asks each client's registry (npm, PyPI) through its own client. Exit 0 when every
    /// client's newest version has evidence, 1 when a newer one is published (record it
    /// with `record --client X --version V`), 2 when a registry could not be asked.
    Outdated(crate::outdated::OutdatedArgs),
    /// Write a new adapter's folder, adapters/<ID>/, from the template (docs/ADAPTERS.md).
    ///
    /// It declares nothing. Exit 0 when written (the lines to add outside the folder are
    /// printed), 2 when the id is not valid, the folder exists, or it could not be written.
    NewAdapter(crate::new_adapter::NewAdapterArgs),
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// A shipped adapter's id (claude-code, codex, ...) or an adapter directory (one
    /// holding certification.json, such as adapters/codex); write ./NAME for a directory
    /// named like an id. Repeatable. Default: every shipped adapter.
    #[arg(long = "adapter", value_name = "ID|DIR")]
    pub adapters: Vec<String>,
    /// The repository root, where ids and the default find adapters/<id> (default: the
    /// nearest directory at or above the current one holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR", alias = "repo")]
    pub root: Option<PathBuf>,
    /// Print exactly one JSON envelope.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[arg(long, value_name = "ID|DIR", help = ADAPTER_HELP)]
    pub adapter: String,
    /// The repository root, where an id finds adapters/<id> (default: the nearest
    /// directory at or above the current one holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR", alias = "repo")]
    pub root: Option<PathBuf>,
    /// The client version as read. `unknown`, or text that is not X.Y.Z (optionally -pre or
    /// +build), reaches every evidence row, and the answer says so.
    #[arg(long, value_name = "V")]
    pub client_version: String,
    /// The platform, such as linux-x64 or darwin-arm64.
    #[arg(long, value_name = "P")]
    pub platform: String,
    /// The product running: the primary client's certification name or a variant's.
    #[arg(long = "client", value_name = "NAME")]
    pub client: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct NativeArgs {
    #[arg(long, value_name = "ID|DIR", help = ADAPTER_HELP)]
    pub adapter: String,
    /// The repository root, where an id finds adapters/<id> (default: the nearest
    /// directory at or above the current one holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR", alias = "repo")]
    pub root: Option<PathBuf>,
    /// The client version as read.
    #[arg(long, value_name = "V")]
    pub client_version: String,
    /// A feature probe answer (JSON) to judge eligibility with.
    #[arg(long, value_name = "FILE", conflicts_with = "handshake")]
    pub probe: Option<PathBuf>,
    /// A per-session handshake answer (JSON) to judge.
    #[arg(long, value_name = "FILE")]
    pub handshake: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

/// What a command produced: an exit code, and either data or an error with details.
struct Outcome {
    exit: Exit,
    human: String,
    json: Value,
}

impl Outcome {
    fn ok(human: String, data: Value) -> Self {
        Self {
            exit: Exit::Ok,
            human,
            json: envelope::success(data),
        }
    }

    fn fail(exit: Exit, message: String, human: String, details: Value) -> Self {
        let json = envelope::failure(exit, &message, details);
        Self { exit, human, json }
    }

    fn could_not_run(message: String) -> Self {
        Self::fail(Exit::CouldNotRun, message.clone(), message, Value::Null)
    }

    fn setup(e: &SetupError) -> Self {
        let message = e.to_string();
        Self::fail(
            Exit::CouldNotRun,
            message.clone(),
            format!("{message} [{}]", e.code()),
            json!({"code": e.code()}),
        )
    }

    fn invalid_dir(dir: &Path, problems: &[Problem]) -> Self {
        let human: String = problems
            .iter()
            .map(|p| problem_line(dir, p) + "\n")
            .collect();
        let message = format!(
            "{} is not a valid adapter: {}",
            dir.display(),
            plural(problems.len(), "problem")
        );
        let details = json!({"dir": dir.display().to_string(), "problems": problems.iter().map(problem_json).collect::<Vec<_>>()});
        Self::fail(Exit::Invalid, message, human, details)
    }
}

/// The adapter directory `--adapter` names (an id's under the repository root), refused
/// unless it passes the validation `acc-certify validate` runs: a verdict read from a
/// directory whose digests, provenance or fixtures do not hold would grant capabilities on
/// evidence nobody can trust.
fn load(value: &str, root: Option<&Path>) -> Result<AdapterDir, Outcome> {
    let dir = adapter_dir(value, root).map_err(|e| Outcome::setup(&e))?;
    let problems = validate_adapter_dir(&dir);
    if !problems.is_empty() {
        return Err(Outcome::invalid_dir(&dir, &problems));
    }
    AdapterDir::load(&dir).map_err(|problems| Outcome::invalid_dir(&dir, &problems))
}

fn read_input(path: &Path) -> Result<Value, Outcome> {
    let bytes = std::fs::read(path)
        .map_err(|e| Outcome::could_not_run(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Outcome::could_not_run(format!("{} is not valid JSON: {e}", path.display())))
}

fn validate(args: &ValidateArgs) -> Outcome {
    let dirs = if args.adapters.is_empty() {
        crate::validate::shipped_dirs(args.root.as_deref())
    } else {
        args.adapters
            .iter()
            .map(|a| adapter_dir(a, args.root.as_deref()))
            .collect()
    };
    let dirs = match dirs {
        Ok(dirs) => dirs,
        Err(e) => return Outcome::setup(&e),
    };
    let report = validate_dirs(&dirs);
    if report.valid() {
        Outcome::ok(report.human(), report.json())
    } else {
        Outcome::fail(
            Exit::Invalid,
            report.summary(),
            report.human(),
            report.json(),
        )
    }
}

fn explain_cmd(args: &ExplainArgs) -> Outcome {
    if !is_evidence_platform(&args.platform) {
        return Outcome::could_not_run(format!(
            "--platform {} is not a platform: use darwin, linux or win32, then -arm64 or -x64 (linux-x64)",
            args.platform
        ));
    }
    let dir = match load(&args.adapter, args.root.as_deref()) {
        Ok(d) => d,
        Err(o) => return o,
    };
    let facts = ClientFacts {
        client_version: Some(args.client_version.clone()),
        platform: args.platform.clone(),
        client_name: args.client.clone(),
    };
    let explanation = explain(&dir.declaration, facts);
    Outcome::ok(explanation.human(), explanation.json())
}

fn native(args: &NativeArgs) -> Outcome {
    let dir = match load(&args.adapter, args.root.as_deref()) {
        Ok(d) => d,
        Err(o) => return o,
    };
    let (input, input_path) = match (&args.probe, &args.handshake) {
        (Some(p), _) => match read_input(p) {
            Ok(v) => (NativeInput::Probe(v), Some(p)),
            Err(o) => return o,
        },
        (None, Some(h)) => match read_input(h) {
            Ok(v) => (NativeInput::Handshake(v), Some(h)),
            Err(o) => return o,
        },
        (None, None) => (NativeInput::Static, None),
    };
    match native_cmd::judge(&dir.declaration, &args.client_version, &input) {
        Ok(data) => Outcome::ok(native_cmd::human(&data), data),
        Err(mut problem) => {
            if let Some(path) = input_path {
                problem.file = path.display().to_string();
            }
            let human = format!("{problem}\n");
            Outcome::fail(
                Exit::Invalid,
                problem.message.clone(),
                human,
                json!({"problems": [problem_json(&problem)]}),
            )
        }
    }
}

/// Parses `args` (program name first), runs the command, writes its output, and returns
/// the exit code.
pub fn run(
    args: impl IntoIterator<Item = OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let args: Vec<OsString> = args.into_iter().collect();
    // Recognised from the raw arguments so that usage errors are JSON too.
    let wants_json = args.iter().skip(1).any(|a| a == "--json");
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = write!(out, "{e}");
                let code = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    Exit::CouldNotRun
                } else {
                    Exit::Ok
                };
                return code.code();
            }
            if wants_json {
                let message = e.kind().to_string();
                let details = json!({"usage": e.to_string().trim_end()});
                let _ = writeln!(
                    out,
                    "{}",
                    envelope::failure(Exit::CouldNotRun, &message, details)
                );
            } else {
                let _ = write!(err, "{e}");
            }
            return Exit::CouldNotRun.code();
        }
    };
    let (outcome, json) = match &cli.command {
        Command::Validate(a) => (validate(a), a.json),
        Command::Explain(a) => (explain_cmd(a), a.json),
        Command::Native(a) => (native(a), a.json),
        Command::Record(a) => return crate::record::execute(a, out, err),
        Command::DiffInstall(a) => return crate::diff_install::execute(a, out, err),
        Command::Wire(a) => return crate::wire::execute(a, out, err),
        Command::Gate(a) => {
            let env = crate::gate::command::GateEnv::from_process();
            return crate::gate::command::execute(a, &env, out, err);
        }
        Command::Matrix(a) => return crate::matrix::command::execute(a, out, err),
        Command::Outdated(a) => return crate::outdated::execute(a, out, err),
        Command::NewAdapter(a) => return crate::new_adapter::execute(a, out, err),
    };
    if json {
        let _ = writeln!(out, "{}", outcome.json);
    } else if outcome.exit == Exit::CouldNotRun {
        let _ = writeln!(err, "acc-certify: {}", outcome.human.trim_end());
    } else {
        let _ = write!(out, "{}", outcome.human);
    }
    outcome.exit.code()
}
