//! Where frames come from: the workspace's store, opened read-only and polled for commits by
//! SQLite's `data_version`, which costs one pragma and reads no table. A store that is
//! missing, locked or damaged becomes a banner, and is tried again later.

use super::frame::Screen;
use super::rows;
use crate::cli::context::Invocation;
use crate::core::Core;
use crate::core::room_view::{HookFailureLine, RoomViewLimits};
use crate::error::AccError;
use crate::store::OpenMode;
use std::time::{Duration, Instant};

/// How long one read waits for another process's lock before the frame says so.
const READ_WAIT: Duration = Duration::from_millis(50);
/// Presence and leases change with time alone; the room is read again this often even when
/// nothing was committed.
pub const TIME_REFRESH: Duration = Duration::from_secs(5);
/// How far back the event tail shows hooks that failed open.
const HOOK_FAILURES_FOR: Duration = Duration::from_secs(3600);
/// At most this many of them.
const HOOK_FAILURES_SHOWN: usize = 20;
/// A store that could not be opened is tried again this often.
const REOPEN_EVERY: Duration = Duration::from_secs(1);

pub struct RoomSource<'a> {
    inv: &'a Invocation<'a>,
    core: Option<Core>,
    version: Option<i64>,
    last_read: Option<Instant>,
    last_open_try: Option<Instant>,
    pub screen: Screen,
}

impl<'a> RoomSource<'a> {
    pub fn new(inv: &'a Invocation<'a>) -> Self {
        RoomSource {
            inv,
            core: None,
            version: None,
            last_read: None,
            last_open_try: None,
            screen: Screen::default(),
        }
    }

    /// Reads the room when something changed (or time alone may have); returns true when
    /// the screen changed.
    pub fn poll(&mut self) -> bool {
        let now = Instant::now();
        if self.core.is_none() {
            if self
                .last_open_try
                .is_some_and(|t| now.duration_since(t) < REOPEN_EVERY)
            {
                return false;
            }
            self.last_open_try = Some(now);
            if let Err(e) = self.open() {
                return self.set_banner(Some(banner_for(&e)));
            }
        }
        let due = self
            .last_read
            .is_none_or(|t| now.duration_since(t) >= TIME_REFRESH);
        let version = match self.core.as_mut().map(Core::data_version) {
            Some(Ok(v)) => Some(v),
            Some(Err(e)) => {
                self.core = None;
                return self.set_banner(Some(banner_for(&e)));
            }
            None => None,
        };
        if !due && version == self.version {
            return false;
        }
        self.version = version;
        self.read()
    }

    /// Reads the room now, whatever changed.
    pub fn read(&mut self) -> bool {
        self.last_read = Some(Instant::now());
        let Some(core) = self.core.as_mut() else {
            return false;
        };
        let absent = core.store_is_absent().then(|| {
            format!(
                "no store yet at {}: it appears when the first session attaches",
                core.store_path().display()
            )
        });
        // A store changed behind acc's back outranks every other banner.
        let tampered = crate::store::tamper::read(core.store_path());
        match core.room_view(RoomViewLimits::default()) {
            Ok(mut view) => {
                view.hook_failures = self.hook_failures(view.now_ms);
                let before = self.screen.clone();
                self.screen.totals = rows::totals(&view);
                self.screen.panes = Some(rows::build(&view));
                self.screen.banner = tampered.map(|m| m.summary(view.now_ms)).or(absent.clone());
                if absent.is_some() {
                    // Reopen until the store exists, so its first commit is seen.
                    self.core = None;
                }
                before != self.screen
            }
            Err(e) => {
                self.core = None;
                self.set_banner(Some(banner_for(&e)))
            }
        }
    }

    /// The hooks that failed open in the last [`HOOK_FAILURES_FOR`], from the data home's
    /// log (any workspace: a hook that failed may not know its own).
    fn hook_failures(&self, now_ms: i64) -> Vec<HookFailureLine> {
        let Ok(home) = crate::paths::data_home(self.inv.env) else {
            return Vec::new();
        };
        let since = now_ms - HOOK_FAILURES_FOR.as_millis() as i64;
        crate::hook::fail_log::recent(&home, since, HOOK_FAILURES_SHOWN)
            .into_iter()
            .map(|f| HookFailureLine {
                at_ms: f.at_ms,
                adapter: f.adapter,
                code: f.code,
            })
            .collect()
    }

    fn open(&mut self) -> Result<(), AccError> {
        let ws = self.inv.workspace()?;
        self.screen.workspace = super::safe_text::terminal_safe(&ws.display_name);
        let mut core = self.inv.open(OpenMode::ReadOnly)?;
        core.set_busy_timeout(READ_WAIT)?;
        self.version = None;
        self.core = Some(core);
        Ok(())
    }

    fn set_banner(&mut self, banner: Option<String>) -> bool {
        let changed = self.screen.banner != banner;
        self.screen.banner = banner;
        changed
    }
}

/// The banner for a store that cannot be read: what is wrong and that the view keeps trying.
fn banner_for(e: &AccError) -> String {
    let what = e
        .message
        .lines()
        .next()
        .unwrap_or("the store cannot be read");
    format!(
        "{} ({}); showing the last room read, retrying",
        what,
        e.code.as_str()
    )
}
