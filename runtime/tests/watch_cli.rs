//! `acc watch` as a person meets it: one frame with `--once`, a refusal under `--json`, and
//! the live view in a real terminal (tmux) picking up a claim another process made.

mod common;

use common::{Redactor, Sandbox, acc_bin};
use std::process::Command;
use std::time::{Duration, Instant};

fn populated() -> Sandbox {
    let sb = Sandbox::new();
    let alice = sb.attach("alice", &["--enforcement", "guarded"]);
    let bob = sb.attach("bob", &[]);
    sb.run_as(
        &alice,
        &[
            "claim",
            "--resource",
            "file:src/**",
            "--enforcement",
            "guarded",
        ],
    )
    .ok();
    sb.run_as(
        &bob,
        &[
            "message",
            "--to",
            "alice",
            "--type",
            "question",
            "--subject",
            "may I?",
            "--body",
            "only the enum",
        ],
    )
    .ok();
    sb
}

#[test]
fn once_prints_one_frame_of_the_room() {
    let sb = populated();
    let r = sb.run(&["watch", "--once", "--width", "200", "--height", "24"]);
    let out = r.ok();
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let mut redact = Redactor::new(&sb);
    insta::assert_snapshot!(redact.apply(out));
}

#[test]
fn once_without_a_store_says_so_and_creates_nothing() {
    let sb = Sandbox::new();
    let r = sb.run(&["watch", "--once"]);
    let out = r.ok();
    assert!(
        out.lines().nth(1).unwrap().starts_with("! no store yet"),
        "{out}"
    );
    assert!(sb.store_files().is_empty());
    assert_eq!(out.lines().count(), 24, "{out}");
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
}

#[test]
fn a_damaged_store_is_a_banner_not_a_crash() {
    let sb = populated();
    let db = sb.db_path();
    let mut bytes = std::fs::read(&db).unwrap();
    for b in bytes.iter_mut().skip(100).take(4000) {
        *b = 0x5a;
    }
    std::fs::write(&db, bytes).unwrap();
    let r = sb.run(&["watch", "--once"]);
    let out = r.ok();
    assert!(out.lines().nth(1).unwrap().starts_with("! "), "{out}");
    assert!(out.contains("store"), "{out}");
}

#[test]
fn json_and_tiny_frames_are_refused_clearly() {
    let sb = Sandbox::new();
    let r = sb.run(&["watch", "--json"]);
    assert_eq!(r.code, 2);
    let v = r.json();
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("acc sync --json"), "{message}");
    let r = sb.run(&["watch", "--once", "--width", "20"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("at least 40x12"), "{}", r.stderr);
    // Without a terminal and without --once there is nothing to draw on.
    let r = sb.run(&["watch"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--once"), "{}", r.stderr);
}

struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]);
        c
    }

    fn screen(&self) -> String {
        let out = self
            .cmd()
            .args(["capture-pane", "-p", "-t", "watch"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn wait_for(&self, what: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(what) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{what:?} never appeared; the screen was:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn alive(&self) -> bool {
        self.cmd()
            .args(["has-session", "-t", "watch"])
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self
            .cmd()
            .arg("kill-server")
            .stderr(std::process::Stdio::null())
            .status();
    }
}

#[test]
fn the_live_view_shows_a_claim_made_by_another_process_and_quits_on_q() {
    if Command::new("tmux").arg("-V").output().is_err() {
        panic!("tmux is needed for this test; .ci/run installs it (apt-get install tmux)");
    }
    let sb = Sandbox::with_real_clock();
    let alice = sb.attach("alice", &["--enforcement", "guarded"]);
    let tmux = Tmux {
        socket: format!("acc-watch-test-{}", std::process::id()),
    };
    let command = format!(
        "env -i TERM=xterm-256color ACC_DATA_HOME='{}' '{}' --cwd '{}' watch",
        sb.data_path().display(),
        acc_bin().display(),
        sb.ws_path().display()
    );
    let started = tmux
        .cmd()
        .args([
            "new-session",
            "-d",
            "-s",
            "watch",
            "-x",
            "120",
            "-y",
            "30",
            &command,
        ])
        .status()
        .unwrap();
    assert!(started.success());
    tmux.wait_for("Sessions (1)");

    sb.run_as(
        &alice,
        &[
            "claim",
            "--resource",
            "file:docs/**",
            "--enforcement",
            "guarded",
        ],
    )
    .ok();
    let screen = tmux.wait_for("file:docs/**");
    assert!(screen.contains("1 live; 1 claim(s)"), "{screen}");

    tmux.cmd()
        .args(["send-keys", "-t", "watch", "q"])
        .status()
        .unwrap();
    let start = Instant::now();
    while tmux.alive() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "q did not quit:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Issue 14: a hook that failed open shows in the event tail, though the store never
/// heard of it.
#[test]
fn a_hook_that_failed_open_shows_in_the_frame() {
    use std::io::Write;
    let sb = populated();
    let mut hook = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .env_clear()
        .env("ACC_DATA_HOME", sb.data_path())
        .env("ACC_TEST_CLOCK", common::FIXED_CLOCK)
        .args(["claude-code"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    hook.stdin.take().unwrap().write_all(b"not json").unwrap();
    let out = hook.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "a hook fails open");
    let run = sb.run(&["watch", "--once", "--width", "200", "--height", "40"]);
    let frame = run.ok();
    assert!(
        frame.contains("claude-code hook failed open: payload_not_json"),
        "{frame}"
    );
}
