//! The store's engine boundary: the connection every query of the core runs on, whichever
//! engine holds the workspace (the embedded SQLite file, or a PostgreSQL server shared by
//! several hosts).
//!
//! The boundary keeps rusqlite's value vocabulary (`ToSql`, `FromSql`, `Error`, `params!`) as
//! its own: those are plain data types, and keeping them leaves every query of the core, and
//! its error handling, written once. SQL is written in the SQLite dialect the store always
//! used; the PostgreSQL engine translates the few spellings that differ ([`postgres`]). On
//! SQLite every call forwards to rusqlite unchanged, so that engine behaves byte for byte as
//! before the boundary existed.

pub mod config;
pub mod postgres;
pub mod postgres_schema;
pub mod tls;

use rusqlite::types::{FromSql, Value, ValueRef};

pub use rusqlite::{OptionalExtension, ToSql, params};

/// The result type of every call across the boundary.
pub type SqlResult<T> = rusqlite::Result<T>;

/// An open connection to a workspace's store.
pub enum Connection {
    Sqlite(rusqlite::Connection),
    /// Boxed: the embedded engine, the common one, stays small.
    Postgres(Box<postgres::PgConnection>),
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Connection::Sqlite(_) => f.write_str("Connection::Sqlite"),
            Connection::Postgres(p) => write!(f, "Connection::Postgres({})", p.describe()),
        }
    }
}

/// How a transaction takes the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxKind {
    /// One consistent snapshot, no lock on writers.
    Read,
    /// The store's single writer lock from the first statement on, so a check and the
    /// write it guards are one decision.
    Write,
}

impl Connection {
    /// Wraps an open SQLite connection (tests and the store's own open path).
    pub fn sqlite(conn: rusqlite::Connection) -> Connection {
        Connection::Sqlite(conn)
    }

    /// A private in-memory SQLite database (tests).
    #[cfg(test)]
    pub fn open_in_memory() -> SqlResult<Connection> {
        Ok(Connection::Sqlite(rusqlite::Connection::open_in_memory()?))
    }

    /// The SQLite connection underneath, for what only that engine has (pragmas, the file).
    pub fn as_sqlite(&self) -> Option<&rusqlite::Connection> {
        match self {
            Connection::Sqlite(c) => Some(c),
            Connection::Postgres(_) => None,
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, Connection::Postgres(_))
    }

    pub fn execute<P: Params>(&self, sql: &str, p: P) -> SqlResult<usize> {
        match self {
            Connection::Sqlite(c) => p.with(|v| c.execute(sql, v)),
            Connection::Postgres(c) => p.with(|v| c.execute(sql, v)),
        }
    }

    pub fn execute_batch(&self, sql: &str) -> SqlResult<()> {
        match self {
            Connection::Sqlite(c) => c.execute_batch(sql),
            Connection::Postgres(c) => c.execute_batch(sql),
        }
    }

    pub fn query_row<T, P, F>(&self, sql: &str, p: P, f: F) -> SqlResult<T>
    where
        P: Params,
        F: FnOnce(&Row<'_>) -> SqlResult<T>,
    {
        match self {
            Connection::Sqlite(c) => p.with(|v| c.query_row(sql, v, |r| f(&Row::Sqlite(r)))),
            Connection::Postgres(c) => {
                let rows = p.with(|v| c.query(sql, v))?;
                match rows.first() {
                    Some(r) => f(&Row::Values(r)),
                    None => Err(rusqlite::Error::QueryReturnedNoRows),
                }
            }
        }
    }

    pub fn prepare(&self, sql: &str) -> SqlResult<Statement<'_>> {
        match self {
            Connection::Sqlite(c) => Ok(Statement::SqlitePlain(c.prepare(sql)?)),
            Connection::Postgres(c) => Ok(Statement::Postgres {
                conn: c,
                sql: sql.to_string(),
            }),
        }
    }

    pub fn prepare_cached(&self, sql: &str) -> SqlResult<Statement<'_>> {
        match self {
            Connection::Sqlite(c) => Ok(Statement::SqliteCached(c.prepare_cached(sql)?)),
            Connection::Postgres(c) => Ok(Statement::Postgres {
                conn: c,
                sql: sql.to_string(),
            }),
        }
    }

    /// The key of the row the last insert created (an `AUTOINCREMENT`/`BIGSERIAL` key).
    pub fn last_insert_rowid(&self) -> i64 {
        match self {
            Connection::Sqlite(c) => c.last_insert_rowid(),
            Connection::Postgres(c) => c.last_insert_id(),
        }
    }

    /// Starts a transaction; it rolls back when dropped uncommitted.
    pub fn begin(&self, kind: TxKind) -> SqlResult<Tx<'_>> {
        match self {
            // The very statements rusqlite's `Transaction` issues, compiled once per
            // connection: a hook turn opens a dozen transactions.
            Connection::Sqlite(c) => {
                c.prepare_cached(match kind {
                    TxKind::Read => "BEGIN DEFERRED",
                    TxKind::Write => "BEGIN IMMEDIATE",
                })?
                .execute([])?;
            }
            Connection::Postgres(c) => c.begin(kind)?,
        }
        Ok(Tx {
            conn: self,
            done: false,
        })
    }

    fn in_transaction(&self) -> bool {
        match self {
            Connection::Sqlite(c) => !c.is_autocommit(),
            Connection::Postgres(c) => c.in_transaction(),
        }
    }
}

/// An open transaction: the connection, until [`Tx::commit`] or drop (rollback).
pub struct Tx<'c> {
    conn: &'c Connection,
    done: bool,
}

impl std::ops::Deref for Tx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Tx<'_> {
    pub fn commit(mut self) -> SqlResult<()> {
        self.done = true;
        match self.conn {
            Connection::Sqlite(c) => c.prepare_cached("COMMIT")?.execute([]).map(|_| ()),
            Connection::Postgres(c) => c.commit(),
        }
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.done || !self.conn.in_transaction() {
            return;
        }
        let _ = match self.conn {
            Connection::Sqlite(c) => c.execute_batch("ROLLBACK"),
            Connection::Postgres(c) => c.rollback(),
        };
    }
}

/// A prepared statement.
pub enum Statement<'c> {
    SqlitePlain(rusqlite::Statement<'c>),
    SqliteCached(rusqlite::CachedStatement<'c>),
    Postgres {
        conn: &'c postgres::PgConnection,
        sql: String,
    },
}

impl<'c> Statement<'c> {
    fn sqlite(&mut self) -> Option<&mut rusqlite::Statement<'c>> {
        match self {
            Statement::SqlitePlain(s) => Some(s),
            Statement::SqliteCached(s) => Some(s),
            Statement::Postgres { .. } => None,
        }
    }

    pub fn execute<P: Params>(&mut self, p: P) -> SqlResult<usize> {
        if let Statement::Postgres { conn, sql } = self {
            return p.with(|v| conn.execute(sql, v));
        }
        let s = self.sqlite().expect("a SQLite statement");
        p.with(|v| s.execute(v))
    }

    pub fn query<P: Params>(&mut self, p: P) -> SqlResult<Rows<'_>> {
        if let Statement::Postgres { conn, sql } = self {
            let rows = p.with(|v| conn.query(sql, v))?;
            return Ok(Rows::Values {
                rows: rows.into_iter(),
                current: None,
            });
        }
        let s = self.sqlite().expect("a SQLite statement");
        Ok(Rows::Sqlite(p.with(|v| s.query(v))?))
    }

    pub fn query_map<T, P, F>(&mut self, p: P, f: F) -> SqlResult<MappedRows<'_, F>>
    where
        P: Params,
        F: FnMut(&Row<'_>) -> SqlResult<T>,
    {
        Ok(MappedRows {
            rows: self.query(p)?,
            f,
        })
    }

    pub fn query_row<T, P, F>(&mut self, p: P, f: F) -> SqlResult<T>
    where
        P: Params,
        F: FnOnce(&Row<'_>) -> SqlResult<T>,
    {
        let mut rows = self.query(p)?;
        match rows.next()? {
            Some(r) => f(&r),
            None => Err(rusqlite::Error::QueryReturnedNoRows),
        }
    }
}

/// The rows of a query, one at a time.
pub enum Rows<'s> {
    Sqlite(rusqlite::Rows<'s>),
    Values {
        rows: std::vec::IntoIter<Vec<Value>>,
        current: Option<Vec<Value>>,
    },
}

impl Rows<'_> {
    #[allow(clippy::should_implement_trait)] // a lending iterator, like rusqlite's
    pub fn next(&mut self) -> SqlResult<Option<Row<'_>>> {
        match self {
            Rows::Sqlite(r) => Ok(r.next()?.map(Row::Sqlite)),
            Rows::Values { rows, current } => {
                *current = rows.next();
                Ok(current.as_deref().map(Row::Values))
            }
        }
    }
}

/// The rows of a query, each mapped by `f`.
pub struct MappedRows<'s, F> {
    rows: Rows<'s>,
    f: F,
}

impl<T, F> Iterator for MappedRows<'_, F>
where
    F: FnMut(&Row<'_>) -> SqlResult<T>,
{
    type Item = SqlResult<T>;
    fn next(&mut self) -> Option<SqlResult<T>> {
        match self.rows.next() {
            Ok(Some(r)) => Some((self.f)(&r)),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// One row of a result.
#[derive(Clone, Copy)]
pub enum Row<'a> {
    Sqlite(&'a rusqlite::Row<'a>),
    Values(&'a [Value]),
}

impl Row<'_> {
    pub fn get<I: ColumnIndex, T: FromSql>(&self, idx: I) -> SqlResult<T> {
        let i = idx.index();
        match self {
            Row::Sqlite(r) => r.get(i),
            Row::Values(v) => {
                let value = v.get(i).ok_or(rusqlite::Error::InvalidColumnIndex(i))?;
                T::column_result(ValueRef::from(value)).map_err(|e| match e {
                    rusqlite::types::FromSqlError::InvalidType => {
                        rusqlite::Error::InvalidColumnType(
                            i,
                            i.to_string(),
                            ValueRef::from(value).data_type(),
                        )
                    }
                    other => rusqlite::Error::FromSqlConversionFailure(
                        i,
                        ValueRef::from(value).data_type(),
                        Box::new(other),
                    ),
                })
            }
        }
    }

    pub fn get_ref(&self, idx: usize) -> SqlResult<ValueRef<'_>> {
        match self {
            Row::Sqlite(r) => r.get_ref(idx),
            Row::Values(v) => v
                .get(idx)
                .map(ValueRef::from)
                .ok_or(rusqlite::Error::InvalidColumnIndex(idx)),
        }
    }
}

/// A column position.
pub trait ColumnIndex {
    fn index(self) -> usize;
}

impl ColumnIndex for usize {
    fn index(self) -> usize {
        self
    }
}

/// A statement's parameters: every form the core passes (`params![..]`, `[]`, `[x]`,
/// `(a, b)`), handed to the engine as one slice.
pub trait Params {
    fn with<R>(self, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R;
}

impl Params for &[&dyn ToSql] {
    fn with<R>(self, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R {
        f(self)
    }
}

impl Params for [&(dyn ToSql + Send + Sync); 0] {
    fn with<R>(self, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R {
        f(&[])
    }
}

macro_rules! array_params {
    ($($n:literal)*) => {$(
        impl<T: ToSql> Params for [T; $n] {
            fn with<R>(self, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R {
                let refs: [&dyn ToSql; $n] = self.each_ref().map(|x| x as &dyn ToSql);
                f(&refs)
            }
        }
        impl<T: ToSql> Params for &[&T; $n] {
            fn with<R>(self, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R {
                let refs: [&dyn ToSql; $n] = self.each_ref().map(|x| *x as &dyn ToSql);
                f(&refs)
            }
        }
    )*};
}
array_params!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);

macro_rules! tuple_params {
    ($(($($t:ident $i:tt),+))*) => {$(
        impl<$($t: ToSql),+> Params for ($($t,)+) {
            fn with<R>(self, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R {
                f(&[$(&self.$i as &dyn ToSql),+])
            }
        }
    )*};
}
tuple_params!((A 0) (A 0, B 1) (A 0, B 1, C 2) (A 0, B 1, C 2, D 3));

/// A parameter's value, whatever form it was given in.
pub(crate) fn to_value(p: &dyn ToSql) -> SqlResult<Value> {
    use rusqlite::types::ToSqlOutput;
    Ok(match p.to_sql()? {
        ToSqlOutput::Borrowed(v) => v.into(),
        ToSqlOutput::Owned(v) => v,
        _ => Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let c = Connection::sqlite(rusqlite::Connection::open_in_memory().unwrap());
        c.execute_batch("CREATE TABLE t (a INTEGER, b TEXT)")
            .unwrap();
        c
    }

    #[test]
    fn every_parameter_form_binds_on_sqlite() {
        let c = db();
        c.execute("INSERT INTO t VALUES (?1, ?2)", params![1, "x"])
            .unwrap();
        c.execute("INSERT INTO t VALUES (?1, ?2)", (2, "y"))
            .unwrap();
        c.execute("INSERT INTO t VALUES (?1, 'z')", [3]).unwrap();
        let n: i64 = c
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 3);
        let mut s = c
            .prepare_cached("SELECT b FROM t WHERE a > ?1 ORDER BY a")
            .unwrap();
        let got: Vec<String> = s
            .query_map([1], |r| r.get(0))
            .unwrap()
            .collect::<SqlResult<_>>()
            .unwrap();
        assert_eq!(got, ["y", "z"]);
    }

    #[test]
    fn a_dropped_transaction_rolls_back_and_a_committed_one_stays() {
        let c = db();
        {
            let tx = c.begin(TxKind::Write).unwrap();
            tx.execute("INSERT INTO t VALUES (1, 'gone')", []).unwrap();
        }
        let tx = c.begin(TxKind::Write).unwrap();
        tx.execute("INSERT INTO t VALUES (2, 'kept')", []).unwrap();
        tx.commit().unwrap();
        let got: Vec<String> = c
            .prepare("SELECT b FROM t")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<SqlResult<_>>()
            .unwrap();
        assert_eq!(got, ["kept"]);
    }

    #[test]
    fn owned_rows_read_like_sqlite_rows() {
        let values = [Value::Integer(7), Value::Text("s".into()), Value::Null];
        let r = Row::Values(&values);
        assert_eq!(r.get::<_, i64>(0).unwrap(), 7);
        assert!(r.get::<_, bool>(0).unwrap());
        assert_eq!(r.get::<_, String>(1).unwrap(), "s");
        assert_eq!(r.get::<_, Option<String>>(2).unwrap(), None);
        assert!(matches!(
            r.get::<_, i64>(1),
            Err(rusqlite::Error::InvalidColumnType(1, _, _))
        ));
        assert!(matches!(
            r.get::<_, i64>(9),
            Err(rusqlite::Error::InvalidColumnIndex(9))
        ));
    }
}
