//! One invocation under one deadline. A call the snapshot settles is answered on the
//! calling thread before any thread starts (the process's [`watchdog`] holds it to the
//! deadline); otherwise the work runs on a worker thread while the calling thread waits
//! with a timeout, writes the answer (stdout first), and only then lets the worker commit
//! the offers that stdout carried.
//!
//! Whatever goes wrong (an error, a refusal, a panic, the deadline) the answer is allow:
//! exit 0, nothing on stdout, one stderr line with a reason code. A worker that overruns is
//! abandoned, never awaited; it checks the deadline between steps and stops on its own.

use super::answer::Answer;
use super::args::{self, Command, HookArgs, USAGE};
use super::beat_writer;
use super::call::Call;
use super::deadline::Deadline;
use super::failure::{Failure, cap_diagnostic};
use super::handlers;
use super::payload;
use super::platform;
use super::settings::HookSettings;
use super::watchdog;
use crate::core::delivery::NEXT_TURN;
use crate::paths;
use acc_sdk::peer_text::escape_hidden;
use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};

/// Runs `acc-hook` with `argv` (without the program name) and returns the exit code.
pub fn run(
    argv: &[String],
    stdin: Box<dyn Read + Send>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    settings: HookSettings,
) -> i32 {
    run_with_handoff(argv, stdin, stdout, stderr, settings, None)
}

/// A call the snapshot did not settle, as read, before any worker starts: what a resident
/// server ([`crate::serve`]) needs to run it instead.
pub struct StoreCall<'a> {
    /// The payload's bytes exactly as they were read (the value, and whatever came with it).
    pub stdin: &'a [u8],
    pub data_home: &'a std::path::Path,
    pub adapter_id: &'a str,
    pub settings: &'a HookSettings,
}

/// Runs the call elsewhere: `Some(exit code)` once its answer is written, `None` to run it
/// here. It is handed the call with the watchdog stopped: it bounds its own wait.
pub type Handoff<'h> = &'h mut dyn FnMut(&StoreCall, &mut dyn Write, &mut dyn Write) -> Option<i32>;

/// [`run`], with the store path handed to `handoff` first: a call the snapshot settles, an
/// unreadable payload or a refused event is answered here, exactly as [`run`] answers it.
pub fn run_with_handoff(
    argv: &[String],
    stdin: Box<dyn Read + Send>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    settings: HookSettings,
    mut handoff: Option<Handoff>,
) -> i32 {
    let hook_args = match args::parse(argv) {
        Ok(Command::Hook(a)) => a,
        Ok(Command::Help) => {
            let _ = stdout.write_all(USAGE.as_bytes());
            return 0;
        }
        Ok(Command::Version) => {
            let _ = writeln!(stdout, "acc-hook {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        Err(f) => return fail_open(stderr, f),
    };
    let deadline = Deadline::after(settings.budget);
    watchdog::arm(settings.budget);
    let settings_beat_exe = settings.beat_exe.clone();
    let log = FailLog {
        data_home: hook_args
            .data_home
            .clone()
            .or_else(|| paths::data_home(settings.env.env()).ok()),
        adapter: hook_args.adapter_id.clone(),
        now_ms: settings.ports.now(),
    };
    watchdog::log_to(|| {
        let home = log.data_home.as_ref()?;
        let line = super::fail_log::line(&super::fail_log::HookFailure {
            at_ms: log.now_ms,
            adapter: log.adapter.clone(),
            code: Failure::Timeout.code().to_string(),
        })?;
        Some((super::fail_log::path(home), line))
    });
    // A deferred heartbeat's process: this call's line, with the data home resolved here
    // (a test's comes from its settings, not from the process environment).
    let mut beat_argv: Vec<std::ffi::OsString> = Vec::new();
    if let Some(home) = &log.data_home {
        beat_argv.extend(["--data-home".into(), home.clone().into_os_string()]);
    }
    beat_argv.push(hook_args.adapter_id.clone().into());
    beat_argv.extend(hook_args.rest.iter().map(Into::into));
    // What one call resolves, each directory looked at once: the data home, the cwd, the
    // worktree's `.git` files and the targets share most of their components.
    let mut real_paths = Some(paths::remember_real_paths());
    // A call the snapshot or acc's own-file rules settle is answered here, before any
    // thread starts: that work reads a few small files, looks at paths and tries the
    // spool's lock without waiting for it, so nothing in it waits for another process;
    // the payload's read stops once a whole value arrived. The watchdog the process armed
    // ([`super::watchdog`]) still holds all of it to the deadline (a client that never
    // writes its payload, a file system that hangs). Only the store path, which waits for
    // SQLite's locks, runs on a worker the deadline can abandon.
    // Kept only when the call may be handed off: the server reads the same bytes.
    let mut stdin = Tee {
        inner: stdin,
        copy: (handoff.is_some() && !hook_args.beat_only).then(Vec::new),
    };
    let fast = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let prepared = read_event(&hook_args, &mut stdin, &settings, deadline)?;
        let answer = handlers::without_store(&prepared.call(&settings, deadline));
        Ok::<_, Failure>((prepared, answer))
    }));
    let prepared = match fast {
        Ok(Ok((prepared, Some(mut answer)))) => {
            let beat = answer.deferred_beat.take();
            let (written_tx, _) = mpsc::channel::<bool>();
            let (_, committed_rx) = mpsc::channel::<Result<(), Failure>>();
            let code = deliver(answer, stdout, stderr, written_tx, committed_rx, deadline);
            if let (Some(payload), Some(exe)) = (beat, settings_beat_exe) {
                // The writer looks at the file system afresh, as a process of its own did.
                drop(real_paths.take());
                // Started by the process as its last step (a copy of it, after the capture
                // line and everything else), or as `acc-hook --beat` now.
                beat_writer::start(beat_writer::Writer {
                    budget: settings.budget,
                    write: Box::new(move || write_beat(&prepared, &settings)),
                    exe,
                    argv: beat_argv,
                    payload,
                });
            }
            return code;
        }
        Ok(Ok((prepared, None))) => prepared,
        Ok(Err(f)) => return log.fail_open(stderr, f),
        Err(_) => return log.fail_open(stderr, Failure::Panic),
    };
    if let (Some(handoff), Some(read)) = (handoff.as_mut(), &stdin.copy) {
        watchdog::disarm();
        let call = StoreCall {
            stdin: read,
            data_home: &prepared.data_home,
            adapter_id: &hook_args.adapter_id,
            settings: &settings,
        };
        if let Some(code) = handoff(&call, stdout, stderr) {
            return code;
        }
    }
    let (answer_tx, answer_rx) = mpsc::channel::<Result<Answer, Failure>>();
    let (written_tx, written_rx) = mpsc::channel::<bool>();
    let (committed_tx, committed_rx) = mpsc::channel::<Result<(), Failure>>();
    let (finished_tx, finished_rx) = mpsc::channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("acc-hook".into())
        .spawn(move || {
            // Declared first, so it is dropped last: after the core, even on a panic.
            let _finished = Finished(finished_tx);
            let _real_paths = paths::remember_real_paths();
            let call = prepared.call(&settings, deadline);
            let (answer, core) = match handlers::with_store(&call) {
                Ok(handled) => (handled.answer, handled.core),
                Err(f) => {
                    let _ = answer_tx.send(Err(f));
                    return;
                }
            };
            let offers = answer.offers.clone();
            if answer_tx.send(Ok(answer)).is_err() {
                return;
            }
            if let (Some(offers), Some(mut core)) = (offers, core)
                && written_rx.recv_timeout(deadline.remaining()) == Ok(true)
            {
                let result = deadline.check().and_then(|()| {
                    core.commit_offers(&offers.owner, &offers.message_ids, NEXT_TURN)
                        .map(|_| ())
                        .map_err(Failure::from)
                });
                let _ = committed_tx.send(result);
            }
        });
    if spawned.is_err() {
        return log.fail_open(stderr, Failure::Panic);
    }
    let code = match answer_rx.recv_timeout(deadline.remaining()) {
        Ok(Ok(mut answer)) => {
            let beat = answer.deferred_beat.take();
            let code = deliver(answer, stdout, stderr, written_tx, committed_rx, deadline);
            if let (Some(payload), Some(exe)) = (beat, &settings_beat_exe) {
                beat_writer::spawn(exe, &beat_argv, &payload);
            }
            code
        }
        Ok(Err(f)) => log.fail_open(stderr, f),
        Err(RecvTimeoutError::Timeout) => return log.fail_open(stderr, Failure::Timeout),
        Err(RecvTimeoutError::Disconnected) => log.fail_open(stderr, Failure::Panic),
    };
    // The answer is out; let the worker close the store cleanly. A connection that dies
    // with the process leaves its WAL behind, and every later process would have to
    // replay all of it before its first read.
    let _ = finished_rx.recv_timeout(deadline.remaining());
    code
}

/// What `acc-hook --beat` does with this call, in the copy of the process
/// [`beat_writer::exit_after`] made:
/// the conversation's heartbeat, under a deadline of its own. Failures are not said: a
/// heartbeat not written is due again at the next call.
fn write_beat(prepared: &Prepared, settings: &HookSettings) {
    let _real_paths = paths::remember_real_paths();
    let mut call = prepared.call(settings, Deadline::after(settings.budget));
    call.beat_only = true;
    // Dropped here, not at `_exit`: a connection closed cleanly leaves no WAL to replay.
    drop(handlers::with_store(&call));
}

/// Signals, when dropped, that the worker released everything it held.
struct Finished(mpsc::Sender<()>);

impl Drop for Finished {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// Writes the answer: stdout, flushed; then (only if that succeeded) the commit of its
/// offers; then stderr. A duplicate offer after a failed commit is preferred to an offer the
/// client never received.
fn deliver(
    mut answer: Answer,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    written_tx: mpsc::Sender<bool>,
    committed_rx: mpsc::Receiver<Result<(), Failure>>,
    deadline: Deadline,
) -> i32 {
    watchdog::disarm();
    let written = stdout
        .write_all(answer.outcome.stdout.as_bytes())
        .and_then(|()| stdout.flush())
        .is_ok();
    if answer.offers.is_some() {
        let _ = written_tx.send(written);
        if written {
            let failed = match committed_rx.recv_timeout(deadline.remaining()) {
                Ok(Ok(())) => None,
                Ok(Err(f)) => Some(f),
                Err(RecvTimeoutError::Timeout) => Some(Failure::Timeout),
                Err(RecvTimeoutError::Disconnected) => Some(Failure::Panic),
            };
            if let Some(f) = failed {
                answer.notes.push(format!(
                    "acc: shown messages stay queued and may be shown again ({})",
                    f.code()
                ));
            }
        }
    }
    answer.notes = answer
        .notes
        .iter()
        .map(|n| cap_diagnostic(&escape_hidden(n)))
        .collect();
    let _ = stderr.write_all(answer.stderr_text().as_bytes());
    let _ = stderr.flush();
    answer.outcome.exit_code
}

/// A call's inputs once read: the adapter, the payload and its event, the data home.
struct Prepared {
    adapter: Arc<acc_sdk::define::Adapter>,
    payload: serde_json::Value,
    event: acc_sdk::event::NormalizedEvent,
    data_home: std::path::PathBuf,
    beat_only: bool,
}

impl Prepared {
    fn call<'a>(&'a self, settings: &'a HookSettings, deadline: Deadline) -> Call<'a> {
        Call {
            adapter: Arc::clone(&self.adapter),
            event: &self.event,
            payload: &self.payload,
            settings,
            deadline,
            data_home: self.data_home.clone(),
            platform: platform::current(),
            faults: Default::default(),
            beat_only: self.beat_only,
        }
    }
}

/// Everything before a handler: adapter, payload, event, data home. The payload's read
/// stops once a whole value arrived, so a client that keeps stdin open is not waited for.
fn read_event(
    hook_args: &HookArgs,
    stdin: &mut dyn Read,
    settings: &HookSettings,
    deadline: Deadline,
) -> Result<Prepared, Failure> {
    let adapter = (settings.adapters)(&hook_args.adapter_id).ok_or(Failure::UnknownAdapter)?;
    let payload = payload::read(stdin)?;
    deadline.check()?;
    let event = adapter
        .behaviour()
        .normalize_hook(&payload, &hook_args.rest)
        .map_err(|e| Failure::Refused((&e).into()))?;
    let data_home = match &hook_args.data_home {
        Some(dir) => dir.clone(),
        None => paths::data_home(settings.env.env()).map_err(|_| Failure::DataHome)?,
    };
    Ok(Prepared {
        adapter: Arc::new(adapter),
        payload,
        event,
        data_home,
        beat_only: hook_args.beat_only,
    })
}

/// Stdin, and a copy of every byte read from it when `copy` is `Some`.
struct Tee {
    inner: Box<dyn Read + Send>,
    copy: Option<Vec<u8>>,
}

impl Read for Tee {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(copy) = &mut self.copy {
            copy.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }
}

/// Where a failure after the arguments were read is also logged for `acc watch`.
struct FailLog {
    data_home: Option<std::path::PathBuf>,
    adapter: String,
    now_ms: i64,
}

impl FailLog {
    fn fail_open(&self, stderr: &mut dyn Write, failure: Failure) -> i32 {
        let code = fail_open(stderr, failure);
        if let Some(home) = &self.data_home {
            super::fail_log::append(
                home,
                &super::fail_log::HookFailure {
                    at_ms: self.now_ms,
                    adapter: self.adapter.clone(),
                    code: failure.code().to_string(),
                },
            );
        }
        code
    }
}

fn fail_open(stderr: &mut dyn Write, failure: Failure) -> i32 {
    watchdog::disarm();
    let _ = stderr.write_all(failure.line().as_bytes());
    let _ = stderr.flush();
    0
}
