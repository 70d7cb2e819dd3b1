//! `acc-certify outdated`: per client, the newest version its registry publishes against the
//! newest version the committed evidence covers. Besides `record`, the only command that
//! asks a registry; the registry is a trait so that tests answer with a stand-in.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use acc_sdk::error::CERTIFICATION_FILE;
use clap::Args;
use serde::Serialize;
use serde_json::{Value, json};

use crate::client_arg::ClientValues;
use crate::clients::pins::{Source, pin};
use crate::clients::process::run_with_timeout;
use crate::clients::{Client, environment::SYSTEM_PATH};
use crate::envelope::{self, Exit};
use crate::record::command::find_repo;

/// How long one registry question may take.
const ASK_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Args)]
pub struct OutdatedArgs {
    /// Only this client (repeatable). Default: every client.
    #[arg(long = "client", value_name = "CLIENT", value_parser = ClientValues::new(parse_client, &[]))]
    pub clients: Vec<Client>,
    /// The repository whose evidence is compared (default: the nearest directory at or
    /// above the current one holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Print exactly one JSON envelope on stdout.
    #[arg(long)]
    pub json: bool,
}

fn parse_client(text: &str) -> Result<Client, String> {
    text.parse().map_err(|_| {
        let names: Vec<&str> = Client::all().iter().map(|c| c.id()).collect();
        format!("unknown client {text:?}; use one of {}", names.join(", "))
    })
}

/// Why a registry could not answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegistryError {
    /// `npm` or `PyPI`.
    pub registry: &'static str,
    pub package: String,
    pub message: String,
}

impl RegistryError {
    pub const CODE: &'static str = "registry_unreachable";
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "could not ask the {} registry for {}: {}",
            self.registry, self.package, self.message
        )
    }
}

/// The registry's name for a source.
pub fn registry_name(source: Source) -> &'static str {
    match source {
        Source::Npm { .. } | Source::NpmWithNode { .. } => "npm",
        Source::PyPi { .. } => "PyPI",
    }
}

/// Where the newest published version comes from.
pub trait Registry {
    fn newest(&self, source: Source) -> Result<String, RegistryError>;
}

/// The public registries, through their ordinary clients: `npm view <package> version` and
/// `pip index versions <package>`.
pub struct PublicRegistries;

impl Registry for PublicRegistries {
    fn newest(&self, source: Source) -> Result<String, RegistryError> {
        let package = source.package();
        let fail = |message: String| RegistryError {
            registry: registry_name(source),
            package: package.to_owned(),
            message,
        };
        let mut command = match source {
            Source::Npm { .. } | Source::NpmWithNode { .. } => {
                let mut c = Command::new("npm");
                c.args(["view", package, "version"]);
                c
            }
            Source::PyPi { .. } => {
                let mut c = Command::new("python3");
                c.args(["-m", "pip", "index", "versions", package]);
                c.args(["--disable-pip-version-check"]);
                c
            }
        };
        if std::env::var_os("PATH").is_none() {
            command.env("PATH", SYSTEM_PATH);
        }
        let done = run_with_timeout(&mut command, ASK_TIMEOUT)
            .map_err(|e| fail(format!("cannot run {:?}: {e}", command.get_program())))?;
        if done.timed_out {
            return Err(fail(format!(
                "no answer within {} s (offline?)",
                ASK_TIMEOUT.as_secs()
            )));
        }
        let stdout = String::from_utf8_lossy(&done.stdout);
        if !done.status.success() {
            let stderr = String::from_utf8_lossy(&done.stderr);
            let line = stderr
                .lines()
                .find(|l| !l.trim().is_empty() && !l.starts_with("WARNING"))
                .unwrap_or("no output");
            return Err(fail(format!("{} ({})", line.trim(), done.status)));
        }
        parse_answer(source, &stdout)
            .ok_or_else(|| fail(format!("unexpected answer {:?}", stdout.trim())))
    }
}

/// The version in `npm view`'s (`2.1.332`) or `pip index versions`' (`pkg (0.2.111)`)
/// answer.
pub fn parse_answer(source: Source, stdout: &str) -> Option<String> {
    let version = match source {
        Source::Npm { .. } | Source::NpmWithNode { .. } => stdout.lines().last()?.trim(),
        Source::PyPi { package, .. } => stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix(package)?.trim().strip_prefix('('))?
            .strip_suffix(')')?,
    };
    semver::Version::parse(version)
        .is_ok()
        .then(|| version.to_owned())
}

/// One client's line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientState {
    pub client: String,
    pub package: String,
    pub registry: &'static str,
    pub pinned: String,
    /// `None` when the registry could not be asked.
    pub published: Option<String>,
    /// The newest version any committed evidence row names.
    pub newest_evidence: Option<String>,
    /// `current`, `outdated` or `unknown`.
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RegistryError>,
}

/// The newest version the evidence rows of `certification.json` name.
pub fn newest_evidence(certification: &Value) -> Option<String> {
    certification["evidence"]
        .as_array()?
        .iter()
        .filter_map(|row| row["version"].as_str())
        .filter_map(|v| semver::Version::parse(v).ok())
        .max()
        .map(|v| v.to_string())
}

fn is_newer(published: &str, evidence: Option<&str>) -> bool {
    let Ok(published) = semver::Version::parse(published) else {
        return false;
    };
    evidence
        .and_then(|e| semver::Version::parse(e).ok())
        .is_none_or(|e| published > e)
}

/// Every asked client's state, in `Client::all()` order.
pub fn states(repo: &Path, clients: &[Client], registry: &dyn Registry) -> Vec<ClientState> {
    Client::all()
        .iter()
        .copied()
        .filter(|c| clients.is_empty() || clients.contains(c))
        .map(|client| {
            let pin = pin(client);
            let path = repo
                .join("adapters")
                .join(client.id())
                .join(CERTIFICATION_FILE);
            let evidence = std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                .and_then(|v| newest_evidence(&v));
            let answer = registry.newest(pin.source);
            let (published, error) = match answer {
                Ok(v) => (Some(v), None),
                Err(e) => (None, Some(e)),
            };
            let state = match &published {
                None => "unknown",
                Some(p) if is_newer(p, evidence.as_deref()) => "outdated",
                Some(_) => "current",
            };
            ClientState {
                client: client.id().to_owned(),
                package: pin.source.package().to_owned(),
                registry: registry_name(pin.source),
                pinned: pin.version.to_owned(),
                published,
                newest_evidence: evidence,
                state,
                error,
            }
        })
        .collect()
}

/// 2 when a registry could not be asked, else 1 when any client is outdated, else 0.
pub fn exit_of(states: &[ClientState]) -> Exit {
    if states.iter().any(|s| s.error.is_some()) {
        Exit::CouldNotRun
    } else if states.iter().any(|s| s.state == "outdated") {
        Exit::Invalid
    } else {
        Exit::Ok
    }
}

/// The text output: one line per client, then what to do.
pub fn human(states: &[ClientState]) -> String {
    let mut out = String::new();
    for s in states {
        let published = s.published.as_deref().unwrap_or("?");
        let evidence = s.newest_evidence.as_deref().unwrap_or("none");
        out.push_str(&format!(
            "{:<12} {:<30} published {:<10} evidence {:<10} pinned {:<10} {}\n",
            s.client,
            format!("{} ({})", s.package, s.registry),
            published,
            evidence,
            s.pinned,
            s.state
        ));
    }
    for s in states {
        if s.state == "outdated" {
            out.push_str(&format!(
                "  record it: acc-certify record --client {} --version {}\n",
                s.client,
                s.published.as_deref().unwrap_or_default()
            ));
        }
    }
    out
}

/// The stderr lines, one per registry that could not be asked.
pub fn error_lines(states: &[ClientState]) -> String {
    states
        .iter()
        .filter_map(|s| s.error.as_ref())
        .map(|e| format!("acc-certify: {e} [{}]\n", RegistryError::CODE))
        .collect()
}

/// Runs the command against `registry`; returns the exit code.
pub fn execute_with(
    args: &OutdatedArgs,
    registry: &dyn Registry,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let repo = match &args.repo {
        Some(dir) => Some(dir.clone()),
        None => std::env::current_dir().ok().and_then(|cwd| find_repo(&cwd)),
    };
    let Some(repo) = repo.filter(|r| r.join("adapters").is_dir()) else {
        let message =
            "no repository with adapters/ found: run inside the acc repository or pass --repo DIR";
        if args.json {
            let envelope =
                envelope::failure(Exit::CouldNotRun, message, json!({"code": "no_repository"}));
            let _ = writeln!(out, "{envelope}");
        } else {
            let _ = writeln!(err, "acc-certify: {message} [no_repository]");
        }
        return Exit::CouldNotRun.code();
    };
    let states = states(&repo, &args.clients, registry);
    let exit = exit_of(&states);
    if args.json {
        let data = json!({"clients": states});
        let envelope = match exit {
            Exit::Ok => envelope::success(data),
            Exit::Invalid => envelope::failure(exit, "a newer client version is published", data),
            Exit::CouldNotRun => {
                let names: Vec<String> = states
                    .iter()
                    .filter_map(|s| s.error.as_ref())
                    .map(|e| format!("{} ({})", e.registry, e.package))
                    .collect();
                let message = format!("could not ask {}", names.join(", "));
                envelope::failure(exit, &message, data)
            }
        };
        let _ = writeln!(out, "{envelope}");
    } else {
        let _ = write!(out, "{}", human(&states));
        let _ = write!(err, "{}", error_lines(&states));
    }
    exit.code()
}

/// Runs the command against the public registries.
pub fn execute(args: &OutdatedArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    execute_with(args, &PublicRegistries, out, err)
}

#[cfg(test)]
mod tests;
