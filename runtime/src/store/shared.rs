//! Opening a workspace's store on a PostgreSQL server several hosts share
//! ([`engine::postgres`]): the schema created and migrated under one advisory lock, the
//! workspace and repository checked before anything is written, and this host's copy of
//! the guarded claims kept beside where the SQLite store would be, so that the guard can
//! still refuse covered writes when the server is away.

use super::engine::postgres::{PgConnection, quote_ident, schema_name};
use super::engine::{self, OptionalExtension, params, postgres_schema};
use super::{BUSY_TIMEOUT, Genesis, OpenMode, Publication, Store, guard_snapshot};
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::WorkspaceId;
use std::path::Path;

/// The meta key recording which repository a shared room is of.
const REPOSITORY_KEY: &str = "repository";

/// Where this host's copy of the guarded claims came from: the claims version it was
/// written at, beside the copy.
fn copy_version_path(store_file: &Path) -> std::path::PathBuf {
    store_file.with_file_name(super::guard_token::ANCHOR_FILE)
}

/// Inside a write transaction on a shared store, before its commit: when the write changed
/// what the guard reads, this host's published snapshot stops vouching (as on SQLite, before
/// the commit), and every host's listener is told at the commit
/// ([`super::shared_listener`]).
pub(crate) fn announce_change(
    tx: &engine::Connection,
    store_file: &Path,
    before: i64,
) -> Result<()> {
    let after = guard_snapshot::fingerprint(tx)?;
    if after == before {
        return Ok(());
    }
    super::guard_token::withdraw(store_file)?;
    let engine::Connection::Postgres(pg) = tx else {
        return Ok(());
    };
    engine::postgres::notify(tx, pg.schema(), after)?;
    Ok(())
}

impl Store {
    /// Opens the shared store at `url` for `workspace`. `local` is where the embedded store
    /// would be: this host's copy of the guarded claims lives beside it. `repository` is
    /// the checkout's normalised remote: a room recorded for another repository is refused.
    pub fn open_shared(
        url: &str,
        local: &Path,
        workspace: &WorkspaceId,
        repository: Option<&str>,
        mode: OpenMode,
        genesis: impl FnOnce() -> Genesis,
    ) -> Result<Store> {
        let schema = schema_name(workspace.as_str());
        let conn = PgConnection::connect(url, &schema, BUSY_TIMEOUT)?;
        let target = conn.describe();
        let conn = engine::Connection::Postgres(Box::new(conn));
        let engine::Connection::Postgres(pg) = &conn else {
            unreachable!("just connected")
        };
        pg.execute_batch("BEGIN")?;
        let seen = copy_version_path(local).exists();
        let gone = || room_gone(local, workspace, &target);
        let prepared = prepare_schema(&conn, &schema, workspace, repository, mode, genesis, seen)
            .and_then(|found| found.ok_or_else(gone));
        let exists = match prepared {
            Ok(exists) => {
                pg.commit().map_err(|e| name_target(e.into(), &target))?;
                exists
            }
            Err(e) => {
                let _ = pg.rollback();
                return Err(name_target(e, &target));
            }
        };
        if !exists {
            // Nothing shared yet and nothing may be created: read as an empty room.
            return Store::empty(local, workspace, fallback_genesis());
        }
        let mut store = Store {
            conn: std::mem::ManuallyDrop::new(conn),
            path: local.to_path_buf(),
            ephemeral: false,
            busy: BUSY_TIMEOUT,
            publication: Publication::AfterEachWrite,
            known_version: None,
            prior: None,
            clock: std::sync::Arc::new(crate::clock::SystemClock),
            sync: Default::default(),
            mmap: 0,
            warm: None,
        };
        if mode == OpenMode::ReadWrite || local.parent().is_some_and(Path::exists) {
            let _ = store.refresh_local_copy();
        }
        Ok(store)
    }

    /// Rewrites this host's copy of the guarded claims when the shared claims version moved
    /// since it was written: one query when nothing changed.
    pub(crate) fn refresh_local_copy(&mut self) -> Result<()> {
        if !self.conn.is_postgres() {
            return Ok(());
        }
        let stamp = copy_version_path(&self.path);
        let file = guard_snapshot::path_for(&self.path);
        let local = std::fs::read_to_string(&stamp).ok();
        let now_ms = self.clock.now_ms();
        let path = self.path.clone();
        self.read(|c| {
            let version = guard_snapshot::fingerprint(c)?;
            if local.as_deref().map(str::trim) == Some(version.to_string().as_str())
                && file.exists()
            {
                return Ok(());
            }
            let workspace: String = c.query_row(
                "SELECT value FROM meta WHERE key = 'workspace_id'",
                [],
                |r| r.get(0),
            )?;
            if let Some(dir) = path.parent() {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)?;
            }
            // Never sealed by a token: only this host's listener publishes one, with the
            // lease that lets the fast path trust it ([`super::shared_listener`]). Withdrawn
            // first, so the copy replaced here is not taken for the one a token sealed.
            super::guard_token::withdraw(&path)?;
            guard_snapshot::write(c, &file, &workspace, now_ms, "shared")?;
            std::fs::write(&stamp, version.to_string())?;
            Ok(())
        })
    }

    /// Whether the shared store at `url` answers, in one line either way (`acc doctor`).
    /// Reads only: a room that does not exist yet is not created.
    pub fn check_shared(url: &str, workspace: &WorkspaceId) -> std::result::Result<String, String> {
        let target = super::engine::postgres::describe_url(url);
        let schema = schema_name(workspace.as_str());
        let conn = PgConnection::connect(url, &schema, BUSY_TIMEOUT)
            .map_err(|e| AccError::from(e).message)?;
        let probe = || -> super::engine::SqlResult<Option<i64>> {
            let rows = conn.query(
                "SELECT to_regclass(?1) IS NOT NULL",
                &[&format!("{}.acc_schema_version", quote_ident(&schema))],
            )?;
            let exists = matches!(
                rows.first().and_then(|r| r.first()),
                Some(rusqlite::types::Value::Integer(1))
            );
            if !exists {
                return Ok(None);
            }
            let rows = conn.query("SELECT version FROM acc_schema_version", &[])?;
            Ok(match rows.first().and_then(|r| r.first()) {
                Some(rusqlite::types::Value::Integer(v)) => Some(*v),
                _ => None,
            })
        };
        match probe() {
            Ok(Some(v)) => Ok(format!(
                "{target} answers; workspace {workspace} is at schema version {v} (schema {schema})"
            )),
            Ok(None) => Ok(format!(
                "{target} answers; workspace {workspace} has no room there yet (the first write creates schema {schema})"
            )),
            Err(e) => Err(format!(
                "{target} answers but cannot be read: {}; check the user's rights on the database",
                AccError::from(e).message
            )),
        }
    }

    /// Which engine holds this store, in one line (`acc doctor`).
    pub fn describe_engine(&self) -> String {
        match &*self.conn {
            engine::Connection::Sqlite(_) => format!("SQLite {}", self.path.display()),
            engine::Connection::Postgres(c) => format!("PostgreSQL {}", c.describe()),
        }
    }
}

/// The room this host used is gone from the server: it fails closed, as a store file that
/// vanished does, instead of being recreated empty (its claims forgotten).
fn room_gone(local: &Path, workspace: &WorkspaceId, target: &str) -> AccError {
    let stamp = copy_version_path(local);
    AccError::new(
        ErrorCode::StoreCorrupt,
        format!(
            "the shared room of workspace {workspace} is gone from {target}, though this host used it; acc will not recreate it: restore it on the server, or, if it was removed on purpose, delete {} to start over",
            stamp.display()
        ),
    )
    .with("file", stamp.display().to_string())
}

fn fallback_genesis() -> Genesis {
    Genesis {
        now_ms: 0,
        event_id: "event_unused".into(),
    }
}

fn name_target(e: AccError, target: &str) -> AccError {
    if e.details.contains_key("server") {
        return e;
    }
    e.with("server", target.to_string())
}

/// Creates or migrates the workspace's schema under a lock every host takes, and checks
/// whose it is, inside the caller's transaction. False when it does not exist and `mode`
/// may not create it; `None` when it does not exist though this host used it before.
fn prepare_schema(
    conn: &engine::Connection,
    schema: &str,
    workspace: &WorkspaceId,
    repository: Option<&str>,
    mode: OpenMode,
    genesis: impl FnOnce() -> Genesis,
    seen_before: bool,
) -> Result<Option<bool>> {
    conn.query_row(
        "SELECT 1 FROM pg_advisory_xact_lock(hashtext(?1))",
        params![format!("acc-schema:{schema}")],
        |_| Ok(()),
    )?;
    let exists: bool = conn.query_row(
        "SELECT to_regclass(?1) IS NOT NULL",
        params![format!("{}.acc_schema_version", quote_ident(schema))],
        |r| r.get(0),
    )?;
    if !exists {
        if seen_before {
            return Ok(None);
        }
        if mode == OpenMode::ReadOnly {
            return Ok(Some(false));
        }
        conn.execute_batch(&format!(
            "CREATE SCHEMA IF NOT EXISTS {}; CREATE TABLE acc_schema_version (version BIGINT NOT NULL); INSERT INTO acc_schema_version VALUES (0)",
            quote_ident(schema)
        ))?;
    }
    let version: i64 =
        conn.query_row("SELECT version FROM acc_schema_version", [], |r| r.get(0))?;
    let current = i64::from(super::schema::current_version());
    if version > current {
        return Err(AccError::new(
            ErrorCode::StoreSchemaNewer,
            format!(
                "the shared acc store (schema {schema}) has schema version {version}, newer than version {current} that this acc understands; upgrade acc"
            ),
        )
        .with("storeVersion", version)
        .with("supportedVersion", current));
    }
    if version > 0 {
        // Whose room this is, before anything is migrated or written.
        let found: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'workspace_id'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        if found.as_deref() != Some(workspace.as_str()) {
            let id = found.unwrap_or_default();
            return Err(AccError::new(
                ErrorCode::StoreForeign,
                format!("the shared acc store (schema {schema}) belongs to workspace {id}, not {workspace}"),
            )
            .with("workspaceId", id));
        }
        let recorded: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                params![REPOSITORY_KEY],
                |r| r.get(0),
            )
            .optional()?;
        if let (Some(recorded), Some(mine)) = (recorded.as_deref(), repository)
            && recorded != mine
        {
            return Err(AccError::new(
                ErrorCode::StoreForeign,
                format!(
                    "the shared acc store of workspace {workspace} is the room of repository {recorded}, and this checkout is of {mine}: a different repository is never the same room; give this one its own workspaceId"
                ),
            )
            .with("repository", recorded.to_string()));
        }
    }
    for m in super::schema::MIGRATIONS
        .iter()
        .filter(|m| i64::from(m.version) > version)
    {
        let sql = postgres_schema::translate_migration(m.sql);
        conn.execute_batch(&sql).map_err(|e| {
            let e = AccError::from(e);
            AccError::new(
                e.code,
                format!(
                    "cannot migrate the shared acc store (schema {schema}) from version {version}: migration {} failed: {}; it was left unchanged",
                    m.version, e.message
                ),
            )
        })?;
        conn.execute(
            "UPDATE acc_schema_version SET version = ?1",
            params![i64::from(m.version)],
        )?;
    }
    if version == 0 {
        let g = genesis();
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('workspace_id', ?1), ('created_at', ?2)",
            params![workspace.as_str(), g.now_ms.to_string()],
        )?;
        if let Some(repo) = repository {
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                params![REPOSITORY_KEY, repo],
            )?;
        }
        let payload = serde_json::json!({ "workspaceId": workspace.as_str() }).to_string();
        conn.execute(
            "INSERT INTO events (event_id, actor_session_id, type, occurred_at, payload)
             VALUES (?1, NULL, 'workspace.materialised', ?2, ?3)",
            params![g.event_id, g.now_ms, payload],
        )?;
    }
    Ok(Some(true))
}
