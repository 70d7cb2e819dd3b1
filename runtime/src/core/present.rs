//! What a turn's reads may leave out when the store holds none of it (issue 30): each is
//! rare for a hook client, and each costs every turn a statement compiled and run, or a
//! check per row. One statement reads all of them, in the same read transaction as the
//! reads it spares, so it cannot disagree with them; [`Present::ALL`] reads everything as
//! before.

use super::decisions::HEAD_ONLY;
use crate::error::Result;
use crate::ids::ParticipantId;
use crate::store::engine::{Connection, params};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Present {
    /// A decision supersedes or withdraws another: listings keep to each chain's head
    /// ([`HEAD_ONLY`]); with no link at all every message is a head.
    pub decision_links: bool,
    /// The participant sent a message that obliges its recipients: only those can make a
    /// recipient-unavailable attention item.
    pub obligations_sent: bool,
    /// The participant holds a receipt offered through a transport other than next-turn
    /// and not repeated yet: only those can be due a repeat at the next turn.
    pub live_offers: bool,
}

impl Present {
    /// Everything assumed present: every read as it is without the checks.
    pub(crate) const ALL: Present = Present {
        decision_links: true,
        obligations_sent: true,
        live_offers: true,
    };

    /// One statement for every check. Each is at least as wide as the read it spares (a
    /// live offer counts whatever its age), so a `false` is never wrong. `next_turn` is the
    /// next-turn transport's name (passed in: the delivery module that names it reads
    /// these checks).
    pub(crate) fn read(conn: &Connection, me: &ParticipantId, next_turn: &str) -> Result<Present> {
        Ok(conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM decision_links),
                    EXISTS (SELECT 1 FROM messages
                            WHERE from_participant_id = ?1 AND obligation <> 'none'),
                    EXISTS (SELECT 1 FROM receipts
                            WHERE recipient_participant_id = ?1 AND state = 'offered'
                              AND offer_transport <> ?2 AND offer_repeated_at IS NULL)",
            )?
            .query_row(params![me.as_str(), next_turn], |r| {
                Ok(Present {
                    decision_links: r.get(0)?,
                    obligations_sent: r.get(1)?,
                    live_offers: r.get(2)?,
                })
            })?)
    }

    /// [`HEAD_ONLY`], or a condition every row meets when no decision links another (a
    /// comparison, not a bare `1`: PostgreSQL's `AND` takes only booleans).
    pub(crate) fn head_only(self) -> &'static str {
        if self.decision_links {
            HEAD_ONLY
        } else {
            "1 = 1"
        }
    }
}
