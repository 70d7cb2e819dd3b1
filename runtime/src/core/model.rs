//! The closed vocabularies of the coordination model. Each enum has one string spelling,
//! used in the store, in JSON and on the command line.

use crate::error::{AccError, ErrorCode, Result};
use serde::Serialize;

macro_rules! str_enum {
    ($(#[$doc:meta])* $name:ident, $what:literal { $($variant:ident => $s:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $s),+ }
            }

            /// Parses the one spelling; anything else is a usage error listing the choices.
            pub fn parse(s: &str) -> Result<Self> {
                match s {
                    $($s => Ok($name::$variant),)+
                    _ => Err(AccError::new(
                        ErrorCode::InvalidArgument,
                        format!(
                            concat!($what, " {:?} is not one of {}"),
                            s,
                            [$($s),+].join(", ")
                        ),
                    )),
                }
            }

            /// Reads a value the store wrote; a foreign spelling means a damaged store.
            #[allow(dead_code)] // generated for every vocabulary; not all are stored
            pub(crate) fn from_store(s: &str) -> Result<Self> {
                Self::parse(s).map_err(|_| AccError::new(
                    ErrorCode::StoreCorrupt,
                    format!(concat!("the store holds an unknown ", $what, " {:?}"), s),
                ))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

str_enum!(
    /// Whether a session's (or claim's) protection is enforced by a write guard.
    Enforcement, "enforcement" { Advisory => "advisory", Guarded => "guarded" }
);
str_enum!(
    /// `managed`: hooks report presence. `manual`: a person or script does.
    Lifecycle, "lifecycle" { Managed => "managed", Manual => "manual" }
);
str_enum!(SessionState, "session state" { Open => "open", Closed => "closed" });
str_enum!(ParticipantKind, "participant kind" { Agent => "agent", Human => "human" });
str_enum!(
    /// Computed at read time; never stored.
    Presence, "presence" { Online => "online", Stale => "stale", Offline => "offline" }
);
str_enum!(ClaimMode, "claim mode" { Shared => "shared", Exclusive => "exclusive" });
str_enum!(
    /// Who may release another session's claim.
    Authority, "authority" { Human => "human", Policy => "policy" }
);
str_enum!(
    /// The protection a room currently has.
    Protection, "protection" { None => "none", Advisory => "advisory", Guarded => "guarded" }
);
str_enum!(
    IntentMode, "intent mode" {
        Observe => "observe",
        Explore => "explore",
        Edit => "edit",
        Review => "review",
        Coordinate => "coordinate",
        Wait => "wait",
    }
);
str_enum!(
    IntentState, "intent state" {
        Active => "active",
        Blocked => "blocked",
        Waiting => "waiting",
        Done => "done",
    }
);
str_enum!(
    MessageKind, "message kind" {
        Note => "note",
        Question => "question",
        Request => "request",
        Answer => "answer",
        Decision => "decision",
        Handoff => "handoff",
    }
);
str_enum!(
    Obligation, "obligation" { None => "none", Acknowledge => "acknowledge", Reply => "reply" }
);
str_enum!(
    /// Forward-only delivery state of one message for one recipient.
    ReceiptState, "receipt state" {
        Queued => "queued",
        Offered => "offered",
        Retrieved => "retrieved",
        Acknowledged => "acknowledged",
    }
);
str_enum!(
    HandoffStatus, "handoff status" { Complete => "complete", Partial => "partial", Blocked => "blocked" }
);
str_enum!(
    /// What `acc sync` returns: changes by others, a full snapshot, or every event.
    SyncScope, "sync scope" { Delta => "delta", Full => "full", History => "history" }
);
str_enum!(
    PruneClass, "prune class" {
        Sessions => "sessions",
        Intents => "intents",
        Claims => "claims",
        Participants => "participants",
    }
);

impl ReceiptState {
    /// Position in the lifecycle; receipts only ever move to a higher rank.
    pub fn rank(self) -> u8 {
        match self {
            ReceiptState::Queued => 0,
            ReceiptState::Offered => 1,
            ReceiptState::Retrieved => 2,
            ReceiptState::Acknowledged => 3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip() {
        for k in MessageKind::ALL {
            assert_eq!(MessageKind::parse(k.as_str()).unwrap(), *k);
        }
        for s in ReceiptState::ALL {
            assert_eq!(ReceiptState::parse(s.as_str()).unwrap(), *s);
        }
    }

    #[test]
    fn unknown_spellings_list_the_choices() {
        let e = ClaimMode::parse("solo").unwrap_err();
        assert_eq!(
            e.message,
            "claim mode \"solo\" is not one of shared, exclusive"
        );
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            Enforcement::from_store("weird").unwrap_err().code,
            ErrorCode::StoreCorrupt
        );
    }

    #[test]
    fn receipt_ranks_are_ordered() {
        let ranks: Vec<u8> = ReceiptState::ALL.iter().map(|s| s.rank()).collect();
        assert_eq!(ranks, vec![0, 1, 2, 3]);
    }
}
