//! What any line of a text or Matrix Market file may hold, checked before
//! a parser sees the line, so that a file that is not text fails at its
//! first bad byte, however large.
//!
//! Two rules hold for every line, comments included:
//!
//! - **No control byte but whitespace.** Bytes `0x00`-`0x08`, `0x0E`-`0x1F`
//!   and `0x7F` (NUL, the other C0 controls, DEL: [`never_in_text`]) are in
//!   no text file; the read fails at the first one, naming its line and
//!   column (columns count bytes from 1). Tab, line feed, vertical tab,
//!   form feed and carriage return (`0x09`-`0x0D`) are whitespace, and every
//!   byte from `0x80` up is allowed (UTF-8, or any 8-bit encoding, in a
//!   comment).
//! - **At most [`MAX_LINE_BYTES`] (1 MiB) before the `\n`.** An edge line
//!   needs under 100 bytes and a comment rarely needs 200 (NIST's Matrix
//!   Market library reads lines of at most 1024 characters); a "line" of a
//!   megabyte is a corrupt file. A longer line fails at its start.
//!
//! So no line costs more than 1 MiB of reading before the read fails, and a
//! file of zeros fails at its first byte.

use super::BadLine;

/// The longest line read, in bytes before its `\n` (its `\r`s included).
pub(crate) const MAX_LINE_BYTES: usize = 1 << 20;

/// Whether byte `b` is never in a text file: the ASCII control bytes but
/// the whitespace ones (`\t`, `\n`, vertical tab, form feed, `\r`).
pub(crate) const fn never_in_text(b: u8) -> bool {
    matches!(b, 0x00..=0x08 | 0x0e..=0x1f | 0x7f)
}

/// Where the line starting at byte `start` of `text` ends (the offset of
/// its `\n`, or the end of `text`), having checked its bytes: fails at
/// its first byte that is [`never_in_text`], or if it is longer than
/// [`MAX_LINE_BYTES`]. Reads at most one byte more than the limit.
pub(crate) fn line_end(text: &[u8], start: usize) -> Result<usize, BadLine> {
    line_end_within(text, start, MAX_LINE_BYTES)
}

pub(super) fn line_end_within(
    text: &[u8],
    start: usize,
    max_line: usize,
) -> Result<usize, BadLine> {
    let stop = text.len().min(start.saturating_add(max_line + 1));
    let mut from = start;
    while let Some(at) = next_control(&text[..stop], from) {
        match text[at] {
            b'\n' => return Ok(at),
            b if never_in_text(b) => {
                return Err(BadLine::control_byte(at, b));
            }
            _ => from = at + 1,
        }
    }
    if stop - start > max_line {
        return Err(BadLine::line(
            start,
            format!("longer than {max_line} bytes, the longest line read"),
        ));
    }
    Ok(stop)
}

/// The offset of the first byte of `bytes[from..]` that is an ASCII
/// control byte (below 0x20, or 0x7F), if any. Eight bytes per step: the
/// scan is most of a line's cost.
fn next_control(bytes: &[u8], mut from: usize) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    while let Some(word) = bytes.get(from..from + 8) {
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        // A byte's high bit is set in `below` if it is below 0x20, in
        // `del` if it is 0x7F: exact for the lowest such byte (a borrow
        // only flags bytes above it), which is all that is asked.
        let below = w.wrapping_sub(0x20 * ONES) & !w;
        let x = w ^ (0x7f * ONES);
        let del = x.wrapping_sub(ONES) & !x;
        let found = (below | del) & HIGH;
        if found != 0 {
            return Some(from + found.trailing_zeros() as usize / 8);
        }
        from += 8;
    }
    let rest = bytes.get(from..).unwrap_or_default();
    rest.iter()
        .position(|&b| b < 0x20 || b == 0x7f)
        .map(|i| from + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_take_whitespace_and_high_bytes_but_no_other_control_byte() {
        let line = b"a\tb\x0b\x0c\r\xc3\xa9 \x80\xff";
        assert_eq!(line_end(line, 0), Ok(line.len()));
        for b in (0..=0xffu8).filter(|&b| never_in_text(b)) {
            assert_eq!(
                line_end(&[b'7', b, b'\n'], 0),
                Err(BadLine::control_byte(1, b)),
                "{b:#x}"
            );
        }
        let rejected = (0..=0xffu8).filter(|&b| never_in_text(b)).count();
        assert_eq!(
            rejected,
            32 - 5 + 1,
            "C0 controls but 5 whitespace, and DEL"
        );
        assert_eq!(line_end(b"1 2\n\x00", 0), Ok(3), "stops at the line end");
    }

    #[test]
    fn the_word_scan_finds_the_first_control_byte() {
        // Every byte value at every position of a 19-byte text, after
        // neighbours that do and do not borrow (0x00, 0x20, 0x7e, 0x80).
        let cases = [b'a', 0x20, 0x21, 0x7e, 0x80, 0xff].into_iter();
        for (fill, zero_after) in cases.flat_map(|f| [(f, false), (f, true)]) {
            for b in 0..=0xffu8 {
                for at in 0..19 {
                    let mut text = vec![fill; 19];
                    text[at] = b;
                    if zero_after && at + 1 < 19 {
                        text[at + 1] = 0;
                    }
                    for from in 0..=19 {
                        let expected = text[from..]
                            .iter()
                            .position(|&c| c < 0x20 || c == 0x7f)
                            .map(|i| from + i);
                        assert_eq!(next_control(&text, from), expected, "{text:?} from {from}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_line_may_be_as_long_as_the_limit_and_no_longer() {
        let line = vec![b'#'; MAX_LINE_BYTES];
        assert_eq!(line_end(&line, 0), Ok(MAX_LINE_BYTES));
        assert_eq!(
            line_end(&[&line[..], b"\r\n"].concat(), 0).unwrap_err().at,
            0
        );
        let text = [&b"0 1\n"[..], &line, b"x\n"].concat();
        assert_eq!(
            line_end(&text, 4).unwrap_err(),
            BadLine::line(
                4,
                format!("longer than {MAX_LINE_BYTES} bytes, the longest line read")
            )
        );
    }
}
