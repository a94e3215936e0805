//! The keyword pass of an ASCII text (the aho-corasick DFA walked by hand,
//! [`walk`]) and each rule's keyword-anchored check ([`anchor_check`]):
//! what lets [`super::RuleSet`] skip a rule whose regex cannot match.
//! Moved out of redact.rs as they were.

/// Walk the keyword DFA over `bytes` from `*from` in state `*sid`,
/// pushing `(match state, end)` for every match state reached, up to 64 of
/// them; returns true when done (the end of `bytes`), false when the list
/// is full (`*from` and `*sid` then say where and in which state to go on).
#[inline(never)]
pub(super) fn walk(dfa: &aho_corasick::dfa::DFA, sid: &mut aho_corasick::automaton::StateID, bytes: &[u8], from: &mut usize, matches: &mut Vec<(aho_corasick::automaton::StateID, usize)>) -> bool {
    use aho_corasick::automaton::Automaton;
    let mut s = *sid;
    /// Stopped at `end` in state `s`: done if the DFA died or the text
    /// ended, else where to go on.
    fn finish(dfa: &aho_corasick::dfa::DFA, s: aho_corasick::automaton::StateID, sid: &mut aho_corasick::automaton::StateID, from: &mut usize, end: usize) -> bool {
        if dfa.is_dead(s) {
            return true;
        }
        *sid = s;
        *from = end;
        false
    }
    // Eight bytes a step, then the rest; a match state (rare) is handled
    // out of the loop by `hit`, which records it and says whether to stop.
    let rest = &bytes[*from..];
    let mut hit = |s: aho_corasick::automaton::StateID, left: usize| -> bool {
        if dfa.is_dead(s) {
            return true;
        }
        let end = bytes.len() - left;
        matches.push((s, end));
        matches.len() == 64 && left > 0
    };
    let mut chunks = rest.chunks_exact(8);
    for (n, c) in chunks.by_ref().enumerate() {
        let c: &[u8; 8] = c.try_into().expect("8 bytes");
        for (k, &b) in c.iter().enumerate() {
            s = dfa.next_state(aho_corasick::Anchored::No, s, b);
            if dfa.is_special(s) && hit(s, rest.len() - (n * 8 + k + 1)) {
                return finish(dfa, s, sid, from, bytes.len() - (rest.len() - (n * 8 + k + 1)));
            }
        }
    }
    let tail = chunks.remainder();
    for (k, &b) in tail.iter().enumerate() {
        s = dfa.next_state(aho_corasick::Anchored::No, s, b);
        if dfa.is_special(s) && hit(s, tail.len() - k - 1) {
            return finish(dfa, s, sid, from, bytes.len() - (tail.len() - k - 1));
        }
    }
    true
}

/// Most strings a part of a regex may stand for, in [`ascii_strings`].
const MAX_STRINGS: usize = 1024;

/// Every string of `a` followed by every string of `b`, or `None` past
/// [`MAX_STRINGS`].
fn product(a: Vec<Vec<u8>>, b: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if a.len().saturating_mul(b.len()) > MAX_STRINGS {
        return None;
    }
    Some(a.iter().flat_map(|x| b.iter().map(move |y| [x.as_slice(), y.as_slice()].concat())).collect())
}

/// The strings (ASCII, lowercased) that `hir` can match in an ASCII text,
/// when they are finitely many (at most [`MAX_STRINGS`]); `None` otherwise.
/// A look-around assertion stands for the empty string (it only narrows what
/// matches), so the answer may hold more strings than can match, never fewer.
fn ascii_strings(hir: &regex_syntax::hir::Hir) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::{Class, HirKind};
    let mut out = match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => vec![Vec::new()],
        HirKind::Literal(l) => {
            if !l.0.is_ascii() {
                // Not in an ASCII text.
                return Some(Vec::new());
            }
            vec![l.0.to_ascii_lowercase()]
        }
        HirKind::Class(c) => {
            let mut bytes = Vec::new();
            match c {
                Class::Unicode(u) => {
                    for r in u.ranges() {
                        for ch in r.start()..=r.end().min('\x7f') {
                            bytes.push((ch as u8).to_ascii_lowercase());
                        }
                    }
                }
                Class::Bytes(b) => {
                    for r in b.ranges() {
                        for byte in r.start()..=r.end().min(0x7f) {
                            bytes.push(byte.to_ascii_lowercase());
                        }
                    }
                }
            }
            bytes.sort_unstable();
            bytes.dedup();
            bytes.into_iter().map(|b| vec![b]).collect()
        }
        HirKind::Capture(c) => return ascii_strings(&c.sub),
        HirKind::Repetition(r) => {
            let max = r.max?;
            let one = ascii_strings(&r.sub)?;
            let mut all = Vec::new();
            let mut cur = vec![Vec::new()];
            for n in 0..=max {
                if n >= r.min {
                    all.extend(cur.iter().cloned());
                }
                if n < max {
                    cur = product(cur, &one)?;
                }
                if all.len() > MAX_STRINGS {
                    return None;
                }
            }
            all
        }
        HirKind::Concat(parts) => {
            let mut cur = vec![Vec::new()];
            for p in parts {
                cur = product(cur, &ascii_strings(p)?)?;
            }
            cur
        }
        HirKind::Alternation(parts) => {
            let mut all = Vec::new();
            for p in parts {
                all.extend(ascii_strings(p)?);
                if all.len() > MAX_STRINGS {
                    return None;
                }
            }
            all
        }
    };
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// The keyword-anchored check of a rule whose regex is `pattern` (already
/// in the regex crate's syntax) and keywords `keywords` (lowercased), or
/// `None` when there is none. The regex's top-level concatenation (groups
/// opened up: what they capture does not matter here) is searched for a
/// part (a run of consecutive parts) every string of which, in an ASCII
/// text, starts with one of the keywords (ASCII case-insensitively;
/// [`ascii_strings`]). If there is one, every match of the regex in an ASCII text holds that part's match,
/// which starts where a keyword occurs, and from there on matches that part
/// and the parts after it: the check is that suffix of the concatenation,
/// searched anchored at each keyword's start (look-arounds see the whole
/// text). No match of the check at any keyword's start means no match of
/// the rule; a match means the rule's regex runs over the whole text as
/// before, so the findings are the same.
pub(super) fn anchor_check(pattern: &str, keywords: &[String]) -> Option<(regex_automata::meta::Regex, Option<usize>)> {
    use regex_syntax::hir::{Hir, HirKind};
    if keywords.is_empty() || !keywords.iter().all(|k| k.is_ascii()) {
        return None;
    }
    let hir = regex_syntax::ParserBuilder::new().build().parse(pattern).ok()?;
    fn flatten(h: &Hir, out: &mut Vec<Hir>) {
        match h.kind() {
            HirKind::Concat(parts) => parts.iter().for_each(|p| flatten(p, out)),
            HirKind::Capture(c) => flatten(&c.sub, out),
            _ => out.push(h.clone()),
        }
    }
    let mut parts = Vec::new();
    flatten(&hir, &mut parts);
    let kws: Vec<&[u8]> = keywords.iter().map(|k| k.as_bytes()).collect();
    // The first run of consecutive parts (`(?i)` spells a keyword as one
    // part per letter) whose strings all start with a keyword.
    let at = (0..parts.len()).find(|&i| {
        let mut run = vec![Vec::new()];
        for p in &parts[i..] {
            let Some(next) = ascii_strings(p).and_then(|s| product(run, &s)) else { return false };
            run = next;
            if run.iter().all(|s| kws.iter().any(|k| s.starts_with(k))) {
                return true;
            }
        }
        false
    })?;
    let suffix = Hir::concat(parts.split_off(at));
    let lead = Hir::concat(parts).properties().maximum_len();
    let check = regex_automata::meta::Builder::new()
        .configure(regex_automata::meta::Config::new().match_kind(regex_automata::MatchKind::LeftmostFirst).utf8_empty(true).nfa_size_limit(Some(64 << 20)).hybrid_cache_capacity(2 << 20))
        .build_from_hir(&suffix)
        .ok()?;
    Some((check, lead))
}
