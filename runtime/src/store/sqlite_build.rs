//! The SQLite acc is built with (issue 30, ninth round). rusqlite's `bundled` feature
//! compiles the amalgamation in `libsqlite3-sys`'s build script, which appends the options
//! in `LIBSQLITE3_FLAGS`; the workspace sets them in `.cargo/config.toml`, so every cargo
//! command run in the workspace builds the same SQLite (a change of them rebuilds it).
//!
//! - `SQLITE_DEFAULT_MEMSTATUS=0`: no global mutex and statistics around every allocation
//!   (7-9% of a store process's instructions: the schema's parse and the compiles allocate
//!   thousands of small objects). acc never reads SQLite's memory statistics.
//! - `SQLITE_DQS=0`: in acc's statements and migrations a double-quoted word is an
//!   identifier, never a string (they quote strings singly; a misspelt column is an error
//!   instead of a constant). A stored schema still loads as before: SQLite reads it the
//!   legacy way whatever this option says.
//! - `SQLITE_OMIT_SHARED_CACHE`, `SQLITE_USE_ALLOCA`: sqlite.org's recommended options;
//!   acc never asks for a shared cache.
//! - Without `SQLITE_ENABLE_STAT4` and `SQLITE_ENABLE_API_ARMOR` (rusqlite's defaults):
//!   acc never runs `ANALYZE`, so no plan reads the statistics, and a statistics table
//!   written into a store behind acc's back is not read either; rusqlite never hands
//!   SQLite the null or finalized handles the armor checks for.
//!
//! `SQLITE_THREADSAFE` stays 1 (rusqlite refuses a single-threaded SQLite); durability
//! (`synchronous`, the checkpoint, `fsync`) is the connection's, unchanged. The tests below
//! fail when a build does not see the options (a cargo command run outside the workspace,
//! which does not read its `.cargo/config.toml`).

#[cfg(test)]
mod tests {
    use super::super::testing::open;
    use rusqlite::Connection;

    fn compile_options() -> Vec<String> {
        let c = Connection::open_in_memory().unwrap();
        let mut s = c.prepare("PRAGMA compile_options").unwrap();
        s.query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(|o| o.unwrap())
            .collect()
    }

    #[test]
    fn sqlite_is_built_with_the_workspace_options() {
        let options = compile_options();
        for wanted in [
            "DEFAULT_MEMSTATUS=0",
            "DQS=0",
            "OMIT_SHARED_CACHE",
            "USE_ALLOCA",
            "THREADSAFE=1",
            "DEFAULT_FOREIGN_KEYS",
        ] {
            assert!(options.iter().any(|o| o == wanted), "{wanted}: {options:?}");
        }
        for unwanted in ["ENABLE_STAT4", "ENABLE_API_ARMOR"] {
            assert!(
                !options.iter().any(|o| o == unwanted),
                "{unwanted}: {options:?}"
            );
        }
    }

    #[test]
    fn a_double_quoted_word_is_never_a_string() {
        let c = Connection::open_in_memory().unwrap();
        let err = c
            .query_row(r#"SELECT "agent""#, [], |r| r.get::<_, String>(0))
            .unwrap_err();
        assert!(err.to_string().contains("no such column"), "{err}");
        let err = c
            .execute_batch(r#"CREATE TABLE t (kind TEXT CHECK (kind IN ("agent")));"#)
            .unwrap_err();
        assert!(err.to_string().contains("no such column"), "{err}");
    }

    /// A schema written with double-quoted strings (by another program, or an older SQLite's
    /// habit) loads as it did before: SQLite reads a stored schema the legacy way whatever
    /// `SQLITE_DQS` says, so no store that opened before the option fails to open now, and
    /// the partial index keeps the rows it kept.
    #[test]
    fn a_schema_written_with_double_quoted_strings_still_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.db");
        drop(open(&path));
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(
                r#"PRAGMA writable_schema = ON;
                   UPDATE sqlite_master
                   SET sql = replace(sql, '''none''', '"none"')
                   WHERE name = 'messages_owing';
                   PRAGMA writable_schema = OFF;"#,
            )
            .unwrap();
        }
        let forged = std::fs::read(&path).unwrap();
        let needle = br#"WHERE obligation <> "none""#;
        assert!(forged.windows(needle.len()).any(|w| w == needle));
        let mut store = open(&path);
        let owing: i64 = store
            .read(|c| {
                Ok(c.query_row(
                    "SELECT count(*) FROM messages INDEXED BY messages_owing
                     WHERE obligation <> 'none'",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        assert_eq!(owing, 0);
    }
}
