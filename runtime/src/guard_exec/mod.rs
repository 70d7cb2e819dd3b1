//! `acc-hook guard-exec`: runs one shell command in which the paths under peers' guarded
//! claims are read-only, enforced by the kernel.
//!
//! A parser cannot know what `make`, `python3 script.py` or `npm test` write. Where a
//! client lets its pre-tool hook replace a shell call's input, the hook rewrites the call to
//! run under this runner ([`crate::hook::handlers::confine`]). The runner enters a private
//! user and mount namespace, bind-mounts each given path onto itself ([`namespace`]), in
//! order: read-only (`--ro`), or writable again under a read-only directory (`--rw`, found
//! without following a link; the hook lays claims out in few mounts, [`layout`], and
//! remembers them, [`layout_cache`]), then runs the original command with
//! `bash -c` (a lone simple command of plain words: its program exec'd as bash would,
//! [`direct`]), passing stdin, stdout, stderr and the exit status through. Writes under the
//! read-only paths fail with `EROFS` (or `EBUSY` for a rename or removal of a mounted path
//! itself); everything else stays writable. When the command fails, one stderr line per
//! read-only claim names it and its owner (and a count of those not named, `--more`).
//!
//! It fails closed: when the namespace cannot be set up, the command does not run and the
//! runner exits [`SETUP_FAILED`] with a line saying why.
//!
//! ```text
//! acc-hook guard-exec [--ro PATH | --rw PATH]... [--own PATH]...
//!     [--claim RESOURCE PARTICIPANT SESSION]... [--more N] -- COMMAND
//! ```

pub mod broker;
pub mod direct;
pub mod layout;
pub mod layout_cache;
pub mod namespace;
pub mod spawn;

use layout::Mount;

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// The `acc-hook` argument that selects this runner.
pub const SUBCOMMAND: &str = "guard-exec";

/// The runner's own failure (bad arguments, or a namespace it could not set up): the
/// command did not run. 125, as `env`, `timeout` and container runners use it, so that it
/// is not confused with the shell's 126 and 127.
pub const SETUP_FAILED: i32 = 125;

pub const USAGE: &str = "\
Usage: acc-hook guard-exec [--ro PATH | --rw PATH]... [--own PATH]...
                          [--claim RESOURCE PARTICIPANT SESSION]... [--more N] -- COMMAND

Runs COMMAND as `bash -c` would, in a private user and mount namespace in which every
--ro PATH (absolute, existing) is read-only; a --rw PATH under one of them is writable again
(in the order given; one reached through a symbolic link stays read-only), and every --own
PATH is read-only last. A --ro PATH that is a symbolic link must be in a read-only directory. The exit status is the command's.
When the command fails, each --claim is named on stderr as the reason its paths were
read-only, and --more counts the claims not named. If the namespace cannot be set up, the
command does not run and the exit status is 125.
";

/// A peer's claim, as named on stderr when the command fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimLine {
    pub resource: String,
    pub participant: String,
    pub session: String,
}

impl ClaimLine {
    /// `acc: file:src/** is read-only in this command: claimed by alice (session s1)`.
    pub fn line(&self) -> String {
        format!(
            "acc: {} is read-only in this command: claimed by {} (session {})",
            self.resource, self.participant, self.session
        )
    }
}

/// A parsed runner command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardExec {
    /// Made in this order: a writable one re-opens a path under a read-only one.
    pub mounts: Vec<Mount>,
    /// acc's own paths (its data home): read-only too, with acc's own commands in the
    /// command served from outside ([`broker`]).
    pub own: Vec<PathBuf>,
    pub claims: Vec<ClaimLine>,
    /// Claims read-only here but not named (a command line has room for only so many).
    pub more: usize,
    pub command: OsString,
}

impl GuardExec {
    /// The arguments after `acc-hook`, subcommand included, in the order [`parse`] reads.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![SUBCOMMAND.into()];
        for mount in &self.mounts {
            out.push(if mount.writable { "--rw" } else { "--ro" }.into());
            out.push(mount.path.clone().into_os_string());
        }
        for path in &self.own {
            out.push("--own".into());
            out.push(path.clone().into_os_string());
        }
        for claim in &self.claims {
            out.push("--claim".into());
            out.extend([&claim.resource, &claim.participant, &claim.session].map(OsString::from));
        }
        if self.more > 0 {
            out.push("--more".into());
            out.push(self.more.to_string().into());
        }
        out.push("--".into());
        out.push(self.command.clone());
        out
    }
}

/// Why a runner command line was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsageError {
    /// An option is missing its value(s).
    MissingValue(&'static str),
    /// A `--ro` path that is not absolute (it would depend on the working directory).
    RelativePath(PathBuf),
    /// Not an option of this runner.
    Unknown(OsString),
    /// No `-- COMMAND`, or more than one word after `--`.
    Command,
    /// A claim text that is not UTF-8.
    NotText,
    /// A `--more` value that is not a count.
    NotCount,
}

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UsageError::MissingValue(opt) => write!(f, "{opt} is missing its value"),
            UsageError::RelativePath(p) => write!(f, "{} is not absolute", p.display()),
            UsageError::Unknown(a) => write!(f, "unknown argument {a:?}"),
            UsageError::Command => f.write_str("expected exactly one COMMAND after --"),
            UsageError::NotText => f.write_str("a --claim or --more value is not UTF-8"),
            UsageError::NotCount => f.write_str("--more is not a count"),
        }
    }
}

/// Parses the arguments after the subcommand.
pub fn parse(argv: &[OsString]) -> Result<GuardExec, UsageError> {
    let mut mounts = Vec::new();
    let mut own = Vec::new();
    let mut claims = Vec::new();
    let mut more = 0;
    let mut i = 0;
    let text = |v: Option<&OsString>, opt: &'static str| -> Result<String, UsageError> {
        v.ok_or(UsageError::MissingValue(opt))?
            .to_str()
            .map(str::to_owned)
            .ok_or(UsageError::NotText)
    };
    loop {
        let Some(arg) = argv.get(i) else {
            return Err(UsageError::Command);
        };
        match arg.to_str() {
            Some(opt @ ("--ro" | "--rw" | "--own")) => {
                let name = match opt {
                    "--ro" => "--ro",
                    "--rw" => "--rw",
                    _ => "--own",
                };
                let path = PathBuf::from(argv.get(i + 1).ok_or(UsageError::MissingValue(name))?);
                if !path.is_absolute() {
                    return Err(UsageError::RelativePath(path));
                }
                match name {
                    "--own" => own.push(path),
                    _ => mounts.push(Mount {
                        path,
                        writable: name == "--rw",
                    }),
                }
                i += 2;
            }
            Some("--more") => {
                more = text(argv.get(i + 1), "--more")?
                    .parse()
                    .map_err(|_| UsageError::NotCount)?;
                i += 2;
            }
            Some("--claim") => {
                claims.push(ClaimLine {
                    resource: text(argv.get(i + 1), "--claim")?,
                    participant: text(argv.get(i + 2), "--claim")?,
                    session: text(argv.get(i + 3), "--claim")?,
                });
                i += 4;
            }
            Some("--") => {
                let [command] = &argv[i + 1..] else {
                    return Err(UsageError::Command);
                };
                return Ok(GuardExec {
                    mounts,
                    own,
                    claims,
                    more,
                    command: command.clone(),
                });
            }
            _ => return Err(UsageError::Unknown(arg.clone())),
        }
    }
}

/// Runs `acc-hook guard-exec` with the arguments after the subcommand; returns the exit
/// status. Must be called before the process starts a second thread.
pub fn main(argv: &[OsString]) -> i32 {
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let exec = match parse(argv) {
        Ok(exec) => exec,
        Err(e) => {
            let _ = write!(err, "acc: guard-exec: {e}\n{USAGE}");
            return SETUP_FAILED;
        }
    };
    drop(err);
    run(&exec, &mut std::io::stderr())
}

/// Sets up the namespace, runs the command and reports its claims when it fails.
pub fn run(exec: &GuardExec, stderr: &mut dyn Write) -> i32 {
    let code = if exec.own.is_empty() {
        confined(&exec.mounts, &exec.command, stderr)
    } else {
        brokered(exec, stderr)
    };
    if code != 0 && code != SETUP_FAILED {
        for claim in &exec.claims {
            let _ = writeln!(stderr, "{}", claim.line());
        }
        if exec.more > 0 {
            let _ = writeln!(
                stderr,
                "acc: {} more claims are read-only in this command (`acc status` lists them)",
                exec.more
            );
        }
    }
    code
}

/// Enters the namespace with `mounts` and runs `command`.
fn confined(mounts: &[Mount], command: &OsStr, stderr: &mut dyn Write) -> i32 {
    if let Err(why) = enter(mounts) {
        let _ = writeln!(stderr, "{}", setup_failed(&why));
        return SETUP_FAILED;
    }
    let direct = direct_command(command);
    if let Some(status) = direct.and_then(|mut c| c.status().ok()) {
        return exit_code(status);
    }
    match Command::new("bash").arg("-c").arg(command).status() {
        Ok(status) => exit_code(status),
        Err(e) => {
            let _ = writeln!(stderr, "acc: the command did not run: bash: {e}");
            127
        }
    }
}

/// The program to exec in place of `bash -c command`, where that is what bash would do
/// ([`direct`]).
fn direct_program(command: &OsStr) -> Option<direct::Direct> {
    let vars: Vec<OsString> = std::env::vars_os().map(|(k, _)| k).collect();
    direct::resolve(
        command,
        |k| std::env::var_os(k),
        vars.iter().map(OsString::as_os_str),
    )
}

/// The command started without the inner shell, where that is what `bash -c` would do
/// ([`direct`]).
fn direct_command(command: &OsStr) -> Option<Command> {
    use std::os::unix::process::CommandExt;
    let found = direct_program(command)?;
    let mut c = Command::new(&found.program);
    c.arg0(&found.arg0)
        .args(&found.args)
        .env("_", &found.program);
    Some(c)
}

fn setup_failed(why: &str) -> String {
    format!(
        "acc: the command did not run: the read-only guard over peers' claims could not be set \
         up ({why}); ask the claims' owners to release them, or run it where user namespaces \
         are allowed"
    )
}

/// acc's own paths read-only too: the command runs confined in a child, and this process
/// stays outside to serve the command's own `acc` invocations ([`broker`]).
fn brokered(exec: &GuardExec, stderr: &mut dyn Write) -> i32 {
    let broker = match broker::Broker::bind() {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(
                stderr,
                "acc: the command did not run: the guard could not open its socket for acc's own commands ({e})"
            );
            return SETUP_FAILED;
        }
    };
    let socket = broker.address();
    let mounts: Vec<Mount> = exec
        .mounts
        .iter()
        .cloned()
        .chain(exec.own.iter().map(|path| Mount {
            path: path.clone(),
            writable: false,
        }))
        .collect();
    let direct = direct_program(&exec.command);
    let prepared = namespace::Plan::of_mounts(&mounts)
        .map_err(|e| e.to_string())
        .and_then(|plan| {
            let launch = spawn::Launch::new(
                &exec.command,
                direct.as_ref(),
                &[(broker::SOCKET_VAR, OsStr::new(&socket))],
            )
            .map_err(|e| e.to_string())?;
            Ok((plan, launch))
        });
    let (plan, launch) = match prepared {
        Ok(p) => p,
        Err(why) => {
            let _ = writeln!(stderr, "{}", setup_failed(&why));
            return SETUP_FAILED;
        }
    };
    // The child becomes the command (its shell, or the program itself): no third process
    // to start and reap.
    let (child, failure) = match spawn::confined(&plan, &launch) {
        Ok(started) => started,
        Err(e) => {
            let why = namespace::SetupError {
                step: namespace::Step::Unshare,
                errno: e.raw_os_error().unwrap_or(0),
            };
            let _ = writeln!(stderr, "{}", setup_failed(&why.to_string()));
            return SETUP_FAILED;
        }
    };
    match failure {
        Some(spawn::Failure::Setup(why)) => {
            let _ = writeln!(stderr, "{}", setup_failed(&why.to_string()));
        }
        Some(spawn::Failure::Exec(errno)) => {
            let e = std::io::Error::from_raw_os_error(errno);
            let _ = writeln!(stderr, "acc: the command did not run: bash: {e}");
        }
        None => broker.serve_until_exit(acc_beside_runner, child as u32),
    }
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: waits for our own child; `status` outlives the call.
        let r = unsafe { libc::waitpid(child, &mut status, 0) };
        if r == child {
            break;
        }
        if r < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return SETUP_FAILED;
        }
    }
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        SETUP_FAILED
    }
}

/// The `acc` the broker runs: beside the runner (looked up when a command first asks, so
/// that a command that never runs `acc` does not pay for it).
fn acc_beside_runner() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("acc")))
        .unwrap_or_else(|| PathBuf::from("acc"))
}

fn enter(mounts: &[Mount]) -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Err("user namespaces are a Linux facility".into());
    }
    let plan = namespace::Plan::of_mounts(mounts).map_err(|e| e.to_string())?;
    plan.apply().map_err(|e| e.to_string())
}

/// The shell's convention: a command killed by signal N exits 128 + N.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(SETUP_FAILED)
}

/// Is `arg` (the first argument of `acc-hook`) this runner's subcommand?
pub fn selected(arg: Option<&OsStr>) -> bool {
    arg == Some(OsStr::new(SUBCOMMAND))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn arguments_round_trip() {
        let exec = GuardExec {
            mounts: vec![
                Mount {
                    path: "/ws/src".into(),
                    writable: false,
                },
                Mount {
                    path: "/ws/src/a b".into(),
                    writable: true,
                },
            ],
            own: vec!["/data/acc".into()],
            claims: vec![ClaimLine {
                resource: "file:src/**".into(),
                participant: "alice".into(),
                session: "s1".into(),
            }],
            more: 3,
            command: "make && echo 'done'".into(),
        };
        let args = exec.to_args();
        assert_eq!(args[0], SUBCOMMAND);
        assert_eq!(parse(&args[1..]), Ok(exec));
    }

    #[test]
    fn malformed_lines_are_refused() {
        assert_eq!(parse(&os(&[])), Err(UsageError::Command));
        assert_eq!(parse(&os(&["--ro"])), Err(UsageError::MissingValue("--ro")));
        assert_eq!(
            parse(&os(&["--ro", "src", "--", "x"])),
            Err(UsageError::RelativePath("src".into()))
        );
        assert_eq!(
            parse(&os(&["--claim", "file:a", "p", "--", "x"])),
            Err(UsageError::Unknown("x".into()))
        );
        assert_eq!(parse(&os(&["--", "a", "b"])), Err(UsageError::Command));
        assert_eq!(
            parse(&os(&["--rw", "x", "--", "a"])),
            Err(UsageError::RelativePath("x".into()))
        );
        assert_eq!(
            parse(&os(&["--more", "many", "--", "a"])),
            Err(UsageError::NotCount)
        );
        assert_eq!(
            parse(&os(&["-x", "--", "a"])),
            Err(UsageError::Unknown("-x".into()))
        );
    }

    #[test]
    fn the_failure_line_names_the_claim_and_its_owner() {
        let claim = ClaimLine {
            resource: "file:src/**".into(),
            participant: "alice".into(),
            session: "s1".into(),
        };
        assert_eq!(
            claim.line(),
            "acc: file:src/** is read-only in this command: claimed by alice (session s1)"
        );
        assert!(selected(Some(OsStr::new("guard-exec"))));
        assert!(!selected(Some(OsStr::new("claude-code"))));
        assert!(!selected(None));
    }
}
