//! acc's entries in a user's TOML array of tables (`[[hooks]]`), found by a TOML parser and
//! edited at their exact bytes.
//!
//! A user's TOML is never re-serialised: `toml_edit` parses it to tell which bytes are an
//! entry of the array (so a `[[hooks]]` or a marker-like line inside a multi-line string is
//! text, not structure), and acc removes or appends exactly those bytes. Everything else,
//! comments, CRLF line endings and a missing final newline included, stays as it was.
//!
//! New entries are appended at the end of the file, after one line ending when the file does
//! not end with one; the last of them then ends without one, mirroring the file. Removing
//! entries that end such a file takes that separator away again, so
//! `remove(append(t)) == t` byte for byte for every `t` holding no entry of acc's.
//!
//! What cannot be edited safely is refused with the file and line: the array's name defined
//! as something else (`hooks = "x"`, `[hooks]`), an entry of acc's holding keys or tables
//! acc did not write, or an edit whose result does not read back as the intended entries.

use std::ops::Range;
use std::path::Path;

use serde_json::{Map, Value};
use toml_edit::{Document, Item, Table};

use crate::adapter::{AdapterError, AdapterErrorKind};
use crate::json_style::{FileFormat, MalformedFile};

/// One entry of the array, as the parser read it.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundEntry {
    /// Its keys and values; scalars and inline arrays only (see `nested`).
    pub fields: Map<String, Value>,
    /// The 1-based line of its `[[name]]` header.
    pub line: usize,
    /// Keys whose value is a table or a dotted key: content that may live outside the
    /// entry's own lines, so an entry holding any is never removed.
    pub nested: Vec<String>,
    /// Its header line through the end of its last key's line.
    range: Range<usize>,
}

/// Check that `text` is valid TOML; the error names the first bad line and column.
pub fn validate_toml(text: &str, path: &Path) -> Result<(), MalformedFile> {
    let Err(error) = toml::from_str::<toml::Table>(text) else {
        return Ok(());
    };
    let (line, column) = error
        .span()
        .map_or((1, 1), |span| MalformedFile::position(text, span.start));
    Err(MalformedFile {
        path: path.to_owned(),
        format: FileFormat::Toml,
        line,
        column,
        message: error.message().trim().to_owned(),
    })
}

/// Every entry of the array `name`, in file order. Refuses malformed TOML
/// (`MalformedUserFile`) and a `name` that is not an array of tables (`Conflict`).
pub fn entries(text: &str, path: &Path, name: &str) -> Result<Vec<FoundEntry>, AdapterError> {
    let document = parse(text, path)?;
    let root = document.as_table();
    let Some(item) = root.get(name) else {
        return Ok(Vec::new());
    };
    let Item::ArrayOfTables(array) = item else {
        let at = root
            .key(name)
            .and_then(|k| k.span())
            .or_else(|| item.span())
            .map_or(0, |s| s.start);
        return Err(AdapterError::new(
            AdapterErrorKind::Conflict,
            format!(
                "{}:{}:1: `{name}` is defined here as {}, so acc cannot add its [[{name}]] tables; write these entries as [[{name}]] tables and run the command again",
                path.display(),
                line_of(text, at),
                describe(item)
            ),
        )
        .at(path));
    };
    let mut found = Vec::new();
    for table in array.iter() {
        found.push(entry(text, path, name, table)?);
    }
    Ok(found)
}

/// `text` without the entries of `name` that `ours` picks. Refuses to remove an entry of
/// acc's holding tables or dotted keys (content acc did not write), naming its line.
pub fn remove(
    text: &str,
    path: &Path,
    name: &str,
    ours: impl Fn(&FoundEntry) -> bool,
) -> Result<String, AdapterError> {
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for found in entries(text, path, name)?.into_iter().filter(|e| ours(e)) {
        if !found.nested.is_empty() {
            return Err(AdapterError::new(
                AdapterErrorKind::Conflict,
                format!(
                    "{}:{}:1: this [[{name}]] table is acc's but also holds {}, which acc did not write; move that out of the table, or remove the table by hand, and run the command again",
                    path.display(),
                    found.line,
                    found.nested.join(", ")
                ),
            )
            .at(path));
        }
        ranges.push(found.range);
    }
    if ranges.is_empty() {
        return Ok(text.to_owned());
    }
    ranges.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for range in &ranges {
        out.push_str(&text[cursor..range.start]);
        cursor = range.end;
    }
    out.push_str(&text[cursor..]);
    // Entries that ended the file without a line ending were appended after one that was
    // the file's own end; it goes with them.
    let last = ranges.last().expect("not empty");
    if last.end == text.len() && !text.ends_with('\n') {
        let kept = out.len();
        let without_lf = out.strip_suffix('\n').map(str::len);
        if let Some(len) = without_lf {
            let crlf = out[..len].ends_with('\r') && line_ending(&out[..len]) == "\r\n";
            out.truncate(if crlf { len - 1 } else { len });
        }
        debug_assert!(out.len() <= kept);
    }
    Ok(out)
}

/// `text` with `new` appended as entries of the array `name`, each header carrying
/// `header_comment`. Refuses when the result does not read back as the same entries followed
/// by `new` (so nothing is written that the client would read differently).
pub fn append(
    text: &str,
    path: &Path,
    name: &str,
    new: &[Map<String, Value>],
    header_comment: &str,
) -> Result<String, AdapterError> {
    let before = entries(text, path, name)?;
    if new.is_empty() {
        return Ok(text.to_owned());
    }
    let newline = line_ending(text);
    let rendered: Vec<String> = new
        .iter()
        .map(|fields| render_entry(name, fields, header_comment, newline))
        .collect();
    let mut block = rendered.join(newline);
    let out = if text.is_empty() || text.ends_with('\n') {
        block.push_str(newline);
        format!("{text}{block}")
    } else {
        format!("{text}{newline}{block}")
    };
    let unsafe_edit = |why: String| {
        AdapterError::new(
            AdapterErrorKind::Conflict,
            format!(
                "{}:{}:1: acc's [[{name}]] tables cannot be added safely at the end of this file ({why}); add them by hand or tell acc's maintainers",
                path.display(),
                line_of(text, text.len())
            ),
        )
        .at(path)
    };
    let after = entries(&out, path, name).map_err(|e| unsafe_edit(e.message))?;
    let expected: Vec<&Map<String, Value>> =
        before.iter().map(|e| &e.fields).chain(new.iter()).collect();
    let got: Vec<&Map<String, Value>> = after.iter().map(|e| &e.fields).collect();
    if got != expected {
        return Err(unsafe_edit(
            "the file would read back with other entries".to_owned(),
        ));
    }
    Ok(out)
}

/// `[[name]] # comment` and one `key = value` line per field, joined by `newline`, with no
/// final line ending.
fn render_entry(
    name: &str,
    fields: &Map<String, Value>,
    header_comment: &str,
    newline: &str,
) -> String {
    let mut lines = vec![if header_comment.is_empty() {
        format!("[[{name}]]")
    } else {
        format!("[[{name}]] # {header_comment}")
    }];
    for (key, value) in fields {
        let value = toml::Value::try_from(value).expect("acc's fields are TOML scalars");
        lines.push(format!("{key} = {value}"));
    }
    lines.join(newline)
}

fn parse(text: &str, path: &Path) -> Result<Document<String>, AdapterError> {
    let malformed =
        |message: String| AdapterError::new(AdapterErrorKind::MalformedUserFile, message).at(path);
    validate_toml(text, path).map_err(|e| malformed(e.to_string()))?;
    Document::parse(text.to_owned()).map_err(|e| {
        let (line, column) = e
            .span()
            .map_or((1, 1), |span| MalformedFile::position(text, span.start));
        malformed(
            MalformedFile {
                path: path.to_owned(),
                format: FileFormat::Toml,
                line,
                column,
                message: e.message().trim().to_owned(),
            }
            .to_string(),
        )
    })
}

fn entry(text: &str, path: &Path, name: &str, table: &Table) -> Result<FoundEntry, AdapterError> {
    let no_span = || {
        AdapterError::new(
            AdapterErrorKind::Conflict,
            format!(
                "{}: the parser gave no position for a [[{name}]] table, so acc cannot edit it safely",
                path.display()
            ),
        )
        .at(path)
    };
    let header = table.span().ok_or_else(no_span)?;
    let mut end = header.end;
    let mut fields = Map::new();
    let mut nested = Vec::new();
    for (key, item) in table.iter() {
        match item {
            Item::Value(value) if !is_dotted(value) => {
                let span = value.span().ok_or_else(no_span)?;
                end = end.max(span.end);
                fields.insert(key.to_owned(), to_json(value));
            }
            _ => nested.push(key.to_owned()),
        }
    }
    let start = text[..header.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    Ok(FoundEntry {
        fields,
        line: line_of(text, header.start),
        nested,
        range: start..end,
    })
}

fn is_dotted(value: &toml_edit::Value) -> bool {
    value.as_inline_table().is_some_and(|t| t.is_dotted())
}

fn to_json(value: &toml_edit::Value) -> Value {
    use toml_edit::Value as T;
    match value {
        T::String(s) => Value::String(s.value().clone()),
        T::Integer(i) => Value::from(*i.value()),
        T::Float(f) => serde_json::Number::from_f64(*f.value()).map_or(Value::Null, Value::Number),
        T::Boolean(b) => Value::Bool(*b.value()),
        T::Datetime(d) => Value::String(d.value().to_string()),
        T::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        T::InlineTable(t) => {
            Value::Object(t.iter().map(|(k, v)| (k.to_owned(), to_json(v))).collect())
        }
    }
}

fn describe(item: &Item) -> &'static str {
    match item {
        Item::Table(t) if t.is_dotted() => "dotted keys",
        Item::Table(_) => "a table",
        Item::Value(toml_edit::Value::Array(_)) => "an inline array",
        Item::Value(toml_edit::Value::InlineTable(_)) => "an inline table",
        Item::Value(_) => "a value",
        Item::ArrayOfTables(_) | Item::None => "something else",
    }
}

/// The 1-based line holding byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The line ending of the first line break; LF when there is none.
fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

#[cfg(test)]
mod tests;
