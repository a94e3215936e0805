//! Output shared by the commands: escaping of stored and typed text, times
//! (ISO 8601, or relative on a terminal), terminal detection and fitting
//! text to the terminal's width (by display width: CJK and emoji count 2).
//!
//! Two hidden environment variables make terminal output testable:
//! `SESSIONDB_TERM_WIDTH=N` treats stdout as a terminal of N columns, and
//! `SESSIONDB_NOW_MS=T` fixes "now" (ms since the epoch) for relative times.

use std::io::{IsTerminal, Write};
use std::path::Path;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// How text output is laid out: for a terminal (relative times, lines
/// fitted to `width`) or for a pipe (ISO times, lines as they are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    /// Columns of the terminal; `None` when stdout is not a terminal.
    pub width: Option<usize>,
    /// "Now", ms since the epoch (relative times).
    pub now_ms: i64,
}

impl Term {
    /// Stdout as it is: a terminal of its width (80 when unknown), or not.
    pub fn detect() -> Term {
        let now_ms = std::env::var("SESSIONDB_NOW_MS").ok().and_then(|v| v.parse().ok()).unwrap_or_else(sessiondb::store::now_ms);
        let forced = std::env::var("SESSIONDB_TERM_WIDTH").ok().and_then(|v| v.parse::<usize>().ok()).filter(|w| *w >= 20);
        let width = forced.or_else(|| {
            std::io::stdout().is_terminal().then(|| {
                let (_, cols) = console::Term::stdout().size();
                if cols >= 20 {
                    usize::from(cols)
                } else {
                    80
                }
            })
        });
        Term { width, now_ms }
    }

    /// A time as this output shows it: relative on a terminal (`3 days
    /// ago`), ISO 8601 otherwise.
    pub fn time(&self, ms: i64) -> String {
        if self.width.is_some() {
            relative_time(ms, self.now_ms)
        } else {
            fmt_time(ms)
        }
    }
}

/// RFC 3339 of a time in ms (`2026-02-23T19:35:58Z`); a time beyond year
/// 9999 (a damaged row) is shown as the number it is, never a panic.
pub fn fmt_time(ms: i64) -> String {
    let mut v = Vec::with_capacity(20);
    write_time(&mut v, ms).expect("writing to a Vec");
    String::from_utf8(v).expect("ASCII")
}

/// [`fmt_time`] written to `out` without allocating: the date by Howard
/// Hinnant's `civil_from_days` (proleptic Gregorian, exact for every day
/// of years 1970..=9999; "chrono-Compatible Low-Level Date Algorithms"),
/// the same text `humantime::format_rfc3339_seconds` writes (issue 33
/// item 4: one per entry `show` prints).
pub fn write_time(out: &mut impl Write, ms: i64) -> std::io::Result<()> {
    const YEAR_10000_MS: i64 = 253_402_300_800_000;
    if !(0..YEAR_10000_MS).contains(&ms) {
        return write!(out, "<time {ms} ms out of range>");
    }
    let secs = ms / 1000;
    let (days, sod) = (secs / 86_400, secs % 86_400);
    let z = days + 719_468;
    let (era, doe) = (z / 146_097, z % 146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut b = *b"0000-00-00T00:00:00Z";
    for (at, width, v) in [(0, 4, year), (5, 2, month), (8, 2, day), (11, 2, sod / 3600), (14, 2, sod / 60 % 60), (17, 2, sod % 60)] {
        let mut v = v;
        for i in (at..at + width).rev() {
            b[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    }
    out.write_all(&b)
}

/// `ms` relative to `now_ms` in words: `just now` (under a minute),
/// `1 minute ago`, `5 hours ago`, `3 days ago`, `2 weeks ago`, `4 months
/// ago`, `1 year ago`; a time ahead of now is `in 3 days` and so on.
pub fn relative_time(ms: i64, now_ms: i64) -> String {
    let delta = now_ms.saturating_sub(ms);
    let secs = delta.unsigned_abs() / 1000;
    if secs < 60 {
        return "just now".into();
    }
    const UNITS: [(u64, &str); 6] =
        [(365 * 86_400, "year"), (30 * 86_400, "month"), (7 * 86_400, "week"), (86_400, "day"), (3_600, "hour"), (60, "minute")];
    let (n, unit) = UNITS.iter().find(|(s, _)| secs >= *s).map(|(s, u)| (secs / s, *u)).expect("secs >= 60");
    let plural = if n == 1 { "" } else { "s" };
    if delta >= 0 {
        format!("{n} {unit}{plural} ago")
    } else {
        format!("in {n} {unit}{plural}")
    }
}

/// A path in a message or report line: control characters escaped (a file
/// name found by walking a directory may hold terminal escapes).
pub fn shown_path(p: &Path) -> String {
    shown(&p.to_string_lossy())
}

/// Unicode bidirectional formatting characters (marks, embeddings,
/// overrides, isolates: U+061C, U+200E, U+200F, U+202A..=U+202E,
/// U+2066..=U+2069). Written raw, an override reverses the rest of the
/// terminal line (a title or turn could disguise what follows it, the
/// "Trojan Source" trick), so they are escaped like control characters.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Text the user typed, shown in a message: control characters and bidi
/// controls ([`is_bidi_control`]) escaped.
pub fn shown(s: &str) -> String {
    if !s.bytes().fold(false, |any, b| any | is_escape_lead(b) | (b == b'\n') | (b == b'\t')) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || is_bidi_control(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// Write stored text (a turn, a workspace path) as `show` prints it:
/// control characters escaped except newline and tab (and bidi controls,
/// [`is_bidi_control`]), so a session imported from someone else's file
/// cannot run terminal escapes nor reorder the line (`--json` and
/// `export` keep the text as stored). Runs without control characters are
/// written as they are: no allocation per character (issue 33).
pub fn write_shown_text(out: &mut impl Write, s: &str) -> std::io::Result<()> {
    let bytes = s.as_bytes();
    let mut start = 0;
    // Each 32-byte chunk's lead bytes as a bitmask (issue 33: the
    // byte-at-a-time scan was 45% of `show --raw`'s instructions; then a
    // chunk holding one lead byte was looked at byte by byte). Only lead
    // bytes can begin a character that is escaped (see [`is_escape_lead`])
    // and none is a continuation byte, so a lead is on a character
    // boundary; a character decoded at one may run into the next chunk,
    // whose mask has no bit for its continuation bytes.
    for_each_flagged(bytes, is_escape_lead, |i| -> std::io::Result<()> {
        let c = s[i..].chars().next().expect("a character starts at a lead byte");
        if c.is_control() || is_bidi_control(c) {
            out.write_all(&bytes[start..i])?;
            write!(out, "{}", c.escape_debug())?;
            start = i + c.len_utf8();
        }
        Ok(())
    })?;
    out.write_all(&bytes[start..])
}

/// Call `f` with the index of each byte of `bytes` for which `flag` holds,
/// in order, stopping at its first error. The bytes are tested 32 at a
/// time into a bitmask (`flag` must be branch-free, `|` and `&` of
/// comparisons, so that the compiler vectorizes the test), then only the
/// set bits are visited: a run of plain text costs a few instructions per
/// 32 bytes however many flagged bytes its neighbours hold.
fn for_each_flagged<E>(bytes: &[u8], flag: impl Fn(u8) -> bool, mut f: impl FnMut(usize) -> Result<(), E>) -> Result<(), E> {
    let mut chunks = bytes.chunks_exact(32);
    let mut base = 0;
    for chunk in &mut chunks {
        let chunk: &[u8; 32] = chunk.try_into().expect("32 bytes");
        // Most chunks of prose hold no flagged byte: a cheaper test first.
        if !chunk.iter().fold(false, |any, &b| any | flag(b)) {
            base += 32;
            continue;
        }
        let mut mask = flag_mask(chunk, &flag);
        while mask != 0 {
            f(base + mask.trailing_zeros() as usize)?;
            mask &= mask - 1;
        }
        base += 32;
    }
    for (j, &b) in chunks.remainder().iter().enumerate() {
        if flag(b) {
            f(base + j)?;
        }
    }
    Ok(())
}

/// Bit `j` set when `flag(chunk[j])`. The flags are computed into bytes of
/// 0 or 1 (a loop the compiler vectorizes: `flag` is branch-free), then
/// gathered 8 at a time by one multiplication: with byte `i` of `w` 0 or 1,
/// `w * 0x0102040810204080` has byte `i` at bit `56 + i` and no carry into
/// bits 56..=63 from the other partial products (each lands on a distinct
/// bit). About 1.4 instructions a byte, branch-free (no `unsafe`
/// intrinsics: the workspace denies unsafe code).
#[inline(always)]
fn flag_mask(chunk: &[u8; 32], flag: &impl Fn(u8) -> bool) -> u32 {
    let mut flags = [0u8; 32];
    for (f, &b) in flags.iter_mut().zip(chunk) {
        *f = u8::from(flag(b));
    }
    let mut mask = 0u32;
    for (k, w) in flags.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        mask |= ((w.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32) << (8 * k);
    }
    mask
}

/// `s` as a JSON string, quotes included, escaped exactly as serde_json
/// escapes (`"` and `\\` with a backslash; backspace, form feed, newline,
/// carriage return and tab as `\b \f \n \r \t`; every other byte below
/// 0x20 as `\u00XX` in lowercase hex; nothing else), found 32 bytes at a
/// time into a bitmask ([`for_each_flagged`]) instead of serde_json's
/// byte-at-a-time loop (issue 33 item 4: `show --json`).
pub fn write_json_str(out: &mut impl Write, s: &str) -> std::io::Result<()> {
    #[inline(always)]
    fn escaped(b: u8) -> bool {
        (b < 0x20) | (b == b'"') | (b == b'\\')
    }
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.write_all(b"\"")?;
    let bytes = s.as_bytes();
    let mut start = 0;
    for_each_flagged(bytes, escaped, |i| {
        out.write_all(&bytes[start..i])?;
        start = i + 1;
        match bytes[i] {
            b'"' => out.write_all(b"\\\""),
            b'\\' => out.write_all(b"\\\\"),
            0x08 => out.write_all(b"\\b"),
            0x0c => out.write_all(b"\\f"),
            b'\n' => out.write_all(b"\\n"),
            b'\r' => out.write_all(b"\\r"),
            b'\t' => out.write_all(b"\\t"),
            b => out.write_all(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]),
        }
    })?;
    out.write_all(&bytes[start..])?;
    out.write_all(b"\"")
}

/// `n` in decimal, the digits `Display` (and serde_json) write, without
/// the formatting machinery (`show --json`: a few numbers per entry).
pub fn write_decimal(out: &mut (impl Write + ?Sized), n: u64) -> std::io::Result<()> {
    let mut buf = [0u8; 20];
    out.write_all(sessiondb::crypto::decimal(n, &mut buf))
}

/// Can `b` begin a character that [`write_shown_text`] escapes? ASCII
/// controls but newline and tab, and DEL; 0xC2, the lead byte of
/// U+0080..=U+00BF (the C1 controls); 0xD8 (U+061C); 0xE2 (U+200E, U+200F,
/// U+202A..=U+202E, U+2066..=U+2069). Branch-free (`|`, `&` of comparisons)
/// so that a loop over bytes vectorizes.
#[inline(always)]
fn is_escape_lead(b: u8) -> bool {
    (b < 0x20) & (b != b'\n') & (b != b'\t') | (b == 0x7f) | (b == 0xc2) | (b == 0xd8) | (b == 0xe2)
}

/// [`write_shown_text`] into a `String`.
pub fn shown_text(s: &str) -> String {
    let mut v = Vec::with_capacity(s.len());
    write_shown_text(&mut v, s).expect("writing to a Vec");
    String::from_utf8(v).expect("escaping keeps UTF-8")
}

/// Display width of `s` (East Asian wide characters and emoji count 2).
///
/// The printable ASCII at the end of `s` is counted by its length, the
/// rest by `unicode-width`: exact, because `unicode-width` (0.2) sums the
/// characters from the last one back, each seeing what follows it, and a
/// printable ASCII character is 1 column and leaves what the character
/// before it sees as at the end of a string (`WidthInfo::DEFAULT`, its
/// `lookup::width_in_generic`). Issue 33 item 4: a tool call's summary line
/// (`→ bash · 25 B  PREVIEW`) is ASCII but for its arrow and dot, and
/// measuring it character by character was most of its cost.
pub fn width(s: &str) -> usize {
    let bytes = s.as_bytes();
    // 32 bytes at a time from the end (a test that vectorizes), then byte by byte.
    let mut head_end = bytes.len();
    while head_end >= 32 && printable_ascii_bytes(&bytes[head_end - 32..head_end]) {
        head_end -= 32;
    }
    while head_end > 0 && (0x20..0x7f).contains(&bytes[head_end - 1]) {
        head_end -= 1;
    }
    let tail = bytes.len() - head_end;
    let head = &s[..s.len() - tail];
    if head.is_empty() {
        return tail;
    }
    UnicodeWidthStr::width(head) + tail
}

/// Is every byte of `s` printable ASCII (0x20..=0x7E, one column each)?
/// Branch-free, so it vectorizes (issue 33: `show`'s summaries).
fn printable_ascii(s: &str) -> bool {
    printable_ascii_bytes(s.as_bytes())
}

/// [`printable_ascii`] of bytes.
fn printable_ascii_bytes(b: &[u8]) -> bool {
    b.iter().fold(true, |all, &b| all & (0x20..0x7f).contains(&b))
}

/// `s` cut to at most `max` columns, ending with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if printable_ascii(s) {
        return format!("{}…", &s[..max.saturating_sub(1)]);
    }
    // The longest prefix whose characters' widths and the ellipsis fit
    // (printable ASCII is 1 column, without decoding it).
    let (mut w, mut cut) = (0, 0);
    while cut < s.len() {
        let b = s.as_bytes()[cut];
        let (cw, len) = if (0x20..0x7f).contains(&b) {
            (1, 1)
        } else {
            let c = s[cut..].chars().next().expect("cut is on a character boundary");
            (c.width().unwrap_or(0), c.len_utf8())
        };
        if w + cw + 1 > max {
            break;
        }
        w += cw;
        cut += len;
    }
    let mut out = String::with_capacity(cut + '…'.len_utf8());
    out.push_str(&s[..cut]);
    out.push('…');
    out
}

/// `s` padded with spaces to `w` columns (left-aligned).
pub fn pad(s: &str, w: usize) -> String {
    let mut out = s.to_string();
    out.extend(std::iter::repeat_n(' ', w.saturating_sub(width(s))));
    out
}

/// Write `text` with every line prefixed by `indent`, wrapped to `columns`
/// (display width, words kept whole where they fit) when given, escaped as
/// [`write_shown_text`]. Blank lines stay blank (no trailing spaces).
pub fn write_block(out: &mut impl Write, text: &str, indent: &str, columns: Option<usize>) -> std::io::Result<()> {
    let Some(cols) = columns else {
        return write_lines(out, text, indent);
    };
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            out.write_all(b"\n")?;
            continue;
        }
        // Continuation lines keep the line's own indent (lists, code).
        let escaped = shown_text(&line.replace('\t', "    "));
        let body = escaped.trim_start_matches(' ');
        let lead = format!("{indent}{}", &escaped[..escaped.len() - body.len()]);
        let opts = textwrap::Options::new(cols.max(width(&lead) + 10)).initial_indent(&lead).subsequent_indent(&lead).break_words(true);
        for part in textwrap::wrap(body, opts) {
            writeln!(out, "{part}")?;
        }
    }
    Ok(())
}

/// [`write_block`] without a width, in one pass over `text`: the same
/// bytes as writing, for each line of `text.split('\n')` with one trailing
/// `\r` removed, `\n` alone when it is blank (`trim` leaves nothing),
/// else `indent`, the line through [`write_shown_text`] and `\n`. Newlines
/// and the bytes that can begin an escaped character are found together,
/// 32 bytes at a time ([`for_each_flagged`]); a line is looked at as a
/// whole only when it does not begin with spaces or tabs then printable
/// ASCII (it may be blank). Issue 33 item 4: splitting and trimming each line, then
/// scanning it again, was a fifth of readable `show`.
fn write_lines(out: &mut impl Write, text: &str, indent: &str) -> std::io::Result<()> {
    /// Where the writing stands: bytes before `start` are written (or
    /// dropped); flagged bytes before `skip` belong to lines already
    /// written whole; `done` when the last line is.
    struct At {
        start: usize,
        skip: usize,
        done: bool,
    }
    /// Begin the line at byte `at`: blank lines there are written as `\n`
    /// (as many as follow each other), then the indent of the first line
    /// that is not.
    fn begin(out: &mut impl Write, text: &str, indent: &str, mut at: usize, st: &mut At) -> std::io::Result<()> {
        let bytes = text.as_bytes();
        loop {
            // Spaces and tabs, then printable ASCII: not blank (the usual case, code included).
            let lead = bytes[at.min(bytes.len())..].iter().position(|&b| b != b' ' && b != b'\t').map(|n| bytes[at + n]);
            if !matches!(lead, Some(b) if b > b' ' && b < 0x7f) {
                let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
                let line = &text[at..end];
                if line.strip_suffix('\r').unwrap_or(line).trim().is_empty() {
                    out.write_all(b"\n")?;
                    if end == text.len() {
                        (st.start, st.skip, st.done) = (end, end, true);
                        return Ok(());
                    }
                    at = end + 1;
                    continue;
                }
            }
            out.write_all(indent.as_bytes())?;
            (st.start, st.skip) = (at, at);
            return Ok(());
        }
    }
    let bytes = text.as_bytes();
    let mut st = At { start: 0, skip: 0, done: false };
    begin(out, text, indent, 0, &mut st)?;
    for_each_flagged(bytes, |b| is_escape_lead(b) | (b == b'\n'), |i| -> std::io::Result<()> {
        if st.done || i < st.skip {
            return Ok(());
        }
        if bytes[i] == b'\n' {
            out.write_all(&bytes[st.start..i])?;
            out.write_all(b"\n")?;
            return begin(out, text, indent, i + 1, &mut st);
        }
        let c = text[i..].chars().next().expect("a character starts at a lead byte");
        if c == '\r' && bytes.get(i + 1).is_none_or(|&b| b == b'\n') {
            // The line's one trailing `\r`: dropped.
            out.write_all(&bytes[st.start..i])?;
            st.start = i + 1;
        } else if c.is_control() || is_bidi_control(c) {
            out.write_all(&bytes[st.start..i])?;
            write!(out, "{}", c.escape_debug())?;
            st.start = i + c.len_utf8();
        }
        Ok(())
    })?;
    if !st.done {
        out.write_all(&bytes[st.start..])?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// A size in bytes as `812 B`, `1.2 KB`, `3.4 MB` (powers of 1000).
pub fn size(bytes: usize) -> String {
    match bytes {
        b if b < 1000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} KB", b as f64 / 1e3),
        b if b < 1_000_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b => format!("{:.1} GB", b as f64 / 1e9),
    }
}

/// Pretty JSON on stdout (a closed stdout is ignored).
pub fn print_json<T: serde::Serialize>(v: &T) {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let _ = serde_json::to_writer_pretty(&mut out, v).map_err(std::io::Error::from).and_then(|()| out.write_all(b"\n"));
    let _ = out.flush();
}

/// A warning on stderr: `sessiondb: warning: ...`, or under `--json` one
/// `{"warning": {"kind", "message"}}` line.
pub fn warn(json: bool, kind: &str, message: &str) {
    if json {
        eprintln!("{}", serde_json::json!({ "warning": { "kind": kind, "message": message } }));
    } else {
        eprintln!("sessiondb: warning: {message}");
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn json_strings_are_escaped_as_serde_json_escapes_them() {
        // Every byte below 0x80 alone, then in a run long enough for the
        // 32-byte steps, at the start, the middle and the end.
        let mut texts: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        texts.push((0u8..0x80).map(char::from).collect::<String>().repeat(3));
        texts.push(format!("{}\"{}\\{}\u{1f}", "a".repeat(31), "é日本\u{202e}".repeat(9), "b".repeat(64)));
        texts.push(String::new());
        for t in texts {
            let mut ours = Vec::new();
            write_json_str(&mut ours, &t).unwrap();
            assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string(&t).unwrap(), "{t:?}");
        }
    }

    use super::*;

    #[test]
    fn relative_times_in_words() {
        let now = 1_800_000_000_000;
        let ago = |s: i64| relative_time(now - s * 1000, now);
        assert_eq!(ago(0), "just now");
        assert_eq!(ago(59), "just now");
        assert_eq!(ago(60), "1 minute ago");
        assert_eq!(ago(3599), "59 minutes ago");
        assert_eq!(ago(2 * 3600), "2 hours ago");
        assert_eq!(ago(3 * 86_400 + 5), "3 days ago");
        assert_eq!(ago(14 * 86_400), "2 weeks ago");
        assert_eq!(ago(61 * 86_400), "2 months ago");
        assert_eq!(ago(366 * 86_400), "1 year ago");
        assert_eq!(ago(-3 * 86_400), "in 3 days");
    }

    #[test]
    fn truncate_and_pad_by_display_width() {
        assert_eq!(truncate("hello world", 8), "hello w…");
        assert_eq!(truncate("hello", 5), "hello");
        // Each CJK character is 2 columns.
        // Thai vowel marks are 0 columns: "สวัสดีครับ" is 7.
        assert_eq!(truncate("สวัสดีครับ日本語のテキスト", 12), "สวัสดีครับ日本…");
        assert_eq!(width(&truncate("日本語のテキスト", 7)), 7);
        assert_eq!(pad("日本", 6), "日本  ");
    }

    #[test]
    fn bidi_controls_are_escaped() {
        assert_eq!(shown("a\u{202e}b\u{2066}c\u{200b}d"), "a\\u{202e}b\\u{2066}c\u{200b}d");
        assert_eq!(shown_text("x\u{202e}y\n\u{200f}"), "x\\u{202e}y\n\\u{200f}");
    }

    #[test]
    fn shown_text_escapes_every_control_and_bidi_character_as_the_char_by_char_rule_does() {
        // Every character of U+0000..=U+206F and a few beyond, alone and between others.
        let mut text = String::new();
        for c in (0u32..=0x206f).chain([0x2070, 0x3000, 0xfeff, 0x1f600]).filter_map(char::from_u32) {
            text.push('a');
            text.push(c);
        }
        let mut expected = String::new();
        for c in text.chars() {
            if (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c) {
                expected.extend(c.escape_debug());
            } else {
                expected.push(c);
            }
        }
        assert_eq!(shown_text(&text), expected);
        assert_eq!(shown_text("\u{85}\u{9f}\u{a0}é\u{61c}\u{200e}\u{2069}"), "\\u{85}\\u{9f}\u{a0}é\\u{61c}\\u{200e}\\u{2069}");
    }

    #[test]
    fn lead_bytes_are_exactly_those_that_can_begin_an_escaped_character() {
        let leads: Vec<u8> = (0u8..=255).filter(|&b| is_escape_lead(b)).collect();
        let mut expected: Vec<u8> = (0u8..0x20).filter(|&b| b != b'\n' && b != b'\t').collect();
        expected.extend([0x7f, 0xc2, 0xd8, 0xe2]);
        assert_eq!(leads, expected);
    }

    #[test]
    fn shown_text_escapes_at_every_offset_of_long_plain_runs() {
        // Each escaped (and each lead-byte but kept) character at offsets 0..=40 of a
        // 80-byte plain run, so the 32-byte path meets it at every position of a chunk.
        for c in ['\u{0}', '\u{1b}', '\n', '\t', '\u{7f}', '\u{85}', '\u{a0}', 'é', '\u{61c}', 'ؠ', '\u{200e}', '\u{202e}', '\u{2069}', '\u{2070}', '€'] {
            for at in 0..=40 {
                let text: String = "x".repeat(at) + &c.to_string() + &"y".repeat(80 - at);
                let expected: String = text
                    .chars()
                    .flat_map(|c| {
                        let esc = (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c);
                        if esc { c.escape_debug().collect::<Vec<_>>() } else { vec![c] }
                    })
                    .collect();
                assert_eq!(shown_text(&text), expected, "{c:?} at {at}");
            }
        }
    }

    #[test]
    fn ascii_fast_paths_agree_with_the_unicode_rule() {
        // width, truncate and shown on printable ASCII take a shortcut; the answers are the general ones.
        let reference_truncate = |s: &str, max: usize| -> String {
            if UnicodeWidthStr::width(s) <= max {
                return s.to_string();
            }
            let mut out = String::new();
            let mut w = 0;
            for c in s.chars() {
                let cw = c.width().unwrap_or(0);
                if w + cw + 1 > max {
                    break;
                }
                out.push(c);
                w += cw;
            }
            out.push('…');
            out
        };
        let ascii: String = (0x20u8..0x7f).map(char::from).collect();
        for len in 0..=ascii.len() {
            let s = &ascii[..len];
            assert_eq!(width(s), UnicodeWidthStr::width(s));
            assert_eq!(shown(s), s);
            for max in 0..=len + 2 {
                assert_eq!(truncate(s, max), reference_truncate(s, max), "{len} {max}");
            }
        }
        assert_eq!(shown("a\tb\nc"), "a\\tb\\nc");
        assert_eq!(truncate("tab\there and more", 6), reference_truncate("tab\there and more", 6));
    }

    #[test]
    fn shown_text_escapes_control_characters_but_newline_and_tab() {
        assert_eq!(shown_text("a\u{1b}[31mred\n\tb"), "a\\u{1b}[31mred\n\tb");
        assert_eq!(shown("a\tb"), "a\\tb");
    }

    #[test]
    fn blocks_wrap_to_the_width_with_their_indent() {
        let mut v = Vec::new();
        write_block(&mut v, "one two three four five six\n\nseven\n  - eight nine ten eleven", "  ", Some(16)).unwrap();
        assert_eq!(String::from_utf8(v).unwrap(), "  one two three\n  four five six\n\n  seven\n    - eight nine\n    ten eleven\n");
        let mut v = Vec::new();
        write_block(&mut v, "one two three four five six", "  ", None).unwrap();
        assert_eq!(String::from_utf8(v).unwrap(), "  one two three four five six\n");
    }

    /// `write_block` without a width as it was written before the one-pass
    /// `write_lines`: each line split, trimmed and escaped on its own.
    fn lines_by_the_rule(text: &str, indent: &str) -> String {
        let mut out = String::new();
        for line in text.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.trim().is_empty() {
                out.push('\n');
                continue;
            }
            out.push_str(indent);
            out.push_str(&shown_text(line));
            out.push('\n');
        }
        out
    }

    #[test]
    fn lines_without_a_width_are_written_as_the_line_by_line_rule_writes_them() {
        let mut texts: Vec<String> = [
            "",
            "\n",
            "\n\n",
            "a",
            "a\n",
            "a\r\n",
            "a\r",
            "a\r\r\nb\r",
            "\r",
            "\r\n\r\n",
            " \t \r\n\u{a0}\n\u{3000}\u{85}\n\u{b}\u{c}\nx",
            "    let x = 1;\n\tcode\n  \n  - item",
            "\u{1b}[31mred\u{1b}[0m\n\u{202e}evil\u{2066}\n\u{0}\u{7f}\u{9f}é日本\u{200e}",
            "\n\n\nlast\n\n",
            " \u{1b}", 
            "\u{85}x\n\u{a0}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // A newline, a `\r` and each escaped character at every offset of a long line.
        for c in ['\n', '\r', '\u{1b}', '\u{202e}', '\u{85}', '\t', ' '] {
            for at in 0..=70 {
                texts.push(format!("{}{c}{}\n{}", "x".repeat(at), "y".repeat(70 - at), "  z".repeat(at)));
            }
        }
        // Huge: a megabyte of lines, some blank, some with escapes.
        texts.push((0..20_000).map(|i| format!("line {i}{}\r\n", if i % 7 == 0 { "\u{1b}" } else { "" }) + if i % 5 == 0 { " \n" } else { "" }).collect());
        for t in &texts {
            let mut ours = Vec::new();
            write_block(&mut ours, t, "  ", None).unwrap();
            assert_eq!(String::from_utf8(ours).unwrap(), lines_by_the_rule(t, "  "), "{t:?}");
        }
        let mut v = Vec::new();
        write_block(&mut v, "a\r\n\r\n  b\u{1b}c\r\r\n\t\n", "> ", None).unwrap();
        assert_eq!(String::from_utf8(v).unwrap(), "> a\n\n>   b\\u{1b}c\\r\n\n\n");
    }

    #[test]
    fn flagged_bytes_are_found_at_every_position_of_a_chunk() {
        // Every subset pattern of a few positions, in buffers of 0..=100 bytes.
        let mut seed = 33u64;
        for len in 0..=100 {
            for _ in 0..50 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        [b'a', b'"', b'\\', 0x1f, 0x20, 0x7f, 0xc2, 0xe2, 0xff, b'\n'][(seed >> 60) as usize % 10]
                    })
                    .collect();
                let flag = |b: u8| (b < 0x20) | (b == b'"') | (b == 0xe2);
                let mut found = Vec::new();
                for_each_flagged(&bytes, flag, |i| -> Result<(), ()> {
                    found.push(i);
                    Ok(())
                })
                .unwrap();
                let expected: Vec<usize> = (0..len).filter(|&i| flag(bytes[i])).collect();
                assert_eq!(found, expected, "{bytes:?}");
            }
        }
    }

    #[test]
    fn width_and_truncate_count_printable_ascii_as_unicode_width_does() {
        // Sequences whose width depends on what follows, each before and after ASCII.
        let parts = [
            "", "a", "  ", "→ bash · 25 B  ", "日本", "\u{231a}", "\u{231a}\u{fe0e}", "\u{fe0f}", "1\u{fe0f}\u{20e3}", "\u{1f468}\u{200d}\u{1f469}",
            "\u{1f44d}\u{1f3fd}", "\u{644}\u{627}", "<\u{338}", "\r", "\n", "\r\n", "\u{1b}", "\u{a0}", "\u{300}", "\u{1f1fa}\u{1f1f8}",
        ];
        for a in parts {
            for b in parts {
                for tail in ["", "x", " ascii tail = 1 <", "\u{fe0e}", &"long ascii tail ".repeat(5)] {
                    let s = format!("{a}{b}{tail}");
                    assert_eq!(width(&s), UnicodeWidthStr::width(s.as_str()), "{s:?}");
                    // truncate: the characters' widths, as it counted them one by one.
                    for max in 0..UnicodeWidthStr::width(s.as_str()) {
                        let mut expected = String::new();
                        let mut w = 0;
                        for c in s.chars() {
                            let cw = c.width().unwrap_or(0);
                            if w + cw + 1 > max {
                                break;
                            }
                            expected.push(c);
                            w += cw;
                        }
                        expected.push('…');
                        assert_eq!(truncate(&s, max), expected, "{s:?} {max}");
                    }
                }
            }
        }
    }

    #[test]
    fn decimals_are_written_as_display_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 1_767_225_600_000, u64::from(u32::MAX), i64::MAX as u64, u64::MAX - 1, u64::MAX] {
            let mut v = Vec::new();
            write_decimal(&mut v, n).unwrap();
            assert_eq!(String::from_utf8(v).unwrap(), n.to_string());
        }
    }

    #[test]
    fn times_are_written_as_humantime_writes_them() {
        let humantime = |ms: i64| humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms as u64)).to_string();
        // Every day from 1970 to 10000 at a varying time of day, and the edges.
        let day = 86_400_000_i64;
        let mut ms = 0;
        let mut k = 0;
        while ms < 253_402_300_800_000 {
            assert_eq!(fmt_time(ms), humantime(ms), "{ms}");
            k += 1;
            ms = k * day + (k * 7_654_321) % day;
        }
        for ms in [0, 999, 1000, 951_782_400_000, 4_107_542_399_999, 253_402_300_799_999] {
            assert_eq!(fmt_time(ms), humantime(ms), "{ms}");
        }
        assert_eq!(fmt_time(-1), "<time -1 ms out of range>");
        assert_eq!(fmt_time(253_402_300_800_000), "<time 253402300800000 ms out of range>");
    }

    #[test]
    fn sizes() {
        assert_eq!(size(812), "812 B");
        assert_eq!(size(1234), "1.2 KB");
        assert_eq!(size(3_400_000), "3.4 MB");
    }
}
