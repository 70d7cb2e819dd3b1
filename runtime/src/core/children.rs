//! Child sessions: a subagent that runs inside a client conversation is a session of its
//! own, linked to its parent's (`sessions.parent_session_id`) and acting as the parent's
//! participant.
//!
//! Claims belong to the family: the guard judges a child's writes as its root ancestor's
//! ([`Core::session_root`]), so a subagent may write where its parent claimed and is refused
//! where a peer did, while the refusal names the child. A child ends with its client's child
//! end signal, or with its parent ([`sessions::close_children_in_tx`], beside the close it
//! recurses through).

use super::sessions::{self, check_owner, close_in_tx};
use super::{Core, Owner};
use crate::error::Result;
use crate::ids::SessionId;
use crate::store::engine::{Connection, params};

/// The `cause` of a `session.closed` event for a child its client said has ended.
pub const CAUSE_CHILD_END: &str = "child_end";

/// The most parent links followed: deeper nesting than any client makes, and a bound on a
/// store whose links were edited into a cycle.
const MAX_DEPTH: usize = 16;

impl Core {
    /// The session at the top of `id`'s parent links (`id` itself when it has no parent,
    /// or when a link names a session this store does not hold).
    pub fn session_root(&mut self, id: &SessionId) -> Result<SessionId> {
        self.store.read(|c| root_in(c, id))
    }

    /// Closes the child session `owner` with its client's child end signal.
    pub fn end_child_session(&mut self, owner: &Owner) -> Result<()> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let row = check_owner(tx, owner)?;
            close_in_tx(tx, ports, now, &row, CAUSE_CHILD_END, None)
        })
    }
}

fn root_in(c: &Connection, id: &SessionId) -> Result<SessionId> {
    let mut at = id.clone();
    for _ in 0..MAX_DEPTH {
        let parent: Option<String> = c
            .prepare_cached("SELECT parent_session_id FROM sessions WHERE session_id = ?1")?
            .query_row(params![at.as_str()], |r| r.get(0))
            .ok()
            .flatten();
        let Some(parent) = parent.filter(|p| p != at.as_str()) else {
            break;
        };
        if sessions::load(c, &parent)?.is_none() {
            break;
        }
        at = SessionId::from_store(parent);
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::SessionState;
    use crate::core::sessions::OpenSession;
    use crate::core::testkit::kit;
    use crate::ids::ParticipantId;

    fn child_of(k: &mut crate::core::testkit::Kit, parent: &Owner) -> Owner {
        let participant = k
            .core
            .session(&parent.session)
            .unwrap()
            .unwrap()
            .participant_id;
        let mut req = OpenSession::new(participant, "test", 30_000);
        req.parent_session = Some(parent.session.clone());
        let s = k.core.open_session(req).unwrap();
        Owner::new(s.session_id, s.generation)
    }

    #[test]
    fn a_child_acts_for_its_root_and_ends_with_its_parent() {
        let mut k = kit();
        let parent = k.attach("alice");
        let child = child_of(&mut k, &parent);
        let grandchild = child_of(&mut k, &child);
        let peer = k.attach("bob");
        assert_eq!(
            k.core.session_root(&grandchild.session).unwrap(),
            parent.session
        );
        assert_eq!(
            k.core.session_root(&parent.session).unwrap(),
            parent.session
        );
        let unknown = SessionId::parse("session_nope").unwrap();
        assert_eq!(k.core.session_root(&unknown).unwrap(), unknown);

        k.core.close_session(&parent, Some("exit")).unwrap();
        for owner in [&child, &grandchild] {
            let rec = k.core.session(&owner.session).unwrap().unwrap();
            assert_eq!(rec.state, SessionState::Closed, "{}", owner.session);
        }
        let peer_rec = k.core.session(&peer.session).unwrap().unwrap();
        assert_eq!(peer_rec.state, SessionState::Open, "a peer is not a child");
        assert_eq!(
            k.count(
                "SELECT count(*) FROM events WHERE type = 'session.closed'
                 AND json_extract(payload, '$.cause') = 'parent_closed'"
            ),
            2
        );
    }

    #[test]
    fn a_child_end_closes_the_child_alone() {
        let mut k = kit();
        let parent = k.attach("alice");
        let child = child_of(&mut k, &parent);
        k.core.end_child_session(&child).unwrap();
        let rec = k.core.session(&child.session).unwrap().unwrap();
        assert_eq!(rec.state, SessionState::Closed);
        let parent_rec = k.core.session(&parent.session).unwrap().unwrap();
        assert_eq!(parent_rec.state, SessionState::Open);
        assert_eq!(rec.participant_id, ParticipantId::parse("alice").unwrap());
        // A second end signal finds the child closed: refused, nothing else changes.
        assert!(k.core.end_child_session(&child).is_err());
    }
}
