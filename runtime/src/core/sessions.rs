//! Participants and sessions: open, resume, heartbeat and close, and the owner check every
//! mutation starts with.

use super::events::{self, EventType};
use super::model::{Enforcement, Lifecycle, ParticipantKind, Presence, SessionState};
use super::presence::{self, PresenceFacts};
use super::{Core, Owner, Ports};
use crate::clock::to_iso;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{Generation, IdKind, ParticipantId, SessionId};
use crate::store::engine::{Connection, OptionalExtension, Row, params};
use crate::text;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The heartbeat cadence `acc attach` records.
pub const CLI_CADENCE_MS: u64 = 30_000;
/// The heartbeat cadence of hook runtimes and the MCP server.
pub const HOOK_CADENCE_MS: u64 = 60_000;
const MAX_CADENCE_MS: u64 = 24 * 60 * 60 * 1000;

/// What opening a session needs. Build with [`OpenSession::new`] and adjust fields.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenSession {
    pub participant_id: ParticipantId,
    /// When set, `participant_id` is only the preferred name: if a live session already acts
    /// as it, the session acts as the first of `<base>`, `<base>-2`, `<base>-3`… that no live
    /// session does. Chosen inside the opening transaction, so two sessions starting at once
    /// never take the same name.
    pub participant_base: Option<ParticipantId>,
    /// Stored for a new participant; updates an existing one when given.
    pub display_name: Option<String>,
    pub participant_kind: ParticipantKind,
    /// Free text naming what runs the session (`cli`, a hook runtime, an MCP server…).
    pub harness: String,
    pub cadence_ms: u64,
    pub pid: Option<u32>,
    pub parent_session: Option<SessionId>,
    pub checkout_root: Option<String>,
    pub branch: Option<String>,
    pub enforcement: Enforcement,
    pub lifecycle: Lifecycle,
    /// Free-form data kept with the session; `client.name` / `client.version` name the
    /// client (used for addressing by client name).
    pub extensions: Map<String, Value>,
    /// Reopen this id instead of generating one: allowed when it is closed, or open with a
    /// recorded pid (or, without one, shared host) that is confirmed dead.
    pub session_id: Option<SessionId>,
}

impl OpenSession {
    pub fn new(participant_id: ParticipantId, harness: &str, cadence_ms: u64) -> Self {
        OpenSession {
            participant_id,
            participant_base: None,
            display_name: None,
            participant_kind: ParticipantKind::Agent,
            harness: harness.to_string(),
            cadence_ms,
            pid: None,
            parent_session: None,
            checkout_root: None,
            branch: None,
            enforcement: Enforcement::Advisory,
            lifecycle: Lifecycle::Manual,
            extensions: Map::new(),
            session_id: None,
        }
    }
}

/// The fields a resumed session refreshes (after a client compaction, for example).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRefresh {
    pub pid: Option<u32>,
    pub checkout_root: Option<String>,
    pub branch: Option<String>,
    pub enforcement: Enforcement,
    pub lifecycle: Lifecycle,
    pub cadence_ms: u64,
}

/// A session as the core reports it. Only attach/resume results expose the generation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    pub session_id: SessionId,
    pub participant_id: ParticipantId,
    pub generation: Generation,
    pub harness: String,
    pub state: SessionState,
    pub presence: Presence,
    pub parent_session_id: Option<String>,
    pub checkout_root: Option<String>,
    pub branch: Option<String>,
    pub pid: Option<u32>,
    pub enforcement: Enforcement,
    pub lifecycle: Lifecycle,
    pub heartbeat_cadence_ms: u64,
    pub started_at: String,
    pub heartbeat_at: String,
    pub closed_at: Option<String>,
    pub extensions: Map<String, Value>,
}

/// A session row as stored.
#[derive(Debug, Clone)]
pub(crate) struct SessionRow {
    pub session_id: SessionId,
    pub participant_id: ParticipantId,
    pub generation: Generation,
    pub harness: String,
    pub client_name: Option<String>,
    pub state: SessionState,
    pub parent_session_id: Option<String>,
    pub checkout_root: Option<String>,
    pub branch: Option<String>,
    pub pid: Option<u32>,
    /// `extensions.client.hostPid`: the shared host a session without a client pid ran under.
    pub host_pid: Option<u32>,
    pub enforcement: Enforcement,
    pub lifecycle: Lifecycle,
    pub cadence_ms: i64,
    pub started_at: i64,
    pub heartbeat_at: i64,
    pub closed_at: Option<i64>,
    pub extensions: Map<String, Value>,
}

/// This host's name, read once per process.
fn this_host() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(crate::store::engine::config::host_id)
}

pub(crate) const SESSION_COLUMNS: &str = "session_id, participant_id, generation, harness, \
     client_name, state, parent_session_id, checkout_root, branch, pid, enforcement, lifecycle, \
     cadence_ms, started_at, heartbeat_at, closed_at, extensions";

impl SessionRow {
    pub(crate) fn from_row(r: &Row<'_>) -> Result<SessionRow> {
        let ext: String = r.get(16)?;
        let extensions: Map<String, Value> = serde_json::from_str(&ext).unwrap_or_default();
        let host_pid = extensions
            .get("client")
            .and_then(|c| c.get("hostPid"))
            .and_then(Value::as_u64)
            .and_then(|p| u32::try_from(p).ok());
        Ok(SessionRow {
            session_id: SessionId::from_store(r.get(0)?),
            participant_id: ParticipantId::from_store(r.get(1)?),
            generation: Generation::from_store(r.get(2)?),
            harness: r.get(3)?,
            client_name: r.get(4)?,
            state: SessionState::from_store(&r.get::<_, String>(5)?)?,
            parent_session_id: r.get(6)?,
            checkout_root: r.get(7)?,
            branch: r.get(8)?,
            pid: r.get::<_, Option<i64>>(9)?.map(|p| p as u32),
            host_pid,
            enforcement: Enforcement::from_store(&r.get::<_, String>(10)?)?,
            lifecycle: Lifecycle::from_store(&r.get::<_, String>(11)?)?,
            cadence_ms: r.get(12)?,
            started_at: r.get(13)?,
            heartbeat_at: r.get(14)?,
            closed_at: r.get(15)?,
            extensions,
        })
    }

    /// The host the session runs on, when it was opened on a shared store.
    pub(crate) fn host(&self) -> Option<&str> {
        self.extensions.get("host").and_then(Value::as_str)
    }

    pub(crate) fn presence_facts(&self) -> PresenceFacts {
        // Another host's process ids mean nothing here: its sessions are judged by their
        // heartbeats alone.
        let local = self.host().is_none_or(|h| h == this_host());
        PresenceFacts {
            state: self.state,
            heartbeat_at_ms: self.heartbeat_at,
            cadence_ms: self.cadence_ms,
            pid: self.pid.filter(|_| local),
            host_pid: self.host_pid.filter(|_| local),
        }
    }

    pub(crate) fn presence(&self, ports: &Ports, now_ms: i64) -> Presence {
        presence::compute(self.presence_facts(), now_ms, ports.pids.as_ref())
    }

    pub(crate) fn record(&self, ports: &Ports, now_ms: i64) -> SessionRecord {
        SessionRecord {
            session_id: self.session_id.clone(),
            participant_id: self.participant_id.clone(),
            generation: self.generation.clone(),
            harness: self.harness.clone(),
            state: self.state,
            presence: self.presence(ports, now_ms),
            parent_session_id: self.parent_session_id.clone(),
            checkout_root: self.checkout_root.clone(),
            branch: self.branch.clone(),
            pid: self.pid,
            enforcement: self.enforcement,
            lifecycle: self.lifecycle,
            heartbeat_cadence_ms: self.cadence_ms as u64,
            started_at: to_iso(self.started_at),
            heartbeat_at: to_iso(self.heartbeat_at),
            closed_at: self.closed_at.map(to_iso),
            extensions: self.extensions.clone(),
        }
    }
}

pub(crate) fn load(conn: &Connection, id: &str) -> Result<Option<SessionRow>> {
    let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE session_id = ?1");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params![id])?;
    match rows.next()? {
        Some(r) => Ok(Some(SessionRow::from_row(&r)?)),
        None => Ok(None),
    }
}

/// Every session, or only open ones.
pub(crate) fn load_all(conn: &Connection, open_only: bool) -> Result<Vec<SessionRow>> {
    let sql = if open_only {
        format!(
            "SELECT {SESSION_COLUMNS} FROM sessions WHERE state = 'open' ORDER BY started_at, rowid"
        )
    } else {
        format!("SELECT {SESSION_COLUMNS} FROM sessions ORDER BY started_at, rowid")
    };
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(SessionRow::from_row(&r)?);
    }
    Ok(out)
}

/// Checks that `owner` names an open session at its current generation.
pub(crate) fn check_owner(conn: &Connection, owner: &Owner) -> Result<SessionRow> {
    let Some(row) = load(conn, owner.session.as_str())? else {
        return Err(AccError::new(
            ErrorCode::SessionUnknown,
            format!(
                "session {} is unknown in this workspace; attach first",
                owner.session
            ),
        )
        .with("sessionId", owner.session.as_str()));
    };
    if row.state == SessionState::Closed {
        return Err(AccError::new(
            ErrorCode::SessionClosed,
            format!("session {} is closed; attach a new session", owner.session),
        )
        .with("sessionId", owner.session.as_str()));
    }
    if row.generation != owner.generation {
        return Err(AccError::new(
            ErrorCode::GenerationMismatch,
            format!(
                "session {} was reopened since generation {}; use its current generation or attach again",
                owner.session, owner.generation
            ),
        )
        .with("sessionId", owner.session.as_str()));
    }
    Ok(row)
}

/// [`check_owner`] for a mutation: activity by the owner also counts as a heartbeat.
pub(crate) fn check_owner_for_write(
    conn: &Connection,
    owner: &Owner,
    now_ms: i64,
) -> Result<SessionRow> {
    let mut row = check_owner(conn, owner)?;
    conn.prepare_cached("UPDATE sessions SET heartbeat_at = ?2 WHERE session_id = ?1")?
        .execute(params![owner.session.as_str(), now_ms])?;
    row.heartbeat_at = now_ms;
    Ok(row)
}

/// The ids of every known participant, sorted (for error messages).
pub(crate) fn known_participants(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt =
        conn.prepare_cached("SELECT participant_id FROM participants ORDER BY participant_id")?;
    let ids = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(ids)
}

pub(crate) fn participant_exists(conn: &Connection, id: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM participants WHERE participant_id = ?1")?
        .query_row(params![id], |_| Ok(()))
        .optional()?
        .is_some())
}

fn validate_open(req: &OpenSession) -> Result<()> {
    text::check_peer_line("harness", &req.harness)?;
    if let Some(name) = &req.display_name {
        text::check_peer_line("display name", name)?;
    }
    if let Some(root) = &req.checkout_root {
        text::check_prose("checkout root", root)?;
    }
    if let Some(branch) = &req.branch {
        text::check_line("branch", branch)?;
    }
    if req.cadence_ms == 0 || req.cadence_ms > MAX_CADENCE_MS {
        return Err(AccError::usage(format!(
            "heartbeat cadence must be between 1 and {MAX_CADENCE_MS} ms, got {}",
            req.cadence_ms
        )));
    }
    Ok(())
}

/// `preferred` when no live session other than `replacing` acts as it, else the first free
/// name of `base`, `base-2`, `base-3`… (one of the first n+1 is free when n sessions are live).
fn first_free(
    conn: &Connection,
    ports: &Ports,
    now: i64,
    preferred: &ParticipantId,
    base: &ParticipantId,
    replacing: Option<&SessionId>,
) -> Result<ParticipantId> {
    let taken: std::collections::HashSet<ParticipantId> = load_all(conn, true)?
        .into_iter()
        .filter(|s| Some(&s.session_id) != replacing)
        .filter(|s| s.presence(ports, now) != Presence::Offline)
        .map(|s| s.participant_id)
        .collect();
    if !taken.contains(preferred) {
        return Ok(preferred.clone());
    }
    for n in 1..=taken.len() + 1 {
        let name = if n == 1 {
            base.clone()
        } else {
            ParticipantId::parse(&format!("{}-{n}", base.as_str()))?
        };
        if !taken.contains(&name) {
            return Ok(name);
        }
    }
    unreachable!("n live names cannot take n + 1 candidates")
}

fn client_name(ext: &Map<String, Value>) -> Option<String> {
    ext.get("client")
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

impl Core {
    /// Opens (or reopens) a session and returns it with its fresh generation.
    /// Emits `session.opened{sessionId, participantId, harness, parentSessionId, replaced}`.
    pub fn open_session(&mut self, req: OpenSession) -> Result<SessionRecord> {
        validate_open(&req)?;
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            // A writer tidies first: a gone client's session must not keep its name taken.
            close_gone_in_tx(tx, ports, now, req.session_id.as_ref())?;
            let mut req = req;
            if let Some(base) = &req.participant_base {
                req.participant_id = first_free(
                    tx,
                    ports,
                    now,
                    &req.participant_id,
                    base,
                    req.session_id.as_ref(),
                )?;
            }
            let display = req
                .display_name
                .clone()
                .unwrap_or_else(|| req.participant_id.as_str().to_owned());
            tx.prepare_cached(
                "INSERT INTO participants (participant_id, display_name, kind, created_at)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (participant_id) DO NOTHING",
            )?
            .execute(params![req.participant_id.as_str(), display, req.participant_kind.as_str(), now])?;
            if let Some(name) = &req.display_name {
                tx.execute(
                    "UPDATE participants SET display_name = ?2 WHERE participant_id = ?1",
                    params![req.participant_id.as_str(), name],
                )?;
            }
            if let Some(parent) = &req.parent_session
                && load(tx, parent.as_str())?.is_none()
            {
                return Err(AccError::new(
                    ErrorCode::NotFound,
                    format!("parent session {parent} is unknown in this workspace"),
                )
                .with("sessionId", parent.as_str()));
            }
            let mut replaced = false;
            let session_id = match &req.session_id {
                Some(id) => {
                    if let Some(existing) = load(tx, id.as_str())?
                        && existing.state == SessionState::Open {
                            if !client_gone(&existing, ports) {
                                return Err(AccError::new(
                                    ErrorCode::SessionInUse,
                                    format!("session {id} is open and its process is not confirmed dead"),
                                )
                                .with("sessionId", id.as_str()));
                            }
                            replaced = true;
                        }
                    id.clone()
                }
                None => SessionId::from_store(ports.ids.next(IdKind::Session)),
            };
            let generation = Generation::from_store(ports.ids.next(IdKind::Generation));
            let mut extensions = req.extensions.clone();
            // On a store several hosts share, which host runs the session: only that host
            // may judge its process.
            if tx.is_postgres() {
                extensions.insert("host".into(), Value::String(this_host().to_string()));
            }
            let ext = Value::Object(extensions).to_string();
            tx.prepare_cached(
                "INSERT INTO sessions (session_id, participant_id, generation, harness, client_name,
                    state, parent_session_id, checkout_root, branch, pid, enforcement, lifecycle,
                    cadence_ms, started_at, heartbeat_at, closed_at, extensions)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'open', ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13, NULL, ?14)
                 ON CONFLICT (session_id) DO UPDATE SET
                    participant_id = excluded.participant_id, generation = excluded.generation,
                    harness = excluded.harness, client_name = excluded.client_name, state = 'open',
                    parent_session_id = excluded.parent_session_id,
                    checkout_root = excluded.checkout_root, branch = excluded.branch,
                    pid = excluded.pid, enforcement = excluded.enforcement,
                    lifecycle = excluded.lifecycle, cadence_ms = excluded.cadence_ms,
                    started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at,
                    closed_at = NULL, extensions = excluded.extensions",
            )?
            .execute(params![
                session_id.as_str(),
                req.participant_id.as_str(),
                generation.as_str(),
                req.harness,
                client_name(&req.extensions),
                req.parent_session.as_ref().map(|p| p.as_str()),
                req.checkout_root,
                req.branch,
                req.pid.map(|p| p as i64),
                req.enforcement.as_str(),
                req.lifecycle.as_str(),
                req.cadence_ms as i64,
                now,
                ext,
            ])?;
            events::append(
                tx,
                ports.ids.as_ref(),
                now,
                Some(&session_id),
                EventType::SessionOpened,
                json!({
                    "sessionId": session_id.as_str(),
                    "participantId": req.participant_id.as_str(),
                    "harness": req.harness,
                    "parentSessionId": req.parent_session.as_ref().map(|p| p.as_str()),
                    "replaced": replaced,
                }),
            )?;
            let row = load(tx, session_id.as_str())?.expect("the session was just written");
            Ok(row.record(ports, now))
        })
    }

    /// Refreshes a session that is still open at `owner.generation` (no event). Returns
    /// `None` when it is unknown, closed or at another generation: open a new one then.
    pub fn resume_session(
        &mut self,
        owner: &Owner,
        refresh: SessionRefresh,
    ) -> Result<Option<SessionRecord>> {
        if refresh.cadence_ms == 0 || refresh.cadence_ms > MAX_CADENCE_MS {
            return Err(AccError::usage("heartbeat cadence out of range"));
        }
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let Some(row) = load(tx, owner.session.as_str())? else {
                return Ok(None);
            };
            if row.state == SessionState::Closed || row.generation != owner.generation {
                return Ok(None);
            }
            tx.execute(
                "UPDATE sessions SET pid = ?2, checkout_root = ?3, branch = ?4, enforcement = ?5,
                    lifecycle = ?6, cadence_ms = ?7, heartbeat_at = ?8
                 WHERE session_id = ?1",
                params![
                    owner.session.as_str(),
                    refresh.pid.map(|p| p as i64),
                    refresh.checkout_root,
                    refresh.branch,
                    refresh.enforcement.as_str(),
                    refresh.lifecycle.as_str(),
                    refresh.cadence_ms as i64,
                    now
                ],
            )?;
            // Presence's facts changed: the claims proof (store::claims_proof), which
            // answers a refused claim with its holder's presence, is published again.
            if row.pid != refresh.pid || row.cadence_ms != refresh.cadence_ms as i64 {
                tx.execute(
                    "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'claims_version'",
                    [],
                )?;
            }
            let row = load(tx, owner.session.as_str())?.expect("the session exists");
            Ok(Some(row.record(ports, now)))
        })
    }

    /// Records a heartbeat (no event) and returns its timestamp.
    pub fn heartbeat(&mut self, owner: &Owner) -> Result<String> {
        let now = self.ports.now();
        self.store.write(|tx| {
            check_owner_for_write(tx, owner, now)?;
            Ok(to_iso(now))
        })
    }

    /// Closes a session; its claims are kept. `end_reason` (the client's own word, such as
    /// `clear`) is kept in the session's extensions as `endReason`.
    pub fn close_session(
        &mut self,
        owner: &Owner,
        end_reason: Option<&str>,
    ) -> Result<SessionRecord> {
        if let Some(reason) = end_reason {
            text::check_peer_line("end reason", reason)?;
        }
        let ports = &self.ports;
        let now = ports.now();
        self.store.write(|tx| {
            let row = check_owner(tx, owner)?;
            close_in_tx(tx, ports, now, &row, "close", end_reason)?;
            let row = load(tx, owner.session.as_str())?.expect("the session exists");
            Ok(row.record(ports, now))
        })
    }

    /// The participants other than the owner's with a session that is not offline: the
    /// names `--to` takes for the peers here, sorted.
    pub fn live_peers(&mut self, owner: &Owner) -> Result<Vec<ParticipantId>> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            let me = check_owner(c, owner)?;
            // Every session, filtered here: the statement a turn already compiled for its
            // delivery (compiling another costs more than reading the closed sessions).
            let mut peers: Vec<ParticipantId> = load_all(c, false)?
                .into_iter()
                .filter(|s| s.state == SessionState::Open)
                .filter(|s| s.participant_id != me.participant_id)
                .filter(|s| s.presence(ports, now) != Presence::Offline)
                .map(|s| s.participant_id)
                .collect();
            peers.sort();
            peers.dedup();
            Ok(peers)
        })
    }

    /// Whether a session that is not offline acts as `participant`.
    pub fn participant_is_live(&mut self, participant: &ParticipantId) -> Result<bool> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            Ok(load_all(c, true)?.into_iter().any(|s| {
                &s.participant_id == participant && s.presence(ports, now) != Presence::Offline
            }))
        })
    }

    /// The sessions acting as `participant` that are not offline, oldest first.
    pub fn live_sessions_of(&mut self, participant: &ParticipantId) -> Result<Vec<SessionId>> {
        let ports = &self.ports;
        let now = ports.now();
        self.store.read(|c| {
            Ok(load_all(c, true)?
                .into_iter()
                .filter(|s| {
                    &s.participant_id == participant && s.presence(ports, now) != Presence::Offline
                })
                .map(|s| s.session_id)
                .collect())
        })
    }

    /// One session by id, with its presence now.
    pub fn session(&mut self, id: &SessionId) -> Result<Option<SessionRecord>> {
        let ports = &self.ports;
        let now = ports.now();
        self.store
            .read(|c| Ok(load(c, id.as_str())?.map(|r| r.record(ports, now))))
    }
}

/// Closes `row`'s session inside a transaction; emits `session.closed{sessionId, cause}`.
pub(crate) fn close_in_tx(
    tx: &Connection,
    ports: &Ports,
    now: i64,
    row: &SessionRow,
    cause: &str,
    end_reason: Option<&str>,
) -> Result<()> {
    let mut ext = row.extensions.clone();
    if let Some(reason) = end_reason {
        ext.insert("endReason".into(), Value::String(reason.to_string()));
    }
    tx.execute(
        "UPDATE sessions SET state = 'closed', closed_at = ?2, extensions = ?3 WHERE session_id = ?1",
        params![row.session_id.as_str(), now, Value::Object(ext).to_string()],
    )?;
    events::append(
        tx,
        ports.ids.as_ref(),
        now,
        Some(&row.session_id),
        EventType::SessionClosed,
        json!({
            "sessionId": row.session_id.as_str(),
            "cause": cause,
            "endReason": end_reason,
        }),
    )?;
    close_children_in_tx(tx, ports, now, &row.session_id)
}

/// The `cause` of a `session.closed` event for a child closed because its parent closed.
pub const CAUSE_PARENT_CLOSED: &str = "parent_closed";

/// Closes every open child of `parent` (and theirs), each with a `session.closed` event of
/// cause [`CAUSE_PARENT_CLOSED`]: a subagent does not outlive the conversation that ran it.
pub(crate) fn close_children_in_tx(
    tx: &Connection,
    ports: &Ports,
    now: i64,
    parent: &SessionId,
) -> Result<()> {
    let open: Vec<SessionRow> = load_all(tx, true)?
        .into_iter()
        .filter(|r| r.parent_session_id.as_deref() == Some(parent.as_str()))
        .collect();
    for row in &open {
        // Closed before its own children are looked at, so a cycle of links ends here.
        close_in_tx(tx, ports, now, row, CAUSE_PARENT_CLOSED, None)?;
    }
    Ok(())
}

/// The `cause` of a `session.closed` event acc writes for a client that ended without saying
/// so: its recorded process is gone.
pub const CAUSE_CLIENT_GONE: &str = "client_gone";

/// Whether `row` is an open session whose recorded client process (or, without one, the
/// shared host that ran it) is confirmed dead. A session with neither is never judged here:
/// silence alone does not prove a client gone.
fn client_gone(row: &SessionRow, ports: &Ports) -> bool {
    row.state == SessionState::Open
        && presence::client_gone(&row.presence_facts(), ports.pids.as_ref())
}

/// Closes every open session whose recorded client process is gone, each with a
/// `session.closed{cause: client_gone}` event; returns how many. Clients that give no end
/// signal (or a client killed before it could) end here, at the next reader or writer.
/// `except` is left alone (a session about to be reopened, which records its replacement).
pub(crate) fn close_gone_in_tx(
    tx: &Connection,
    ports: &Ports,
    now: i64,
    except: Option<&SessionId>,
) -> Result<usize> {
    let gone: Vec<SessionRow> = load_all(tx, true)?
        .into_iter()
        .filter(|r| Some(&r.session_id) != except && client_gone(r, ports))
        .collect();
    for row in &gone {
        close_in_tx(tx, ports, now, row, CAUSE_CLIENT_GONE, None)?;
    }
    Ok(gone.len())
}

impl Core {
    /// [`close_gone_in_tx`] for a reader: a no-op where the store cannot be written (absent,
    /// or not acc's to write), and a write transaction only when a read found something to
    /// close, so a room whose clients all run costs a read.
    pub fn close_sessions_of_gone_clients(&mut self) -> Result<usize> {
        if !self.store.is_writable() {
            return Ok(0);
        }
        let ports = &self.ports;
        let any = self
            .store
            .read(|c| Ok(load_all(c, true)?.iter().any(|r| client_gone(r, ports))))?;
        if !any {
            return Ok(0);
        }
        let now = ports.now();
        self.store
            .write(|tx| close_gone_in_tx(tx, ports, now, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testkit::{T0, kit};

    #[test]
    fn open_returns_a_generation_and_emits_an_event() {
        let mut k = kit();
        let owner = k.attach("alice");
        assert!(owner.session.as_str().starts_with("session_"));
        assert!(owner.generation.as_str().starts_with("generation_"));
        assert_eq!(
            k.count("SELECT count(*) FROM events WHERE type = 'session.opened'"),
            1
        );
        assert_eq!(k.count("SELECT count(*) FROM participants"), 1);
        let rec = k.core.session(&owner.session).unwrap().unwrap();
        assert_eq!(rec.presence, Presence::Online);
        assert_eq!(rec.heartbeat_cadence_ms, 30_000);
    }

    #[test]
    fn mutations_check_generation_and_state() {
        let mut k = kit();
        let owner = k.attach("alice");
        let wrong = Owner::new(
            owner.session.clone(),
            Generation::parse("generation_x").unwrap(),
        );
        assert_eq!(
            k.core.heartbeat(&wrong).unwrap_err().code,
            ErrorCode::GenerationMismatch
        );
        let unknown = Owner::new(
            SessionId::parse("session_nope").unwrap(),
            owner.generation.clone(),
        );
        assert_eq!(k.core.heartbeat(&unknown).unwrap_err().exit_code(), 5);
        k.core.close_session(&owner, Some("clear")).unwrap();
        let e = k.core.heartbeat(&owner).unwrap_err();
        assert_eq!(e.code, ErrorCode::SessionClosed);
        assert_eq!(e.exit_code(), 5);
        let rec = k.core.session(&owner.session).unwrap().unwrap();
        assert_eq!(rec.extensions["endReason"], "clear");
        assert_eq!(rec.presence, Presence::Offline);
    }

    #[test]
    fn heartbeat_moves_presence_back_online() {
        let mut k = kit();
        let owner = k.attach("alice");
        k.clock.advance_ms(120_000);
        assert_eq!(
            k.core.session(&owner.session).unwrap().unwrap().presence,
            Presence::Stale
        );
        assert_eq!(k.core.heartbeat(&owner).unwrap(), to_iso(T0 + 120_000));
        assert_eq!(
            k.core.session(&owner.session).unwrap().unwrap().presence,
            Presence::Online
        );
    }

    #[test]
    fn resume_refreshes_only_the_same_open_generation() {
        let mut k = kit();
        let owner = k.attach("alice");
        let refresh = SessionRefresh {
            pid: Some(4242),
            checkout_root: Some("/w".into()),
            branch: Some("main".into()),
            enforcement: Enforcement::Guarded,
            lifecycle: Lifecycle::Managed,
            cadence_ms: 60_000,
        };
        k.pids.0.lock().unwrap().insert(4242);
        let rec = k
            .core
            .resume_session(&owner, refresh.clone())
            .unwrap()
            .unwrap();
        assert_eq!(rec.pid, Some(4242));
        assert_eq!(rec.enforcement, Enforcement::Guarded);
        assert_eq!(rec.generation, owner.generation);
        let events = k.count("SELECT count(*) FROM events");
        let other = Owner::new(
            owner.session.clone(),
            Generation::parse("generation_old").unwrap(),
        );
        assert!(
            k.core
                .resume_session(&other, refresh.clone())
                .unwrap()
                .is_none()
        );
        k.core.close_session(&owner, None).unwrap();
        assert!(k.core.resume_session(&owner, refresh).unwrap().is_none());
        assert_eq!(
            k.count("SELECT count(*) FROM events"),
            events + 1,
            "only the close"
        );
    }

    #[test]
    fn reopening_an_open_session_needs_a_dead_pid() {
        let mut k = kit();
        let mut req = OpenSession::new(ParticipantId::parse("alice").unwrap(), "hook", 60_000);
        req.pid = Some(77);
        k.pids.0.lock().unwrap().insert(77);
        let first = k.core.open_session(req.clone()).unwrap();
        req.session_id = Some(first.session_id.clone());
        assert_eq!(
            k.core.open_session(req.clone()).unwrap_err().code,
            ErrorCode::SessionInUse
        );
        k.pids.0.lock().unwrap().clear();
        let second = k.core.open_session(req).unwrap();
        assert_eq!(second.session_id, first.session_id);
        assert_ne!(second.generation, first.generation);
        let old = Owner::new(first.session_id, first.generation);
        assert_eq!(
            k.core.heartbeat(&old).unwrap_err().code,
            ErrorCode::GenerationMismatch
        );
    }

    #[test]
    fn a_base_name_is_numbered_only_while_a_live_session_acts_as_it() {
        let mut k = kit();
        let codex = ParticipantId::parse("codex").unwrap();
        let open = |k: &mut crate::core::testkit::Kit, preferred: &str| {
            let mut req =
                OpenSession::new(ParticipantId::parse(preferred).unwrap(), "hook", 60_000);
            req.participant_base = Some(codex.clone());
            let rec = k.core.open_session(req).unwrap();
            (
                rec.participant_id.to_string(),
                Owner::new(rec.session_id, rec.generation),
            )
        };
        let (first, first_owner) = open(&mut k, "codex");
        assert_eq!(first, "codex");
        let (second, _) = open(&mut k, "codex");
        assert_eq!(second, "codex-2");
        let (third, third_owner) = open(&mut k, "codex");
        assert_eq!(third, "codex-3");
        // The first run ended: the next run is codex again, the same agent under its name.
        k.core.close_session(&first_owner, None).unwrap();
        assert_eq!(open(&mut k, "codex").0, "codex");
        // A conversation that was codex-3 comes back as codex-3 once that is free, and
        // otherwise takes the first free number.
        k.core.close_session(&third_owner, None).unwrap();
        assert_eq!(open(&mut k, "codex-3").0, "codex-3");
        assert_eq!(open(&mut k, "codex-3").0, "codex-4");
        // Without a base, a preferred name is taken as is, shared or not.
        let mut pinned = OpenSession::new(codex.clone(), "hook", 60_000);
        pinned.participant_base = None;
        assert_eq!(k.core.open_session(pinned).unwrap().participant_id, codex);
    }

    #[test]
    fn a_silent_session_without_a_pid_stops_holding_its_name_once_offline() {
        let mut k = kit();
        let codex = ParticipantId::parse("codex").unwrap();
        let mut req = OpenSession::new(codex.clone(), "hook", 60_000);
        req.participant_base = Some(codex.clone());
        k.core.open_session(req.clone()).unwrap();
        k.clock.advance_ms(5 * 60_000);
        assert_eq!(
            k.core
                .open_session(req.clone())
                .unwrap()
                .participant_id
                .as_str(),
            "codex-2",
            "stale is still live"
        );
        k.clock
            .advance_ms(super::presence::OFFLINE_WITHOUT_PID_AFTER_MS + 1);
        assert_eq!(k.core.open_session(req).unwrap().participant_id, codex);
    }

    #[test]
    fn live_peers_are_the_other_participants_not_offline() {
        let mut k = kit();
        let me = k.attach("me");
        let _also_me = k.attach("me");
        k.attach("zed");
        k.attach("bob");
        let gone = k.attach("carol");
        k.core.close_session(&gone, None).unwrap();
        let names: Vec<String> = k
            .core
            .live_peers(&me)
            .unwrap()
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(names, ["bob", "zed"]);
    }

    fn open_with_pid(k: &mut crate::core::testkit::Kit, who: &str, pid: u32) -> Owner {
        let mut req = OpenSession::new(ParticipantId::parse(who).unwrap(), "hook", 60_000);
        req.pid = Some(pid);
        k.pids.0.lock().unwrap().insert(pid);
        let rec = k.core.open_session(req).unwrap();
        Owner::new(rec.session_id, rec.generation)
    }

    fn closed_because_client_gone(k: &mut crate::core::testkit::Kit) -> i64 {
        k.count(
            "SELECT count(*) FROM events WHERE type = 'session.closed'
               AND json_extract(payload, '$.cause') = 'client_gone'",
        )
    }

    #[test]
    fn the_next_reader_closes_a_session_whose_client_process_is_gone() {
        use crate::core::claims::ClaimRequest;
        use crate::core::status::OwnerSession;
        let mut k = kit();
        let kimi = open_with_pid(&mut k, "kimi", 77);
        let held = k
            .core
            .claim(
                &kimi,
                ClaimRequest::new(crate::core::resources::Resource::parse("file:a").unwrap()),
            )
            .unwrap()
            .claim;
        // A session without a pid is never closed for want of one.
        let quiet = k.attach("quiet");
        assert_eq!(k.core.status(None, false).unwrap().sessions.len(), 2);
        assert_eq!(
            closed_because_client_gone(&mut k),
            0,
            "its client still runs"
        );

        k.pids.0.lock().unwrap().clear();
        let report = k.core.status(None, false).unwrap();
        let open: Vec<&SessionId> = report.sessions.iter().map(|s| &s.session_id).collect();
        assert_eq!(open, [&quiet.session], "nothing is shown open that is not");
        assert_eq!(report.counts.live_sessions, 1);
        assert_eq!(report.claims[0].owner_session, OwnerSession::Ended);
        let rec = k.core.session(&kimi.session).unwrap().unwrap();
        assert_eq!(rec.state, SessionState::Closed);
        assert_eq!(rec.closed_at, Some(to_iso(T0)));
        assert_eq!(closed_because_client_gone(&mut k), 1);
        // Closed once: the next reader finds nothing left to close.
        k.core.status(None, true).unwrap();
        assert_eq!(closed_because_client_gone(&mut k), 1);
        // Its claim is its participant's, as for any ended session.
        let later = k.attach("kimi");
        k.core.release_claim(&later, &held.claim_id).unwrap();
    }

    #[test]
    fn a_session_run_by_a_shared_host_ends_with_the_host_not_before() {
        let mut k = kit();
        let mut req = OpenSession::new(ParticipantId::parse("codex").unwrap(), "hook", 60_000);
        req.extensions.insert(
            "client".into(),
            json!({"name": "codex", "pid": null, "hostPid": 58}),
        );
        k.pids.0.lock().unwrap().insert(58);
        let rec = k.core.open_session(req).unwrap();
        assert_eq!(rec.presence, Presence::Online);
        k.core.status(None, false).unwrap();
        assert_eq!(closed_because_client_gone(&mut k), 0, "its host runs");
        k.pids.0.lock().unwrap().clear();
        assert_eq!(k.core.status(None, false).unwrap().sessions.len(), 0);
        assert_eq!(closed_because_client_gone(&mut k), 1);
    }

    #[test]
    fn a_hosted_session_is_reopened_by_id_only_once_its_host_is_gone() {
        let mut k = kit();
        let mut req = OpenSession::new(ParticipantId::parse("codex").unwrap(), "hook", 60_000);
        req.extensions
            .insert("client".into(), json!({"pid": null, "hostPid": 58}));
        k.pids.0.lock().unwrap().insert(58);
        let first = k.core.open_session(req.clone()).unwrap();
        req.session_id = Some(first.session_id.clone());
        assert_eq!(
            k.core.open_session(req.clone()).unwrap_err().code,
            ErrorCode::SessionInUse
        );
        k.pids.0.lock().unwrap().clear();
        let again = k.core.open_session(req).unwrap();
        assert_eq!(again.session_id, first.session_id);
        assert_ne!(again.generation, first.generation);
    }

    #[test]
    fn opening_a_session_closes_those_whose_client_process_is_gone() {
        let mut k = kit();
        let grok = open_with_pid(&mut k, "grok", 78);
        k.pids.0.lock().unwrap().remove(&78);
        k.attach("alice");
        let rec = k.core.session(&grok.session).unwrap().unwrap();
        assert_eq!(rec.state, SessionState::Closed);
        assert_eq!(closed_because_client_gone(&mut k), 1);
        assert_eq!(
            k.core.heartbeat(&grok).unwrap_err().code,
            ErrorCode::SessionClosed,
            "a late hook of the gone client finds it closed"
        );
    }

    #[test]
    fn bad_input_is_refused_before_writing() {
        let mut k = kit();
        let before = k.count("SELECT count(*) FROM events");
        let mut req = OpenSession::new(ParticipantId::parse("alice").unwrap(), "bad\u{1}", 1000);
        assert_eq!(k.core.open_session(req.clone()).unwrap_err().exit_code(), 2);
        req.harness = "ok".into();
        req.cadence_ms = 0;
        assert_eq!(k.core.open_session(req.clone()).unwrap_err().exit_code(), 2);
        req.cadence_ms = 1000;
        req.parent_session = Some(SessionId::parse("session_missing").unwrap());
        assert_eq!(
            k.core.open_session(req).unwrap_err().code,
            ErrorCode::NotFound
        );
        assert_eq!(k.count("SELECT count(*) FROM events"), before);
        assert_eq!(k.count("SELECT count(*) FROM participants"), 0);
    }
}
