//! Editing a user's TOML file only inside one marked block, and checking TOML is readable.
//!
//! acc never rewrites a user's TOML: it owns the lines between a BEGIN and an END marker
//! line and nothing else. The block is appended at the end the first time and replaced in
//! place afterwards, and removing it gives back the file exactly as it was:
//! `remove_block(upsert_block(t)) == t` byte for byte for every `t` without a block.
//!
//! How that holds for a file without a trailing newline: the block is appended after one
//! separating line ending and itself ends without one, mirroring the file. A block that ends
//! the file without a line ending therefore tells `remove_block` to take that separator
//! away too; a block that ends with one was appended to a file that already ended a line.

use std::path::Path;

use crate::json_style::{FileFormat, MalformedFile};

/// The two marker lines around the block. A line matches a marker when it equals it after
/// trimming surrounding whitespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockMarkers<'a> {
    pub begin: &'a str,
    pub end: &'a str,
}

/// The markers acc writes into `config.toml` files.
pub const ACC_BLOCK_MARKERS: BlockMarkers<'static> = BlockMarkers {
    begin: "# >>> agents-can-communicate (managed; edits here are overwritten)",
    end: "# <<< agents-can-communicate",
};

impl Default for BlockMarkers<'static> {
    fn default() -> Self {
        ACC_BLOCK_MARKERS
    }
}

/// Whether a file holds the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockState {
    Absent,
    /// `start..end` are the byte offsets of the whole block, marker lines included (`end`
    /// after the END line's line ending, when it has one). `body` is the text between the
    /// marker lines, exactly as in the file.
    Present {
        start: usize,
        end: usize,
        body: String,
    },
}

/// Why the markers in a file cannot be trusted; nothing should be written then.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockErrorKind {
    /// A BEGIN line inside an open block.
    NestedBegin,
    /// An END line with no open block.
    EndWithoutBegin,
    /// A BEGIN line never closed.
    BeginWithoutEnd,
    /// A BEGIN line after a complete block.
    SecondBlock,
}

impl BlockErrorKind {
    /// Stable code.
    pub fn code(self) -> &'static str {
        match self {
            BlockErrorKind::NestedBegin => "block_nested_begin",
            BlockErrorKind::EndWithoutBegin => "block_end_without_begin",
            BlockErrorKind::BeginWithoutEnd => "block_begin_without_end",
            BlockErrorKind::SecondBlock => "block_second_block",
        }
    }
}

/// A marker problem at a 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockError {
    pub kind: BlockErrorKind,
    pub line: usize,
}

impl BlockError {
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

impl std::fmt::Display for BlockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            BlockErrorKind::NestedBegin => "a second BEGIN marker inside the managed block",
            BlockErrorKind::EndWithoutBegin => "an END marker without a BEGIN marker before it",
            BlockErrorKind::BeginWithoutEnd => "a BEGIN marker whose managed block never ends",
            BlockErrorKind::SecondBlock => "a second managed block",
        };
        write!(
            f,
            "line {}: {what}; fix the markers by hand so there is one block, or remove them",
            self.line
        )
    }
}

impl std::error::Error for BlockError {}

/// Find the block. Refuses marker lines that do not form exactly zero or one block.
pub fn inspect(text: &str, markers: BlockMarkers<'_>) -> Result<BlockState, BlockError> {
    // (offset of the BEGIN line, its line number, offset where the body starts)
    let mut open: Option<(usize, usize, usize)> = None;
    let mut found: Option<BlockState> = None;
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let number = index + 1;
        let content = line.trim();
        if content == markers.begin {
            if open.is_some() {
                return Err(BlockError {
                    kind: BlockErrorKind::NestedBegin,
                    line: number,
                });
            }
            if found.is_some() {
                return Err(BlockError {
                    kind: BlockErrorKind::SecondBlock,
                    line: number,
                });
            }
            open = Some((offset, number, offset + line.len()));
        } else if content == markers.end {
            let Some((start, _, body_start)) = open.take() else {
                return Err(BlockError {
                    kind: BlockErrorKind::EndWithoutBegin,
                    line: number,
                });
            };
            let body = text[body_start..offset].to_owned();
            found = Some(BlockState::Present {
                start,
                end: offset + line.len(),
                body,
            });
        }
        offset += line.len();
    }
    if let Some((_, number, _)) = open {
        return Err(BlockError {
            kind: BlockErrorKind::BeginWithoutEnd,
            line: number,
        });
    }
    Ok(found.unwrap_or(BlockState::Absent))
}

/// Put `body` in the block: in place when the block exists, else appended at the end (after
/// one line ending when the file does not end with one). A new block uses the file's line
/// ending (that of its first line break; LF when it has none), a replaced block keeps its
/// own, and `body`'s own line endings are normalised to it. Idempotent.
///
/// `body` is acc's own text and must not contain a marker line.
pub fn upsert_block(
    text: &str,
    markers: BlockMarkers<'_>,
    body: &str,
) -> Result<String, BlockError> {
    debug_assert!(
        !body
            .lines()
            .any(|l| l.trim() == markers.begin || l.trim() == markers.end),
        "a block body must not contain a marker line"
    );
    match inspect(text, markers)? {
        BlockState::Present { start, end, .. } => {
            // The block keeps the line ending it was written with (its BEGIN line's), so a
            // second upsert never rewrites it.
            let newline = line_ending(&text[start..]);
            let ends_file_bare = end == text.len() && !text.ends_with('\n');
            let block = render(markers, body, newline, !ends_file_bare);
            Ok(format!("{}{block}{}", &text[..start], &text[end..]))
        }
        BlockState::Absent if text.is_empty() || text.ends_with('\n') => Ok(format!(
            "{text}{}",
            render(markers, body, line_ending(text), true)
        )),
        BlockState::Absent => {
            let newline = line_ending(text);
            Ok(format!(
                "{text}{newline}{}",
                render(markers, body, newline, false)
            ))
        }
    }
}

/// Take the block out, and with it the line ending `upsert_block` added before it.
pub fn remove_block(text: &str, markers: BlockMarkers<'_>) -> Result<String, BlockError> {
    let BlockState::Present { start, end, .. } = inspect(text, markers)? else {
        return Ok(text.to_owned());
    };
    let mut before = &text[..start];
    let after = &text[end..];
    let ends_file_bare = end == text.len() && !text.ends_with('\n');
    if let Some(without_lf) = before.strip_suffix('\n').filter(|_| ends_file_bare) {
        // The separator was the original file's line ending: CRLF only if the original
        // had a first line break and it was CRLF.
        before = match without_lf.strip_suffix('\r') {
            Some(without_crlf) if line_ending(without_lf) == "\r\n" => without_crlf,
            _ => without_lf,
        };
    }
    Ok(format!("{before}{after}"))
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

/// The line ending of the first line break; LF when there is none.
fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

fn render(markers: BlockMarkers<'_>, body: &str, newline: &str, final_newline: bool) -> String {
    let mut lines: Vec<&str> = vec![markers.begin];
    lines.extend(body.lines());
    lines.push(markers.end);
    let mut block = lines.join(newline);
    if final_newline {
        block.push_str(newline);
    }
    block
}
