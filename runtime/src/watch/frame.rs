//! One frame: a header with the totals (and a banner when the store cannot be read), four
//! panes in a grid, and a footer with the keys or the filter being typed.

use super::rows::{Panes, Row, Tone};
use super::ui_state::{Pane, UiState};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph};

/// What the loop has to show.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Screen {
    /// The workspace's name, for the header.
    pub workspace: String,
    /// The totals line, as `acc status` prints it; empty before the first read.
    pub totals: String,
    /// Why the store could not be read (locked, corrupt, missing); the panes then show the
    /// last room read, if any.
    pub banner: Option<String>,
    pub panes: Option<Panes>,
}

pub fn draw(frame: &mut Frame<'_>, screen: &Screen, ui: &mut UiState, colour: bool) {
    let area = frame.area();
    let banner_height = u16::from(screen.banner.is_some());
    let [header, banner, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(banner_height),
        Constraint::Min(4),
        Constraint::Length(1),
    ])
    .areas(area);

    let title = format!("acc watch · {} · {}", screen.workspace, screen.totals);
    frame.render_widget(
        Paragraph::new(Line::from(title)).style(style(colour, Tone::Heading)),
        header,
    );
    if let Some(text) = &screen.banner {
        frame.render_widget(
            Paragraph::new(Line::from(format!("! {text}"))).style(style(colour, Tone::Alert)),
            banner,
        );
    }

    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
    let [tl, tr] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(top);
    let [bl, br] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(bottom);
    let areas = [tl, tr, bl, br];

    let empty = Vec::new();
    let shown: Vec<Vec<&Row>> = (0..4)
        .map(|i| {
            screen
                .panes
                .as_ref()
                .map_or(&empty[..], |p| p.get(i))
                .iter()
                .filter(|r| ui.matches(&r.text))
                .collect()
        })
        .collect();
    let inner = |r: Rect| usize::from(r.height.saturating_sub(2));
    ui.clamp(
        [
            shown[0].len(),
            shown[1].len(),
            shown[2].len(),
            shown[3].len(),
        ],
        [inner(tl), inner(tr), inner(bl), inner(br)],
    );
    for (i, pane) in Pane::ALL.iter().enumerate() {
        render_pane(frame, areas[i], *pane, &shown[i], ui, colour);
    }

    let help = if ui.editing {
        format!("filter: {}▏ (Enter to keep, Esc to clear)", ui.filter)
    } else if ui.filter.is_empty() {
        "Tab pane · ↑↓ PgUp PgDn scroll · / filter · r refresh · q quit".to_string()
    } else {
        format!("filter \"{}\" · Esc clears · q quit", ui.filter)
    };
    frame.render_widget(
        Paragraph::new(Line::from(help)).style(style(colour, Tone::Dim)),
        footer,
    );
}

fn render_pane(
    frame: &mut Frame<'_>,
    area: Rect,
    pane: Pane,
    rows: &[&Row],
    ui: &UiState,
    colour: bool,
) {
    let focused = ui.focus == pane;
    let skip = ui.scroll_of(pane);
    let title = if rows.len() > usize::from(area.height.saturating_sub(2)) {
        format!(
            " {} {}-{}/{} ",
            pane.title(),
            (skip + 1).min(rows.len()),
            (skip + usize::from(area.height.saturating_sub(2))).min(rows.len()),
            rows.len()
        )
    } else {
        format!(" {} ({}) ", pane.title(), rows.len())
    };
    let title = if focused {
        format!("▶{title}")
    } else {
        title
    };
    let mut block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_type(if focused {
            BorderType::Double
        } else {
            BorderType::Plain
        });
    if colour && focused {
        block = block.border_style(Style::default().fg(Color::Cyan));
    }
    let mut lines: Vec<Line<'_>> = rows
        .iter()
        .skip(skip)
        .map(|r| Line::from(Span::styled(r.text.as_str(), style(colour, r.tone))))
        .collect();
    if rows.is_empty() {
        let none = if ui.filter.is_empty() {
            "none"
        } else {
            "nothing matches the filter"
        };
        lines.push(Line::from(Span::styled(none, style(colour, Tone::Dim))));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn style(colour: bool, tone: Tone) -> Style {
    if !colour {
        return Style::default();
    }
    match tone {
        Tone::Normal => Style::default(),
        Tone::Good => Style::default().fg(Color::Green),
        Tone::Warn => Style::default().fg(Color::Yellow),
        Tone::Alert => Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
        Tone::Dim => Style::default().add_modifier(Modifier::DIM),
        Tone::Heading => Style::default().add_modifier(Modifier::BOLD),
    }
}
