//! The projector's exact text, pinned with snapshots, and its ordering and id rules.

mod projector_support;

use acc_sdk::context::{AttentionKind, ContextInput, QuoteField};
use acc_sdk::projector::{project_context, project_context_result};
use projector_support::*;

/// Text plus ids, the way a snapshot reviewer wants to read them.
fn render(input: &ContextInput, budget: usize) -> String {
    let result = project_context_result(input, budget);
    assert_invariants(input, budget, &result);
    format!(
        "{}\n---\noffered: {:?}\nattention: {:?}\nbytes: {} of {budget}",
        result.text,
        result.offered_message_ids,
        result.included_attention_ids,
        result.text.len()
    )
}

fn full_input() -> ContextInput {
    let mut question = message(
        "message_Q1",
        "Can you take src/store.rs?",
        "I am on the schema.\nPlease reply before editing.",
    );
    question.kind = "question".into();
    question.obligation = "reply".into();
    ContextInput {
        peer_count: 2,
        solo: false,
        messages: vec![
            question,
            message("message_N2", "FYI", "Tests are green on main."),
        ],
        repeats: vec![repeat(message(
            "message_R3",
            "live ping",
            "Did you see my earlier note?",
        ))],
        attention: vec![
            quoting(
                AttentionKind::ClaimExpired,
                "claim_B",
                "your lease ran out at 2026-12-02T09:30:00.000Z; claim it again or release it",
                &[(QuoteField::Resource, "file:docs/**")],
            ),
            quoting(
                AttentionKind::ReplyRequired,
                "message_Q1",
                "question from claude-code-Ab12Cd",
                &[(QuoteField::Subject, "Can you take src/store.rs?")],
            ),
            quoting(
                AttentionKind::ClaimConflict,
                "claim_A",
                "claimed (exclusive) by codex-x1y2z3; it overlaps a hint of your intent",
                &[
                    (QuoteField::Resource, "file:src/**"),
                    (QuoteField::Hint, "file:src/lib.rs"),
                ],
            ),
            attention(
                AttentionKind::AcknowledgementRequired,
                "message_D4",
                "decision awaits your acknowledgement",
            ),
            attention(
                AttentionKind::ReplyRequired,
                "message_OLD",
                "old question, already offered",
            ),
        ],
        reminder_message_ids: vec![
            "message_OLD".into(),
            "message_OLD2".into(),
            "message_OLD".into(),
        ],
    }
}

#[test]
fn everything_fits() {
    insta::assert_snapshot!(render(&full_input(), 6000));
}

#[test]
fn budget_drops_a_message_and_names_it() {
    // Room for the urgent lines and the first block only.
    insta::assert_snapshot!(render(&full_input(), 700));
}

#[test]
fn budget_drops_attention_only() {
    let mut input = full_input();
    input.messages.clear();
    input.repeats.clear();
    insta::assert_snapshot!(render(&input, 200));
}

#[test]
fn urgent_line_cut_with_an_ellipsis() {
    let input = ContextInput {
        peer_count: 1,
        attention: vec![attention(
            AttentionKind::ReplyRequired,
            "message_long",
            "codex asks: could you review the whole migration plan, including the rollback steps?",
        )],
        ..ContextInput::default()
    };
    insta::assert_snapshot!(render(&input, 80));
}

#[test]
fn hostile_bodies_rendered() {
    insta::assert_snapshot!(render(
        &with_messages(hostile("fence-breakers.json")),
        64000
    ));
}

#[test]
fn hostile_headers_and_controls_rendered() {
    let mut messages = hostile("header-forgery.json");
    messages.extend(hostile("control-characters.json"));
    insta::assert_snapshot!(render(&with_messages(messages), 64000));
}

#[test]
fn presence_and_silence() {
    let peers = ContextInput {
        peer_count: 2,
        ..ContextInput::default()
    };
    assert_eq!(
        project_context(&peers, 6000),
        "ACC: 2 peer participant(s) present. Load the acc skill before shared work."
    );
    let solo = ContextInput {
        peer_count: 2,
        solo: true,
        ..ContextInput::default()
    };
    assert_eq!(project_context(&solo, 6000), "");
    let alone = ContextInput::default();
    assert_eq!(project_context(&alone, 6000), "");
    // A solo session still sees a body waiting for it.
    let mut solo_with_mail = with_messages(vec![message("message_1", "hi", "hello")]);
    solo_with_mail.solo = true;
    solo_with_mail.peer_count = 0;
    assert!(
        project_context(&solo_with_mail, 6000)
            .starts_with("ACC (load the acc skill):\n```acc-peer-message\n")
    );
}

#[test]
fn order_is_urgent_blocks_other_repeats_reminders() {
    let text = project_context(&full_input(), 6000);
    let position = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing from:\n{text}"))
    };
    let order = [
        "- [reply_required] message_Q1",
        "- [acknowledgement_required] message_D4",
        "messageId: message_Q1",
        "messageId: message_N2",
        "- [claim_conflict] claim_A",
        "- [claim_expired] claim_B",
        "messageId: message_R3",
        "- 1 earlier message(s) still await your reply",
        "- 1 earlier message(s) remain unresolved",
    ];
    for pair in order.windows(2) {
        assert!(
            position(pair[0]) < position(pair[1]),
            "{:?} should come before {:?}",
            pair[0],
            pair[1]
        );
    }
    // The reminder's own attention item became a count, not a line.
    assert!(!text.contains("message_OLD"));
}

#[test]
fn ids_follow_what_was_shown() {
    let full = project_context_result(&full_input(), 6000);
    assert_eq!(
        full.offered_message_ids,
        ["message_Q1", "message_N2", "message_R3"]
    );
    assert_eq!(
        full.included_attention_ids,
        ["message_Q1", "message_D4", "claim_A", "claim_B"]
    );
    let cut = project_context_result(&full_input(), 700);
    assert_eq!(cut.offered_message_ids, ["message_Q1"]);
}

#[test]
fn repeats_carry_their_repeat_line() {
    let text = project_context(&full_input(), 6000);
    let blocks = parse_blocks(&text).unwrap();
    let repeated = blocks
        .iter()
        .find(|b| b.message_id == "message_R3")
        .unwrap();
    assert_eq!(
        repeated.repeat.as_deref(),
        Some("offered via live-push at 2026-12-02T09:00:00.000Z; no retrieval recorded")
    );
    assert!(
        blocks
            .iter()
            .filter(|b| b.message_id != "message_R3")
            .all(|b| b.repeat.is_none())
    );
}

#[test]
fn duplicates_render_once() {
    let m = message("message_dup", "twice", "same body");
    let mut input = with_messages(vec![m.clone(), m.clone()]);
    input.repeats = vec![repeat(m)];
    let result = project_context_result(&input, 6000);
    assert_eq!(result.offered_message_ids, ["message_dup"]);
    assert_eq!(result.text.matches("messageId: message_dup").count(), 1);
}

#[test]
fn peer_text_speaking_as_acc_rendered() {
    let mut input = with_messages(hostile("acc-voice.json"));
    input.attention = hostile_attention();
    insta::assert_snapshot!(render(&input, 64000));
}
