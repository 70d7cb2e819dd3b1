//! The PostgreSQL engine: one workspace is one schema of a database several hosts share.
//!
//! Writers are serialised per workspace the way SQLite's `BEGIN IMMEDIATE` serialises them:
//! a write transaction is `SERIALIZABLE` and takes `meta` in `SHARE ROW EXCLUSIVE` mode
//! before its first query (so its snapshot is taken after the lock is granted), which no
//! other writer of the workspace can hold at the same time while readers go on. A claim's
//! conflict check and its grant are therefore one decision across every host, and a
//! serialization failure the server still reports is answered as `store_busy` (retry).
//!
//! Queries are the store's SQLite dialect, translated once per statement ([`translate`]):
//! `?N` placeholders become `$N`, and the few SQLite-only spellings the store uses get their
//! PostgreSQL form.

use super::{SqlResult, TxKind, to_value};
use postgres::types::{IsNull, ToSql as PgToSql, Type};
use rusqlite::types::Value;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::time::Duration;

/// How long a connection attempt waits for the server before the store is unreachable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// The server could not be reached, or the connection broke: distinct from a failing
/// statement, so the caller can say the server is away instead of blaming the query.
#[derive(Debug)]
pub struct Unreachable(pub String);

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unreachable {}

/// The server side of one workspace's store.
pub struct PgConnection {
    client: RefCell<postgres::Client>,
    statements: RefCell<HashMap<String, postgres::Statement>>,
    in_tx: Cell<bool>,
    /// `host:port/database` (never the password), named in errors.
    target: String,
    schema: String,
}

/// The schema a workspace's tables live in.
pub fn schema_name(workspace: &str) -> String {
    format!("acc_{workspace}")
}

/// `"ident"`, with embedded quotes doubled.
pub fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Where a URL points, without its credentials.
pub fn describe_url(url: &str) -> String {
    match super::tls::parse(url).map(|u| u.config) {
        Ok(c) => {
            let host = c
                .get_hosts()
                .first()
                .map(|h| match h {
                    postgres::config::Host::Tcp(h) => h.clone(),
                    postgres::config::Host::Unix(p) => p.display().to_string(),
                })
                .unwrap_or_else(|| "localhost".into());
            let port = c.get_ports().first().copied().unwrap_or(5432);
            let db = c.get_dbname().or(c.get_user()).unwrap_or("postgres");
            format!("postgres://{host}:{port}/{db}")
        }
        Err(_) => "postgres://(unparsable url)".into(),
    }
}

impl PgConnection {
    /// Connects and points the session at `schema` (created by the caller's migration).
    pub fn connect(url: &str, schema: &str, lock_timeout: Duration) -> SqlResult<PgConnection> {
        let target = describe_url(url);
        let parsed = super::tls::parse(url).map_err(|e| {
            unreachable_error(format!("the store url for {target} is not valid: {e}"))
        })?;
        let mut config = parsed.config.clone();
        config.connect_timeout(CONNECT_TIMEOUT);
        config.application_name("acc");
        config.keepalives(true);
        let tls = super::tls::connector(&parsed)
            .map_err(|e| unreachable_error(format!("cannot reach {target}: {e}")))?;
        let connected = match tls {
            None => config.connect(postgres::NoTls),
            Some(tls) => config.connect(tls),
        };
        let client = connected.map_err(|e| {
            let why = cause(&e);
            unreachable_error(match super::tls::certificate_fault(&why, &parsed) {
                Some(fault) => format!("cannot reach {target} over TLS: {fault}"),
                None => format!("cannot reach {target}: {why}"),
            })
        })?;
        let conn = PgConnection {
            client: RefCell::new(client),
            statements: RefCell::new(HashMap::new()),
            in_tx: Cell::new(false),
            target,
            schema: schema.to_string(),
        };
        conn.execute_batch(&format!(
            "SET search_path TO {}; SET lock_timeout = {}",
            quote_ident(schema),
            lock_timeout.as_millis().min(i32::MAX as u128)
        ))?;
        Ok(conn)
    }

    pub fn describe(&self) -> String {
        format!("{} (schema {})", self.target, self.schema)
    }

    pub fn schema(&self) -> &str {
        &self.schema
    }

    pub fn set_lock_timeout(&self, timeout: Duration) -> SqlResult<()> {
        self.execute_batch(&format!(
            "SET lock_timeout = {}",
            timeout.as_millis().min(i32::MAX as u128)
        ))
    }

    /// Subscribes this connection to `channel` (a room's guard changes, [`notify`]).
    pub fn listen(&self, channel: &str) -> SqlResult<()> {
        self.execute_batch(&format!("LISTEN {}", quote_ident(channel)))
    }

    /// Waits up to `timeout` for a notification on a channel this connection listens to,
    /// and takes every one already delivered with it: true when any came. A broken
    /// connection is [`Unreachable`].
    pub fn wait_notification(&self, timeout: Duration) -> SqlResult<bool> {
        use postgres::fallible_iterator::FallibleIterator;
        let mut client = self.client.borrow_mut();
        let mut notifications = client.notifications();
        let lost = |e: postgres::Error| {
            unreachable_error(format!(
                "lost the connection to {}: {}",
                self.target,
                cause(&e)
            ))
        };
        let came = notifications.timeout_iter(timeout).next().map_err(lost)?;
        if came.is_some() {
            while notifications.iter().next().map_err(lost)?.is_some() {}
        }
        Ok(came.is_some())
    }

    /// True once the server closed the connection (or it broke).
    pub fn is_closed(&self) -> bool {
        self.client.borrow().is_closed()
    }

    fn statement(&self, sql: &str, values: &[PgValue]) -> SqlResult<postgres::Statement> {
        if let Some(s) = self.statements.borrow().get(sql) {
            return Ok(s.clone());
        }
        let translated = translate(sql);
        // A failed prepare would abort the transaction it is in: a placeholder only tested
        // for null is typed by its value from the start.
        if untyped_null_test(&translated) {
            return self.typed_statement(sql, &translated, values);
        }
        let prepared = self.client.borrow_mut().prepare(&translated);
        let stmt = match prepared {
            Ok(stmt) => stmt,
            // SQLite takes `?1 IS NULL OR x = ?1` untyped; PostgreSQL must be told.
            Err(e)
                if e.code() == Some(&postgres::error::SqlState::INDETERMINATE_DATATYPE)
                    || e.code() == Some(&postgres::error::SqlState::AMBIGUOUS_PARAMETER) =>
            {
                return self.typed_statement(sql, &translated, values);
            }
            Err(e) => return Err(self.error(e, &translated)),
        };
        self.statements
            .borrow_mut()
            .insert(sql.to_string(), stmt.clone());
        Ok(stmt)
    }

    /// A statement whose parameters are typed by the values bound to them (text for a
    /// null), cached per type signature.
    fn typed_statement(
        &self,
        sql: &str,
        translated: &str,
        values: &[PgValue],
    ) -> SqlResult<postgres::Statement> {
        let types: Vec<Type> = values
            .iter()
            .map(|v| match v.0 {
                Value::Integer(_) => Type::INT8,
                Value::Real(_) => Type::FLOAT8,
                Value::Blob(_) => Type::BYTEA,
                Value::Text(_) | Value::Null => Type::TEXT,
            })
            .collect();
        let key = format!("{sql}\0{types:?}");
        if let Some(s) = self.statements.borrow().get(&key) {
            return Ok(s.clone());
        }
        let stmt = self
            .client
            .borrow_mut()
            .prepare_typed(translated, &types)
            .map_err(|e| self.error(e, translated))?;
        self.statements.borrow_mut().insert(key, stmt.clone());
        Ok(stmt)
    }

    fn bind(params: &[&dyn rusqlite::ToSql]) -> SqlResult<Vec<PgValue>> {
        params.iter().map(|p| to_value(*p).map(PgValue)).collect()
    }

    pub fn execute(&self, sql: &str, params: &[&dyn rusqlite::ToSql]) -> SqlResult<usize> {
        let values = Self::bind(params)?;
        let stmt = self.statement(sql, &values)?;
        let refs: Vec<&(dyn PgToSql + Sync)> =
            values.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
        let n = self
            .client
            .borrow_mut()
            .execute(&stmt, &refs)
            .map_err(|e| self.error(e, sql))?;
        Ok(n as usize)
    }

    pub fn query(&self, sql: &str, params: &[&dyn rusqlite::ToSql]) -> SqlResult<Vec<Vec<Value>>> {
        let values = Self::bind(params)?;
        let stmt = self.statement(sql, &values)?;
        let refs: Vec<&(dyn PgToSql + Sync)> =
            values.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
        let rows = self
            .client
            .borrow_mut()
            .query(&stmt, &refs)
            .map_err(|e| self.error(e, sql))?;
        rows.iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| column_value(r, i).map_err(|e| self.error(e, sql)))
                    .collect()
            })
            .collect()
    }

    pub fn execute_batch(&self, sql: &str) -> SqlResult<()> {
        self.client
            .borrow_mut()
            .batch_execute(&translate(sql))
            .map_err(|e| self.error(e, sql))
    }

    pub fn last_insert_id(&self) -> i64 {
        self.query("SELECT lastval()", &[])
            .ok()
            .and_then(|rows| rows.into_iter().next())
            .and_then(|r| match r.first() {
                Some(Value::Integer(i)) => Some(*i),
                _ => None,
            })
            .unwrap_or(0)
    }

    pub fn begin(&self, kind: TxKind) -> SqlResult<()> {
        self.execute_batch(match kind {
            TxKind::Read => "BEGIN ISOLATION LEVEL REPEATABLE READ",
            // The lock before any query: the snapshot is taken after it is granted.
            TxKind::Write => {
                "BEGIN ISOLATION LEVEL SERIALIZABLE; LOCK TABLE meta IN SHARE ROW EXCLUSIVE MODE"
            }
        })?;
        self.in_tx.set(true);
        Ok(())
    }

    pub fn commit(&self) -> SqlResult<()> {
        self.in_tx.set(false);
        self.execute_batch("COMMIT")
    }

    pub fn rollback(&self) -> SqlResult<()> {
        self.in_tx.set(false);
        self.execute_batch("ROLLBACK")
    }

    pub fn in_transaction(&self) -> bool {
        self.in_tx.get() && !self.is_closed()
    }

    fn error(&self, e: postgres::Error, sql: &str) -> rusqlite::Error {
        sql_error(&e, &self.target, sql)
    }
}

/// Tells every host listening to `channel` that the guard's state of the room changed, at
/// the commit of the transaction it is sent in (never, if it rolls back).
pub fn notify(conn: &super::Connection, channel: &str, version: i64) -> SqlResult<()> {
    conn.execute(
        "SELECT pg_notify(?1, ?2)",
        rusqlite::params![channel, version.to_string()],
    )
    .map(|_| ())
}

fn cause(e: &postgres::Error) -> String {
    use std::error::Error;
    match e.source() {
        Some(s) => format!("{e}: {s}"),
        None => e.to_string(),
    }
}

fn unreachable_error(msg: String) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(Unreachable(msg)))
}

/// A server's error in the boundary's terms: contention is busy (retry), a broken
/// connection is [`Unreachable`], and the rest keeps the server's words.
fn sql_error(e: &postgres::Error, target: &str, sql: &str) -> rusqlite::Error {
    use postgres::error::SqlState;
    use rusqlite::ffi;
    let Some(code) = e.code() else {
        return unreachable_error(format!("lost the connection to {target}: {}", cause(e)));
    };
    let sqlite_code = if *code == SqlState::T_R_SERIALIZATION_FAILURE
        || *code == SqlState::T_R_DEADLOCK_DETECTED
        || *code == SqlState::LOCK_NOT_AVAILABLE
    {
        ffi::SQLITE_BUSY
    } else if code.code().starts_with("08") || code.code().starts_with("57P") {
        return unreachable_error(format!("lost the connection to {target}: {}", cause(e)));
    } else if code.code().starts_with("23") {
        ffi::SQLITE_CONSTRAINT
    } else {
        ffi::SQLITE_ERROR
    };
    let msg = match e.as_db_error() {
        Some(db) => format!(
            "{} (in: {})",
            db.message(),
            sql.split_whitespace().collect::<Vec<_>>().join(" ")
        ),
        None => e.to_string(),
    };
    rusqlite::Error::SqliteFailure(ffi::Error::new(sqlite_code), Some(msg))
}

fn column_value(row: &postgres::Row, i: usize) -> Result<Value, postgres::Error> {
    let ty = row.columns()[i].type_().clone();
    Ok(match ty {
        Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map(Value::Integer),
        Type::INT4 => row
            .try_get::<_, Option<i32>>(i)?
            .map(|v| Value::Integer(v.into())),
        Type::INT2 => row
            .try_get::<_, Option<i16>>(i)?
            .map(|v| Value::Integer(v.into())),
        Type::OID => row
            .try_get::<_, Option<u32>>(i)?
            .map(|v| Value::Integer(v.into())),
        // SQLite has no booleans: a comparison reads back as 0 or 1.
        Type::BOOL => row
            .try_get::<_, Option<bool>>(i)?
            .map(|v| Value::Integer(v.into())),
        Type::FLOAT8 => row.try_get::<_, Option<f64>>(i)?.map(Value::Real),
        Type::FLOAT4 => row
            .try_get::<_, Option<f32>>(i)?
            .map(|v| Value::Real(v.into())),
        Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(i)?.map(Value::Blob),
        _ => row.try_get::<_, Option<String>>(i)?.map(Value::Text),
    }
    .unwrap_or(Value::Null))
}

/// A parameter bound to whatever type the server inferred for its placeholder.
#[derive(Debug)]
struct PgValue(Value);

impl PgToSql for PgValue {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match &self.0 {
            Value::Null => Ok(IsNull::Yes),
            Value::Integer(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::BOOL => (*i != 0).to_sql(ty, out),
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                Type::FLOAT4 => (*i as f32).to_sql(ty, out),
                _ => i.to_string().to_sql(ty, out),
            },
            Value::Real(f) => match *ty {
                Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                Type::FLOAT8 => f.to_sql(ty, out),
                _ => f.to_string().to_sql(ty, out),
            },
            Value::Text(s) => match *ty {
                Type::INT8 => s.parse::<i64>()?.to_sql(ty, out),
                Type::INT4 => s.parse::<i32>()?.to_sql(ty, out),
                Type::BYTEA => s.as_bytes().to_sql(ty, out),
                _ => s.as_str().to_sql(ty, out),
            },
            Value::Blob(b) => match *ty {
                Type::BYTEA => b.as_slice().to_sql(ty, out),
                _ => String::from_utf8_lossy(b).as_ref().to_sql(ty, out),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// The store's SQLite dialect in PostgreSQL's: placeholders, and the SQLite-only spellings
/// the store's queries use.
pub fn translate(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut chars = sql.chars().peekable();
    let mut in_quote = false;
    let mut next_anonymous = 0u32;
    while let Some(c) = chars.next() {
        if c == '\'' {
            in_quote = !in_quote;
            out.push(c);
        } else if c == '?' && !in_quote {
            let mut digits = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            if digits.is_empty() {
                next_anonymous += 1;
                digits = next_anonymous.to_string();
            }
            out.push('$');
            out.push_str(&digits);
        } else {
            out.push(c);
        }
    }
    let mut out = json_each(&json_extract(&without_index_hints(&out)))
        .replace(" AS INTEGER)", " AS BIGINT)")
        .replace("IFNULL(", "COALESCE(");
    if let Some(at) = out.find("INSERT OR IGNORE INTO") {
        out.replace_range(at..at + "INSERT OR IGNORE INTO".len(), "INSERT INTO");
        let trimmed = out.trim_end().trim_end_matches(';').to_string();
        out = format!("{trimmed} ON CONFLICT DO NOTHING");
    }
    out
}

/// SQLite's planner hints (`CROSS JOIN` fixes the join order, `INDEXED BY` the index)
/// dropped: PostgreSQL plans on its own, and its `CROSS JOIN` takes no `ON`.
fn without_index_hints(sql: &str) -> String {
    let mut out = sql.replace("CROSS JOIN", "JOIN");
    while let Some(at) = out.find(" INDEXED BY ") {
        let name_at = at + " INDEXED BY ".len();
        let end = out[name_at..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(out.len(), |e| name_at + e);
        out.replace_range(at..end, "");
    }
    out
}

/// Whether a placeholder appears as `$N IS NULL`, where PostgreSQL cannot infer its type.
fn untyped_null_test(sql: &str) -> bool {
    sql.match_indices(" IS NULL").any(|(at, _)| {
        let before = sql[..at].trim_end_matches(|c: char| c.is_ascii_digit());
        before.ends_with('$') && before.len() < at
    })
}

/// `json_each(x)` over a JSON array as `json_array_elements_text((x)::json)`: its rows'
/// `value`, as text.
fn json_each(sql: &str) -> String {
    const CALL: &str = "json_each(";
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(at) = rest.find(CALL) {
        out.push_str(&rest[..at]);
        let args = &rest[at + CALL.len()..];
        let Some(end) = args.find(')') else {
            out.push_str(&rest[at..]);
            return out;
        };
        out.push_str(&format!(
            "json_array_elements_text(({})::json)",
            args[..end].trim()
        ));
        rest = &args[end + 1..];
    }
    out.push_str(rest);
    out
}

/// `json_extract(x, '$.a.b')` as `((x)::jsonb #>> '{a,b}')`: text, as SQLite's is for a
/// string (a number is compared after a cast, which both spell the same).
fn json_extract(sql: &str) -> String {
    const CALL: &str = "json_extract(";
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(at) = rest.find(CALL) {
        out.push_str(&rest[..at]);
        let args = &rest[at + CALL.len()..];
        let mut depth = 0i32;
        let mut end = None;
        let mut comma = None;
        for (i, c) in args.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = Some(i);
                    break;
                }
                ')' => depth -= 1,
                ',' if depth == 0 => comma = Some(i),
                _ => {}
            }
        }
        let (Some(end), Some(comma)) = (end, comma) else {
            out.push_str(&rest[at..]);
            return out;
        };
        let doc = args[..comma].trim();
        let path = args[comma + 1..end].trim().trim_matches('\'');
        let keys: Vec<&str> = path.trim_start_matches("$.").split('.').collect();
        out.push_str(&format!("(({doc})::jsonb #>> '{{{}}}')", keys.join(",")));
        rest = &args[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_sqlite_spellings_are_translated() {
        assert_eq!(
            translate("SELECT a FROM t WHERE b = ?1 AND c = '?2' AND d = ?12"),
            "SELECT a FROM t WHERE b = $1 AND c = '?2' AND d = $12"
        );
        assert_eq!(translate("VALUES (?, ?)"), "VALUES ($1, $2)");
        assert_eq!(
            translate(
                "SELECT CAST(json_extract(s.extensions, '$.client.hostPid') AS INTEGER) FROM s"
            ),
            "SELECT CAST(((s.extensions)::jsonb #>> '{client,hostPid}') AS BIGINT) FROM s"
        );
        assert_eq!(
            translate("SELECT value FROM json_each(?2)"),
            "SELECT value FROM json_array_elements_text(($2)::json)"
        );
        assert_eq!(
            translate("INSERT OR IGNORE INTO t (a) VALUES (?1);"),
            "INSERT INTO t (a) VALUES ($1) ON CONFLICT DO NOTHING"
        );
    }

    #[test]
    fn sqlite_planner_hints_are_dropped() {
        assert_eq!(
            translate(
                "FROM messages m CROSS JOIN receipts r INDEXED BY receipts_by_message\n ON r.x = m.y"
            ),
            "FROM messages m JOIN receipts r\n ON r.x = m.y"
        );
    }

    #[test]
    fn a_placeholder_tested_only_for_null_is_found() {
        assert!(untyped_null_test("WHERE ($2 IS NULL OR x = $2)"));
        assert!(!untyped_null_test("WHERE x IS NULL AND y = $1"));
    }

    #[test]
    fn a_url_is_described_without_its_password() {
        let d = describe_url("postgres://acc:secret@db.example:6543/rooms");
        assert_eq!(d, "postgres://db.example:6543/rooms");
        assert!(!d.contains("secret"));
    }
}
