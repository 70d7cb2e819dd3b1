//! `acc watch` on the benchmark's populated store: the cost of one frame through the
//! library, the time from a commit by another process to the frame that shows it in a real
//! terminal (tmux), and the CPU the view uses while nothing happens.

use acc_runtime::core::room_view::RoomViewLimits;
use acc_runtime::env::Env;
use acc_runtime::store::OpenMode;
use acc_runtime::watch::frame::Screen;
use acc_runtime::watch::{render_text, rows, ui_state::UiState};
use acc_runtime::{Core, Ports, workspace};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct WatchNumbers {
    pub read: Duration,
    pub rows: Duration,
    pub frame: Duration,
    pub commit_to_frame: Option<Duration>,
    pub idle_cpu_percent: Option<f64>,
}

const FRAMES: usize = 30;
const COMMITS: usize = 10;
const IDLE: Duration = Duration::from_secs(10);

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

pub fn measure(acc: &Path, data: &Path, ws: &Path) -> WatchNumbers {
    let desc = workspace::discover(ws, &Env::new()).unwrap();
    let mut core = Core::open(desc, data, OpenMode::ReadOnly, Ports::system()).unwrap();
    let reads: Vec<Duration> = (0..FRAMES)
        .map(|_| {
            let t = Instant::now();
            let _ = core.room_view(RoomViewLimits::default()).unwrap();
            t.elapsed()
        })
        .collect();
    let view = core.room_view(RoomViewLimits::default()).unwrap();
    let built: Vec<Duration> = (0..FRAMES)
        .map(|_| {
            let t = Instant::now();
            let _ = rows::build(&view);
            t.elapsed()
        })
        .collect();
    let frames: Vec<Duration> = (0..FRAMES)
        .map(|_| {
            let t = Instant::now();
            let view = core.room_view(RoomViewLimits::default()).unwrap();
            let screen = Screen {
                workspace: "bench".into(),
                totals: rows::totals(&view),
                banner: None,
                panes: Some(rows::build(&view)),
            };
            let _ = render_text(&screen, &mut UiState::default(), 120, 40);
            t.elapsed()
        })
        .collect();
    let (commit_to_frame, idle_cpu_percent) = live(acc, data, ws).unwrap_or((None, None));
    WatchNumbers {
        read: median(reads),
        rows: median(built),
        frame: median(frames),
        commit_to_frame,
        idle_cpu_percent,
    }
}

fn tmux(socket: &str) -> Command {
    let mut c = Command::new("tmux");
    c.args(["-L", socket]).stderr(Stdio::null());
    c
}

fn screen(socket: &str) -> String {
    let out = tmux(socket)
        .args(["capture-pane", "-p", "-t", "bench"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn cpu_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// The live numbers, or `None` where tmux is missing.
fn live(acc: &Path, data: &Path, ws: &Path) -> Option<(Option<Duration>, Option<f64>)> {
    let socket = format!("acc-watch-bench-{}", std::process::id());
    let command = format!(
        "env -i TERM=xterm-256color ACC_DATA_HOME='{}' '{}' --cwd '{}' watch",
        data.display(),
        acc.display(),
        ws.display()
    );
    let ok = tmux(&socket)
        .args([
            "new-session",
            "-d",
            "-s",
            "bench",
            "-x",
            "160",
            "-y",
            "45",
            &command,
        ])
        .status()
        .ok()?
        .success();
    if !ok {
        return None;
    }
    let started = Instant::now();
    while !screen(&socket).contains("Sessions") && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = String::from_utf8_lossy(
        &tmux(&socket)
            .args(["display", "-p", "-t", "bench", "#{pane_pid}"])
            .output()
            .ok()?
            .stdout,
    )
    .trim()
    .to_string();
    let mut latencies = Vec::new();
    for i in 0..COMMITS {
        let who = format!("watcher-{i}-{}", std::process::id());
        // The attach commits before its process exits; the clock starts at the exit.
        Command::new(acc)
            .env_clear()
            .env("ACC_DATA_HOME", data)
            .arg("--cwd")
            .arg(ws)
            .args(["attach", "--participant", &who])
            .output()
            .ok()?;
        let t = Instant::now();
        let shown = format!("{who} session.opened");
        while !screen(&socket).contains(&shown) && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(2));
        }
        latencies.push(t.elapsed());
    }
    let ticks_per_s = 100.0;
    let before = cpu_ticks(&pid);
    std::thread::sleep(IDLE);
    let after = cpu_ticks(&pid);
    let idle = match (before, after) {
        (Some(b), Some(a)) => Some((a - b) as f64 / ticks_per_s / IDLE.as_secs_f64() * 100.0),
        _ => None,
    };
    let _ = tmux(&socket).arg("kill-server").status();
    Some((Some(median(latencies)), idle))
}
