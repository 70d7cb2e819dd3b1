//! A throwaway PostgreSQL server for the shared-store tests: `initdb` into a temporary
//! directory (as `nobody` when the tests run as root, since the server refuses root),
//! listening on 127.0.0.1 at a free port, stopped when dropped.
//!
//! Without PostgreSQL's binaries the tests are skipped with a loud message, unless `CI` is
//! set: there they must run (`.ci/run` installs Debian's `postgresql`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
    as_user: Option<&'static str>,
}

/// The directory holding `initdb` and `pg_ctl`: Debian keeps them out of PATH.
fn bin_dir() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().map(|e| e.path().join("bin")).collect())
        .unwrap_or_default();
    candidates.sort();
    candidates.reverse();
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path));
    }
    candidates
        .into_iter()
        .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl PgServer {
    /// A running server, or `None` (after saying so) when PostgreSQL is not installed here.
    pub fn start() -> Option<PgServer> {
        let Some(bin) = bin_dir() else {
            if std::env::var_os("CI").is_some() {
                panic!(
                    "PostgreSQL's binaries (initdb, pg_ctl) are missing and CI is set: install Debian's postgresql package"
                );
            }
            eprintln!(
                "\n\n*** SKIPPED: no PostgreSQL binaries (initdb, pg_ctl); install Debian's postgresql package to run the shared-store tests ***\n"
            );
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let as_user = root.then_some("nobody");
        if root {
            let c = std::ffi::CString::new(dir.path().as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid NUL-terminated path; 65534 is nobody on Debian.
            assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
        }
        let mut server = PgServer {
            dir,
            bin,
            port: 0,
            as_user,
        };
        let data = server.data_dir();
        server.run(&[
            "initdb",
            "-D",
            data.to_str().unwrap(),
            "-U",
            "acc",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        ]);
        server.port = free_port();
        server.start_again();
        Some(server)
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn run(&self, argv: &[&str]) {
        let program = self.bin.join(argv[0]);
        let mut cmd = match self.as_user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        cmd.args(&argv[1..]).current_dir(self.dir.path());
        let out = cmd.output().expect("PostgreSQL's tools run");
        assert!(
            out.status.success(),
            "{argv:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Starts the server (again) on its port and waits until it accepts connections.
    pub fn start_again(&self) {
        let data = self.data_dir();
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("server.log");
        self.run(&[
            "pg_ctl",
            "-D",
            data.to_str().unwrap(),
            "-o",
            &options,
            "-l",
            log.to_str().unwrap(),
            "-w",
            "start",
        ]);
    }

    /// Stops the server at once (connections are cut, as a crash or a partition would).
    pub fn stop(&self) {
        let data = self.data_dir();
        self.run(&[
            "pg_ctl",
            "-D",
            data.to_str().unwrap(),
            "-m",
            "immediate",
            "-w",
            "stop",
        ]);
    }

    /// Turns TLS on with the server certificate and key at `cert` and `key` (PEM), and
    /// restarts the server. Plain connections are still accepted.
    pub fn enable_tls(&self, cert: &Path, key: &Path) {
        use std::os::unix::fs::PermissionsExt;
        let (to_cert, to_key) = (self.dir().join("server.crt"), self.dir().join("server.key"));
        std::fs::copy(cert, &to_cert).unwrap();
        std::fs::copy(key, &to_key).unwrap();
        // The server refuses a key others can read.
        std::fs::set_permissions(&to_key, std::fs::Permissions::from_mode(0o600)).unwrap();
        if self.as_user.is_some() {
            for f in [&to_cert, &to_key] {
                let c = std::ffi::CString::new(f.as_os_str().as_encoded_bytes()).unwrap();
                // SAFETY: a valid NUL-terminated path; 65534 is nobody on Debian.
                assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
            }
        }
        let conf = self.data_dir().join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).unwrap();
        text.push_str(&format!(
            "\nssl = on\nssl_cert_file = '{}'\nssl_key_file = '{}'\n",
            to_cert.display(),
            to_key.display()
        ));
        std::fs::write(&conf, text).unwrap();
        self.stop();
        self.start_again();
    }

    /// The URL a workspace names the server by; `database` is created first.
    pub fn url(&self) -> String {
        format!("postgres://acc@127.0.0.1:{}/postgres", self.port)
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let data = self.data_dir();
        let _ = Command::new(match self.as_user {
            Some(_) => "runuser".into(),
            None => self.bin.join("pg_ctl"),
        })
        .args(match self.as_user {
            Some(user) => vec![
                "-u".to_string(),
                user.to_string(),
                "--".to_string(),
                self.bin.join("pg_ctl").display().to_string(),
            ],
            None => vec![],
        })
        .args(["-D", data.to_str().unwrap(), "-m", "immediate", "stop"])
        .output();
    }
}
