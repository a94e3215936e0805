//! The search query language (issue 26 item 2; docs/search.md).
//!
//! ```text
//! query   := clause*            all clauses must match (AND)
//! clause  := atom ("OR" atom)*  any of the atoms (OR binds tighter than AND)
//!          | "-" atom           must not match
//!          | filter
//! atom    := word | word "*" | '"' phrase '"'
//! filter  := role:(user|assistant|tool|system)   session:<id>   model:<name>
//!          | after:<date>   before:<date>   (YYYY-MM-DD, UTC; or 30m 12h 7d 2w ago)
//!          | in:(text|tool|output|thinking|title)[,...]
//!          | workspace:(current|other|unbound|all)
//! ```
//!
//! Errors are `InvalidInput` naming the character position of what is
//! wrong, counting characters from one. Bounds: at most
//! [`MAX_QUERY_BYTES`] bytes and [`MAX_CLAUSES`] words, phrases and
//! filters; a prefix needs at least [`MIN_PREFIX_CHARS`] letters or digits.

use crate::error::{Error, Result};

/// Longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 4096;
/// Most words, phrases and filters in one query.
pub const MAX_CLAUSES: usize = 64;
/// Shortest prefix before `*`, in characters.
pub const MIN_PREFIX_CHARS: usize = 2;

/// One searchable atom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    /// A word (analysed like indexed text).
    Word(String),
    /// A prefix (the text before `*`).
    Prefix(String),
    /// An exact phrase.
    Phrase(String),
}

/// Text fields an atom is searched in.
pub const FIELDS: [&str; 5] = ["text", "tool", "output", "thinking", "title"];

/// A parsed query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// AND of groups; each group is an OR of atoms.
    pub groups: Vec<Vec<Atom>>,
    /// Atoms that must not match.
    pub excluded: Vec<Atom>,
    /// `role:` values (any of them).
    pub roles: Vec<String>,
    /// `session:` ids (any of them).
    pub sessions: Vec<String>,
    /// `model:` names, folded to lowercase (any of them).
    pub models: Vec<String>,
    /// `after:` bound, ms since the epoch (inclusive).
    pub after_ms: Option<i64>,
    /// `before:` bound, ms since the epoch (exclusive).
    pub before_ms: Option<i64>,
    /// `in:` fields (empty: all of [`FIELDS`]).
    pub fields: Vec<String>,
    /// `workspace:` scope.
    pub workspace: Option<String>,
}

fn err(pos: usize, what: impl std::fmt::Display) -> Error {
    Error::invalid(format!("search query: {what} at character {pos}"))
}

/// Parse `q` relative to `now_ms` (for `7d` and the like).
/// Errors: `InvalidInput` naming the position.
pub fn parse(q: &str, now_ms: i64) -> Result<Parsed> {
    if q.len() > MAX_QUERY_BYTES {
        return Err(Error::invalid(format!("search query: {} bytes is too long (at most {MAX_QUERY_BYTES})", q.len())));
    }
    let chars: Vec<char> = q.chars().collect();
    let mut p = Parsed::default();
    let mut i = 0usize;
    let mut clauses = 0usize;
    let mut pending_or = false;
    let mut or_pos = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let neg = chars[i] == '-' && chars.get(i + 1).is_some_and(|c| !c.is_whitespace());
        if neg {
            i += 1;
        }
        let atom_pos = i + 1;
        let atom;
        if chars[i] == '"' {
            let close = chars[i + 1..].iter().position(|&c| c == '"').ok_or_else(|| err(i + 1, "unclosed quote"))?;
            let text: String = chars[i + 1..i + 1 + close].iter().collect();
            i += close + 2;
            if text.trim().is_empty() {
                return Err(err(atom_pos, "empty phrase"));
            }
            atom = Atom::Phrase(text);
        } else {
            let end = chars[i..].iter().position(|c| c.is_whitespace()).map_or(chars.len(), |n| i + n);
            let raw: String = chars[i..end].iter().collect();
            i = end;
            if raw == "OR" && !neg {
                if pending_or || p.groups.is_empty() {
                    return Err(err(start + 1, "OR needs a word before it"));
                }
                pending_or = true;
                or_pos = start + 1;
                continue;
            }
            if let Some((key, value)) = raw.split_once(':') {
                if matches!(key, "role" | "session" | "model" | "after" | "before" | "in" | "workspace") {
                    if neg {
                        return Err(err(start + 1, "a filter cannot be excluded"));
                    }
                    if pending_or {
                        return Err(err(start + 1, "a filter cannot be part of OR"));
                    }
                    clauses += 1;
                    if clauses > MAX_CLAUSES {
                        return Err(err(start + 1, format!("more than {MAX_CLAUSES} terms")));
                    }
                    filter(&mut p, key, value, atom_pos + key.chars().count() + 1, now_ms)?;
                    continue;
                }
            }
            if raw.contains('"') {
                return Err(err(atom_pos + raw.chars().position(|c| c == '"').unwrap_or(0), "a quote inside a word"));
            }
            atom = if let Some(prefix) = raw.strip_suffix('*') {
                if prefix.contains('*') {
                    return Err(err(atom_pos + prefix.chars().position(|c| c == '*').unwrap_or(0), "`*` only ends a word"));
                }
                let n = prefix.chars().filter(|c| c.is_alphanumeric()).count();
                if n < MIN_PREFIX_CHARS {
                    return Err(err(atom_pos, format!("a prefix needs at least {MIN_PREFIX_CHARS} letters or digits before `*`")));
                }
                Atom::Prefix(prefix.to_string())
            } else {
                if raw.contains('*') {
                    return Err(err(atom_pos + raw.chars().position(|c| c == '*').unwrap_or(0), "`*` only ends a word"));
                }
                Atom::Word(raw)
            };
        }
        let (Atom::Word(t) | Atom::Prefix(t) | Atom::Phrase(t)) = &atom;
        if super::tokenize::has_unindexed_part(t) {
            // Not indexed, so never found: refused rather than dropped from
            // its phrase (which then matched without it).
            return Err(err(atom_pos, format!("a word longer than {} bytes is not indexed; search a part of it", super::tokenize::MAX_TOKEN_BYTES)));
        }
        if !has_tokens(&atom) {
            // Punctuation alone (`-`, `...`) matches nothing: a query error
            // rather than a silent empty clause.
            return Err(err(atom_pos, "nothing searchable (letters or digits) in this term"));
        }
        clauses += 1;
        if clauses > MAX_CLAUSES {
            return Err(err(start + 1, format!("more than {MAX_CLAUSES} terms")));
        }
        if neg {
            if pending_or {
                return Err(err(start + 1, "an excluded term cannot be part of OR"));
            }
            p.excluded.push(atom);
        } else if pending_or {
            p.groups.last_mut().expect("checked above").push(atom);
            pending_or = false;
        } else {
            p.groups.push(vec![atom]);
        }
    }
    if pending_or {
        return Err(err(or_pos, "OR needs a word after it"));
    }
    Ok(p)
}

fn has_tokens(a: &Atom) -> bool {
    let t = match a {
        Atom::Word(t) | Atom::Prefix(t) | Atom::Phrase(t) => t,
    };
    !super::tokenize::tokenize(t).is_empty()
}

fn filter(p: &mut Parsed, key: &str, value: &str, pos: usize, now_ms: i64) -> Result<()> {
    if value.is_empty() {
        return Err(err(pos, format!("`{key}:` needs a value")));
    }
    match key {
        "role" => {
            if !matches!(value, "user" | "assistant" | "tool" | "system") {
                return Err(err(pos, "role must be user, assistant, tool or system"));
            }
            p.roles.push(value.to_string());
        }
        "session" => p.sessions.push(value.to_string()),
        "model" => p.models.push(value.to_lowercase()),
        "after" => p.after_ms = Some(time(value, pos, now_ms)?),
        "before" => p.before_ms = Some(time(value, pos, now_ms)?),
        "in" => {
            for f in value.split(',') {
                if !FIELDS.contains(&f) {
                    return Err(err(pos, "in: takes text, tool, output, thinking or title (comma-separated)"));
                }
                if !p.fields.iter().any(|x| x == f) {
                    p.fields.push(f.to_string());
                }
            }
        }
        "workspace" => {
            if !matches!(value, "current" | "other" | "unbound" | "all") {
                return Err(err(pos, "workspace must be current, other, unbound or all"));
            }
            p.workspace = Some(value.to_string());
        }
        _ => unreachable!("filter keys are checked by the caller"),
    }
    Ok(())
}

/// A date `YYYY-MM-DD` (UTC midnight) or an age `<n>m|h|d|w` before `now_ms`.
fn time(v: &str, pos: usize, now_ms: i64) -> Result<i64> {
    let bad = || err(pos, "a time is YYYY-MM-DD or an age like 30m, 12h, 7d, 2w");
    if let Some(unit) = v.chars().last().filter(|c| matches!(c, 'm' | 'h' | 'd' | 'w')) {
        let n: i64 = v[..v.len() - 1].parse().map_err(|_| bad())?;
        let ms = match unit {
            'm' => 60_000,
            'h' => 3_600_000,
            'd' => 86_400_000,
            _ => 7 * 86_400_000,
        };
        return n.checked_mul(ms).filter(|_| n >= 0).map(|d| now_ms - d).ok_or_else(bad);
    }
    let parts: Vec<&str> = v.split('-').collect();
    if parts.len() != 3 || parts[0].len() != 4 || parts[1].len() != 2 || parts[2].len() != 2 {
        return Err(bad());
    }
    let y: i64 = parts[0].parse().map_err(|_| bad())?;
    let m: i64 = parts[1].parse().map_err(|_| bad())?;
    let d: i64 = parts[2].parse().map_err(|_| bad())?;
    let dim = [31, if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&m) || d < 1 || d > dim[(m - 1) as usize] {
        return Err(bad());
    }
    Ok(days_from_civil(y, m, d) * 86_400_000)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(q: &str) -> String {
        parse(q, 0).unwrap_err().to_string()
    }

    #[test]
    fn parses_every_form() {
        let p = parse("flaky migration OR schema \"exact words\" retry* -skip role:user in:tool,output after:2026-01-02 before:7d", 10 * 86_400_000).unwrap();
        assert_eq!(
            p.groups,
            vec![
                vec![Atom::Word("flaky".into())],
                vec![Atom::Word("migration".into()), Atom::Word("schema".into())],
                vec![Atom::Phrase("exact words".into())],
                vec![Atom::Prefix("retry".into())]
            ]
        );
        assert_eq!(p.excluded, vec![Atom::Word("skip".into())]);
        assert_eq!(p.roles, vec!["user"]);
        assert_eq!(p.fields, vec!["tool", "output"]);
        assert_eq!(p.after_ms, Some(1_767_312_000_000));
        assert_eq!(p.before_ms, Some(3 * 86_400_000));
    }

    #[test]
    fn errors_name_the_position() {
        assert_eq!(msg("ab \"cd"), "invalid input: search query: unclosed quote at character 4");
        assert_eq!(msg("OR x"), "invalid input: search query: OR needs a word before it at character 1");
        assert_eq!(msg("x OR"), "invalid input: search query: OR needs a word after it at character 3");
        assert_eq!(msg("x role:admin"), "invalid input: search query: role must be user, assistant, tool or system at character 8");
        assert_eq!(msg("a*"), "invalid input: search query: a prefix needs at least 2 letters or digits before `*` at character 1");
        assert_eq!(msg("x after:yesterday"), "invalid input: search query: a time is YYYY-MM-DD or an age like 30m, 12h, 7d, 2w at character 9");
        assert!(msg(&"w ".repeat(65)).contains("more than 64 terms at character 129"));
        assert!(msg(&"x".repeat(5000)).contains("5000 bytes is too long"));
    }
}
