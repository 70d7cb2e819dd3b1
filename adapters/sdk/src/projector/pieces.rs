//! The groups a projection is made of, in display order, rendered once. The budget decides
//! later which of them appear; all this module knows of it is when the blocks before a
//! message already outgrow it, so that message's block can never be shown.

use std::collections::HashSet;

use super::cost::group_cost;
use super::neutralise::{neutralise_body, neutralise_inline};
use crate::context::{AttentionItem, AttentionKind, ContextInput, PeerMessage};

/// The line that opens a peer block.
pub const PEER_FENCE_OPEN: &str = "```acc-peer-message";
/// The line that closes a peer block (and a quote block).
pub const PEER_FENCE_CLOSE: &str = "```";
/// The line that opens the block quoting what a peer chose for an attention line (a
/// subject, a resource name, an intent's hint); it follows that line.
pub const PEER_QUOTE_OPEN: &str = "```acc-peer-text";

/// One group: shown whole, or (urgent attention only) truncated, or not at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Priority 1–2 attention: may be cut short with `…` after its id.
    Urgent {
        source_id: String,
        prefix: String,
        summary: String,
        /// The fenced quote block after the line; shown only whole and only with the
        /// whole line.
        quote: Vec<String>,
    },
    /// A peer message block, new or repeated.
    Block {
        message_id: String,
        lines: Vec<String>,
    },
    /// A peer message block never rendered: the blocks before it alone outgrow the whole
    /// budget, and blocks are shown in order, so it is dropped in every layout. A turn with
    /// 100 queued bodies renders only the few that could fit.
    Unfitting { message_id: String },
    /// Priority 3–6 attention, one whole line, and its fenced quote block when it fits too.
    Attention {
        source_id: String,
        line: String,
        quote: Vec<String>,
    },
    /// A count of earlier messages whose obligation is unresolved; carries no id.
    Reminder { count: usize, line: String },
}

/// Build every group in display order: urgent attention, new bodies, other attention,
/// repeats, reminder counts. Blocks that cannot fit in `budget_bytes` are left unrendered
/// ([`Piece::Unfitting`]).
pub fn build_pieces(input: &ContextInput, budget_bytes: usize) -> Vec<Piece> {
    let reminders = unique(input.reminder_message_ids.iter().map(String::as_str));
    let reminder_set: HashSet<&str> = reminders.iter().copied().collect();
    let attention = sorted_attention(&input.attention, &reminder_set);

    let mut seen_messages = HashSet::new();
    // What the blocks so far cost in display order (new blocks, then repeats). Once it is
    // over the budget, some earlier block is dropped in every layout, and so is every
    // later one.
    let mut block_bytes = 0usize;
    let mut render = |m: &PeerMessage, is_repeat: bool| {
        if block_bytes > budget_bytes {
            return Piece::Unfitting {
                message_id: m.message_id.clone(),
            };
        }
        let piece = block(m, is_repeat);
        if let Piece::Block { lines, .. } = &piece {
            block_bytes += group_cost(lines);
        }
        piece
    };
    let new_blocks: Vec<Piece> = input
        .messages
        .iter()
        .filter(|m| seen_messages.insert(m.message_id.as_str()))
        .map(|m| render(m, false))
        .collect();
    let repeat_blocks: Vec<Piece> = input
        .repeats
        .iter()
        .filter(|m| seen_messages.insert(m.message_id.as_str()))
        .map(|m| render(m, true))
        .collect();

    let mut pieces = Vec::new();
    pieces.extend(
        attention
            .iter()
            .filter(|a| a.kind.is_urgent())
            .map(|a| Piece::Urgent {
                source_id: a.source_id.clone(),
                prefix: format!(
                    "- [{}] {}",
                    a.kind.as_str(),
                    neutralise_inline(&a.source_id)
                ),
                summary: neutralise_inline(&a.summary),
                quote: quote_block(a),
            }),
    );
    pieces.extend(new_blocks);
    pieces.extend(
        attention
            .iter()
            .filter(|a| !a.kind.is_urgent())
            .map(|a| Piece::Attention {
                source_id: a.source_id.clone(),
                line: attention_line(a),
                quote: quote_block(a),
            }),
    );
    pieces.extend(repeat_blocks);
    // A message whose body is rendered in this projection needs no reminder as well.
    let pending: Vec<&str> = reminders
        .into_iter()
        .filter(|id| !seen_messages.contains(id))
        .collect();
    pieces.extend(reminder_pieces(&pending, &input.attention));
    pieces
}

fn unique<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    ids.filter(|id| seen.insert(*id)).collect()
}

/// Attention sorted by priority then id, duplicates removed. Reply and acknowledgement items
/// for reminder messages leave the list: they are shown as counts after the new bodies.
///
/// Room messages: PROTOCOL §5 drops attention items about room messages. No attention kind
/// can be about one here (a room message carries no obligation, and `recipient_unavailable`
/// needs one), and [`ContextInput`] carries no room flag, so there is nothing to filter.
fn sorted_attention<'a>(
    items: &'a [AttentionItem],
    reminders: &HashSet<&str>,
) -> Vec<&'a AttentionItem> {
    let mut seen = HashSet::new();
    let mut kept: Vec<&AttentionItem> = items
        .iter()
        .filter(|a| !(is_obligation(a.kind) && reminders.contains(a.source_id.as_str())))
        .filter(|a| seen.insert((a.kind, a.source_id.as_str())))
        .collect();
    kept.sort_by(|a, b| (a.kind.priority(), &a.source_id).cmp(&(b.kind.priority(), &b.source_id)));
    kept
}

fn is_obligation(kind: AttentionKind) -> bool {
    matches!(
        kind,
        AttentionKind::ReplyRequired | AttentionKind::AcknowledgementRequired
    )
}

/// `- [<kind>] <sourceId> <summary>`, one line whatever the summary holds.
pub fn attention_line(item: &AttentionItem) -> String {
    let mut line = format!(
        "- [{}] {}",
        item.kind.as_str(),
        neutralise_inline(&item.source_id)
    );
    if !item.summary.is_empty() {
        line.push(' ');
        line.push_str(&neutralise_inline(&item.summary));
    }
    line
}

/// The fenced block quoting an item's peer-chosen strings, one `field: text` line each, or
/// nothing when it quotes none. The label names the item, so a reader knows whose words
/// these are even when the line above was cut.
pub fn quote_block(item: &AttentionItem) -> Vec<String> {
    if item.quotes.is_empty() {
        return Vec::new();
    }
    let mut lines = Vec::with_capacity(item.quotes.len() + 3);
    lines.push(PEER_QUOTE_OPEN.to_owned());
    lines.push(format!(
        "untrusted peer text quoted for {}",
        neutralise_inline(&item.source_id)
    ));
    lines.extend(
        item.quotes
            .iter()
            .map(|q| format!("{}: {}", q.field.as_str(), neutralise_inline(&q.text))),
    );
    lines.push(PEER_FENCE_CLOSE.to_owned());
    lines
}

fn block(message: &PeerMessage, is_repeat: bool) -> Piece {
    let body = neutralise_body(&message.body);
    let mut lines = Vec::with_capacity(body.len() + 11);
    lines.push(PEER_FENCE_OPEN.to_owned());
    lines.push("untrusted peer message".to_owned());
    lines.push(format!("kind: {}", neutralise_inline(&message.kind)));
    lines.push(format!(
        "threadId: {}",
        neutralise_inline(&message.thread_id)
    ));
    lines.push(format!(
        "messageId: {}",
        neutralise_inline(&message.message_id)
    ));
    lines.push(format!(
        "sender: {} (session {})",
        neutralise_inline(&message.sender_participant_id),
        neutralise_inline(&message.sender_session_id)
    ));
    lines.push(format!(
        "obligation: {}",
        neutralise_inline(&message.obligation)
    ));
    if let Some(repeat) = message.repeat.as_ref().filter(|_| is_repeat) {
        lines.push(format!(
            "repeat: offered via {} at {}; no retrieval recorded",
            neutralise_inline(&repeat.transport),
            neutralise_inline(&repeat.at)
        ));
    }
    lines.push(format!("subject: {}", neutralise_inline(&message.subject)));
    lines.push("body:".to_owned());
    lines.extend(body);
    lines.push(PEER_FENCE_CLOSE.to_owned());
    Piece::Block {
        message_id: message.message_id.clone(),
        lines,
    }
}

/// The bytes a new (not repeated) message block costs at the least, from the sizes alone:
/// `field_bytes` the UTF-8 length of the kind, thread id, message id, sender, sender
/// session, obligation and subject together, `body_bytes` the body's. Neutralising never
/// shortens text (an escape is longer than the character it stands for, a defused fence or
/// a marked line gains a byte, and every line break of the body becomes one line's `+ 1`),
/// so a block never costs less; for plain text it costs exactly this. A reader that knows
/// only the sizes can tell from it that the blocks before a message already outgrow a
/// budget, and leave that message's body unread.
pub fn block_cost_floor(field_bytes: usize, body_bytes: usize) -> usize {
    // The block's own words, one `+ 1` per line: the fences, the label, each key and
    // `body:`, and ` (session …)` around the sender's session.
    const FIXED: usize = (PEER_FENCE_OPEN.len() + 1)
        + ("untrusted peer message".len() + 1)
        + ("kind: ".len() + 1)
        + ("threadId: ".len() + 1)
        + ("messageId: ".len() + 1)
        + ("sender: ".len() + " (session )".len() + 1)
        + ("obligation: ".len() + 1)
        + ("subject: ".len() + 1)
        + ("body:".len() + 1)
        + (PEER_FENCE_CLOSE.len() + 1);
    let body = if body_bytes == 0 { 0 } else { body_bytes + 1 };
    FIXED + field_bytes + body
}

/// How many of a turn's new messages, in display order, [`build_pieces`] may render within
/// `budget_bytes`, given a floor under each one's block ([`block_cost_floor`]): a block is
/// rendered only while the blocks before it cost no more than the budget, so once the
/// floors before a message outgrow it, that message and every later one are
/// [`Piece::Unfitting`] whatever their bodies hold.
pub fn blocks_within(floors: impl IntoIterator<Item = usize>, budget_bytes: usize) -> usize {
    let mut before = 0usize;
    let mut count = 0;
    for floor in floors {
        if before > budget_bytes {
            break;
        }
        before = before.saturating_add(floor);
        count += 1;
    }
    count
}

/// Which obligation a reminder message still waits on, read from its attention item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Awaiting {
    Reply,
    Acknowledgement,
    Unknown,
}

fn reminder_pieces(pending: &[&str], attention: &[AttentionItem]) -> Vec<Piece> {
    let awaiting = |id: &str| {
        let kinds = attention
            .iter()
            .filter(|a| a.source_id == id)
            .map(|a| a.kind);
        let mut result = Awaiting::Unknown;
        for kind in kinds {
            match kind {
                AttentionKind::ReplyRequired => return Awaiting::Reply,
                AttentionKind::AcknowledgementRequired => result = Awaiting::Acknowledgement,
                _ => {}
            }
        }
        result
    };
    let count = |want: Awaiting| pending.iter().filter(|id| awaiting(id) == want).count();
    [
        (Awaiting::Reply, "still await your reply"),
        (
            Awaiting::Acknowledgement,
            "still await your acknowledgement",
        ),
        (Awaiting::Unknown, "remain unresolved"),
    ]
    .into_iter()
    .filter_map(|(want, what)| {
        let n = count(want);
        (n > 0).then(|| Piece::Reminder {
            count: n,
            line: format!("- {n} earlier message(s) {what}; run `acc inbox`"),
        })
    })
    .collect()
}
