-- The PostgreSQL schema (versions 1 to 6) as rooms were created before the single schema
-- source (store/schema.rs translated per engine): a room created now must be the same.

-- version 1
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE participants (
    participant_id TEXT PRIMARY KEY,
    display_name   TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('agent', 'human')),
    created_at     BIGINT NOT NULL
);

CREATE TABLE sessions (
    rowid             BIGSERIAL,
    session_id        TEXT PRIMARY KEY,
    participant_id    TEXT NOT NULL REFERENCES participants (participant_id),
    generation        TEXT NOT NULL,
    harness           TEXT NOT NULL,
    client_name       TEXT,
    state             TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    parent_session_id TEXT,
    checkout_root     TEXT,
    branch            TEXT,
    pid               BIGINT,
    enforcement       TEXT NOT NULL CHECK (enforcement IN ('advisory', 'guarded')),
    lifecycle         TEXT NOT NULL CHECK (lifecycle IN ('managed', 'manual')),
    cadence_ms        BIGINT NOT NULL CHECK (cadence_ms > 0),
    started_at        BIGINT NOT NULL,
    heartbeat_at      BIGINT NOT NULL,
    closed_at         BIGINT,
    extensions        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX sessions_by_state ON sessions (state, participant_id);
CREATE INDEX sessions_by_participant ON sessions (participant_id);

CREATE TABLE intents (
    rowid      BIGSERIAL,
    session_id TEXT PRIMARY KEY REFERENCES sessions (session_id) ON DELETE CASCADE,
    summary    TEXT NOT NULL,
    mode       TEXT NOT NULL,
    state      TEXT NOT NULL,
    hints      TEXT NOT NULL DEFAULT '[]',
    updated_at BIGINT NOT NULL
);

CREATE TABLE claims (
    rowid            BIGSERIAL,
    claim_id         TEXT PRIMARY KEY,
    owner_session_id TEXT NOT NULL REFERENCES sessions (session_id),
    resource         TEXT NOT NULL,
    scheme           TEXT NOT NULL,
    mode             TEXT NOT NULL CHECK (mode IN ('shared', 'exclusive')),
    enforcement      TEXT NOT NULL CHECK (enforcement IN ('advisory', 'guarded')),
    reason           TEXT,
    acquired_at      BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    generation       TEXT NOT NULL
);
CREATE INDEX claims_by_scheme ON claims (scheme, expires_at);
CREATE INDEX claims_by_resource ON claims (resource);
CREATE INDEX claims_by_owner ON claims (owner_session_id);

CREATE TABLE messages (
    seq                 BIGSERIAL PRIMARY KEY,
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
    sent_at             BIGINT NOT NULL,
    UNIQUE (from_participant_id, client_message_id)
);
CREATE INDEX messages_by_sender ON messages (from_participant_id, obligation);

CREATE TABLE receipts (
    receipt_id               TEXT PRIMARY KEY,
    message_seq              BIGINT NOT NULL REFERENCES messages (seq),
    message_id               TEXT NOT NULL,
    recipient_participant_id TEXT NOT NULL,
    state                    TEXT NOT NULL
        CHECK (state IN ('queued', 'offered', 'retrieved', 'acknowledged')),
    updated_at               BIGINT NOT NULL,
    offer_transport          TEXT,
    offer_at                 BIGINT,
    offer_repeated_at        BIGINT,
    UNIQUE (message_id, recipient_participant_id)
);
CREATE INDEX receipts_by_recipient ON receipts (recipient_participant_id, state, message_seq);
CREATE INDEX receipts_by_state ON receipts (state);
CREATE INDEX receipts_by_message ON receipts (message_seq);

CREATE TABLE events (
    sequence         BIGSERIAL PRIMARY KEY,
    event_id         TEXT NOT NULL UNIQUE,
    actor_session_id TEXT,
    type             TEXT NOT NULL,
    occurred_at      BIGINT NOT NULL,
    payload          TEXT NOT NULL
);

CREATE TABLE hook_bindings (
    binding_key    TEXT PRIMARY KEY,
    session_id     TEXT NOT NULL,
    generation     TEXT NOT NULL,
    client_name    TEXT NOT NULL,
    client_version TEXT,
    client_pid     BIGINT,
    updated_at     BIGINT NOT NULL
);

-- version 2
CREATE TABLE decision_links (
    message_seq BIGINT NOT NULL REFERENCES messages (seq),
    position    BIGINT NOT NULL CHECK (position >= 0),
    action      TEXT NOT NULL CHECK (action IN ('replace', 'withdraw')),
    target_seq  BIGINT NOT NULL REFERENCES messages (seq),
    PRIMARY KEY (message_seq, position),
    UNIQUE (message_seq, target_seq)
);
CREATE INDEX decision_links_by_target ON decision_links (target_seq, message_seq);
CREATE INDEX messages_by_kind ON messages (kind, seq);

-- version 3
CREATE TABLE native_bindings (
    session_id        TEXT PRIMARY KEY,
    generation        TEXT NOT NULL,
    adapter_id        TEXT NOT NULL,
    client_version    TEXT,
    protocol_contract TEXT NOT NULL,
    modes             TEXT NOT NULL,
    endpoint_ref      TEXT NOT NULL,
    lease_until       BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    woken_at          BIGINT
);

-- version 4
INSERT INTO meta (key, value) VALUES ('claims_version', '0');
CREATE FUNCTION acc_bump_guard_version() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE meta SET value = (CAST(value AS BIGINT) + 1)::text WHERE key = 'claims_version';
    RETURN NULL;
END
$$;
CREATE TRIGGER claims_version_on_insert AFTER INSERT ON claims
    FOR EACH ROW EXECUTE FUNCTION acc_bump_guard_version();
CREATE TRIGGER claims_version_on_update AFTER UPDATE ON claims
    FOR EACH ROW EXECUTE FUNCTION acc_bump_guard_version();
CREATE TRIGGER claims_version_on_delete AFTER DELETE ON claims
    FOR EACH ROW EXECUTE FUNCTION acc_bump_guard_version();

-- version 5
CREATE TRIGGER guard_version_on_session_insert AFTER INSERT ON sessions
    FOR EACH ROW EXECUTE FUNCTION acc_bump_guard_version();
CREATE TRIGGER guard_version_on_session_update
AFTER UPDATE OF session_id, participant_id, generation, state, parent_session_id ON sessions
    FOR EACH ROW EXECUTE FUNCTION acc_bump_guard_version();
CREATE TRIGGER guard_version_on_session_delete AFTER DELETE ON sessions
    FOR EACH ROW EXECUTE FUNCTION acc_bump_guard_version();
CREATE TRIGGER guard_version_on_binding_insert AFTER INSERT ON hook_bindings
    FOR EACH ROW EXECUTE FUNCTION acc_bump_guard_version();
CREATE TRIGGER guard_version_on_binding_update
AFTER UPDATE OF binding_key, session_id, generation ON hook_bindings
    FOR EACH ROW EXECUTE FUNCTION acc_bump_guard_version();
CREATE TRIGGER guard_version_on_binding_delete AFTER DELETE ON hook_bindings
    FOR EACH ROW EXECUTE FUNCTION acc_bump_guard_version();

-- version 6
CREATE INDEX events_by_type ON events (type, sequence);
CREATE INDEX messages_owing ON messages (seq) WHERE obligation <> 'none';
