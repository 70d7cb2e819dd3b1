//! The input and output of context projection: what a hook may show the model at a turn
//! boundary. Filled by the runtime from a sync; rendered by `projector`.

use serde::Serialize;

/// The six attention kinds, in priority order (1 = most urgent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionKind {
    ReplyRequired,
    AcknowledgementRequired,
    RecipientUnavailable,
    ClaimConflict,
    ClaimContended,
    ClaimExpired,
}

impl AttentionKind {
    pub const ALL: [AttentionKind; 6] = [
        AttentionKind::ReplyRequired,
        AttentionKind::AcknowledgementRequired,
        AttentionKind::RecipientUnavailable,
        AttentionKind::ClaimConflict,
        AttentionKind::ClaimContended,
        AttentionKind::ClaimExpired,
    ];

    pub fn priority(self) -> u8 {
        match self {
            AttentionKind::ReplyRequired => 1,
            AttentionKind::AcknowledgementRequired => 2,
            AttentionKind::RecipientUnavailable => 3,
            AttentionKind::ClaimConflict => 4,
            AttentionKind::ClaimContended => 5,
            AttentionKind::ClaimExpired => 6,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            AttentionKind::ReplyRequired => "reply_required",
            AttentionKind::AcknowledgementRequired => "acknowledgement_required",
            AttentionKind::RecipientUnavailable => "recipient_unavailable",
            AttentionKind::ClaimConflict => "claim_conflict",
            AttentionKind::ClaimContended => "claim_contended",
            AttentionKind::ClaimExpired => "claim_expired",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Priority 1 and 2 are urgent: shown before peer bodies and truncatable.
    pub fn is_urgent(self) -> bool {
        self.priority() <= 2
    }
}

/// One attention item. `source_id` is the message id or claim id it is about.
///
/// `summary` is acc's own words: kinds, ids, participant ids, counts and times, never a
/// string a peer chose. What a peer chose (a subject, a resource name, an intent's hint) is
/// carried in `quotes`, which a renderer shows only inside a fenced, labelled block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttentionItem {
    pub kind: AttentionKind,
    pub source_id: String,
    pub summary: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quotes: Vec<Quote>,
}

/// What a quoted peer string is, in an attention item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QuoteField {
    /// A message's subject.
    Subject,
    /// A claimed resource.
    Resource,
    /// A resource an intent names.
    Hint,
}

impl QuoteField {
    pub fn as_str(self) -> &'static str {
        match self {
            QuoteField::Subject => "subject",
            QuoteField::Resource => "resource",
            QuoteField::Hint => "hint",
        }
    }
}

/// A peer-chosen string an attention item is about. Untrusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Quote {
    pub field: QuoteField,
    pub text: String,
}

impl Quote {
    pub fn new(field: QuoteField, text: impl Into<String>) -> Self {
        Quote {
            field,
            text: text.into(),
        }
    }
}

/// Set on a message that a live transport offered earlier and that is being shown again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepeatInfo {
    pub transport: String,
    pub at: String,
}

/// A peer message body waiting for this participant. Every text field is untrusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PeerMessage {
    pub message_id: String,
    pub thread_id: String,
    /// `note`, `question`, `request`, `answer`, `decision` or `handoff`.
    pub kind: String,
    pub sender_participant_id: String,
    pub sender_session_id: String,
    /// `none`, `acknowledge` or `reply`.
    pub obligation: String,
    pub subject: String,
    pub body: String,
    pub repeat: Option<RepeatInfo>,
}

/// Everything the projector may render for one recipient at one turn boundary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextInput {
    /// Peers (other participants) that are not offline.
    pub peer_count: usize,
    /// No non-offline peer, no attention and no claim records.
    pub solo: bool,
    /// Queued bodies, oldest first; never the recipient's own session's.
    pub messages: Vec<PeerMessage>,
    /// Live-offered bodies due to be shown once more, after new bodies.
    pub repeats: Vec<PeerMessage>,
    /// Attention items for this participant, any order (the projector sorts).
    pub attention: Vec<AttentionItem>,
    /// Messages already offered or retrieved whose obligation is unresolved; rendered as
    /// counts, never as bodies or ids in the result.
    pub reminder_message_ids: Vec<String>,
}

/// What a renderer returns. Receipts advance only from these ids, never by searching
/// `text` (peer text can imitate another message's header).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextResult {
    pub text: String,
    pub offered_message_ids: Vec<String>,
    pub included_attention_ids: Vec<String>,
}
