//! The store schema as a list of forward migrations. Migration `n` (1-based) takes a store
//! from `PRAGMA user_version = n-1` to `n`; there are no reverse migrations. Append new
//! migrations; never edit a shipped one.

/// One forward step.
pub struct Migration {
    pub version: u32,
    pub sql: &'static str,
}

/// Every migration, in order.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        sql: r#"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE participants (
    participant_id TEXT PRIMARY KEY,
    display_name   TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('agent', 'human')),
    created_at     INTEGER NOT NULL
);

CREATE TABLE sessions (
    session_id        TEXT PRIMARY KEY,
    participant_id    TEXT NOT NULL REFERENCES participants (participant_id),
    generation        TEXT NOT NULL,
    harness           TEXT NOT NULL,
    client_name       TEXT,
    state             TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    parent_session_id TEXT,
    checkout_root     TEXT,
    branch            TEXT,
    pid               INTEGER,
    enforcement       TEXT NOT NULL CHECK (enforcement IN ('advisory', 'guarded')),
    lifecycle         TEXT NOT NULL CHECK (lifecycle IN ('managed', 'manual')),
    cadence_ms        INTEGER NOT NULL CHECK (cadence_ms > 0),
    started_at        INTEGER NOT NULL,
    heartbeat_at      INTEGER NOT NULL,
    closed_at         INTEGER,
    extensions        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX sessions_by_state ON sessions (state, participant_id);
CREATE INDEX sessions_by_participant ON sessions (participant_id);

CREATE TABLE intents (
    session_id TEXT PRIMARY KEY REFERENCES sessions (session_id) ON DELETE CASCADE,
    summary    TEXT NOT NULL,
    mode       TEXT NOT NULL,
    state      TEXT NOT NULL,
    hints      TEXT NOT NULL DEFAULT '[]',
    updated_at INTEGER NOT NULL
);

CREATE TABLE claims (
    claim_id         TEXT PRIMARY KEY,
    owner_session_id TEXT NOT NULL REFERENCES sessions (session_id),
    resource         TEXT NOT NULL,
    scheme           TEXT NOT NULL,
    mode             TEXT NOT NULL CHECK (mode IN ('shared', 'exclusive')),
    enforcement      TEXT NOT NULL CHECK (enforcement IN ('advisory', 'guarded')),
    reason           TEXT,
    acquired_at      INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    generation       TEXT NOT NULL
);
CREATE INDEX claims_by_scheme ON claims (scheme, expires_at);
CREATE INDEX claims_by_resource ON claims (resource);
CREATE INDEX claims_by_owner ON claims (owner_session_id);

CREATE TABLE messages (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id          TEXT NOT NULL UNIQUE,
    thread_id           TEXT NOT NULL,
    client_message_id   TEXT NOT NULL,
    from_participant_id TEXT NOT NULL,
    from_session_id     TEXT NOT NULL,
    to_participant_ids  TEXT NOT NULL,
    kind                TEXT NOT NULL,
    obligation          TEXT NOT NULL CHECK (obligation IN ('none', 'acknowledge', 'reply')),
    subject             TEXT NOT NULL,
    body                TEXT NOT NULL,
    in_reply_to         TEXT,
    handoff             TEXT,
    content_digest      TEXT NOT NULL,
    sent_at             INTEGER NOT NULL,
    UNIQUE (from_participant_id, client_message_id)
);
CREATE INDEX messages_by_sender ON messages (from_participant_id, obligation);

CREATE TABLE receipts (
    receipt_id               TEXT PRIMARY KEY,
    message_seq              INTEGER NOT NULL REFERENCES messages (seq),
    message_id               TEXT NOT NULL,
    recipient_participant_id TEXT NOT NULL,
    state                    TEXT NOT NULL
        CHECK (state IN ('queued', 'offered', 'retrieved', 'acknowledged')),
    updated_at               INTEGER NOT NULL,
    offer_transport          TEXT,
    offer_at                 INTEGER,
    offer_repeated_at        INTEGER,
    UNIQUE (message_id, recipient_participant_id)
);
CREATE INDEX receipts_by_recipient ON receipts (recipient_participant_id, state, message_seq);
CREATE INDEX receipts_by_state ON receipts (state);
CREATE INDEX receipts_by_message ON receipts (message_seq);

CREATE TABLE events (
    sequence         INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id         TEXT NOT NULL UNIQUE,
    actor_session_id TEXT,
    type             TEXT NOT NULL,
    occurred_at      INTEGER NOT NULL,
    payload          TEXT NOT NULL
);

CREATE TABLE hook_bindings (
    binding_key    TEXT PRIMARY KEY,
    session_id     TEXT NOT NULL,
    generation     TEXT NOT NULL,
    client_name    TEXT NOT NULL,
    client_version TEXT,
    client_pid     INTEGER,
    updated_at     INTEGER NOT NULL
);
"#,
    },
    Migration {
        version: 2,
        // Decision changes (`replace` / `withdraw`), one row per target, in the order the
        // sender named them. Statuses are derived from these rows at read time and never
        // stored; the index on the target answers "is this decision still a head?".
        sql: r#"
CREATE TABLE decision_links (
    message_seq INTEGER NOT NULL REFERENCES messages (seq),
    position    INTEGER NOT NULL CHECK (position >= 0),
    action      TEXT NOT NULL CHECK (action IN ('replace', 'withdraw')),
    target_seq  INTEGER NOT NULL REFERENCES messages (seq),
    PRIMARY KEY (message_seq, position),
    UNIQUE (message_seq, target_seq)
) WITHOUT ROWID;
CREATE INDEX decision_links_by_target ON decision_links (target_seq, message_seq);
CREATE INDEX messages_by_kind ON messages (kind, seq);
"#,
    },
    Migration {
        version: 3,
        // Native delivery bindings: where a live session can be offered a message, as its
        // own hooks published it after the adapter's handshake. The endpoint reference is
        // the adapter's opaque text, handed back to it unread; core never reads it.
        sql: r#"
CREATE TABLE native_bindings (
    session_id        TEXT PRIMARY KEY,
    generation        TEXT NOT NULL,
    adapter_id        TEXT NOT NULL,
    client_version    TEXT,
    protocol_contract TEXT NOT NULL,
    modes             TEXT NOT NULL,
    endpoint_ref      TEXT NOT NULL,
    lease_until       INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    -- The last wake a sender delivered; a turn-end hook does not hold the turn open for a
    -- body while a wake sent since the session's last turn start will show it.
    woken_at          INTEGER
);
"#,
    },
    Migration {
        version: 4,
        // Every change to a claim bumps one counter, so a write can tell whether it touched
        // claims (and the guarded-claims snapshot must be rewritten) by reading one row
        // instead of aggregating every claim before and after.
        sql: r#"
INSERT INTO meta (key, value) VALUES ('claims_version', '0');
CREATE TRIGGER claims_version_on_insert AFTER INSERT ON claims BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version';
END;
CREATE TRIGGER claims_version_on_update AFTER UPDATE ON claims BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version';
END;
CREATE TRIGGER claims_version_on_delete AFTER DELETE ON claims BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version';
END;
"#,
    },
    Migration {
        version: 5,
        // The same counter moves with every change the write guard's fast path reads beside
        // the claims (which conversation is bound to which session, and whether that session
        // is open, at which generation, for which participant, under which parent), so the
        // snapshot published beside the store is rewritten whenever any of it changes. A
        // heartbeat does not move it.
        sql: r#"
CREATE TRIGGER guard_version_on_session_insert AFTER INSERT ON sessions BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version';
END;
CREATE TRIGGER guard_version_on_session_update
AFTER UPDATE OF session_id, participant_id, generation, state, parent_session_id ON sessions BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version';
END;
CREATE TRIGGER guard_version_on_session_delete AFTER DELETE ON sessions BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version';
END;
CREATE TRIGGER guard_version_on_binding_insert AFTER INSERT ON hook_bindings BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version';
END;
CREATE TRIGGER guard_version_on_binding_update
AFTER UPDATE OF binding_key, session_id, generation ON hook_bindings BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version';
END;
CREATE TRIGGER guard_version_on_binding_delete AFTER DELETE ON hook_bindings BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version';
END;
"#,
    },
    Migration {
        version: 6,
        // What every turn reads, by what it reads it with: notices of refused and detected
        // writes by their event type (each read scanned every event, one per message sent),
        // and the messages that oblige a reply or an acknowledgement (each turn read every
        // receipt of the participant, queued notes included, to find the few that do).
        sql: r#"
CREATE INDEX events_by_type ON events (type, sequence);
CREATE INDEX messages_owing ON messages (seq) WHERE obligation <> 'none';
"#,
    },
    Migration {
        version: 7,
        // A counter of the claim lines alone: every change to a claim row, and every session
        // removed or given another participant (a claim line names its session's
        // participant, and a claim whose session is gone is not written). A session start
        // binds a conversation and moves only the counter of migrations 4 and 5, so its
        // publication can copy the claim lines of the last one instead of rebuilding them.
        sql: r#"
INSERT INTO meta (key, value) VALUES ('claim_rows_version', '0');
CREATE TRIGGER claim_rows_on_insert AFTER INSERT ON claims BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claim_rows_version';
END;
CREATE TRIGGER claim_rows_on_update AFTER UPDATE ON claims BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claim_rows_version';
END;
CREATE TRIGGER claim_rows_on_delete AFTER DELETE ON claims BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claim_rows_version';
END;
CREATE TRIGGER claim_rows_on_session_update AFTER UPDATE OF session_id, participant_id ON sessions
BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claim_rows_version';
END;
CREATE TRIGGER claim_rows_on_session_delete AFTER DELETE ON sessions BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claim_rows_version';
END;
"#,
    },
    Migration {
        version: 8,
        // One trigger where two fired on the same event: SQLite parses every trigger of the
        // schema at each process's first statement (every hook that opens the store), and
        // compiles every trigger that fires into each writing statement. The counters move
        // on exactly the events they moved on before. The session updates keep a trigger
        // each: they fire on different column lists, which one trigger cannot tell apart.
        sql: r#"
DROP TRIGGER claims_version_on_insert;
DROP TRIGGER claims_version_on_update;
DROP TRIGGER claims_version_on_delete;
DROP TRIGGER claim_rows_on_insert;
DROP TRIGGER claim_rows_on_update;
DROP TRIGGER claim_rows_on_delete;
DROP TRIGGER guard_version_on_session_delete;
DROP TRIGGER claim_rows_on_session_delete;
CREATE TRIGGER claim_versions_on_insert AFTER INSERT ON claims BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1
    WHERE key IN ('claims_version', 'claim_rows_version');
END;
CREATE TRIGGER claim_versions_on_update AFTER UPDATE ON claims BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1
    WHERE key IN ('claims_version', 'claim_rows_version');
END;
CREATE TRIGGER claim_versions_on_delete AFTER DELETE ON claims BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1
    WHERE key IN ('claims_version', 'claim_rows_version');
END;
CREATE TRIGGER versions_on_session_delete AFTER DELETE ON sessions BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1
    WHERE key IN ('claims_version', 'claim_rows_version');
END;
"#,
    },
];

/// The schema version this build writes and understands.
pub fn current_version() -> u32 {
    MIGRATIONS.last().map(|m| m.version).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_consecutive_from_one() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version as usize, i + 1);
        }
        assert_eq!(current_version() as usize, MIGRATIONS.len());
    }

    #[test]
    fn every_migration_applies_in_order() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for m in MIGRATIONS {
            conn.execute_batch(m.sql).unwrap();
        }
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 11);
    }

    /// Every table, index and trigger of the SQLite file at `path`, as SQLite recorded them.
    fn sqlite_master(path: &std::path::Path) -> Vec<(String, String)> {
        let conn = rusqlite::Connection::open(path).unwrap();
        let mut stmt = conn
            .prepare("SELECT name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn a_store_of_every_earlier_version_migrates_to_what_a_new_store_is() {
        use crate::ids::WorkspaceId;
        use crate::store::{Genesis, OpenMode, Store};
        let dir = tempfile::tempdir().unwrap();
        let ws = WorkspaceId::parse("ws1").unwrap();
        let genesis = || Genesis {
            now_ms: 0,
            event_id: "event_genesis".into(),
        };
        let fresh = dir.path().join("fresh.db");
        drop(Store::open(&fresh, &ws, OpenMode::ReadWrite, genesis).unwrap());
        for old in 1..current_version() {
            let path = dir.path().join(format!("v{old}.db"));
            {
                let conn = rusqlite::Connection::open(&path).unwrap();
                for m in &MIGRATIONS[..old as usize] {
                    conn.execute_batch(m.sql).unwrap();
                }
                conn.pragma_update(None, "user_version", old).unwrap();
                conn.execute_batch("INSERT INTO meta (key, value) VALUES ('workspace_id', 'ws1')")
                    .unwrap();
            }
            drop(Store::open(&path, &ws, OpenMode::ReadWrite, genesis).unwrap());
            assert_eq!(
                sqlite_master(&path),
                sqlite_master(&fresh),
                "from version {old}"
            );
        }
    }

    /// `(claims_version, claim_rows_version)` after each of a series of writes, on a store
    /// made by the first `migrations`.
    fn counters_through_events(migrations: &[Migration]) -> Vec<(&'static str, i64, i64)> {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for m in migrations {
            conn.execute_batch(m.sql).unwrap();
        }
        let session = "INSERT INTO sessions (session_id, participant_id, generation, harness,
                state, enforcement, lifecycle, cadence_ms, started_at, heartbeat_at)
            VALUES ('s1', 'alice', 'g1', 'h', 'open', 'guarded', 'managed', 1, 0, 0)";
        let claim = "INSERT INTO claims (claim_id, owner_session_id, resource, scheme, mode,
                enforcement, acquired_at, expires_at, generation)
            VALUES ('c1', 's1', 'file:a', 'file', 'exclusive', 'guarded', 0, 9, 'g1')";
        let events: [(&str, &str); 14] = [
            (
                "participant",
                "INSERT INTO participants VALUES ('alice', 'a', 'agent', 0), ('bob', 'b', 'agent', 0)",
            ),
            ("session", session),
            ("heartbeat", "UPDATE sessions SET heartbeat_at = 5"),
            ("session state", "UPDATE sessions SET state = 'closed'"),
            (
                "session participant",
                "UPDATE sessions SET participant_id = 'bob'",
            ),
            ("claim", claim),
            ("claim update", "UPDATE claims SET expires_at = 10"),
            ("claim delete", "DELETE FROM claims"),
            (
                "binding",
                "INSERT INTO hook_bindings VALUES ('k', 's1', 'g1', 'c', NULL, NULL, 0)",
            ),
            ("binding touched", "UPDATE hook_bindings SET updated_at = 1"),
            (
                "binding moved",
                "UPDATE hook_bindings SET session_id = 's2'",
            ),
            ("binding delete", "DELETE FROM hook_bindings"),
            ("claim again", claim),
            ("session delete", "DELETE FROM claims; DELETE FROM sessions"),
        ];
        events
            .iter()
            .map(|(name, sql)| {
                conn.execute_batch(sql).unwrap();
                let read = |key: &str| -> i64 {
                    conn.query_row(
                        "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1",
                        [key],
                        |r| r.get(0),
                    )
                    .unwrap()
                };
                (*name, read("claims_version"), read("claim_rows_version"))
            })
            .collect()
    }

    #[test]
    fn the_merged_triggers_move_each_counter_on_each_event_as_before() {
        let before = counters_through_events(&MIGRATIONS[..7]);
        let now = counters_through_events(MIGRATIONS);
        assert_eq!(now, before);
        // What each event moves, so that the comparison above compares something.
        let steps: Vec<(&str, i64, i64)> = now
            .iter()
            .scan((0, 0), |last, &(name, v, rows)| {
                let step = (name, v - last.0, rows - last.1);
                *last = (v, rows);
                Some(step)
            })
            .collect();
        assert_eq!(
            steps,
            [
                ("participant", 0, 0),
                ("session", 1, 0),
                ("heartbeat", 0, 0),
                ("session state", 1, 0),
                ("session participant", 1, 1),
                ("claim", 1, 1),
                ("claim update", 1, 1),
                ("claim delete", 1, 1),
                ("binding", 1, 0),
                ("binding touched", 0, 0),
                ("binding moved", 1, 0),
                ("binding delete", 1, 0),
                ("claim again", 1, 1),
                ("session delete", 2, 2),
            ]
        );
    }

    #[test]
    fn the_schema_keeps_one_trigger_per_table_and_event_where_one_column_list_serves() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for m in MIGRATIONS {
            conn.execute_batch(m.sql).unwrap();
        }
        let triggers: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(triggers, 10);
    }

    #[test]
    fn a_version_1_store_is_migrated_forward_on_open_keeping_its_messages() {
        use crate::ids::WorkspaceId;
        use crate::store::{Genesis, OpenMode, Store};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(MIGRATIONS[0].sql).unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            conn.execute_batch(
                "INSERT INTO meta (key, value) VALUES ('workspace_id', 'ws1');
                 INSERT INTO messages (message_id, thread_id, client_message_id,
                     from_participant_id, from_session_id, to_participant_ids, kind, obligation,
                     subject, body, content_digest, sent_at)
                 VALUES ('message_old', 'message_old', 'c1', 'alice', 'session_a', '[]',
                     'decision', 'none', 'kept', 'b', 'd', 1);",
            )
            .unwrap();
        }
        let ws = WorkspaceId::parse("ws1").unwrap();
        let mut store = Store::open(&path, &ws, OpenMode::ReadOnly, || Genesis {
            now_ms: 0,
            event_id: "event_unused".into(),
        })
        .unwrap();
        let (version, links, subject): (i64, i64, String) = store
            .read(|c| {
                Ok((
                    c.query_row("PRAGMA user_version", [], |r| r.get(0))?,
                    c.query_row("SELECT count(*) FROM decision_links", [], |r| r.get(0))?,
                    c.query_row("SELECT subject FROM messages", [], |r| r.get(0))?,
                ))
            })
            .unwrap();
        assert_eq!(version as u32, current_version());
        assert_eq!((links, subject.as_str()), (0, "kept"));
    }
}
