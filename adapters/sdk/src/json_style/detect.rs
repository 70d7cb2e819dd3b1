//! Measuring how a JSON document is laid out, so an edit can keep that layout.

use super::{Indent, JsonStyle, LineEnding};

pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Measure `bytes`. Never fails: anything not measurable falls back to the default
/// (2 spaces, LF, trailing newline, no BOM).
pub fn detect_json_style(bytes: &[u8]) -> JsonStyle {
    let bom = bytes.starts_with(BOM);
    let text = if bom { &bytes[BOM.len()..] } else { bytes };
    let line_ending = match text.iter().position(|&b| b == b'\n') {
        Some(i) if i > 0 && text[i - 1] == b'\r' => LineEnding::Crlf,
        _ => LineEnding::Lf,
    };
    let trailing_newline = text.ends_with(b"\n");
    let content = text.trim_ascii();
    let indent = if content.contains(&b'\n') {
        measured_indent(content)
    } else {
        single_line(content)
    };
    JsonStyle {
        indent,
        line_ending,
        trailing_newline,
        bom,
    }
}

/// The leading whitespace of the first indented line: depth 1 in a pretty document.
fn measured_indent(content: &[u8]) -> Indent {
    let first_indented = content.split(|&b| b == b'\n').skip(1).find_map(|line| {
        let width = line
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let rest = line[width..].trim_ascii();
        (width > 0 && !rest.is_empty()).then_some(&line[..width])
    });
    match first_indented {
        Some(lead) if lead[0] == b'\t' => Indent::Tabs,
        Some(lead) => Indent::Spaces(lead.len()),
        None => Indent::Spaces(2),
    }
}

/// Whether a one-line document puts a space after `:` and after `,`. When only one of the
/// two appears, the other follows it.
fn single_line(content: &[u8]) -> Indent {
    let colon = space_after_first(content, b':');
    let comma = space_after_first(content, b',');
    let colon_space = colon.or(comma).unwrap_or(false);
    let comma_space = comma.or(colon).unwrap_or(false);
    Indent::SingleLine {
        colon_space,
        comma_space,
    }
}

/// For the first `wanted` byte outside a string: is it followed by a space?
fn space_after_first(content: &[u8], wanted: u8) -> Option<bool> {
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in content.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == wanted {
            return Some(content.get(i + 1) == Some(&b' '));
        }
    }
    None
}
