//! Fitting groups into a byte budget ([`super::cost`]), so the joined text is always shorter
//! than the budget it was fitted to.

use std::borrow::Cow;

use super::cost::{cost, group_cost};
use super::pieces::Piece;

const ELLIPSIS: &str = "…";

/// What fitted into one budget, before the closing footer line is chosen.
#[derive(Debug, Default)]
pub struct Layout<'p> {
    /// Lines after the header, in order: borrowed from the pieces (a projection that
    /// needs a closing line lays out twice), owned only where a line was cut to fit.
    pub lines: Vec<Cow<'p, str>>,
    /// Bytes spent, header included.
    pub used: usize,
    pub offered_message_ids: Vec<String>,
    pub included_attention_ids: Vec<String>,
    /// Messages whose block was left out, in display order.
    pub dropped_messages: Vec<String>,
    /// Attention lines and reminder messages left out.
    pub omitted_items: usize,
}

/// Lay out `pieces` after `header` within `budget`, or `None` when not even the header fits.
///
/// Blocks are delivered in order: once one message does not fit, every later message is
/// dropped too, so a reader never gets a newer body while an older one waits unseen.
pub fn lay_out<'p>(pieces: &'p [Piece], header: &str, budget: usize) -> Option<Layout<'p>> {
    if cost(header) > budget {
        return None;
    }
    let mut out = Layout {
        used: cost(header),
        ..Layout::default()
    };
    let mut blocks_stopped = false;
    for piece in pieces {
        let left = budget - out.used;
        match piece {
            Piece::Urgent {
                source_id,
                prefix,
                summary,
                quote,
            } => match urgent_line(prefix, summary, left) {
                Some((line, cut)) => {
                    // The quote follows only a whole line: a cut one already says less
                    // than the item holds.
                    let quoted = !cut && cost(&line) + group_cost(quote) <= left;
                    out.used += cost(&line);
                    out.lines.push(Cow::Owned(line));
                    if quoted {
                        out.used += group_cost(quote);
                        out.lines
                            .extend(quote.iter().map(|l| Cow::Borrowed(l.as_str())));
                    }
                    out.included_attention_ids.push(source_id.clone());
                }
                None => out.omitted_items += 1,
            },
            Piece::Block { message_id, lines } => {
                let size = group_cost(lines);
                if !blocks_stopped && size <= left {
                    out.used += size;
                    out.lines
                        .extend(lines.iter().map(|l| Cow::Borrowed(l.as_str())));
                    out.offered_message_ids.push(message_id.clone());
                } else {
                    blocks_stopped = true;
                    out.dropped_messages.push(message_id.clone());
                }
            }
            Piece::Unfitting { message_id } => {
                blocks_stopped = true;
                out.dropped_messages.push(message_id.clone());
            }
            Piece::Attention {
                source_id,
                line,
                quote,
            } => {
                if cost(line) <= left {
                    out.used += cost(line);
                    out.lines.push(Cow::Borrowed(line));
                    if group_cost(quote) <= left - cost(line) {
                        out.used += group_cost(quote);
                        out.lines
                            .extend(quote.iter().map(|l| Cow::Borrowed(l.as_str())));
                    }
                    out.included_attention_ids.push(source_id.clone());
                } else {
                    out.omitted_items += 1;
                }
            }
            Piece::Reminder { count, line } => {
                if cost(line) <= left {
                    out.used += cost(line);
                    out.lines.push(Cow::Borrowed(line));
                } else {
                    out.omitted_items += count;
                }
            }
        }
    }
    Some(out)
}

/// The urgent line whole if it fits in `left`, else cut inside the summary and ended with
/// `…`. The kind and the whole id always survive; when they cannot, the line is left out,
/// so an included attention id is always fully present in the text. The flag says whether
/// the line was cut.
fn urgent_line(prefix: &str, summary: &str, left: usize) -> Option<(String, bool)> {
    let whole = if summary.is_empty() {
        prefix.to_owned()
    } else {
        format!("{prefix} {summary}")
    };
    if cost(&whole) <= left {
        return Some((whole, false));
    }
    if summary.is_empty() {
        return None;
    }
    let room = left.checked_sub(cost(prefix) + 1 + ELLIPSIS.len())?;
    let cut = floor_char_boundary(summary, room);
    Some((format!("{prefix} {}{ELLIPSIS}", &summary[..cut]), true))
}

/// The largest char boundary of `s` at or below `index`.
fn floor_char_boundary(s: &str, index: usize) -> usize {
    if index >= s.len() {
        return s.len();
    }
    (0..=index)
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urgent_line_cuts_on_char_boundaries() {
        let prefix = "- [reply_required] m1";
        // "é" is two bytes: a cut landing inside it must step back.
        let (line, cut) = urgent_line(prefix, "ééééé", cost(prefix) + 1 + 3 + 3).unwrap();
        assert!(cut);
        assert_eq!(line, "- [reply_required] m1 é…");
        assert!(cost(&line) <= cost(prefix) + 1 + 3 + 3);
        assert_eq!(urgent_line(prefix, "ééééé", cost(prefix) + 3), None);
        assert_eq!(
            urgent_line(prefix, "ééééé", cost(prefix) + 4).unwrap(),
            ("- [reply_required] m1 …".to_owned(), true)
        );
        assert_eq!(
            urgent_line(prefix, "é", cost(prefix) + 3),
            Some(("- [reply_required] m1 é".to_owned(), false))
        );
    }

    #[test]
    fn floor_boundary() {
        assert_eq!(floor_char_boundary("aé", 2), 1);
        assert_eq!(floor_char_boundary("aé", 3), 3);
        assert_eq!(floor_char_boundary("aé", 9), 3);
    }
}
