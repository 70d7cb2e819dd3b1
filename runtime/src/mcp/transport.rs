//! Newline-delimited framing over a byte stream, with a bound on one message so a runaway
//! client cannot make the server hold unbounded memory.

use std::io::{self, BufRead};

/// Largest accepted message, newline excluded.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// One frame read from the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// One line without its `\n` (and without a `\r` before it).
    Line(String),
    /// A line that is not UTF-8.
    NotUtf8,
    /// A line longer than the limit; it was read to its end and dropped.
    TooLong,
    /// End of input.
    End,
}

/// Reads the next frame. A last line without a trailing newline still counts as a line.
pub fn read_frame(input: &mut dyn BufRead, max: usize) -> io::Result<Frame> {
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    let mut saw_any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if !saw_any {
                return Ok(Frame::End);
            }
            break;
        }
        saw_any = true;
        let (chunk, newline) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > max {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = newline.map_or(buf.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            break;
        }
    }
    if too_long {
        return Ok(Frame::TooLong);
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(match String::from_utf8(line) {
        Ok(s) => Frame::Line(s),
        Err(_) => Frame::NotUtf8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        // A tiny buffer makes lines span several reads.
        let mut r = io::BufReader::with_capacity(3, input);
        let mut out = Vec::new();
        loop {
            let f = read_frame(&mut r, max).unwrap();
            if f == Frame::End {
                return out;
            }
            out.push(f);
        }
    }

    #[test]
    fn splits_lines_across_reads_and_strips_crlf() {
        assert_eq!(
            frames(b"{\"a\":1}\r\n\nlast", 100),
            [
                Frame::Line("{\"a\":1}".into()),
                Frame::Line(String::new()),
                Frame::Line("last".into())
            ]
        );
        assert!(frames(b"", 100).is_empty());
    }

    #[test]
    fn long_and_non_utf8_lines_are_framed_and_skipped() {
        assert_eq!(
            frames(b"0123456789\nok\n\xff\xfe\n", 5),
            [Frame::TooLong, Frame::Line("ok".into()), Frame::NotUtf8]
        );
    }
}
