//! Identifier newtypes, portable-id validation and the injectable id source.
//!
//! Generated ids are `<kind>_` + base64url (no padding) of 16 random bytes. Ids are also used
//! as file and directory names by other tools, so every id accepted from outside must be a
//! portable id.

use crate::error::{AccError, ErrorCode, Result};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Longest portable id.
pub const PORTABLE_ID_MAX: usize = 200;

const DEVICE_NAMES: [&str; 22] = [
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// Why `s` is not a portable id (`^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$`, no trailing `.`, no
/// Windows device name), or `None` when it is one.
pub fn portable_id_problem(s: &str) -> Option<&'static str> {
    let bytes = s.as_bytes();
    if bytes.is_empty() {
        return Some("is empty");
    }
    if bytes.len() > PORTABLE_ID_MAX {
        return Some("is longer than 200 characters");
    }
    if !bytes[0].is_ascii_alphanumeric() {
        return Some("must start with a letter or digit");
    }
    if !bytes
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Some("may contain only letters, digits, '.', '_' and '-'");
    }
    if s.ends_with('.') {
        return Some("must not end with '.'");
    }
    let stem = s.split('.').next().unwrap_or(s).to_ascii_lowercase();
    if DEVICE_NAMES.contains(&stem.as_str()) {
        return Some("is a reserved device name");
    }
    None
}

/// Validates a portable id supplied for `field`.
pub fn check_portable_id(field: &str, s: &str) -> Result<()> {
    match portable_id_problem(s) {
        None => Ok(()),
        Some(why) => Err(
            AccError::new(ErrorCode::InvalidArgument, format!("{field} {s:?} {why}"))
                .with("field", field),
        ),
    }
}

/// Writes an id for a reader. A valid id is written as it is; one that is not (the store
/// is a file any local process can write, so an id read back may hold a newline, an escape
/// sequence or a bidi override) is written by the one renderer of peer text,
/// [`acc_sdk::peer_text::display`]: quoted, with every such character escaped, so it can
/// neither start a line of its own nor drive a terminal.
fn shown(id: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if !id.is_empty() && id.chars().all(acc_sdk::peer_text::is_plain) {
        f.write_str(id)
    } else {
        f.write_str(&acc_sdk::peer_text::display(id))
    }
}

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident, $field:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Validates an id that came from outside (flags, environment, payloads).
            pub fn parse(s: &str) -> Result<Self> {
                check_portable_id($field, s)?;
                Ok($name(s.to_string()))
            }

            /// Wraps an id read back from the store. Writers validate ids, but the store is a
            /// file others can write: an id read back is shown through `Display`, which
            /// escapes one that is not valid.
            #[allow(dead_code)] // generated for every id type; not all are read back
            pub(crate) fn from_store(s: String) -> Self {
                $name(s)
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        /// The id as shown to a person or a model (see `shown` above). Code that stores, compares
        /// or sends the id uses [`Self::as_str`].
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                shown(&self.0, f)
            }
        }
    };
}

string_id!(
    /// The address of messages: a durable name for an agent or a human.
    ParticipantId,
    "participant id"
);
string_id!(
    /// One client conversation.
    SessionId,
    "session id"
);
string_id!(
    /// A fresh value on every open of a session; proves a mutation belongs to this opening.
    Generation,
    "generation"
);
string_id!(MessageId, "message id");
string_id!(ClaimId, "claim id");
string_id!(
    /// A thread is named by its root message's id.
    ThreadId,
    "thread id"
);
string_id!(ReceiptId, "receipt id");
string_id!(WorkspaceId, "workspace id");

impl ReceiptId {
    /// Receipt ids are derived, so a receipt can be named without a lookup:
    /// `receipt_` + base64url(sha256(JSON `[messageId, participantId]`)).
    pub fn derive(message: &MessageId, recipient: &ParticipantId) -> Self {
        let json = serde_json::to_string(&[message.as_str(), recipient.as_str()])
            .expect("two strings always serialise");
        let digest = Sha256::digest(json.as_bytes());
        ReceiptId(format!("receipt_{}", URL_SAFE_NO_PAD.encode(digest)))
    }
}

impl ThreadId {
    pub fn of_root(root: &MessageId) -> Self {
        ThreadId(root.0.clone())
    }
}

/// An event sequence number; rendered as 16 zero-padded digits. A cursor is the last
/// sequence a reader has seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct EventSeq(pub u64);

impl EventSeq {
    pub fn parse(s: &str) -> Result<Self> {
        if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(AccError::new(
                ErrorCode::InvalidCursor,
                format!("cursor {s:?} is not a 16-digit sequence"),
            ));
        }
        Ok(EventSeq(s.parse().expect("16 ascii digits fit in u64")))
    }
}

impl fmt::Display for EventSeq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016}", self.0)
    }
}

impl Serialize for EventSeq {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// What a generated id names; the prefix before `_`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Session,
    Generation,
    Message,
    Claim,
    Event,
    ClientMessage,
}

impl IdKind {
    pub fn prefix(self) -> &'static str {
        match self {
            IdKind::Session => "session",
            IdKind::Generation => "generation",
            IdKind::Message => "message",
            IdKind::Claim => "claim",
            IdKind::Event => "event",
            IdKind::ClientMessage => "cmid",
        }
    }
}

/// The source of generated ids, injected so tests are deterministic.
pub trait IdSource: Send + Sync {
    fn next(&self, kind: IdKind) -> String;

    /// `n` ids of one kind for rows one statement writes together. Each is as unique as
    /// [`IdSource::next`]'s; by default each is drawn alone.
    fn run(&self, kind: IdKind, n: usize) -> Vec<String> {
        (0..n).map(|_| self.next(kind)).collect()
    }
}

/// Production ids: 16 bytes from the operating system's generator.
#[derive(Debug, Default)]
pub struct RandomIds;

impl IdSource for RandomIds {
    fn next(&self, kind: IdKind) -> String {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the operating system random source is available");
        format!("{}_{}", kind.prefix(), URL_SAFE_NO_PAD.encode(bytes))
    }

    /// One draw, then its low eight bytes counted up: the run's ids share their first eight
    /// random bytes, so in a unique index on the id they sit side by side and the statement
    /// writes one or two of its pages instead of one page per row (a turn's offer events
    /// touched seven pages of `events`' id index for eleven rows, each written to the WAL
    /// and again by the checkpoint). Unique within the run; against any other id, each is
    /// still 128 bits no one can choose (the draw comes after every id already stored), and
    /// the unique index refuses a collision whatever its odds.
    fn run(&self, kind: IdKind, n: usize) -> Vec<String> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the operating system random source is available");
        let (high, low) = bytes.split_at(8);
        let low = u64::from_be_bytes(low.try_into().expect("eight bytes"));
        (0..n as u64)
            .map(|i| {
                let mut id = [0u8; 16];
                id[..8].copy_from_slice(high);
                id[8..].copy_from_slice(&low.wrapping_add(i).to_be_bytes());
                format!("{}_{}", kind.prefix(), URL_SAFE_NO_PAD.encode(id))
            })
            .collect()
    }
}

/// Deterministic ids for tests: a counter encoded exactly like random ids.
#[derive(Debug, Default)]
pub struct SequentialIds {
    counter: AtomicU64,
}

impl IdSource for SequentialIds {
    fn next(&self, kind: IdKind) -> String {
        let n = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        let mut bytes = [0u8; 16];
        bytes[8..].copy_from_slice(&n.to_be_bytes());
        format!("{}_{}", kind.prefix(), URL_SAFE_NO_PAD.encode(bytes))
    }
}

/// `bytes` as lowercase hex digits, two per byte: the form of the ids acc derives from a
/// digest (binding keys, workspace ids). Written out here because a `format!` per byte was
/// a visible part of a hook's start.
pub fn lower_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_hex_is_two_lowercase_digits_a_byte() {
        assert_eq!(lower_hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(lower_hex(&[]), "");
        let all: Vec<u8> = (0..=255).collect();
        let want: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(lower_hex(&all), want);
    }

    #[test]
    fn portable_ids() {
        assert!(portable_id_problem("alice").is_none());
        assert!(portable_id_problem("a.b_c-9").is_none());
        assert!(portable_id_problem("message_Ab9CpMJfn0pL6igB5AdYDQ").is_none());
        assert_eq!(portable_id_problem(""), Some("is empty"));
        assert!(portable_id_problem("-x").is_some());
        assert!(portable_id_problem("a b").is_some());
        assert!(portable_id_problem("a/b").is_some());
        assert!(portable_id_problem("abc.").is_some());
        assert!(portable_id_problem("CON").is_some());
        assert!(portable_id_problem("lpt1.txt").is_some());
        assert!(portable_id_problem(&"a".repeat(200)).is_none());
        assert!(portable_id_problem(&"a".repeat(201)).is_some());
    }

    #[test]
    fn random_ids_have_kind_prefix_and_22_chars() {
        let id = RandomIds.next(IdKind::Message);
        let (prefix, rest) = id.split_once('_').unwrap();
        assert_eq!(prefix, "message");
        assert_eq!(rest.len(), 22);
        assert!(portable_id_problem(&id).is_none());
        assert_ne!(id, RandomIds.next(IdKind::Message));
    }

    #[test]
    fn a_random_run_is_distinct_well_formed_and_shares_its_leading_draw() {
        let run = RandomIds.run(IdKind::Event, 40);
        assert_eq!(run.len(), 40);
        let mut distinct = run.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 40);
        let raw: Vec<Vec<u8>> = run
            .iter()
            .map(|id| {
                let (prefix, rest) = id.split_once('_').unwrap();
                assert_eq!(prefix, "event");
                assert_eq!(rest.len(), 22);
                assert!(portable_id_problem(id).is_none());
                URL_SAFE_NO_PAD.decode(rest).unwrap()
            })
            .collect();
        for (i, bytes) in raw.iter().enumerate() {
            assert_eq!(bytes[..8], raw[0][..8]);
            let low = u64::from_be_bytes(bytes[8..].try_into().unwrap());
            let first = u64::from_be_bytes(raw[0][8..].try_into().unwrap());
            assert_eq!(low, first.wrapping_add(i as u64));
        }
        // Each run is a draw of its own.
        assert_ne!(RandomIds.run(IdKind::Event, 1)[0][..16], run[0][..16]);
        assert_eq!(SequentialIds::default().run(IdKind::Event, 3).len(), 3);
    }

    #[test]
    fn sequential_ids_are_distinct_and_well_formed() {
        let ids = SequentialIds::default();
        let a = ids.next(IdKind::Session);
        let b = ids.next(IdKind::Session);
        assert_ne!(a, b);
        assert_eq!(a.len(), "session_".len() + 22);
    }

    #[test]
    fn receipt_ids_are_derived_from_message_and_recipient() {
        let m = MessageId::parse("message_a").unwrap();
        let p = ParticipantId::parse("bob").unwrap();
        let q = ParticipantId::parse("carol").unwrap();
        assert_eq!(ReceiptId::derive(&m, &p), ReceiptId::derive(&m, &p));
        assert_ne!(ReceiptId::derive(&m, &p), ReceiptId::derive(&m, &q));
        // sha256 is 32 bytes: 43 base64url characters.
        assert_eq!(
            ReceiptId::derive(&m, &p).as_str().len(),
            "receipt_".len() + 43
        );
    }

    #[test]
    fn cursors_are_sixteen_digits() {
        assert_eq!(EventSeq::parse("0000000000000042").unwrap(), EventSeq(42));
        assert_eq!(EventSeq(7).to_string(), "0000000000000007");
        assert!(EventSeq::parse("42").is_err());
        assert!(EventSeq::parse("000000000000004x").is_err());
        assert_eq!(
            EventSeq::parse("1").unwrap_err().code,
            ErrorCode::InvalidCursor
        );
    }
}
