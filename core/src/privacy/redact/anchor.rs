//! Each rule's keyword-anchored check ([`anchor_check`]): what lets
//! [`super::RuleSet`] skip a rule whose regex cannot match where its
//! keywords occur (the keyword pass itself: `super::keywords`).

/// A rule's keyword-anchored check ([`anchor_check`]): a lazy DFA of the
/// check's regex, searched anchored where a keyword starts. A lazy DFA
/// searched directly instead of a `meta::Regex` (whose strategy choice and
/// cache pool cost more per call than the few bytes such a check reads:
/// issue 30 item 2's append budget). Its caches are the rule set's
/// ([`AnchorCaches`]).
pub(super) struct AnchorCheck(regex_automata::hybrid::dfa::DFA);

/// One lazy-DFA cache per rule with a check, taken once per text from
/// the rule set's pool.
pub(super) type AnchorCaches = Vec<Option<regex_automata::hybrid::dfa::Cache>>;

impl AnchorCheck {
    /// Does the check match `text` (ASCII) anchored at byte `start` (look-
    /// behind sees the byte before it)? `cache` is this check's slot of
    /// [`AnchorCaches`] (created on first use). An error of the search (a
    /// byte that is not ASCII under a Unicode `\b`) answers true: the
    /// rule's own regex then decides, as without the check.
    pub(super) fn is_match_at(&self, cache: &mut Option<regex_automata::hybrid::dfa::Cache>, text: &str, start: usize) -> bool {
        let cache = cache.get_or_insert_with(|| self.0.create_cache());
        let input = regex_automata::Input::new(text).span(start..text.len()).anchored(regex_automata::Anchored::Yes).earliest(true);
        self.0.try_search_fwd(cache, &input).map_or(true, |m| m.is_some())
    }
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
pub(super) fn anchor_check(pattern: &str, keywords: &[String]) -> Option<(AnchorCheck, Option<usize>)> {
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
    let nfa = regex_automata::nfa::thompson::Compiler::new()
        .configure(regex_automata::nfa::thompson::Config::new().nfa_size_limit(Some(64 << 20)).which_captures(regex_automata::nfa::thompson::WhichCaptures::None))
        .build_from_hir(&suffix)
        .ok()?;
    let dfa = regex_automata::hybrid::dfa::DFA::builder()
        .configure(
            regex_automata::hybrid::dfa::DFA::config()
                .match_kind(regex_automata::MatchKind::LeftmostFirst)
                // `\b` of the Unicode kind: exact on ASCII text, the only
                // text the check runs on (a byte >= 0x80 would end the search
                // with an error, taken as "may match").
                .unicode_word_boundary(true)
                .cache_capacity(2 << 20)
                // Never give up on a thrashing cache: the answer stays exact.
                .minimum_cache_clear_count(None),
        )
        .build_from_nfa(nfa)
        .ok()?;
    let check = AnchorCheck(dfa);
    Some((check, lead))
}
