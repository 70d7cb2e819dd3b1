//! Frames of a populated room, pinned through ratatui's test backend.

use super::frame::Screen;
use super::rows;
use super::ui_state::{Pane, UiState};
use super::*;
use crate::core::claims::ClaimRequest;
use crate::core::intents::PublishIntent;
use crate::core::messages::SendMessage;
use crate::core::model::{ClaimMode, Enforcement, IntentMode, IntentState, MessageKind};
use crate::core::resources::Resource;
use crate::core::room_view::RoomViewLimits;
use crate::core::sessions::OpenSession;
use crate::core::testkit::{Kit, kit};
use crate::core::{Core, Owner};
use crate::ids::ParticipantId;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn send(core: &mut Core, from: &Owner, kind: MessageKind, to: &str, subject: &str) {
    core.send(
        from,
        SendMessage {
            to: vec![to.to_string()],
            kind,
            obligation: None,
            subject: subject.into(),
            body: "body".into(),
            client_message_id: None,
        },
    )
    .unwrap();
}

fn claim(core: &mut Core, owner: &Owner, resource: &str, mode: ClaimMode, e: Enforcement) {
    let mut req = ClaimRequest::new(Resource::parse(resource).unwrap());
    req.mode = mode;
    req.enforcement = e;
    core.claim(owner, req).unwrap();
}

/// alice (guarded, with a child reviewer) holds `src/**`; bob is stale and holds a shared
/// claim that contends with carol's; bob asked alice a question; carol ended.
fn populated() -> Kit {
    let mut k = kit();
    let alice = k.attach_guarded("alice");
    let mut child = OpenSession::new(ParticipantId::parse("reviewer").unwrap(), "test", 30_000);
    child.parent_session = Some(alice.session.clone());
    k.core.open_session(child).unwrap();
    let bob = k.attach("bob");
    let carol = k.attach("carol");
    claim(
        &mut k.core,
        &alice,
        "file:src/**",
        ClaimMode::Exclusive,
        Enforcement::Guarded,
    );
    claim(
        &mut k.core,
        &bob,
        "file:docs/**",
        ClaimMode::Shared,
        Enforcement::Advisory,
    );
    claim(
        &mut k.core,
        &carol,
        "file:docs/guide.md",
        ClaimMode::Shared,
        Enforcement::Advisory,
    );
    k.core
        .publish_intent(
            &alice,
            PublishIntent {
                summary: "refactor the parser".into(),
                mode: IntentMode::Edit,
                state: IntentState::Active,
                hints: vec![],
            },
        )
        .unwrap();
    send(&mut k.core, &bob, MessageKind::Question, "alice", "may I?");
    send(&mut k.core, &alice, MessageKind::Note, "bob", "fyi");
    k.clock.advance_ms(50_000);
    k.core.heartbeat(&alice).unwrap();
    k.core.close_session(&carol, None).unwrap();
    k.clock.advance_ms(40_000);
    k
}

fn screen_of(k: &mut Kit) -> Screen {
    let view = k.core.room_view(RoomViewLimits::default()).unwrap();
    Screen {
        workspace: "repo".into(),
        totals: rows::totals(&view),
        banner: None,
        panes: Some(rows::build(&view)),
    }
}

#[test]
fn a_populated_room_at_80x24() {
    let mut k = populated();
    let screen = screen_of(&mut k);
    let text = render_text(&screen, &mut UiState::default(), 80, 24);
    insta::assert_snapshot!(text);
}

#[test]
fn a_populated_room_at_140x30() {
    let mut k = populated();
    let screen = screen_of(&mut k);
    let text = render_text(&screen, &mut UiState::default(), 140, 30);
    insta::assert_snapshot!(text);
}

#[test]
fn the_totals_line_is_acc_status_line() {
    let mut k = populated();
    let status = k.core.status(None, false).unwrap();
    let screen = screen_of(&mut k);
    assert_eq!(
        screen.totals,
        format!(
            "{} live; {} claim(s); protection {}",
            status.counts.live_sessions, status.counts.live_claims, status.protection
        )
    );
    let first = render_text(&screen, &mut UiState::default(), 140, 30);
    assert!(
        first.lines().next().unwrap().contains(&screen.totals),
        "{first}"
    );
}

#[test]
fn children_sit_under_their_parent_and_conflicts_are_marked() {
    let mut k = populated();
    let panes = screen_of(&mut k).panes.unwrap();
    let sessions: Vec<&str> = panes.sessions.iter().map(|r| r.text.as_str()).collect();
    let alice = sessions
        .iter()
        .position(|s| s.starts_with("alice"))
        .unwrap();
    assert!(
        sessions[alice + 1].starts_with("└ reviewer"),
        "{sessions:#?}"
    );
    assert!(
        sessions
            .iter()
            .any(|s| s.starts_with("carol") && s.contains("ended"))
    );
    let claims: Vec<&str> = panes.claims.iter().map(|r| r.text.as_str()).collect();
    assert!(
        claims
            .iter()
            .any(|c| c.starts_with("file:docs/**") && c.ends_with("contended")),
        "{claims:#?}"
    );
    assert!(
        claims
            .iter()
            .all(|c| !c.starts_with("file:src/**") || !c.contains("CONFLICT")),
        "{claims:#?}"
    );
}

#[test]
fn focus_and_filter_change_the_frame() {
    let mut k = populated();
    let screen = screen_of(&mut k);
    let mut ui = UiState::default();
    ui.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(ui.focus, Pane::Claims);
    ui.filter = "docs".into();
    let text = render_text(&screen, &mut ui, 100, 24);
    assert!(text.contains("▶ Claims"), "{text}");
    assert!(text.contains("file:docs/**"), "{text}");
    assert!(!text.contains("file:src/**"), "{text}");
    assert!(text.contains("filter \"docs\""), "{text}");
}

#[test]
fn peer_chosen_text_cannot_drive_the_terminal() {
    let mut k = kit();
    let a = k.attach("alice");
    k.core
        .publish_intent(
            &a,
            PublishIntent {
                summary: "ok".into(),
                mode: IntentMode::Edit,
                state: IntentState::Active,
                hints: vec![],
            },
        )
        .unwrap();
    // acc refuses such text where it is written; a store an older acc (or anything else)
    // wrote can still hold it.
    let path = k.core.store_path().to_path_buf();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE intents SET summary = ?1",
            ["ok\u{202E}txt.exe \u{200B}"],
        )
        .unwrap();
    let screen = screen_of(&mut k);
    let text = render_text(&screen, &mut UiState::default(), 140, 24);
    assert!(
        !text.contains('\u{202E}') && !text.contains('\u{200B}'),
        "{text}"
    );
    assert!(text.contains("active: ok\\u202etxt.exe \\u200b"), "{text}");
}

#[test]
fn a_banner_says_why_the_store_cannot_be_read() {
    let screen = Screen {
        workspace: "repo".into(),
        totals: String::new(),
        banner: Some("acc store is locked (store_busy); retrying".into()),
        panes: None,
    };
    let text = render_text(&screen, &mut UiState::default(), 80, 24);
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("! acc store is locked"),
        "{text}"
    );
    assert!(text.contains("Sessions (0)"), "{text}");
}

#[test]
fn colour_follows_no_color_and_the_terminal() {
    let env = |pairs: &[(&str, &str)]| pairs.iter().fold(Env::new(), |env, (k, v)| env.with(k, v));
    assert!(colour_enabled(&env(&[("TERM", "xterm-256color")])));
    assert!(!colour_enabled(&env(&[
        ("TERM", "xterm"),
        ("NO_COLOR", "1")
    ])));
    assert!(colour_enabled(&env(&[("TERM", "xterm"), ("NO_COLOR", "")])));
    assert!(!colour_enabled(&env(&[("TERM", "dumb")])));
    assert!(!colour_enabled(&env(&[])));
}

#[test]
fn many_sessions_and_messages_scroll_in_a_small_frame() {
    let mut k = kit();
    let owners: Vec<Owner> = (0..30).map(|i| k.attach(&format!("agent{i:02}"))).collect();
    for (i, o) in owners.iter().enumerate().skip(1) {
        send(
            &mut k.core,
            o,
            MessageKind::Question,
            "agent00",
            &format!("q{i}"),
        );
    }
    let screen = screen_of(&mut k);
    let mut ui = UiState::default();
    let text = render_text(&screen, &mut ui, 80, 24);
    assert!(text.contains("Sessions 1-"), "{text}");
    ui.on_key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE));
    let end = render_text(&screen, &mut ui, 80, 24);
    assert!(end.contains("agent29"), "{end}");
    assert!(!end.contains("agent00 ·"), "{end}");
}

#[test]
fn a_hook_that_failed_open_sits_in_the_event_tail_by_its_time() {
    let mut k = populated();
    let mut view = k.core.room_view(RoomViewLimits::default()).unwrap();
    let newest = view.events.last().unwrap().occurred_at_ms;
    view.hook_failures = vec![crate::core::room_view::HookFailureLine {
        at_ms: newest + 1_000,
        adapter: "codex".into(),
        code: "store_busy".into(),
    }];
    let events = rows::build(&view).events;
    assert!(
        events[0]
            .text
            .ends_with(" codex hook failed open: store_busy"),
        "{:?}",
        events[0]
    );
    assert_eq!(events.len(), view.events.len() + 1);
    // The store's own events keep their order after it, newest first.
    assert!(events[1].text.contains(&view.events.last().unwrap().kind));
}
