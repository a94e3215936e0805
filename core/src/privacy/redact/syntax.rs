//! gitleaks' regex dialect (Go RE2) in the regex crate's, and the compile
//! step of every rule and allowlist pattern. Moved out of redact.rs as they were.

use regex::Regex;

use crate::error::{Error, Result};

pub(super) fn compile(pattern: &str, what: &str) -> Result<Regex> {
    regex::RegexBuilder::new(&from_go_syntax(pattern))
        .size_limit(64 << 20)
        .build()
        .map_err(|e| Error::invalid(format!("{what}: the regex does not compile: {e}")))
}

/// A Go RE2 pattern (gitleaks' dialect) in the regex crate's: RE2 reads a
/// `{` that does not start a repetition (`{n}`, `{n,}`, `{n,m}`) as a
/// literal, the regex crate refuses it, so such a `{` is escaped; RE2's
/// `\w \d \s \b` (and negations) are ASCII, so they become the regex
/// crate's ASCII classes (`[[:word:]]`, `[[:digit:]]`, `[\t\n\f\r ]`,
/// `(?-u:\b)`).
pub(super) fn from_go_syntax(p: &str) -> String {
    let b = p.as_bytes();
    let mut out = String::with_capacity(p.len() + 4);
    let (mut i, mut class) = (0, false);
    while i < b.len() {
        let c = b[i];
        if c == b'\\' && i + 1 < b.len() {
            // Go's Perl classes and word boundary are ASCII; the regex
            // crate's are Unicode (larger automata, other matches).
            let ascii = match (b[i + 1], class) {
                (b'w', false) => Some("[[:word:]]"),
                (b'W', false) => Some("[^[:word:]]"),
                (b'd', false) => Some("[[:digit:]]"),
                (b'D', false) => Some("[^[:digit:]]"),
                (b's', false) => Some("[\\t\\n\\f\\r ]"),
                (b'S', false) => Some("[^\\t\\n\\f\\r ]"),
                (b'b', false) => Some("(?-u:\\b)"),
                (b'B', false) => Some("(?-u:\\B)"),
                (b'w', true) => Some("[:word:]"),
                (b'W', true) => Some("[:^word:]"),
                (b'd', true) => Some("[:digit:]"),
                (b'D', true) => Some("[:^digit:]"),
                (b's', true) => Some("\\t\\n\\f\\r "),
                _ => None,
            };
            if let Some(a) = ascii {
                out.push_str(a);
                i += 2;
                continue;
            }
            out.push_str(&p[i..i + 2 + (p[i + 1..].chars().next().unwrap().len_utf8() - 1)]);
            i += 1 + p[i + 1..].chars().next().unwrap().len_utf8();
            continue;
        }
        if class {
            if c == b']' {
                class = false;
            }
        } else if c == b'[' {
            class = true;
            // A `]` right after `[` or `[^` is a member, not the end.
            let start = if b.get(i + 1) == Some(&b'^') { i + 2 } else { i + 1 };
            if b.get(start) == Some(&b']') {
                out.push_str(&p[i..=start]);
                i = start + 1;
                continue;
            }
        } else if c == b'{' {
            let rest = &p[i + 1..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let after = &rest[digits..];
            let more = if let Some(r) = after.strip_prefix(',') { r.bytes().take_while(u8::is_ascii_digit).count() + 1 } else { 0 };
            if digits == 0 || rest.as_bytes().get(digits + more) != Some(&b'}') {
                out.push_str("\\{");
                i += 1;
                continue;
            }
        }
        let ch = p[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}
