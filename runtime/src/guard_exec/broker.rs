//! acc's own commands inside a confined call: the runner keeps acc's data home read-only for
//! the command it runs, so an `acc` started in there cannot write the store itself. It asks
//! the runner instead, which stays outside the confinement: the runner listens on an
//! abstract Unix socket of a random name (named to the command by [`SOCKET_VAR`]; nothing
//! to create or remove on disk), serves only processes descended from the command, runs the same
//! `acc` arguments, in the same directory and environment, and hands back its output and exit
//! status. The `acc` it runs is still a descendant of the agent's client, so the CLI's rule
//! that an agent acts only as itself ([`crate::cli::agent`]) judges it as before.
//!
//! One request a connection: a JSON line `{"argv", "cwd", "env"}` from the client, then a
//! JSON line `{"code", "stdout", "stderr"}` from the runner. Standard input is not passed.

use acc_sdk::identity::peer_pid;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The variable that names the socket to the confined command.
pub const SOCKET_VAR: &str = "ACC_GUARD_BROKER";

/// The largest request read (a command line and an environment).
const MAX_REQUEST_BYTES: u64 = 4 << 20;

/// What a confined `acc` asks the runner to run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Request {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub env: BTreeMap<String, String>,
}

/// What it ran.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Reply {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// The runner's listening side: an abstract socket, whose random name is known only to the
/// command (any process of the machine could connect, and is served only if it descends
/// from the command).
pub struct Broker {
    name: String,
    listener: UnixListener,
}

impl Broker {
    pub fn bind() -> std::io::Result<Broker> {
        use std::os::linux::net::SocketAddrExt;
        let mut last = None;
        // Another process holding the same random name is all but impossible; a few tries
        // still beat refusing the command.
        for _ in 0..3 {
            let name = format!("acc-guard-{}-{:016x}", std::process::id(), random());
            let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
            match UnixListener::bind_addr(&addr) {
                Ok(listener) => return Ok(Broker { name, listener }),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no socket name")))
    }

    /// What [`SOCKET_VAR`] holds: the abstract name after `@`.
    pub fn address(&self) -> String {
        format!("@{}", self.name)
    }

    /// Serves requests (as [`Broker::serve`]) until the process `child` exits, on this
    /// thread: a command that never runs `acc` costs no thread. Where the kernel has no
    /// pidfd (before Linux 5.3), serves from a thread and returns at once. `acc` names the
    /// program to run, asked when a first request comes.
    pub fn serve_until_exit(self, acc: fn() -> PathBuf, child: u32) {
        // SAFETY: pidfd_open takes a pid and flags, and returns a new descriptor or -1.
        let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, child as libc::pid_t, 0) };
        if pidfd < 0 {
            return self.serve(acc(), child);
        }
        let mut program: Option<PathBuf> = None;
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        // SAFETY: a descriptor just returned to this process and owned by nothing else.
        let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as i32) };
        loop {
            let mut fds = [
                libc::pollfd {
                    fd: pidfd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: self.listener.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // SAFETY: `fds` is a valid array of two pollfd for the call.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
            if n < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return self.serve(program.unwrap_or_else(acc), child);
            }
            if fds[0].revents != 0 {
                return;
            }
            if fds[1].revents != 0
                && let Ok((stream, _)) = self.listener.accept()
            {
                let acc = program.get_or_insert_with(acc).clone();
                std::thread::spawn(move || {
                    if peer_pid(&stream).is_some_and(|pid| descends_from(pid, child)) {
                        let _ = answer(stream, &acc);
                    }
                });
            }
        }
    }

    /// Serves requests with `acc` (the program to run) until the process ends; each
    /// connection on a thread of its own, so a slow command never holds up the next. Only a
    /// process descended from `confined` (the confined command's shell) is served: the socket
    /// is this user's, but another agent's process must not borrow this command's ancestry.
    pub fn serve(self, acc: PathBuf, confined: u32) {
        std::thread::spawn(move || {
            for stream in self.listener.incoming().flatten() {
                let acc = acc.clone();
                std::thread::spawn(move || {
                    if peer_pid(&stream).is_some_and(|pid| descends_from(pid, confined)) {
                        let _ = answer(stream, &acc);
                    }
                });
            }
        });
    }
}

/// A random value from the kernel (no file to open).
fn random() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: writes at most `bytes.len()` bytes into `bytes`.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if n != bytes.len() as isize {
        // Unguessable enough for a name that is not the security check: the clock.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        return now.as_nanos() as u64 ^ u64::from(std::process::id()) << 32;
    }
    u64::from_ne_bytes(bytes)
}

/// Connects to a broker's address: `@name` is an abstract socket, anything else a path.
pub fn connect(address: &std::ffi::OsStr) -> std::io::Result<UnixStream> {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::ffi::OsStrExt;
    match address.as_bytes().strip_prefix(b"@") {
        Some(name) => {
            UnixStream::connect_addr(&std::os::unix::net::SocketAddr::from_abstract_name(name)?)
        }
        None => UnixStream::connect(address),
    }
}

/// Whether `pid` is `ancestor` or one of its descendants, by the parent links in `/proc`.
fn descends_from(mut pid: u32, ancestor: u32) -> bool {
    for _ in 0..crate::cli::person::MAX_ANCESTORS {
        if pid == ancestor {
            return true;
        }
        match parent_of(pid) {
            Some(p) if p > 1 => pid = p,
            _ => return false,
        }
    }
    false
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

fn answer(stream: UnixStream, acc: &Path) -> std::io::Result<()> {
    let mut line = String::new();
    BufReader::new((&stream).take(MAX_REQUEST_BYTES)).read_line(&mut line)?;
    let reply = match serde_json::from_str::<Request>(&line) {
        Ok(req) => run(acc, &req),
        Err(e) => Reply {
            code: 2,
            stdout: String::new(),
            stderr: format!("acc: the guard's broker could not read the request: {e}\n"),
        },
    };
    let mut out = serde_json::to_vec(&reply)?;
    out.push(b'\n');
    (&stream).write_all(&out)
}

fn run(acc: &Path, req: &Request) -> Reply {
    let out = Command::new(acc)
        .args(req.argv.iter().skip(1))
        .current_dir(&req.cwd)
        .env_clear()
        .envs(req.env.iter().filter(|(k, _)| k.as_str() != SOCKET_VAR))
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(out) => Reply {
            code: out.status.code().unwrap_or(1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        },
        Err(e) => Reply {
            code: 127,
            stdout: String::new(),
            stderr: format!("acc: the guard's broker could not run acc: {e}\n"),
        },
    }
}

/// From inside a confined command: runs this invocation through the runner named by
/// [`SOCKET_VAR`], when it is set and answers; `None` otherwise (the caller runs itself).
pub fn forward(argv: &[OsString], cwd: &Path) -> Option<Reply> {
    let socket = std::env::var_os(SOCKET_VAR)?;
    let stream = connect(&socket).ok()?;
    let req = Request {
        argv: argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        cwd: cwd.to_path_buf(),
        env: std::env::vars().collect(),
    };
    let mut line = serde_json::to_vec(&req).ok()?;
    line.push(b'\n');
    (&stream).write_all(&line).ok()?;
    stream.shutdown(std::net::Shutdown::Write).ok()?;
    let mut reply = String::new();
    BufReader::new(&stream).read_line(&mut reply).ok()?;
    serde_json::from_str(&reply).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_runs_the_program_in_its_directory_with_its_environment() {
        let broker = Broker::bind().unwrap();
        let path = std::ffi::OsString::from(broker.address());
        broker.serve(PathBuf::from("/bin/sh"), std::process::id());
        let dir = tempfile::tempdir().unwrap();
        let stream = connect(&path).unwrap();
        let req = Request {
            argv: vec![
                "acc".into(),
                "-c".into(),
                "pwd; echo \"$X\"; echo err >&2; exit 3".into(),
            ],
            cwd: dir.path().canonicalize().unwrap(),
            env: BTreeMap::from([("X".into(), "forwarded".into())]),
        };
        let mut line = serde_json::to_vec(&req).unwrap();
        line.push(b'\n');
        (&stream).write_all(&line).unwrap();
        let mut reply = String::new();
        BufReader::new(&stream).read_line(&mut reply).unwrap();
        let reply: Reply = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply.code, 3);
        assert_eq!(
            reply.stdout,
            format!(
                "{}\nforwarded\n",
                dir.path().canonicalize().unwrap().display()
            )
        );
        assert_eq!(reply.stderr, "err\n");
    }

    #[test]
    fn a_process_outside_the_confined_command_is_not_served() {
        let broker = Broker::bind().unwrap();
        let path = std::ffi::OsString::from(broker.address());
        // The "confined command" is another process: this test is not its descendant.
        let mut other = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        broker.serve(PathBuf::from("/bin/sh"), other.id());
        let stream = connect(&path).unwrap();
        let req = Request {
            argv: vec!["acc".into(), "-c".into(), "echo ran".into()],
            cwd: PathBuf::from("/"),
            env: BTreeMap::new(),
        };
        let mut line = serde_json::to_vec(&req).unwrap();
        line.push(b'\n');
        let _ = (&stream).write_all(&line);
        let mut reply = String::new();
        let _ = BufReader::new(&stream).read_line(&mut reply);
        other.kill().unwrap();
        let _ = other.wait();
        assert_eq!(reply, "", "a process outside was served");
    }
}
