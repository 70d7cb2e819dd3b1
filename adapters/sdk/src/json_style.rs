//! Reading and writing a user's JSON config file in the file's own style, for installers that
//! add entries to files the user owns.
//!
//! [`parse_json_document`] measures the style (indent, line ending, trailing newline, BOM)
//! and [`render_json_document`] writes a value back in it, keys in their stored order.
//!
//! Round trips:
//! - Anything this renderer wrote parses and renders back byte for byte.
//! - So does a typical hand-written file: pretty-printed with N spaces or tabs, LF or CRLF,
//!   with or without a trailing newline, with or without a BOM, `"key": value` spacing; and
//!   a one-line file such as `{"a":1}` or `{"a": 1, "b": [1, 2]}`.
//! - Not byte for byte (the content is kept, the layout is normalised): unusual spacing
//!   (`{"a" : 1}`, `{ "a": 1 }`), short arrays kept on one line inside a pretty file, mixed
//!   or uneven indentation, escapes a writer chose freely (`\u00e9`, `\/`), number spellings
//!   (`1e3`, `1.50`), several trailing newlines, and duplicate keys (the last one wins).
//!   Installers keep the original bytes for restore, so uninstall is exact regardless.
//!
//! Comments (`//`, `/* */`) are refused with their line and column rather than silently
//! dropped on the next write.

mod detect;
mod malformed;
mod render;

use std::path::Path;

use serde_json::Value;

pub use detect::detect_json_style;
pub use malformed::{FileFormat, MalformedFile};
pub use render::render_json_document;

/// How a document is indented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Indent {
    /// Pretty, N spaces (N >= 1) per level.
    Spaces(usize),
    /// Pretty, one tab per level.
    Tabs,
    /// Everything on one line, with or without a space after `:` and after `,`.
    SingleLine {
        colon_space: bool,
        comma_space: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineEnding {
    Lf,
    Crlf,
}

/// The measured layout of a JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JsonStyle {
    pub indent: Indent,
    pub line_ending: LineEnding,
    /// The document ends with a line ending.
    pub trailing_newline: bool,
    /// The document starts with a UTF-8 byte order mark.
    pub bom: bool,
}

impl Default for JsonStyle {
    /// The style of a file acc creates: 2 spaces, LF, trailing newline, no BOM.
    fn default() -> Self {
        JsonStyle {
            indent: Indent::Spaces(2),
            line_ending: LineEnding::Lf,
            trailing_newline: true,
            bom: false,
        }
    }
}

/// Parse a user's JSON file and measure its style. `path` only names the file in errors.
pub fn parse_json_document(bytes: &[u8], path: &Path) -> Result<(Value, JsonStyle), MalformedFile> {
    let body = bytes.strip_prefix(detect::BOM).unwrap_or(bytes);
    let refuse = |text: &str, offset: usize, message: String| {
        let (line, column) = MalformedFile::position(text, offset);
        MalformedFile {
            path: path.to_owned(),
            format: FileFormat::Json,
            line,
            column,
            message,
        }
    };
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(e) => {
            let valid = std::str::from_utf8(&body[..e.valid_up_to()]).unwrap_or_default();
            return Err(refuse(
                valid,
                valid.len(),
                "the file is not UTF-8 text".to_owned(),
            ));
        }
    };
    if let Some((offset, kind)) = find_comment(text) {
        return Err(refuse(
            text,
            offset,
            format!(
                "{kind} comment; acc does not edit JSON with comments, because rewriting the file would drop them"
            ),
        ));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => Ok((value, detect_json_style(bytes))),
        Err(e) => Err(from_serde(text, &e, path)),
    }
}

/// serde_json reports a 1-based line and a byte column; editors count characters.
fn from_serde(text: &str, error: &serde_json::Error, path: &Path) -> MalformedFile {
    let line = error.line().max(1);
    let line_text = text.split('\n').nth(line - 1).unwrap_or_default();
    let mut bytes = error.column().min(line_text.len());
    while !line_text.is_char_boundary(bytes) {
        bytes -= 1;
    }
    let column = line_text[..bytes].chars().count().max(1);
    let full = error.to_string();
    let location = format!(" at line {} column {}", error.line(), error.column());
    let message = full.strip_suffix(&location).unwrap_or(&full).to_owned();
    MalformedFile {
        path: path.to_owned(),
        format: FileFormat::Json,
        line,
        column,
        message,
    }
}

/// The byte offset and kind of the first `//` or `/*` outside a string.
fn find_comment(text: &str) -> Option<(usize, &'static str)> {
    let bytes = text.as_bytes();
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"', _) => in_string = true,
            (b'/', Some(b'/')) => return Some((i, "a `//`")),
            (b'/', Some(b'*')) => return Some((i, "a `/* */`")),
            _ => {}
        }
    }
    None
}
