//! The store's schema on PostgreSQL: the very migrations of [`crate::store::schema`] (the one
//! source, in SQLite's dialect), each translated when it is applied. The versions are
//! therefore the same on both engines by construction, and a migration appended there is
//! applied here too; the version lives in `acc_schema_version` (SQLite's `PRAGMA
//! user_version`).
//!
//! What the translation changes, and only that:
//! - `INTEGER` (SQLite's 64-bit integer) is `BIGINT`; `INTEGER PRIMARY KEY AUTOINCREMENT`
//!   is `BIGSERIAL PRIMARY KEY`; `WITHOUT ROWID` is dropped (PostgreSQL has no rowid).
//! - The tables whose queries order by SQLite's implicit `rowid` ([`ORDERED_BY_ROWID`]) get
//!   a `rowid BIGSERIAL` column first.
//! - A trigger's body becomes a trigger function (`acc_trigger_<digest of the body>`, its
//!   search path pinned to the workspace's schema it is created in), and the trigger runs
//!   it for each row.
//! - `DROP TRIGGER <name>;` names the trigger's table, as PostgreSQL requires (the table the
//!   migration that created it named).
//!
//! A migration using SQLite syntax beyond this fails at its first application on a server,
//! in the tests that start one (`tests/shared_store.rs`), never silently.

use sha2::{Digest, Sha256};

/// The tables whose rows the store's queries order by `rowid`.
pub const ORDERED_BY_ROWID: &[&str] = &["sessions", "intents", "claims"];

/// `sql`, one migration of [`crate::store::schema::MIGRATIONS`], in PostgreSQL's dialect.
pub fn translate_migration(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 256);
    let mut rest = sql;
    while let Some(at) = rest.find("CREATE TRIGGER") {
        out.push_str(&translate_ddl(&rest[..at]));
        let trigger = &rest[at..];
        let Some(end) = trigger.find("END;") else {
            // Not a trigger this translation knows: left for the server to refuse.
            out.push_str(trigger);
            return out;
        };
        out.push_str(&translate_trigger(&trigger[..end]));
        rest = &trigger[end + "END;".len()..];
    }
    out.push_str(&translate_ddl(rest));
    out
}

/// Tables, indexes and plain statements: the type names and SQLite's table options.
fn translate_ddl(sql: &str) -> String {
    let mut out = sql
        .replace("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGSERIAL PRIMARY KEY")
        .replace(") WITHOUT ROWID;", ");");
    out = replace_word(&out, "INTEGER", "BIGINT");
    out = drop_trigger_on_table(&out);
    for table in ORDERED_BY_ROWID {
        out = out.replace(
            &format!("CREATE TABLE {table} (\n"),
            &format!("CREATE TABLE {table} (\n    rowid BIGSERIAL,\n"),
        );
    }
    out
}

/// `CREATE TRIGGER <name> <when> ON <table> BEGIN <body>` (its `END;` cut off) as a
/// trigger function and a trigger that runs it for each row.
fn translate_trigger(trigger: &str) -> String {
    // `BEGIN` opens the body wherever the migration breaks its line before it.
    let opening = trigger
        .match_indices("BEGIN")
        .map(|(at, _)| at)
        .find(|&at| trigger[..at].ends_with(char::is_whitespace));
    let Some((head, body)) = opening.map(|at| (&trigger[..at], &trigger[at + "BEGIN".len()..]))
    else {
        return format!("{trigger}END;");
    };
    let body = translate_ddl(body.trim());
    let digest = Sha256::digest(body.as_bytes());
    let name: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!(
        "CREATE OR REPLACE FUNCTION acc_trigger_{name}() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    {body}
    RETURN NULL;
END
$$;
{} FOR EACH ROW EXECUTE FUNCTION acc_trigger_{name}();",
        head.trim_end()
    )
}

/// Each line `DROP TRIGGER <name>;` as `DROP TRIGGER <name> ON <table>;`, the table being the
/// one the trigger was created on in [`crate::store::schema::MIGRATIONS`]. A trigger no
/// migration created is left as it is, for the server to refuse.
fn drop_trigger_on_table(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    for line in sql.split_inclusive('\n') {
        let name = line
            .trim_end()
            .strip_prefix("DROP TRIGGER ")
            .and_then(|l| l.strip_suffix(';'));
        match name.and_then(|n| created_on(n).map(|t| (n, t))) {
            Some((name, table)) => {
                out.push_str(&format!("DROP TRIGGER {name} ON {table};"));
                out.push_str(&line[line.trim_end().len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// The table of the trigger `name`, as the migration that created it says.
fn created_on(name: &str) -> Option<&'static str> {
    let head = format!("CREATE TRIGGER {name}");
    crate::store::schema::MIGRATIONS.iter().find_map(|m| {
        let (at, _) = m
            .sql
            .match_indices(&head)
            .find(|(at, _)| m.sql[at + head.len()..].starts_with(char::is_whitespace))?;
        let trigger = &m.sql[at..];
        let before_body = &trigger[..trigger.find("BEGIN")?];
        let on = before_body.rfind(" ON ")?;
        before_body[on + " ON ".len()..].split_whitespace().next()
    })
}

/// `from` replaced by `to` where it stands as a whole word.
fn replace_word(sql: &str, from: &str, to: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        out.push_str(if word(before) || word(after) {
            from
        } else {
            to
        });
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_table_options_are_translated() {
        let sql = "CREATE TABLE claims (\n    a INTEGER NOT NULL,\n    b_INTEGER TEXT\n) WITHOUT ROWID;\nCREATE TABLE m (\n    seq INTEGER PRIMARY KEY AUTOINCREMENT\n);";
        assert_eq!(
            translate_migration(sql),
            "CREATE TABLE claims (\n    rowid BIGSERIAL,\n    a BIGINT NOT NULL,\n    b_INTEGER TEXT\n);\nCREATE TABLE m (\n    seq BIGSERIAL PRIMARY KEY\n);"
        );
    }

    #[test]
    fn a_trigger_whose_body_opens_on_its_own_line_is_translated() {
        let sql = "CREATE TRIGGER t3 AFTER UPDATE OF a ON sessions\nBEGIN\n    UPDATE meta SET value = '1' WHERE key = 'v';\nEND;\n";
        let pg = translate_migration(sql);
        assert!(pg.contains("EXECUTE FUNCTION acc_trigger_"), "{pg}");
        assert!(!pg.contains("END;"), "{pg}");
    }

    #[test]
    fn a_trigger_body_becomes_a_function_the_trigger_runs_for_each_row() {
        let sql = "CREATE TRIGGER t1 AFTER INSERT ON claims BEGIN\n    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'v';\nEND;\nCREATE TRIGGER t2\nAFTER UPDATE OF a, b ON sessions BEGIN\n    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'v';\nEND;\n";
        let pg = translate_migration(sql);
        assert!(!pg.contains("INTEGER"), "{pg}");
        assert!(!pg.contains(" BEGIN\n    UPDATE"), "{pg}");
        let functions: Vec<&str> = pg
            .lines()
            .filter(|l| l.starts_with("CREATE OR REPLACE FUNCTION"))
            .collect();
        assert_eq!(functions.len(), 2);
        assert_eq!(functions[0], functions[1], "one body, one function");
        let name = functions[0]
            .split_whitespace()
            .nth(4)
            .unwrap()
            .trim_end_matches("()");
        assert!(pg.contains(&format!(
            "CREATE TRIGGER t1 AFTER INSERT ON claims FOR EACH ROW EXECUTE FUNCTION {name}();"
        )));
        assert!(pg.contains(&format!(
            "CREATE TRIGGER t2\nAFTER UPDATE OF a, b ON sessions FOR EACH ROW EXECUTE FUNCTION {name}();"
        )));
        assert!(pg.contains("CAST(value AS BIGINT) + 1 WHERE key = 'v';\n    RETURN NULL;"));
    }

    #[test]
    fn a_dropped_trigger_names_the_table_it_was_created_on() {
        let pg = translate_migration(
            "DROP TRIGGER claim_rows_on_session_delete;\nDROP TRIGGER guard_version_on_session_update;\nDROP TRIGGER claims_version_on_update;\nDROP TRIGGER nobody_made_me;\n",
        );
        assert_eq!(
            pg,
            "DROP TRIGGER claim_rows_on_session_delete ON sessions;\nDROP TRIGGER guard_version_on_session_update ON sessions;\nDROP TRIGGER claims_version_on_update ON claims;\nDROP TRIGGER nobody_made_me;\n"
        );
    }

    #[test]
    fn every_migration_of_the_one_source_translates() {
        for m in crate::store::schema::MIGRATIONS {
            let pg = translate_migration(m.sql);
            for sqlite_only in ["AUTOINCREMENT", "WITHOUT ROWID", " INTEGER", "END;"] {
                assert!(
                    !pg.contains(sqlite_only),
                    "migration {}: {sqlite_only}",
                    m.version
                );
            }
        }
    }
}
