//! Writing a JSON value back in a measured style.

use std::io;

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};

use super::detect::BOM;
use super::{Indent, JsonStyle, LineEnding};

/// Render `value` in `style`: key order as stored, the style's indent, line ending, trailing
/// newline and BOM. An empty object or array is always `{}` / `[]`.
pub fn render_json_document(value: &Value, style: &JsonStyle) -> Vec<u8> {
    let mut body = Vec::new();
    let written = match style.indent {
        Indent::Spaces(n) => {
            let indent = vec![b' '; n.max(1)];
            value.serialize(&mut Serializer::with_formatter(
                &mut body,
                PrettyFormatter::with_indent(&indent),
            ))
        }
        Indent::Tabs => value.serialize(&mut Serializer::with_formatter(
            &mut body,
            PrettyFormatter::with_indent(b"\t"),
        )),
        Indent::SingleLine {
            colon_space,
            comma_space,
        } => value.serialize(&mut Serializer::with_formatter(
            &mut body,
            OneLine {
                colon_space,
                comma_space,
            },
        )),
    };
    // A `Value` always serializes (its map keys are strings) and a Vec never refuses bytes.
    debug_assert!(written.is_ok());

    let newline: &[u8] = match style.line_ending {
        LineEnding::Lf => b"\n",
        LineEnding::Crlf => b"\r\n",
    };
    let mut out = Vec::with_capacity(body.len() + 8);
    if style.bom {
        out.extend_from_slice(BOM);
    }
    // The formatter's only raw newlines are its own: newlines inside strings are escaped.
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.extend_from_slice(newline);
        }
        out.extend_from_slice(line);
    }
    if style.trailing_newline {
        out.extend_from_slice(newline);
    }
    out
}

/// One line, with or without a space after `:` and `,`.
struct OneLine {
    colon_space: bool,
    comma_space: bool,
}

impl OneLine {
    fn separator<W: ?Sized + io::Write>(&self, writer: &mut W, first: bool) -> io::Result<()> {
        match (first, self.comma_space) {
            (true, _) => Ok(()),
            (false, true) => writer.write_all(b", "),
            (false, false) => writer.write_all(b","),
        }
    }
}

impl Formatter for OneLine {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.separator(writer, first)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.separator(writer, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(if self.colon_space { b": " } else { b":" })
    }
}
