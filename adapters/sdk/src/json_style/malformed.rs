//! The error for a user's config file that acc refuses to edit.

use std::path::PathBuf;

/// The language a refused file was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileFormat {
    Json,
    Toml,
}

impl FileFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            FileFormat::Json => "JSON",
            FileFormat::Toml => "TOML",
        }
    }
}

/// A user's config file acc will not edit, with the first place it could not read.
/// Displays as `<path>:<line>:<column>: not valid <JSON|TOML>: <message>`, the shape editors
/// and terminals turn into a link to that spot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedFile {
    pub path: PathBuf,
    pub format: FileFormat,
    /// 1-based.
    pub line: usize,
    /// 1-based, counted in characters.
    pub column: usize,
    pub message: String,
}

impl MalformedFile {
    /// The stable error code, shared with `AdapterErrorKind::MalformedUserFile`.
    pub const CODE: &'static str = "malformed_user_file";

    pub fn code(&self) -> &'static str {
        Self::CODE
    }

    /// The 1-based line and character column of byte `offset` in `text`.
    pub fn position(text: &str, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before.matches('\n').count() + 1;
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }
}

impl std::fmt::Display for MalformedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: not valid {}: {}",
            self.path.display(),
            self.line,
            self.column,
            self.format.as_str(),
            self.message
        )
    }
}

impl std::error::Error for MalformedFile {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters() {
        assert_eq!(MalformedFile::position("ab\ncé d", 0), (1, 1));
        assert_eq!(MalformedFile::position("ab\ncé d", 3), (2, 1));
        // Byte 6 is the space after the two-byte `é`: the third character of line 2.
        assert_eq!(MalformedFile::position("ab\ncé d", 6), (2, 3));
        assert_eq!(MalformedFile::position("ab", 99), (1, 3));
    }
}
