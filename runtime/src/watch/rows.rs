//! The room as the lines of each pane: plain text with a tone, so the renderer only lays
//! them out and `--once` prints the same words a person sees.

use super::safe_text::terminal_safe;
use crate::clock::parse_iso;
use crate::core::claims::ClaimRecord;
use crate::core::model::{ClaimMode, Presence, SessionState};
use crate::core::room_view::RoomView;
use crate::core::status::{OwnerSession, StatusSession};
use std::collections::{BTreeMap, BTreeSet};

/// How a line is shown when colour is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Normal,
    /// Live and well.
    Good,
    /// Needs a look: stale, contended, waiting long.
    Warn,
    /// Something was refused or conflicts.
    Alert,
    /// Gone or ended.
    Dim,
    /// A section heading inside a pane.
    Heading,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub text: String,
    pub tone: Tone,
}

impl Row {
    fn new(text: String, tone: Tone) -> Row {
        Row { text, tone }
    }
}

/// Every pane's lines, in [`super::ui_state::Pane::ALL`] order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Panes {
    pub sessions: Vec<Row>,
    pub claims: Vec<Row>,
    pub messages: Vec<Row>,
    pub events: Vec<Row>,
}

impl Panes {
    pub fn get(&self, i: usize) -> &[Row] {
        match i {
            0 => &self.sessions,
            1 => &self.claims,
            2 => &self.messages,
            _ => &self.events,
        }
    }
}

/// The totals line: the same words as `acc status`.
pub fn totals(view: &RoomView) -> String {
    let c = &view.status.counts;
    format!(
        "{} live; {} claim(s); protection {}",
        c.live_sessions, c.live_claims, view.status.protection
    )
}

/// `42s`, `7m`, `3h`, `2d`; never negative.
pub fn age(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

pub fn build(view: &RoomView) -> Panes {
    Panes {
        sessions: sessions(view),
        claims: claims(view),
        messages: messages(view),
        events: events(view),
    }
}

fn sessions(view: &RoomView) -> Vec<Row> {
    let list = &view.status.sessions;
    let ids: BTreeSet<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    let mut out = Vec::new();
    // Parents first, each followed by its children (a child whose parent is not shown is
    // listed as a parent).
    for s in list.iter().filter(|s| {
        s.parent_session_id
            .as_deref()
            .is_none_or(|p| !ids.contains(p))
    }) {
        out.push(session_row(view, s, 0));
        push_children(view, s, 1, &mut out);
    }
    out
}

fn push_children(view: &RoomView, parent: &StatusSession, depth: usize, out: &mut Vec<Row>) {
    // Depth is bounded: a parent cycle in a damaged store must not hang the view.
    if depth > 8 {
        return;
    }
    for child in view
        .status
        .sessions
        .iter()
        .filter(|c| c.parent_session_id.as_deref() == Some(parent.session_id.as_str()))
    {
        out.push(session_row(view, child, depth));
        push_children(view, child, depth + 1, out);
    }
}

fn session_row(view: &RoomView, s: &StatusSession, depth: usize) -> Row {
    let process = view.processes.get(&s.session_id);
    let (state, tone) = match (s.state, s.presence) {
        (SessionState::Closed, _) => ("ended", Tone::Dim),
        (_, Presence::Online) => ("live", Tone::Good),
        (_, Presence::Stale) => ("stale", Tone::Warn),
        (_, Presence::Offline) => ("gone", Tone::Dim),
    };
    let mut text = String::new();
    if depth > 0 {
        text.push_str(&"  ".repeat(depth - 1));
        text.push_str("└ ");
    }
    text.push_str(&terminal_safe(s.participant_id.as_str()));
    text.push_str(&format!(" {state}"));
    if let Some(p) = process {
        let since = p.closed_at_ms.unwrap_or(p.heartbeat_at_ms);
        text.push_str(&format!(" {}", age(view.now_ms - since)));
    }
    let held = view
        .status
        .claims
        .iter()
        .filter(|c| c.claim.owner_session_id == s.session_id)
        .count();
    if held > 0 {
        text.push_str(&format!(" · {held} claim(s)"));
    }
    if let Some(intent) = &s.intent {
        text.push_str(&format!(
            " · {}: {}",
            intent.state,
            terminal_safe(&intent.summary)
        ));
    }
    let client = process
        .and_then(|p| p.client_name.clone())
        .unwrap_or_else(|| s.harness.clone());
    text.push_str(&format!(" · {}", terminal_safe(&client)));
    if let Some(v) = process.and_then(|p| p.client_version.as_deref()) {
        text.push_str(&format!(" {}", terminal_safe(v)));
    }
    if let Some(host) = process.and_then(|p| p.host.as_deref()) {
        text.push_str(&format!(" on {}", terminal_safe(host)));
    }
    if let Some(pid) = process.and_then(|p| p.pid) {
        text.push_str(&format!(" pid {pid}"));
    }
    text.push_str(&format!(" · {} {}", s.enforcement, s.lifecycle));
    Row::new(text, tone)
}

/// Two live claims of different sessions on overlapping resources: a conflict when either is
/// exclusive, contention when both are shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Overlap {
    None,
    Contended,
    Conflict,
}

/// The overlap mark of every claim, found through [`Resource::overlap_candidates`] and a
/// sorted index, so a room with thousands of claims costs a lookup per claim, not a pair.
fn overlaps(all: &[ClaimRecord]) -> Vec<Overlap> {
    let mut index: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, c) in all.iter().enumerate() {
        index.entry(c.resource.as_str()).or_default().push(i);
    }
    all.iter()
        .map(|claim| {
            let (exact, range) = claim.resource.overlap_candidates();
            let exact_hits = exact
                .iter()
                .filter_map(|spelling| index.get(spelling.as_str()))
                .flatten();
            let range_hits = range
                .iter()
                .flat_map(|(from, to)| {
                    index.range::<str, _>((
                        std::ops::Bound::Included(from.as_str()),
                        std::ops::Bound::Excluded(to.as_str()),
                    ))
                })
                .flat_map(|(_, v)| v);
            exact_hits
                .chain(range_hits)
                .map(|&j| &all[j])
                .filter(|o| {
                    o.claim_id != claim.claim_id && o.owner_session_id != claim.owner_session_id
                })
                .filter(|o| o.resource.overlaps(&claim.resource))
                .map(|o| {
                    if o.mode == ClaimMode::Exclusive || claim.mode == ClaimMode::Exclusive {
                        Overlap::Conflict
                    } else {
                        Overlap::Contended
                    }
                })
                .max()
                .unwrap_or(Overlap::None)
        })
        .collect()
}

fn claims(view: &RoomView) -> Vec<Row> {
    let all: Vec<ClaimRecord> = view.status.claims.iter().map(|c| c.claim.clone()).collect();
    let marks = overlaps(&all);
    view.status
        .claims
        .iter()
        .zip(marks)
        .map(|(held, mark)| {
            let c = &held.claim;
            let left = parse_iso(&c.expires_at).map(|at| at - view.now_ms);
            let mut text = format!(
                "{} · {} · {} {}",
                terminal_safe(c.resource.as_str()),
                terminal_safe(c.owner_participant_id.as_str()),
                c.mode,
                c.enforcement,
            );
            if let Some(left) = left {
                text.push_str(&format!(" · {} left", age(left)));
            }
            if held.owner_session == OwnerSession::Ended {
                text.push_str(" · session ended");
            }
            let tone = match mark {
                Overlap::Conflict => {
                    text.push_str(" · CONFLICT");
                    Tone::Alert
                }
                Overlap::Contended => {
                    text.push_str(" · contended");
                    Tone::Warn
                }
                Overlap::None => Tone::Normal,
            };
            Row::new(text, tone)
        })
        .collect()
}

fn messages(view: &RoomView) -> Vec<Row> {
    let mut out = Vec::new();
    for d in &view.deliveries {
        let open = d.queued + d.offered + d.retrieved;
        let counts: Vec<String> = [
            (d.queued, "queued"),
            (d.offered, "offered"),
            (d.retrieved, "retrieved"),
            (d.acknowledged, "acknowledged"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        let mut text = format!(
            "to {}: {}",
            terminal_safe(d.recipient.as_str()),
            counts.join(" · ")
        );
        if let Some(oldest) = d.oldest_open_ms.filter(|_| open > 0) {
            text.push_str(&format!(" · oldest {}", age(view.now_ms - oldest)));
        }
        let tone = if d.queued > 0 {
            Tone::Warn
        } else {
            Tone::Normal
        };
        out.push(Row::new(text, tone));
    }
    if !view.obligations.is_empty() {
        out.push(Row::new(
            format!("owed ({}):", view.obligations_total),
            Tone::Heading,
        ));
        for o in &view.obligations {
            out.push(Row::new(
                format!(
                    "{} owes {} a {} · {} · {}",
                    terminal_safe(o.debtor.as_str()),
                    terminal_safe(o.creditor.as_str()),
                    o.owed.as_str(),
                    terminal_safe(&o.message_id),
                    age(view.now_ms - o.sent_at_ms)
                ),
                Tone::Warn,
            ));
        }
    }
    if !view.decisions.is_empty() {
        out.push(Row::new("decisions:".into(), Tone::Heading));
        for d in &view.decisions {
            let tone = if d.state.as_str() == "current" {
                Tone::Normal
            } else {
                Tone::Dim
            };
            out.push(Row::new(
                format!(
                    "{} by {} · {}",
                    terminal_safe(&d.message_id),
                    terminal_safe(d.from.as_str()),
                    d.state
                ),
                tone,
            ));
        }
    }
    out
}

/// Newest first: the tail is what a person looks at.
fn events(view: &RoomView) -> Vec<Row> {
    // Newest first; a hook that failed open sits among the events by its time.
    let mut timed: Vec<(i64, Row)> = view
        .events
        .iter()
        .rev()
        .map(|e| {
            let mut text = format!(
                "{} {}",
                clock_of(e.occurred_at_ms),
                e.actor
                    .as_ref()
                    .map_or_else(|| "-".to_string(), |a| terminal_safe(a.as_str()))
            );
            text.push_str(&format!(" {}", terminal_safe(&e.kind)));
            for s in &e.subject {
                text.push_str(&format!(" {}", terminal_safe(s)));
            }
            let tone = if e.kind.contains("denied")
                || e.kind == "session.takeover"
                || e.kind.contains("refused")
                || e.kind.contains("detected")
                || e.kind.contains("failed")
            {
                Tone::Alert
            } else if e.kind.contains("force") {
                Tone::Warn
            } else {
                Tone::Normal
            };
            (e.occurred_at_ms, Row::new(text, tone))
        })
        .collect();
    timed.extend(view.hook_failures.iter().map(|f| {
        let text = format!(
            "{} {} hook failed open: {}",
            clock_of(f.at_ms),
            terminal_safe(&f.adapter),
            terminal_safe(&f.code)
        );
        (f.at_ms, Row::new(text, Tone::Warn))
    }));
    // Stable: events of one millisecond keep their store order.
    timed.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    timed.into_iter().map(|(_, row)| row).collect()
}

/// `HH:MM:SS` (UTC) of an event.
fn clock_of(ms: i64) -> String {
    let iso = crate::clock::to_iso(ms);
    iso.get(11..19).unwrap_or(&iso).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_a_person_would_say_them() {
        assert_eq!(age(-5), "0s");
        assert_eq!(age(59_999), "59s");
        assert_eq!(age(60_000), "1m");
        assert_eq!(age(3 * 3_600_000 + 1), "3h");
        assert_eq!(age(2 * 86_400_000), "2d");
        assert_eq!(clock_of(0), "00:00:00");
    }
}
