//! One invocation under one deadline: the work runs on a worker thread while the calling
//! thread waits with a timeout, writes the answer (stdout first), and only then lets the
//! worker commit the offers that stdout carried.
//!
//! Whatever goes wrong (an error, a refusal, a panic, the deadline) the answer is allow:
//! exit 0, nothing on stdout, one stderr line with a reason code. A worker that overruns is
//! abandoned, never awaited; it checks the deadline between steps and stops on its own.

use super::answer::Answer;
use super::args::{self, Command, HookArgs, USAGE};
use super::call::Call;
use super::deadline::Deadline;
use super::failure::{Failure, cap_diagnostic};
use super::handlers;
use super::payload;
use super::platform;
use super::settings::HookSettings;
use crate::core::Core;
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
    let settings_beat_exe = settings.beat_exe.clone();
    let log = FailLog {
        data_home: hook_args
            .data_home
            .clone()
            .or_else(|| paths::data_home(settings.env.env()).ok()),
        adapter: hook_args.adapter_id.clone(),
        now_ms: settings.ports.now(),
    };
    // A deferred heartbeat's process: this call's line, with the data home resolved here
    // (a test's comes from its settings, not from the process environment).
    let mut beat_argv: Vec<std::ffi::OsString> = Vec::new();
    if let Some(home) = &log.data_home {
        beat_argv.extend(["--data-home".into(), home.clone().into_os_string()]);
    }
    beat_argv.push(hook_args.adapter_id.clone().into());
    beat_argv.extend(hook_args.rest.iter().map(Into::into));
    let (answer_tx, answer_rx) = mpsc::channel::<Result<Answer, Failure>>();
    let (written_tx, written_rx) = mpsc::channel::<bool>();
    let (committed_tx, committed_rx) = mpsc::channel::<Result<(), Failure>>();
    let (finished_tx, finished_rx) = mpsc::channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("acc-hook".into())
        .spawn(move || {
            // Declared first, so it is dropped last: after the core, even on a panic.
            let _finished = Finished(finished_tx);
            let (answer, core) = match prepare(hook_args, stdin, &settings, deadline) {
                Ok((answer, core)) => (answer, core),
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
                start_beat(exe, &beat_argv, &payload);
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

/// Starts `acc-hook --beat <this call's arguments>` on `payload` and does not wait for it:
/// the client waits for this process, not for the heartbeat (the store's open and its
/// write were most of a due call). Best effort: a heartbeat that is not written is due
/// again at the next call.
fn start_beat(exe: &std::path::Path, argv: &[std::ffi::OsString], payload: &[u8]) {
    let child = std::process::Command::new(exe)
        .arg(super::args::BEAT_FLAG)
        .args(argv)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = child
        && let Some(mut stdin) = child.stdin.take()
    {
        let _ = stdin.write_all(payload);
    }
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

/// Everything before the answer is written: adapter, payload, event, handler.
fn prepare(
    hook_args: HookArgs,
    mut stdin: Box<dyn Read + Send>,
    settings: &HookSettings,
    deadline: Deadline,
) -> Result<(Answer, Option<Core>), Failure> {
    let adapter = (settings.adapters)(&hook_args.adapter_id).ok_or(Failure::UnknownAdapter)?;
    let payload = payload::read(&mut stdin)?;
    deadline.check()?;
    let event = adapter
        .behaviour()
        .normalize_hook(&payload, &hook_args.rest)
        .map_err(|e| Failure::Refused((&e).into()))?;
    let data_home = match hook_args.data_home {
        Some(dir) => dir,
        None => paths::data_home(settings.env.env()).map_err(|_| Failure::DataHome)?,
    };
    let call = Call {
        adapter: Arc::new(adapter),
        event: &event,
        payload: &payload,
        settings,
        deadline,
        data_home,
        platform: platform::current(),
        faults: Default::default(),
        beat_only: hook_args.beat_only,
    };
    let handled = handlers::handle(&call)?;
    Ok((handled.answer, handled.core))
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
    let _ = stderr.write_all(failure.line().as_bytes());
    let _ = stderr.flush();
    0
}
