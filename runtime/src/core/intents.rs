//! Intents: what a session says it is doing. Awareness only; they never block anything, but
//! their resource hints feed the `claim_conflict` and `claim_contended` attention items.

use super::events::{self, EventType};
use super::model::{IntentMode, IntentState};
use super::resources::Resource;
use super::sessions::check_owner_for_write;
use super::{Core, Owner};
use crate::clock::to_iso;
use crate::error::Result;
use crate::ids::SessionId;
use crate::store::engine::{Connection, params};
use crate::text;
use serde::Serialize;
use serde_json::json;

/// Most resource hints one intent may carry.
pub const MAX_HINTS: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub struct PublishIntent {
    pub summary: String,
    pub mode: IntentMode,
    pub state: IntentState,
    pub hints: Vec<Resource>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IntentRecord {
    pub session_id: SessionId,
    pub summary: String,
    pub mode: IntentMode,
    pub state: IntentState,
    pub resource_hints: Vec<Resource>,
    pub updated_at: String,
}

fn from_row(r: &crate::store::engine::Row<'_>) -> Result<IntentRecord> {
    let hints: String = r.get(4)?;
    let hints: Vec<String> = serde_json::from_str(&hints).unwrap_or_default();
    Ok(IntentRecord {
        session_id: SessionId::from_store(r.get(0)?),
        summary: r.get(1)?,
        mode: IntentMode::from_store(&r.get::<_, String>(2)?)?,
        state: IntentState::from_store(&r.get::<_, String>(3)?)?,
        resource_hints: hints.into_iter().map(Resource::from_store).collect(),
        updated_at: to_iso(r.get(5)?),
    })
}

/// Every stored intent.
pub(crate) fn load_all(conn: &Connection) -> Result<Vec<IntentRecord>> {
    let mut stmt = conn.prepare_cached(
        "SELECT session_id, summary, mode, state, hints, updated_at FROM intents ORDER BY rowid",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(from_row(&r)?);
    }
    Ok(out)
}

pub(crate) fn load(conn: &Connection, session: &SessionId) -> Result<Option<IntentRecord>> {
    let mut stmt = conn.prepare_cached(
        "SELECT session_id, summary, mode, state, hints, updated_at FROM intents WHERE session_id = ?1",
    )?;
    let mut rows = stmt.query(params![session.as_str()])?;
    match rows.next()? {
        Some(r) => Ok(Some(from_row(&r)?)),
        None => Ok(None),
    }
}

impl Core {
    /// Publishes (replaces) the owner session's intent; emits `intent.published`.
    pub fn publish_intent(&mut self, owner: &Owner, req: PublishIntent) -> Result<IntentRecord> {
        text::check_summary("summary", &req.summary)?;
        if req.hints.len() > MAX_HINTS {
            return Err(crate::error::AccError::usage(format!(
                "an intent carries at most {MAX_HINTS} resource hints"
            )));
        }
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            check_owner_for_write(tx, owner, now)?;
            let hints: Vec<&str> = req.hints.iter().map(Resource::as_str).collect();
            tx.execute(
                "INSERT INTO intents (session_id, summary, mode, state, hints, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary,
                    mode = excluded.mode, state = excluded.state, hints = excluded.hints,
                    updated_at = excluded.updated_at",
                params![
                    owner.session.as_str(),
                    req.summary,
                    req.mode.as_str(),
                    req.state.as_str(),
                    serde_json::to_string(&hints).expect("strings serialise"),
                    now
                ],
            )?;
            events::append(
                tx,
                ports.ids.as_ref(),
                now,
                Some(&owner.session),
                EventType::IntentPublished,
                json!({
                    "sessionId": owner.session.as_str(),
                    "summary": req.summary,
                    "mode": req.mode.as_str(),
                    "state": req.state.as_str(),
                    "resourceHints": hints,
                }),
            )?;
            Ok(load(tx, &owner.session)?.expect("the intent was just written"))
        })
    }

    /// Marks the owner session's intent `done`; emits `intent.cleared`. `None` when the
    /// session had no intent (nothing is written then).
    pub fn clear_intent(&mut self, owner: &Owner) -> Result<Option<IntentRecord>> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            check_owner_for_write(tx, owner, now)?;
            let changed = tx.execute(
                "UPDATE intents SET state = 'done', updated_at = ?2 WHERE session_id = ?1",
                params![owner.session.as_str(), now],
            )?;
            if changed == 0 {
                return Ok(None);
            }
            events::append(
                tx,
                ports.ids.as_ref(),
                now,
                Some(&owner.session),
                EventType::IntentCleared,
                json!({ "sessionId": owner.session.as_str() }),
            )?;
            load(tx, &owner.session)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testkit::kit;

    fn intent(summary: &str) -> PublishIntent {
        PublishIntent {
            summary: summary.into(),
            mode: IntentMode::Edit,
            state: IntentState::Active,
            hints: vec![Resource::parse("file:src/**").unwrap()],
        }
    }

    #[test]
    fn publish_replaces_and_clear_marks_done() {
        let mut k = kit();
        let o = k.attach("alice");
        k.core.publish_intent(&o, intent("first")).unwrap();
        let rec = k.core.publish_intent(&o, intent("second")).unwrap();
        assert_eq!(rec.summary, "second");
        assert_eq!(rec.resource_hints[0].as_str(), "file:src/**");
        assert_eq!(k.count("SELECT count(*) FROM intents"), 1);
        let cleared = k.core.clear_intent(&o).unwrap().unwrap();
        assert_eq!(cleared.state, IntentState::Done);
        assert_eq!(
            k.count("SELECT count(*) FROM events WHERE type = 'intent.cleared'"),
            1
        );
    }

    #[test]
    fn clearing_nothing_writes_no_event_and_summaries_are_bounded() {
        let mut k = kit();
        let o = k.attach("alice");
        assert!(k.core.clear_intent(&o).unwrap().is_none());
        assert_eq!(
            k.count("SELECT count(*) FROM events WHERE type LIKE 'intent.%'"),
            0
        );
        let e = k
            .core
            .publish_intent(&o, intent(&"x".repeat(281)))
            .unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }
}
