//! `acc watch`: a full-screen view of the room that updates itself, for the person running
//! the agents. It only reads the store (never a write lock), notices a commit within one
//! poll (100 ms) through SQLite's `data_version`, and sleeps in the terminal's event wait
//! while nothing happens. `--once` prints one frame as plain text for scripts and tests.

pub mod frame;
pub mod rows;
pub mod safe_text;
pub mod source;
pub mod ui_state;

use crate::cli::context::Invocation;
use crate::env::Env;
use crate::error::{AccError, ErrorCode, Result};
use frame::Screen;
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend, TestBackend};
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::{cursor, execute, terminal};
use source::RoomSource;
use std::time::Duration;
use ui_state::{Action, UiState};

/// How long the loop waits for a key before it looks at the store again.
pub const POLL: Duration = Duration::from_millis(100);
/// The frame size of `--once` when none is given.
pub const DEFAULT_SIZE: (u16, u16) = (80, 24);
/// Smaller than this, the panes cannot show a line each.
const MIN_SIZE: (u16, u16) = (40, 12);

/// Colour unless `NO_COLOR` is set (to anything non-empty) or the terminal cannot show it.
pub fn colour_enabled(env: &Env) -> bool {
    let no_color = env.get("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = env.get("TERM").is_none_or(|t| t.is_empty() || t == "dumb");
    !no_color && !dumb
}

/// The frame `screen` makes at `width` x `height`, as plain text: one line per row, trailing
/// spaces trimmed.
pub fn render_text(screen: &Screen, ui: &mut UiState, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test backend");
    terminal
        .draw(|f| frame::draw(f, screen, ui, false))
        .expect("a test backend draws");
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        let mut line = String::new();
        for x in 0..width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `acc watch --once`: one frame of the room as it is now.
pub fn once(inv: &Invocation<'_>, size: (u16, u16)) -> Result<String> {
    check_size(size)?;
    let mut source = RoomSource::new(inv);
    source.poll();
    Ok(render_text(
        &source.screen,
        &mut UiState::default(),
        size.0,
        size.1,
    ))
}

fn check_size((w, h): (u16, u16)) -> Result<()> {
    if w < MIN_SIZE.0 || h < MIN_SIZE.1 {
        return Err(AccError::usage(format!(
            "a frame of {w}x{h} is too small: acc watch needs at least {}x{}",
            MIN_SIZE.0, MIN_SIZE.1
        )));
    }
    Ok(())
}

/// Restores the terminal however the loop ends, a panic included.
struct TerminalGuard;

impl TerminalGuard {
    fn enter() -> std::io::Result<TerminalGuard> {
        terminal::enable_raw_mode()?;
        let guard = TerminalGuard;
        execute!(
            std::io::stdout(),
            terminal::EnterAlternateScreen,
            cursor::Hide
        )?;
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = execute!(
            std::io::stdout(),
            terminal::LeaveAlternateScreen,
            cursor::Show
        );
        let _ = terminal::disable_raw_mode();
    }
}

/// `acc watch`: the live view, until `q`.
pub fn interactive(inv: &Invocation<'_>) -> Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(AccError::usage(
            "acc watch needs a terminal; use `acc watch --once` for one frame on stdout, or `acc sync --json` for data",
        ));
    }
    let colour = colour_enabled(inv.env);
    let io = |e: std::io::Error| {
        AccError::new(
            ErrorCode::InvalidArgument,
            format!("acc watch cannot drive this terminal: {e}"),
        )
    };
    let _guard = TerminalGuard::enter().map_err(io)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout())).map_err(io)?;
    let mut source = RoomSource::new(inv);
    let mut ui = UiState::default();
    source.poll();
    let mut dirty = true;
    loop {
        if dirty {
            terminal
                .draw(|f| frame::draw(f, &source.screen, &mut ui, colour))
                .map_err(io)?;
            dirty = false;
        }
        if event::poll(POLL).map_err(io)? {
            match event::read().map_err(io)? {
                Event::Key(key) => match ui.on_key(key) {
                    Action::Quit => break,
                    Action::Redraw => dirty = true,
                    Action::Refresh => {
                        source.read();
                        dirty = true;
                    }
                    Action::Nothing => {}
                },
                Event::Resize(_, _) => {
                    terminal.autoresize().map_err(io)?;
                    dirty = true;
                }
                _ => {}
            }
        }
        dirty |= source.poll();
    }
    Backend::flush(terminal.backend_mut()).map_err(io)?;
    Ok(())
}

#[cfg(test)]
mod tests;
