//! JSONL line splitting shared by every reader.
//!
//! Rules (issue 4, item 2; DESIGN.md "Portable sessions"): records are split
//! on `\n` only (U+2028/U+2029 and `\r` are content); a last line without
//! `\n` that parses is accepted, one that does not (cut mid-object or mid
//! UTF-8 sequence) is a torn tail, skipped and reported; a bad line
//! elsewhere is reported with its line number and reading goes on. A lone
//! UTF-16 surrogate escape (`"\ud800"`, which serde_json rejects) is
//! replaced by U+FFFD and the line number reported.
//!
//! Bounded memory (issue 30, item 5): a line longer than the limit
//! ([`DEFAULT_MAX_LINE_BYTES`], 64 MiB, or [`super::ReadOptions::max_line_bytes`])
//! is not kept: its bytes are read past up to its newline and it is skipped
//! and reported as [`SkipReason::TooLong`] with its line number. A line whose
//! first byte other than whitespace cannot start a JSON value (a NUL, a
//! letter other than `t`/`f`/`n`...) is known bad at once: it is read past
//! without being kept, and reported as before (`invalid_json` at that column,
//! `invalid_utf8` when the line is not UTF-8, `torn_tail` at the end of a
//! file without newline). A 2 GB file of NULs is one skipped line, read in
//! fixed-size chunks.

use super::model::{ReadReport, SkipReason, SkippedLine};
use crate::{Error, Result};
use serde_json::Value;
use std::io::BufRead;

/// The default longest line the readers keep, in bytes (64 MiB): longer
/// lines are skipped and reported ([`SkipReason::TooLong`]). Declared with
/// the store's options, which default to it.
pub use crate::store::DEFAULT_MAX_LINE_BYTES;

/// How a line read with [`read_line_bounded`] ended up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kept {
    /// Whole in the buffer (without its newline).
    Whole,
    /// Longer than the limit: the buffer holds its first bytes only.
    TooLong,
    /// Its first byte other than whitespace cannot start JSON: the buffer
    /// holds the line up to that byte; `column` (1-based) is where a JSON
    /// parse fails, `utf8` whether the whole line is valid UTF-8.
    BadStart { column: u64, utf8: bool },
}

/// One line read with [`read_line_bounded`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawLine {
    /// Bytes consumed, its newline included (0: end of input).
    pub n: u64,
    /// It ended with `\n`.
    pub terminated: bool,
    /// What the buffer holds.
    pub kept: Kept,
}

/// Can `b`, the first byte of a line other than whitespace, start a JSON
/// value? Bytes of 0x80 and above are left to the parser (UTF-8 checks).
fn may_start_json(b: u8) -> bool {
    b >= 0x80 || matches!(b, b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
}

/// Append `bytes` to `buf`, whose length never passes `max` + 1 (a kept
/// line and its newline), growing its capacity geometrically but never past
/// `max` + 1: `Vec`'s own doubling would reserve up to twice the limit (a
/// 64 MiB line limit allocated 128 MiB, and failed under a 256 MiB address
/// space limit beside the import's other threads).
fn extend_capped(buf: &mut Vec<u8>, bytes: &[u8], max: usize) {
    let needed = buf.len() + bytes.len();
    if needed > buf.capacity() {
        let target = buf.capacity().saturating_mul(2).max(needed).min(max.saturating_add(1)).max(needed);
        buf.reserve_exact(target - buf.len());
    }
    buf.extend_from_slice(bytes);
}

/// Read one line (up to and including `\n`) into `buf` (cleared first),
/// keeping at most `max` bytes of it: the rest of a longer line, or of a
/// line that cannot be JSON, is read past in the reader's chunks and not
/// kept. Errors: the reader's.
pub(crate) fn read_line_bounded<R: BufRead>(r: &mut R, buf: &mut Vec<u8>, max: u64) -> std::io::Result<RawLine> {
    buf.clear();
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    let mut n: u64 = 0;
    let mut kept = Kept::Whole;
    // Before the first byte other than whitespace: the index of the first
    // byte that is not JSON whitespace (where a parse would fail).
    let mut first_non_json_ws: Option<usize> = None;
    let mut started = false;
    // UTF-8 check of a line not kept: the incomplete sequence carried over.
    let mut carry: Vec<u8> = Vec::new();
    let mut utf8 = true;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            if let Kept::BadStart { column, .. } = kept {
                kept = Kept::BadStart { column, utf8: utf8 && carry.is_empty() };
            }
            return Ok(RawLine { n, terminated: false, kept });
        }
        let (end, terminated) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let mut part = &chunk[..end];
        if kept == Kept::Whole && !started {
            let base = buf.len();
            for (i, &b) in part.iter().enumerate() {
                if first_non_json_ws.is_none() && !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    first_non_json_ws = Some(base + i);
                }
                if !b.is_ascii_whitespace() {
                    started = true;
                    if !may_start_json(b) {
                        let column = first_non_json_ws.unwrap_or(base + i) as u64 + 1;
                        buf.extend_from_slice(&part[..=i]);
                        kept = Kept::BadStart { column, utf8: true };
                        part = &part[i + 1..];
                    }
                    break;
                }
            }
        }
        match kept {
            Kept::Whole => {
                // The newline does not count against the limit.
                let content = if terminated { part.len() - 1 } else { part.len() };
                if buf.len() + content > max {
                    let room = max - buf.len();
                    extend_capped(buf, &part[..room], max);
                    kept = Kept::TooLong;
                } else {
                    extend_capped(buf, part, max);
                }
            }
            Kept::BadStart { .. } if utf8 => {
                let body = if terminated { &part[..part.len() - 1] } else { part };
                carry.extend_from_slice(body);
                match std::str::from_utf8(&carry) {
                    Ok(_) => carry.clear(),
                    Err(e) if e.error_len().is_none() => {
                        let tail = carry.split_off(e.valid_up_to());
                        carry = tail;
                    }
                    Err(_) => utf8 = false,
                }
                if terminated {
                    utf8 &= carry.is_empty();
                }
            }
            _ => {}
        }
        n += end as u64;
        r.consume(end);
        if terminated {
            if let Kept::BadStart { column, .. } = kept {
                kept = Kept::BadStart { column, utf8 };
            }
            if kept == Kept::Whole {
                buf.pop();
            }
            return Ok(RawLine { n, terminated: true, kept });
        }
    }
}

/// Reads a JSONL stream line by line into JSON objects, keeping the report.
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Longest line kept, in bytes.
    max_line: u64,
    /// 1-based number of the last line returned or skipped.
    pub line: u64,
    /// Byte offset just past the last line consumed.
    pub offset: u64,
    /// Byte offset where the last line returned or skipped starts.
    pub line_start: u64,
}

/// One line's outcome.
pub(crate) enum Line {
    /// A JSON object (line number in [`LineReader::line`]).
    Object(serde_json::Map<String, Value>),
    /// A line whose JSON parse was not needed (before `emit_from_line`).
    Unparsed,
}

impl<R: BufRead> LineReader<R> {
    /// A reader keeping lines of at most `max_line` bytes (longer ones are
    /// skipped as [`SkipReason::TooLong`]).
    pub(crate) fn new(inner: R, max_line: u64) -> Self {
        LineReader { inner, buf: Vec::with_capacity(64 * 1024), max_line, line: 0, offset: 0, line_start: 0 }
    }

    /// The next line, or `None` at end of input. Skipped lines are recorded
    /// in `report` and not returned. Lines numbered below `parse_from` are
    /// counted but not parsed ([`Line::Unparsed`]), except line 1 (a header)
    /// and a torn tail.
    pub(crate) fn next(&mut self, report: &mut ReadReport, parse_from: u64) -> Result<Option<Line>> {
        loop {
            let raw = read_line_bounded(&mut self.inner, &mut self.buf, self.max_line).map_err(|e| Error::io("reading a session file", e))?;
            let n = raw.n;
            if n == 0 {
                return Ok(None);
            }
            let start = self.offset;
            self.line_start = start;
            self.line += 1;
            report.lines += 1;
            let terminated = raw.terminated;
            if raw.kept != Kept::Whole {
                self.offset += n;
                if terminated {
                    report.bytes = self.offset;
                    if self.line > 1 && self.line < parse_from {
                        return Ok(Some(Line::Unparsed));
                    }
                }
                let reason = match raw.kept {
                    Kept::TooLong => SkipReason::TooLong,
                    _ if !terminated => SkipReason::TornTail,
                    Kept::BadStart { utf8: false, .. } => SkipReason::InvalidUtf8,
                    Kept::BadStart { column, .. } => SkipReason::InvalidJson { column },
                    Kept::Whole => unreachable!("handled above"),
                };
                report.skipped.push(SkippedLine { line: self.line, offset: start, reason });
                continue;
            }
            let n = n as usize;
            if self.buf.iter().all(|b| b.is_ascii_whitespace()) {
                self.offset += n as u64;
                if terminated {
                    report.bytes = self.offset;
                }
                report.blank_lines += 1;
                continue;
            }
            if terminated && self.line > 1 && self.line < parse_from {
                self.offset += n as u64;
                report.bytes = self.offset;
                return Ok(Some(Line::Unparsed));
            }
            let parsed = match serde_json::from_slice::<Value>(&self.buf) {
                Ok(v) => Ok(v),
                Err(e) => match fix_lone_surrogates(&self.buf) {
                    Some(fixed) => match serde_json::from_slice::<Value>(&fixed) {
                        Ok(v) => {
                            report.surrogates_replaced.push(self.line);
                            Ok(v)
                        }
                        Err(_) => Err(e),
                    },
                    None => Err(e),
                },
            };
            match parsed {
                Ok(Value::Object(m)) => {
                    self.offset += n as u64;
                    report.bytes = self.offset;
                    if !terminated {
                        report.missing_final_newline = true;
                    }
                    return Ok(Some(Line::Object(m)));
                }
                Ok(_) if terminated => {
                    self.offset += n as u64;
                    report.bytes = self.offset;
                    report.skipped.push(SkippedLine { line: self.line, offset: start, reason: SkipReason::NotAnObject });
                }
                Ok(_) => {
                    // A bare scalar at the very end without newline: treat as torn (e.g. a cut number).
                    report.skipped.push(SkippedLine { line: self.line, offset: start, reason: SkipReason::TornTail });
                    self.offset += n as u64;
                }
                Err(e) => {
                    let reason = if !terminated {
                        SkipReason::TornTail
                    } else if std::str::from_utf8(&self.buf).is_err() {
                        SkipReason::InvalidUtf8
                    } else {
                        SkipReason::InvalidJson { column: e.column() as u64 }
                    };
                    self.offset += n as u64;
                    if terminated {
                        report.bytes = self.offset;
                    }
                    report.skipped.push(SkippedLine { line: self.line, offset: start, reason });
                }
            }
        }
    }
}

/// Replace every `\uD800`–`\uDFFF` escape that is not part of a valid
/// high+low pair with `\uFFFD`. Returns `None` when there was nothing to fix.
/// Escaped backslashes (`\\ud800`, literal text) are left alone.
pub(crate) fn fix_lone_surrogates(line: &[u8]) -> Option<Vec<u8>> {
    fn hex4(b: &[u8]) -> Option<u16> {
        if b.len() < 4 {
            return None;
        }
        let s = std::str::from_utf8(&b[..4]).ok()?;
        u16::from_str_radix(s, 16).ok()
    }
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    let mut changed = false;
    while i < line.len() {
        if line[i] == b'\\' && i + 1 < line.len() {
            if line[i + 1] == b'u' {
                if let Some(cu) = hex4(&line[i + 2..]) {
                    if (0xD800..=0xDBFF).contains(&cu) {
                        let next = &line[i + 6..];
                        let low = if next.len() >= 6 && next[0] == b'\\' && next[1] == b'u' { hex4(&next[2..]) } else { None };
                        if matches!(low, Some(l) if (0xDC00..=0xDFFF).contains(&l)) {
                            out.extend_from_slice(&line[i..i + 12]);
                            i += 12;
                            continue;
                        }
                        out.extend_from_slice(b"\\ufffd");
                        changed = true;
                        i += 6;
                        continue;
                    }
                    if (0xDC00..=0xDFFF).contains(&cu) {
                        out.extend_from_slice(b"\\ufffd");
                        changed = true;
                        i += 6;
                        continue;
                    }
                }
            }
            out.extend_from_slice(&line[i..i + 2]);
            i += 2;
            continue;
        }
        out.push(line[i]);
        i += 1;
    }
    changed.then_some(out)
}

/// Parse an RFC 3339 / ISO 8601 timestamp (`2026-02-23T19:34:25.573Z`,
/// `...+02:00`, fraction optional) into milliseconds since the Unix epoch.
pub fn parse_iso8601_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !(b[10] == b'T' || b[10] == b't' || b[10] == b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { s.get(r)?.parse::<i64>().ok() };
    let (y, mo, d, h, mi, se) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut i = 19;
    let mut ms = 0i64;
    if i < b.len() && (b[i] == b'.' || b[i] == b',') {
        i += 1;
        let mut digits = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            if digits < 3 {
                ms = ms * 10 + i64::from(b[i] - b'0');
            }
            digits += 1;
            i += 1;
        }
        if digits == 0 {
            return None;
        }
        for _ in digits..3 {
            ms *= 10;
        }
    }
    let offset_min = match b.get(i) {
        None => 0,
        Some(b'Z') | Some(b'z') if i + 1 == b.len() => 0,
        Some(&c @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
            let v = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
            if c == b'+' {
                v
            } else {
                -v
            }
        }
        _ => return None,
    };
    // Days from civil (Howard Hinnant's algorithm).
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + mi * 60 + se) - offset_min * 60) * 1000 + ms)
}

/// A JSON timestamp as ms since the epoch: an ISO string, or a number of
/// seconds (values above 10^11 are taken as milliseconds already).
pub(crate) fn json_time_ms(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::String(s) => parse_iso8601_ms(s),
        Value::Number(n) => {
            let x = n.as_i64().or_else(|| n.as_f64().map(|f| f as i64))?;
            Some(if x.unsigned_abs() > 100_000_000_000 { x } else { x * 1000 })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso8601_parses_utc_and_offsets() {
        assert_eq!(parse_iso8601_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso8601_ms("2026-02-23T19:34:25.573Z"), Some(1_771_875_265_573));
        assert_eq!(parse_iso8601_ms("2026-02-23T20:34:25.573+01:00"), Some(1_771_875_265_573));
        assert_eq!(parse_iso8601_ms("2026-02-23T19:34:25.5Z"), Some(1_771_875_265_500));
        assert_eq!(parse_iso8601_ms("not a date"), None);
    }

    #[test]
    fn lone_surrogates_are_replaced_pairs_kept() {
        assert_eq!(fix_lone_surrogates(br#"{"a":"\ud800x"}"#).unwrap(), br#"{"a":"\ufffdx"}"#.to_vec());
        assert_eq!(fix_lone_surrogates(br#"{"a":"\udc00"}"#).unwrap(), br#"{"a":"\ufffd"}"#.to_vec());
        assert!(fix_lone_surrogates(br#"{"a":"\ud83d\ude00"}"#).is_none());
        assert!(fix_lone_surrogates(br#"{"a":"\\ud800"}"#).is_none());
    }

    /// The line buffer never reserves more than the limit and a newline,
    /// whatever the chunks it is filled by (`Vec`'s doubling reserved up to
    /// twice the limit).
    #[test]
    fn the_line_buffer_stays_within_the_limit_and_a_newline() {
        let max = 10_000usize;
        for (len, chunk) in [(max, 64), (max + 1, 64), (3 * max, 700), (max - 1, 4096), (5_000, 1)] {
            let mut input = vec![b'"'; len];
            input.push(b'\n');
            input.extend_from_slice(b"{}\n");
            let mut r = std::io::BufReader::with_capacity(chunk, input.as_slice());
            let mut buf = Vec::new();
            let line = read_line_bounded(&mut r, &mut buf, max as u64).unwrap();
            assert_eq!(line.n, len as u64 + 1);
            assert_eq!(line.kept, if len > max { Kept::TooLong } else { Kept::Whole }, "{len}");
            assert_eq!(buf.len(), len.min(max));
            assert!(buf.capacity() <= max + 1, "{len} bytes in chunks of {chunk}: capacity {}", buf.capacity());
            let next = read_line_bounded(&mut r, &mut buf, max as u64).unwrap();
            assert_eq!((next.n, next.kept, buf.as_slice()), (3, Kept::Whole, &b"{}"[..]));
        }
    }
}
