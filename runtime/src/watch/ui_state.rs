//! What the person chose: which pane has the focus, how far each pane is scrolled, and the
//! filter. Keys change it; the store never does.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The four panes, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Sessions,
    Claims,
    Messages,
    Events,
}

impl Pane {
    pub const ALL: [Pane; 4] = [Pane::Sessions, Pane::Claims, Pane::Messages, Pane::Events];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Sessions => "Sessions",
            Pane::Claims => "Claims",
            Pane::Messages => "Messages",
            Pane::Events => "Events",
        }
    }

    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// What a key asks the loop to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Something on screen changed: draw again.
    Redraw,
    /// Read the store again now.
    Refresh,
    Nothing,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiState {
    pub focus: Pane,
    /// Lines scrolled past, per pane (in [`Pane::ALL`] order).
    pub scroll: [usize; 4],
    /// Rows whose text contains this (case-insensitively) are shown; empty shows all.
    pub filter: String,
    /// True while `/` is taking the filter's characters.
    pub editing: bool,
}

impl Default for UiState {
    fn default() -> Self {
        UiState {
            focus: Pane::Sessions,
            scroll: [0; 4],
            filter: String::new(),
            editing: false,
        }
    }
}

/// Lines a page-wise scroll moves.
const PAGE: usize = 10;

impl UiState {
    pub fn scroll_of(&self, pane: Pane) -> usize {
        self.scroll[pane.index()]
    }

    /// Keeps every pane's scroll inside its content (`lines[i]` rows, `visible[i]` shown).
    pub fn clamp(&mut self, lines: [usize; 4], visible: [usize; 4]) {
        for i in 0..4 {
            let max = lines[i].saturating_sub(visible[i]);
            self.scroll[i] = self.scroll[i].min(max);
        }
    }

    pub fn matches(&self, text: &str) -> bool {
        self.filter.is_empty() || text.to_lowercase().contains(&self.filter.to_lowercase())
    }

    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::Nothing;
        }
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return Action::Quit;
        }
        if self.editing {
            return self.on_filter_key(key.code);
        }
        let i = self.focus.index();
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc if self.filter.is_empty() => Action::Quit,
            KeyCode::Esc => {
                self.filter.clear();
                Action::Redraw
            }
            KeyCode::Tab | KeyCode::Right => {
                self.focus = Pane::ALL[(i + 1) % 4];
                Action::Redraw
            }
            KeyCode::BackTab | KeyCode::Left => {
                self.focus = Pane::ALL[(i + 3) % 4];
                Action::Redraw
            }
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(i, 1),
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(i, -1),
            KeyCode::PageDown => self.scroll_by(i, PAGE as isize),
            KeyCode::PageUp => self.scroll_by(i, -(PAGE as isize)),
            KeyCode::Home => {
                self.scroll[i] = 0;
                Action::Redraw
            }
            KeyCode::End => {
                // Clamped to the content at the next draw.
                self.scroll[i] = usize::MAX;
                Action::Redraw
            }
            KeyCode::Char('/') => {
                self.editing = true;
                Action::Redraw
            }
            KeyCode::Char('r') => Action::Refresh,
            _ => Action::Nothing,
        }
    }

    fn scroll_by(&mut self, i: usize, delta: isize) -> Action {
        self.scroll[i] = self.scroll[i].saturating_add_signed(delta);
        Action::Redraw
    }

    fn on_filter_key(&mut self, code: KeyCode) -> Action {
        match code {
            KeyCode::Enter => self.editing = false,
            KeyCode::Esc => {
                self.editing = false;
                self.filter.clear();
            }
            KeyCode::Backspace => {
                self.filter.pop();
            }
            KeyCode::Char(c) if !c.is_control() => self.filter.push(c),
            _ => return Action::Nothing,
        }
        self.scroll = [0; 4];
        Action::Redraw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn tab_cycles_the_panes_both_ways() {
        let mut ui = UiState::default();
        let seen: Vec<Pane> = (0..4)
            .map(|_| {
                ui.on_key(key(KeyCode::Tab));
                ui.focus
            })
            .collect();
        assert_eq!(
            seen,
            [Pane::Claims, Pane::Messages, Pane::Events, Pane::Sessions]
        );
        ui.on_key(key(KeyCode::BackTab));
        assert_eq!(ui.focus, Pane::Events);
    }

    #[test]
    fn a_filter_is_typed_applied_and_cleared() {
        let mut ui = UiState::default();
        assert_eq!(ui.on_key(key(KeyCode::Char('/'))), Action::Redraw);
        for c in "Ali".chars() {
            ui.on_key(key(KeyCode::Char(c)));
        }
        // `q` while editing is text, not quit.
        assert_eq!(ui.on_key(key(KeyCode::Char('q'))), Action::Redraw);
        ui.on_key(key(KeyCode::Backspace));
        ui.on_key(key(KeyCode::Enter));
        assert!(!ui.editing);
        assert_eq!(ui.filter, "Ali");
        assert!(ui.matches("session alice"));
        assert!(!ui.matches("bob"));
        // Esc clears a filter before it quits.
        assert_eq!(ui.on_key(key(KeyCode::Esc)), Action::Redraw);
        assert!(ui.filter.is_empty());
        assert_eq!(ui.on_key(key(KeyCode::Esc)), Action::Quit);
    }

    #[test]
    fn scrolling_stays_inside_the_content() {
        let mut ui = UiState::default();
        ui.on_key(key(KeyCode::Up));
        assert_eq!(ui.scroll_of(Pane::Sessions), 0);
        ui.on_key(key(KeyCode::PageDown));
        ui.on_key(key(KeyCode::PageDown));
        ui.clamp([15, 0, 0, 0], [10, 5, 5, 5]);
        assert_eq!(ui.scroll_of(Pane::Sessions), 5);
        ui.on_key(key(KeyCode::End));
        ui.clamp([15, 0, 0, 0], [10, 5, 5, 5]);
        assert_eq!(ui.scroll_of(Pane::Sessions), 5);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(ui.on_key(ctrl_c), Action::Quit);
    }
}
