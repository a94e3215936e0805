//! JSONL line splitting shared by every reader.
//!
//! Rules (issue 4, item 2; DESIGN.md "Portable sessions"): records are split
//! on `\n` only (U+2028/U+2029 and `\r` are content); a last line without
//! `\n` that parses is accepted, one that does not (cut mid-object or mid
//! UTF-8 sequence) is a torn tail, skipped and reported; a bad line
//! elsewhere is reported with its line number and reading goes on. A lone
//! UTF-16 surrogate escape (`"\ud800"`, which serde_json rejects) is
//! replaced by U+FFFD and the line number reported.

use super::model::{ReadReport, SkipReason, SkippedLine};
use crate::{Error, Result};
use serde_json::Value;
use std::io::BufRead;

/// Reads a JSONL stream line by line into JSON objects, keeping the report.
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
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
    pub(crate) fn new(inner: R) -> Self {
        LineReader { inner, buf: Vec::with_capacity(64 * 1024), line: 0, offset: 0, line_start: 0 }
    }

    /// The next line, or `None` at end of input. Skipped lines are recorded
    /// in `report` and not returned. Lines numbered below `parse_from` are
    /// counted but not parsed ([`Line::Unparsed`]), except line 1 (a header)
    /// and a torn tail.
    pub(crate) fn next(&mut self, report: &mut ReadReport, parse_from: u64) -> Result<Option<Line>> {
        loop {
            self.buf.clear();
            let n = self.inner.read_until(b'\n', &mut self.buf).map_err(|e| Error::io("reading a session file", e))?;
            if n == 0 {
                return Ok(None);
            }
            let start = self.offset;
            self.line_start = start;
            self.line += 1;
            report.lines += 1;
            let terminated = self.buf.last() == Some(&b'\n');
            if terminated {
                self.buf.pop();
            }
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
}
