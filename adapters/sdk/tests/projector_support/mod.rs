//! Shared by the projector tests: building inputs, loading hostile fixtures, and a small
//! independent reader of projected text that checks every invariant a model relies on.

#![allow(dead_code)]

use std::path::PathBuf;

use acc_sdk::context::{
    AttentionItem, AttentionKind, ContextInput, ContextResult, PeerMessage, Quote, QuoteField,
    RepeatInfo,
};
use acc_sdk::projector::neutralise::{neutralise_body, neutralise_inline};
use serde_json::Value;

pub const FENCE_OPEN: &str = "```acc-peer-message";
pub const QUOTE_OPEN: &str = "```acc-peer-text";
pub const FENCE_CLOSE: &str = "```";
/// Peer strings shorter than this may occur in acc's own words by chance (`s`, `ok`), so
/// the "nothing outside a fence" property is checked for longer ones.
const DISTINCT_BYTES: usize = 8;

pub fn message(id: &str, subject: &str, body: &str) -> PeerMessage {
    PeerMessage {
        message_id: id.to_owned(),
        thread_id: id.to_owned(),
        kind: "note".to_owned(),
        sender_participant_id: "claude-code-Ab12Cd".to_owned(),
        sender_session_id: "session_7Qm2Jx0000000000000001".to_owned(),
        obligation: "none".to_owned(),
        subject: subject.to_owned(),
        body: body.to_owned(),
        repeat: None,
    }
}

pub fn repeat(mut m: PeerMessage) -> PeerMessage {
    m.repeat = Some(RepeatInfo {
        transport: "live-push".to_owned(),
        at: "2026-12-02T09:00:00.000Z".to_owned(),
    });
    m
}

pub fn attention(kind: AttentionKind, id: &str, summary: &str) -> AttentionItem {
    AttentionItem {
        kind,
        source_id: id.to_owned(),
        summary: summary.to_owned(),
        quotes: Vec::new(),
    }
}

/// An attention item quoting peer-chosen strings.
pub fn quoting(
    kind: AttentionKind,
    id: &str,
    summary: &str,
    quotes: &[(QuoteField, &str)],
) -> AttentionItem {
    AttentionItem {
        quotes: quotes.iter().map(|(f, t)| Quote::new(*f, *t)).collect(),
        ..attention(kind, id, summary)
    }
}

pub fn with_messages(messages: Vec<PeerMessage>) -> ContextInput {
    ContextInput {
        peer_count: 2,
        solo: false,
        messages,
        ..ContextInput::default()
    }
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hostile")
}

/// Every peer message in one fixture file of `fixtures/hostile/`.
pub fn hostile(name: &str) -> Vec<PeerMessage> {
    let path = fixtures_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let items: Vec<Value> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let field = |item: &Value, key: &str| {
        item[key]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: missing {key}"))
            .to_owned()
    };
    items
        .iter()
        .map(|item| PeerMessage {
            message_id: field(item, "messageId"),
            thread_id: field(item, "threadId"),
            kind: field(item, "kind"),
            sender_participant_id: field(item, "senderParticipantId"),
            sender_session_id: field(item, "senderSessionId"),
            obligation: field(item, "obligation"),
            subject: field(item, "subject"),
            body: field(item, "body"),
            repeat: None,
        })
        .collect()
}

/// One string of `fixtures/hostile/peer-strings.json`.
pub fn peer_string(key: &str) -> String {
    let path = fixtures_dir().join("peer-strings.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let all: Value = serde_json::from_str(&text).unwrap();
    all[key]
        .as_str()
        .unwrap_or_else(|| panic!("peer-strings.json: missing {key}"))
        .to_owned()
}

/// Attention items about the hostile peer strings, shaped as the runtime builds them: acc's
/// words in the summary, the peer's in the quotes.
pub fn hostile_attention() -> Vec<AttentionItem> {
    vec![
        quoting(
            AttentionKind::ReplyRequired,
            "message_hostile41",
            "question from codex-x1y2z3",
            &[(QuoteField::Subject, &peer_string("subject"))],
        ),
        quoting(
            AttentionKind::ClaimConflict,
            "claim_c1",
            "claimed (exclusive) by codex-x1y2z3; it overlaps a hint of your intent",
            &[
                (QuoteField::Resource, &peer_string("claimedResource")),
                (QuoteField::Hint, "file:docs/**"),
            ],
        ),
        quoting(
            AttentionKind::ClaimContended,
            "claim_c2",
            "your claim is wanted: a peer's intent names an overlapping hint",
            &[
                (QuoteField::Resource, "file:src/**"),
                (QuoteField::Hint, &peer_string("hint")),
            ],
        ),
        quoting(
            AttentionKind::ClaimExpired,
            "claim_c3",
            "your lease ran out at 2026-12-02T09:30:00.000Z; claim it again or release it",
            &[(QuoteField::Resource, &peer_string("hiddenResource"))],
        ),
        quoting(
            AttentionKind::RecipientUnavailable,
            "message_c4",
            "codex-x1y2z3 has no online session",
            &[(QuoteField::Subject, &peer_string("quotedResource"))],
        ),
    ]
}

/// All hostile fixtures together.
pub fn all_hostile() -> Vec<PeerMessage> {
    [
        "fence-breakers.json",
        "header-forgery.json",
        "control-characters.json",
        "multibyte.json",
        "acc-voice.json",
    ]
    .into_iter()
    .flat_map(hostile)
    .collect()
}

/// One block as a reader would take it apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedBlock {
    pub message_id: String,
    pub sender: String,
    pub subject: String,
    pub repeat: Option<String>,
    pub body: Vec<String>,
}

/// One attention quote block: the id its label names and its `field: text` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedQuote {
    pub source_id: String,
    pub lines: Vec<String>,
}

/// Split projected text into blocks, failing on anything a strict reader would reject: an
/// unbalanced fence, a header out of order, or peer text shaped like a fence or a header.
pub fn parse_blocks(text: &str) -> Result<Vec<ParsedBlock>, String> {
    parse_all(text).map(|(blocks, _)| blocks)
}

/// The attention quote blocks of projected text, checked like [`parse_blocks`].
pub fn parse_quotes(text: &str) -> Result<Vec<ParsedQuote>, String> {
    parse_all(text).map(|(_, quotes)| quotes)
}

/// The text a reader takes as acc's own: every line outside a fenced block.
pub fn outside_fences(text: &str) -> String {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.split('\n') {
        if inside {
            inside = line != FENCE_CLOSE;
        } else if line == FENCE_OPEN || line == QUOTE_OPEN {
            inside = true;
        } else {
            out.push(line);
        }
    }
    out.join("\n")
}

fn parse_all(text: &str) -> Result<(Vec<ParsedBlock>, Vec<ParsedQuote>), String> {
    let mut blocks = Vec::new();
    let mut quotes = Vec::new();
    let mut lines = text.split('\n').enumerate();
    while let Some((n, line)) = lines.next() {
        if line == FENCE_CLOSE {
            return Err(format!("line {n}: closing fence outside a block"));
        }
        if line == QUOTE_OPEN {
            let (n, label) = lines.next().ok_or("quote cut before its label")?;
            let source_id = label
                .strip_prefix("untrusted peer text quoted for ")
                .ok_or(format!("line {n}: expected the quote label, got {label:?}"))?
                .to_owned();
            let mut quoted = Vec::new();
            loop {
                let (n, line) = lines
                    .next()
                    .ok_or(format!("quote for {source_id} never closes"))?;
                if line == FENCE_CLOSE {
                    break;
                }
                let field_ok = ["subject: ", "resource: ", "hint: "]
                    .iter()
                    .any(|f| line.starts_with(f));
                if !field_ok {
                    return Err(format!("line {n}: not a quote line: {line:?}"));
                }
                quoted.push(line.to_owned());
            }
            quotes.push(ParsedQuote {
                source_id,
                lines: quoted,
            });
            continue;
        }
        if line != FENCE_OPEN {
            if line.starts_with("```") {
                return Err(format!(
                    "line {n}: fence-like line outside a block: {line:?}"
                ));
            }
            continue;
        }
        let mut header = |key: &str| -> Result<String, String> {
            let (n, line) = lines.next().ok_or(format!("block cut before {key}"))?;
            line.strip_prefix(key)
                .map(str::to_owned)
                .ok_or(format!("line {n}: expected {key:?}, got {line:?}"))
        };
        header("untrusted peer message")?;
        header("kind: ")?;
        header("threadId: ")?;
        let message_id = header("messageId: ")?;
        let sender = header("sender: ")?;
        header("obligation: ")?;
        let (n, next) = lines.next().ok_or("block cut before subject")?;
        let (repeat, subject_line) = match next.strip_prefix("repeat: ") {
            Some(r) => (
                Some(r.to_owned()),
                lines.next().ok_or("block cut before subject")?.1,
            ),
            None => (None, next),
        };
        let subject = subject_line
            .strip_prefix("subject: ")
            .ok_or(format!("line {n}: expected subject, got {subject_line:?}"))?
            .to_owned();
        let (n, body_key) = lines.next().ok_or("block cut before body")?;
        if body_key != "body:" {
            return Err(format!("line {n}: expected body:, got {body_key:?}"));
        }
        let mut body = Vec::new();
        loop {
            let (n, line) = lines
                .next()
                .ok_or(format!("block {message_id} never closes"))?;
            if line == FENCE_CLOSE {
                break;
            }
            let forged = ["```", "subject:", "body:", "messageId:", "sender:", "kind:"]
                .iter()
                .any(|key| {
                    line.trim_start()
                        .to_lowercase()
                        .starts_with(&key.to_lowercase())
                });
            if forged {
                return Err(format!(
                    "line {n}: peer text escaped neutralising: {line:?}"
                ));
            }
            body.push(line.to_owned());
        }
        blocks.push(ParsedBlock {
            message_id,
            sender,
            subject,
            repeat,
            body,
        });
    }
    Ok((blocks, quotes))
}

/// Every string a peer chose in `input`, as given and as neutralised, long enough to be
/// recognised: subjects, body lines and attention quotes.
fn peer_strings(input: &ContextInput) -> Vec<String> {
    let mut raw: Vec<String> = Vec::new();
    for m in input.messages.iter().chain(&input.repeats) {
        raw.push(m.subject.clone());
        raw.extend(m.body.split('\n').map(str::to_owned));
    }
    for a in &input.attention {
        raw.extend(a.quotes.iter().map(|q| q.text.clone()));
    }
    // A flood repeats its lines; each distinct one is checked once.
    raw.sort();
    raw.dedup();
    let mut all = Vec::new();
    for s in raw {
        all.push(neutralise_inline(&s));
        all.extend(neutralise_body(&s));
        all.push(s);
    }
    // A peer may copy acc's own header word for word; that line is acc's wherever it is
    // outside a block, and the copy inside is marked.
    all.retain(|s| s.trim().len() >= DISTINCT_BYTES && s != acc_sdk::projector::HEADER);
    all.sort();
    all.dedup();
    all
}

/// The property the fences exist for: no peer-chosen byte sequence is outside a block.
pub fn assert_no_peer_text_outside_fences(input: &ContextInput, text: &str) {
    let outside = outside_fences(text);
    for s in peer_strings(input) {
        assert!(
            !outside.contains(s.trim()),
            "peer text {s:?} outside a fence in:\n{text}"
        );
    }
}

/// Every invariant of a projection, checked against its input and budget.
pub fn assert_invariants(input: &ContextInput, budget: usize, result: &ContextResult) {
    let text = &result.text;
    assert!(
        text.len() <= budget,
        "budget {budget} exceeded: {} bytes",
        text.len()
    );
    if text.is_empty() {
        assert!(
            result.offered_message_ids.is_empty(),
            "ids without text: {result:?}"
        );
        assert!(
            result.included_attention_ids.is_empty(),
            "ids without text: {result:?}"
        );
        return;
    }
    for c in text.chars() {
        let control = (c < ' ' && c != '\n' && c != '\t') || ('\u{7f}'..='\u{9f}').contains(&c);
        assert!(!control, "raw control character {c:?} in projected text");
        assert!(
            c != '\u{2028}' && c != '\u{2029}',
            "raw line separator in projected text"
        );
    }
    let fences = text
        .split('\n')
        .filter(|l| *l == FENCE_OPEN || *l == QUOTE_OPEN || *l == FENCE_CLOSE)
        .count();
    assert_eq!(fences % 2, 0, "odd fence count in:\n{text}");
    let blocks = parse_blocks(text).unwrap_or_else(|e| panic!("{e}\n--- text ---\n{text}"));
    assert_no_peer_text_outside_fences(input, text);
    // A quote block follows the line of the item it names, and only a whole line.
    let lines: Vec<&str> = text.split('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        if *line == QUOTE_OPEN {
            let above = lines[i - 1];
            assert!(
                above.starts_with("- [") && !above.ends_with('…'),
                "a quote after {above:?}"
            );
        }
    }

    // Ids only for complete blocks, one per block, in order, each a message from the input.
    let shown: Vec<String> = result
        .offered_message_ids
        .iter()
        .map(|id| neutralise_inline(id))
        .collect();
    let parsed: Vec<String> = blocks.iter().map(|b| b.message_id.clone()).collect();
    assert_eq!(parsed, shown, "blocks in text differ from offered ids");
    let known: Vec<&str> = input
        .messages
        .iter()
        .chain(&input.repeats)
        .map(|m| m.message_id.as_str())
        .collect();
    for id in &result.offered_message_ids {
        assert!(
            known.contains(&id.as_str()),
            "offered id {id:?} is not an input message"
        );
    }
    let mut unique = result.offered_message_ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        result.offered_message_ids.len(),
        "an id offered twice"
    );

    // Every included attention id has its whole line prefix in the text.
    for id in &result.included_attention_ids {
        let item = input
            .attention
            .iter()
            .find(|a| &a.source_id == id)
            .unwrap_or_else(|| panic!("attention id {id:?} is not an input item"));
        let prefix = format!("- [{}] {}", item.kind.as_str(), neutralise_inline(id));
        assert!(
            text.split('\n').any(|l| l.starts_with(&prefix)),
            "no line for attention {id:?} in:\n{text}"
        );
    }

    // Reminder ids are never reported as offered or included.
    for id in &input.reminder_message_ids {
        let is_body = input
            .messages
            .iter()
            .chain(&input.repeats)
            .any(|m| &m.message_id == id);
        if !is_body {
            assert!(
                !result.offered_message_ids.contains(id),
                "reminder {id} offered"
            );
            assert!(
                !result.included_attention_ids.contains(id),
                "reminder {id} included as attention"
            );
        }
    }
}
