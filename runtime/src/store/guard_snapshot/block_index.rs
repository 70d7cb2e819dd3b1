//! The block index of a snapshot's claim lines: for each block of the file (the unit the
//! sums cover and the guard reads), the first claim line that starts in it, as
//! `<start>\t<next>\t<resource>` (the line's offset in the file, the offset of the line
//! after it, and its resource as the line spells it, escaped). The lines are sorted by
//! resource, so the entries are too: a look-up bisects the index (a few hundred entries at
//! 10,000 claims, read in a block or three) and then reads only the block or two between
//! the two entries around its key, where a bisection of the claims read about eight blocks,
//! each a `pread`, a page fault and a block sum.
//!
//! The index is a hint, never trusted alone: the reader ([`super::SealedFile`]) checks the
//! line it answers from against its neighbour (the line before it sorts before the key, the
//! line at it does not), so an index that lies about an offset or a key makes the look-up
//! fail closed (the store path judges), never skip a claim.

use std::borrow::Cow;

/// The index for `claims` (the claim lines, every one ending in a newline) lying at offset
/// `claims_start` of a file read in blocks of `block` bytes.
pub(super) fn write(claims_start: usize, claims: &[u8], block: usize) -> String {
    let mut out = String::new();
    let mut last: Option<usize> = None;
    let first_block = claims_start / block;
    let last_block = (claims_start + claims.len()).div_ceil(block);
    for b in first_block..last_block {
        // The first line starting at or after the block's start (the first line of all for
        // the block the claims start in).
        let from = (b * block).saturating_sub(claims_start);
        let start = match from {
            0 => 0,
            from if claims[from - 1] == b'\n' => from,
            from => match memchr::memchr(b'\n', &claims[from..]) {
                Some(i) => from + i + 1,
                None => break,
            },
        };
        if start >= claims.len() {
            break;
        }
        // A line longer than a block starts in none of the blocks it spans.
        if last == Some(start) {
            continue;
        }
        last = Some(start);
        let Some(end) = memchr::memchr(b'\n', &claims[start..]).map(|i| start + i) else {
            break;
        };
        let line = &claims[start..end];
        let key = memchr::memrchr(b'\t', line).map_or(line, |t| &line[t + 1..]);
        let Ok(key) = std::str::from_utf8(key) else {
            break;
        };
        use std::fmt::Write as _;
        let _ = writeln!(
            out,
            "{}\t{}\t{key}",
            claims_start + start,
            claims_start + end + 1
        );
    }
    out
}

/// One index line: the line's start and the next line's, and its key (unescaped). `None`
/// for a line that is not an entry.
pub(super) fn entry(line: &str) -> Option<(usize, usize, Cow<'_, str>)> {
    let mut f = line.splitn(3, '\t');
    let start: usize = f.next()?.parse().ok()?;
    let next: usize = f.next()?.parse().ok()?;
    let key = super::unescape(f.next()?)?;
    (start < next).then_some((start, next, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_names_the_first_line_starting_in_it() {
        // Lines of 10 bytes (resource last), behind a header of 7, in blocks of 16.
        let claims = b"1\ta\tb\tc\tr0\n1\ta\tb\tc\tr1\n1\ta\tb\tc\tr2\n1\ta\tb\tc\tr3\n";
        let claims = &claims[..];
        let index = write(7, claims, 16);
        // Lines start at 7, 18, 29 and 40. Blocks at 0, 16, 32 and 48: the first line, the
        // first starting in 16..32 (18, not 29), in 32..48 (40), and none in 48..52.
        let lines: Vec<_> = index.lines().map(|l| entry(l).unwrap()).collect();
        let starts: Vec<(usize, usize, &str)> =
            lines.iter().map(|(s, n, k)| (*s, *n, k.as_ref())).collect();
        assert_eq!(starts, [(7, 18, "r0"), (18, 29, "r1"), (40, 51, "r3")]);
        // Every entry is a line of the file: its start follows a newline (or is the first),
        // and its key is the line's last field.
        for (s, n, k) in &starts {
            let line = &claims[s - 7..n - 7 - 1];
            assert!(line.ends_with(k.as_bytes()));
            assert!(*s == 7 || claims[s - 7 - 1] == b'\n');
        }
    }

    #[test]
    fn a_line_spanning_blocks_is_named_where_it_starts_and_escapes_stay_escaped() {
        // The first line (18 bytes) ends in block 16..32, where the long one starts; no line
        // starts in the blocks it spans after that, and the last starts in block 64..80.
        let long = format!("1\ta\tb\tc\tfile:{}\n", "y".repeat(40));
        let claims = format!("1\ta\tb\tc\tfile:a\\tb\n{long}1\ta\tb\tc\tfile:z\n");
        let index = write(0, claims.as_bytes(), 16);
        assert!(index.starts_with("0\t18\tfile:a\\tb\n"), "{index}");
        let keys: Vec<String> = index
            .lines()
            .map(|l| entry(l).unwrap().2.into_owned())
            .collect();
        let long_key = format!("file:{}", "y".repeat(40));
        assert_eq!(keys, ["file:a\tb", long_key.as_str(), "file:z"]);
        assert!(write(0, b"", 16).is_empty());
        assert_eq!(entry("5\t5\tx"), None, "a line ends after it starts");
        assert_eq!(entry("5\tx"), None);
        assert_eq!(entry("a\t9\tx"), None);
    }
}
