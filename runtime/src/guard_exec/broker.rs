//! acc's own commands inside a confined call: the runner keeps acc's data home read-only for
//! the command it runs, so an `acc` started in there cannot write the store itself. It asks
//! the runner instead, which stays outside the confinement: the runner listens on a Unix
//! socket in a private directory (named to the command by [`SOCKET_VAR`]), runs the same
//! `acc` arguments, in the same directory and environment, and hands back its output and exit
//! status. The `acc` it runs is still a descendant of the agent's client, so the CLI's rule
//! that an agent acts only as itself ([`crate::cli::agent`]) judges it as before.
//!
//! One request a connection: a JSON line `{"argv", "cwd", "env"}` from the client, then a
//! JSON line `{"code", "stdout", "stderr"}` from the runner. Standard input is not passed.

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

/// The runner's listening side: a socket in a directory only this user can enter.
pub struct Broker {
    _dir: tempfile::TempDir,
    path: PathBuf,
    listener: UnixListener,
}

impl Broker {
    pub fn bind() -> std::io::Result<Broker> {
        let dir = tempfile::Builder::new().prefix("acc-guard-").tempdir()?;
        let path = dir.path().join("acc.sock");
        let listener = UnixListener::bind(&path)?;
        Ok(Broker {
            _dir: dir,
            path,
            listener,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Serves requests with `acc` (the program to run) until the process ends; each
    /// connection on a thread of its own, so a slow command never holds up the next.
    pub fn serve(self, acc: PathBuf) {
        std::thread::spawn(move || {
            let _keep = self._dir;
            for stream in self.listener.incoming().flatten() {
                let acc = acc.clone();
                std::thread::spawn(move || {
                    let _ = answer(stream, &acc);
                });
            }
        });
    }
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
    let stream = UnixStream::connect(socket).ok()?;
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
        let path = broker.path().to_path_buf();
        broker.serve(PathBuf::from("/bin/sh"));
        let dir = tempfile::tempdir().unwrap();
        let stream = UnixStream::connect(&path).unwrap();
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
}
