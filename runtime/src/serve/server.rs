//! `acc-hook serve`: the accept loop and the run of one request.

use super::lifecycle::{self, Watch};
use super::peer;
use super::protocol::{self, Ack, Answer, Kind, Request};
use super::workers::{self, Workers};
use crate::env::Env;
use crate::hook::hook_env::HookEnv;
use crate::hook::settings::{HookSettings, ProcessSource};
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a client may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

pub const USAGE: &str = "\
usage: acc-hook serve [--data-home DIR]

A resident server for one data home: acc-hook and acc invocations whose environment holds
ACC_SERVE=1 hand their whole call to it (arguments, stdin, environment, directory, their
pid) and write what it answers, so the store's connections stay warm between calls. The
first call that finds no server runs itself and starts one; the server exits after 60 s
without a request, when its data home or its binary is gone, or when its socket is taken.
It serves only processes of its own user; a client uses it only when it is this very
acc-hook binary, of its user, untraced, with no LD_PRELOAD, LD_LIBRARY_PATH or LD_AUDIT;
otherwise the call runs by itself. Listens on <data home>/acc/serve/sock; its pid is in
<data home>/acc/serve/lock.
";

/// `acc-hook serve [--data-home DIR]`: 0 when it ends as designed (including another server
/// already running), 2 on bad arguments or no data home.
pub fn main(args: &[OsString]) -> i32 {
    let mut data_home: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.to_str() {
            Some("--data-home") => match it.next() {
                Some(v) if Path::new(v).is_absolute() => data_home = Some(PathBuf::from(v)),
                _ => {
                    eprint!("acc-hook serve: --data-home needs an absolute directory\n{USAGE}");
                    return 2;
                }
            },
            Some("--help" | "-h") => {
                print!("{USAGE}");
                return 0;
            }
            _ => {
                eprint!("{USAGE}");
                return 2;
            }
        }
    }
    // Where to listen is the one thing the server takes from its own environment.
    let data_home = match data_home
        .map(Ok)
        .unwrap_or_else(|| crate::paths::data_home(&Env::from_process()).map_err(|e| e.to_string()))
    {
        Ok(h) => h,
        Err(e) => {
            eprintln!("acc-hook serve: {e}");
            return 2;
        }
    };
    serve(&data_home);
    0
}

/// The server's life; returns only when another server holds the lock or the socket cannot
/// be bound (otherwise the watchdog ends the process).
pub fn serve(data_home: &Path) {
    let Some(socket) = super::socket_path(data_home) else {
        return;
    };
    if !data_home.join("acc").is_dir() {
        return;
    }
    let Some(mut lock) = lifecycle::try_lock(data_home) else {
        return;
    };
    // The lock is held: whatever is at the socket's path is no live server's.
    if std::fs::symlink_metadata(&socket).is_ok_and(|m| !m.is_dir()) {
        let _ = std::fs::remove_file(&socket);
    }
    let Ok(listener) = UnixListener::bind(&socket) else {
        return;
    };
    let Ok(socket_meta) = std::fs::symlink_metadata(&socket) else {
        return;
    };
    if lifecycle::record_pid(&mut lock).is_err() {
        return;
    }
    std::panic::set_hook(Box::new(|_| {}));
    crate::store::warm::enable();
    crate::cli::args::keep_parser();
    let started = Instant::now();
    let last = Arc::new(AtomicU64::new(0));
    let busy = Arc::new(AtomicUsize::new(0));
    let watch = Watch {
        data_home: data_home.to_path_buf(),
        socket,
        socket_id: (socket_meta.dev(), socket_meta.ino()),
        exe_id: peer::file_id(Path::new("/proc/self/exe")),
    };
    let idle = {
        let (last, busy) = (Arc::clone(&last), Arc::clone(&busy));
        move || {
            if busy.load(Ordering::SeqCst) > 0 {
                return Duration::ZERO;
            }
            started
                .elapsed()
                .saturating_sub(Duration::from_millis(last.load(Ordering::SeqCst)))
        }
    };
    if lifecycle::watchdog(watch, idle).is_err() {
        return;
    }
    let served = Arc::new(AtomicU64::new(0));
    let workers = Workers::new();
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        busy.fetch_add(1, Ordering::SeqCst);
        let (last, done) = (Arc::clone(&last), Arc::clone(&busy));
        let served = Arc::clone(&served);
        let started_job = workers.run(Box::new(move || {
            // Counted done even when the request panics, so that the server still goes
            // when idle.
            let _done = Done {
                last,
                busy: done,
                started,
            };
            handle(conn, &served);
        }));
        if !started_job {
            busy.fetch_sub(1, Ordering::SeqCst);
        }
    }
    // Held until here, that is for the server's life.
    drop(lock);
}

/// A request's end, on the idle clock.
struct Done {
    last: Arc<AtomicU64>,
    busy: Arc<AtomicUsize>,
    started: Instant,
}

impl Drop for Done {
    fn drop(&mut self) {
        self.last
            .store(self.started.elapsed().as_millis() as u64, Ordering::SeqCst);
        self.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One connection: one request.
fn handle(mut conn: UnixStream, served: &AtomicU64) {
    let Some((pid, uid)) = peer::credentials(&conn) else {
        return;
    };
    if uid != peer::own_uid() {
        return;
    }
    let _ = conn.set_read_timeout(Some(REQUEST_TIMEOUT));
    let Ok(request) = protocol::read_json::<Request>(&mut conn) else {
        return;
    };
    if request.build != protocol::build() {
        let _ = protocol::write_json(
            &mut conn,
            &Ack {
                build: protocol::build(),
                accepted: false,
            },
        );
        // Another build is being used: this one is stale.
        std::process::exit(0);
    }
    let Ok(stdin) = protocol::read_frame(&mut conn, protocol::MAX_STDIN_BYTES) else {
        return;
    };
    // The pid judged is the one the kernel saw connect, never one the request names.
    let accepted = request.pid == pid;
    let ack = Ack {
        build: protocol::build(),
        accepted,
    };
    if protocol::write_json(&mut conn, &ack).is_err() || !accepted {
        return;
    }
    // The client checks who acknowledged before it lets the call run; a client that
    // distrusts this server closes instead, and runs the call itself.
    let mut go = [0u8; 1];
    if conn.read_exact(&mut go).is_err() || go[0] != protocol::GO {
        return;
    }
    let answer = if request.kind == Kind::Status {
        Answer {
            code: 0,
            stdout: format!("{}\n", served.load(Ordering::SeqCst)).into_bytes(),
            stderr: Vec::new(),
        }
    } else {
        served.fetch_add(1, Ordering::SeqCst);
        run(&request, pid, stdin)
    };
    let _ = protocol::write_answer(&mut conn, &answer);
}

/// Runs the request as the process that sent it would have.
pub fn run(request: &Request, pid: u32, stdin: Vec<u8>) -> Answer {
    // The worker ran other requests: this one looks at the file system afresh.
    crate::paths::forget_real_paths();
    workers::enter_directory(
        Path::new(std::ffi::OsStr::from_bytes(&request.cwd)),
        request.umask,
    );
    let mut answer = Answer::default();
    let argv: Vec<OsString> = request
        .argv
        .iter()
        .map(|a| OsString::from_vec(a.clone()))
        .collect();
    match request.kind {
        Kind::Status => {}
        Kind::Hook => {
            let args: Vec<String> = argv
                .iter()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let mut settings = HookSettings::system(HookEnv::from_vars(request.env.clone()));
            settings.budget = settings
                .budget
                .saturating_sub(Duration::from_millis(request.elapsed_ms));
            settings.processes = ProcessSource::SystemFrom(pid);
            // No deferred `acc-hook --beat`: it would run with the server's empty
            // environment, not the request's; a due heartbeat takes the store path, whose
            // connection stays warm here.
            settings.beat_exe = None;
            answer.code = crate::hook::capture::run(
                &args,
                Box::new(std::io::Cursor::new(stdin)),
                &mut answer.stdout,
                &mut answer.stderr,
                settings,
            );
        }
        Kind::Acc => {
            let env: Env = request
                .env
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let cwd = PathBuf::from(std::ffi::OsStr::from_bytes(&request.cwd));
            answer.code = crate::cli::caller::on_behalf_of(pid, || {
                crate::cli::run(argv, &env, &cwd, &mut answer.stdout, &mut answer.stderr)
            });
        }
    }
    answer
}
