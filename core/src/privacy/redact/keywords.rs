//! The keyword pass of an ASCII text: the rules' ASCII keywords as one
//! flat DFA transition table, walked a byte at a time ([`KeywordDfa::walk`]).
//!
//! The automaton is aho-corasick's (`MatchKind::Standard`, ASCII
//! case-insensitive, unanchored: a match state lists every keyword that
//! ends there), copied once into a table laid out for the walk: state ids
//! premultiplied by 256 (the next state of `s` on byte `b` is
//! `trans[s + b]`), match states first (so "is this a match state" is one
//! comparison), and the table's length a power of two, so the index is
//! masked instead of bounds-checked. Per byte that is six instructions
//! (load the byte, add, mask, load the next state, compare, branch)
//! instead of aho-corasick's eight (its byte-class lookup and bounds check
//! stay even with byte classes off): issue 30 item 2's append budget, where
//! this walk over every byte of every appended text is most of the cost.

use std::collections::HashMap;

use aho_corasick::automaton::{Automaton, StateID};

/// A keyword DFA as a flat table (see the module docs).
pub(super) struct KeywordDfa {
    /// `trans[s + b]`: the next state (premultiplied) of state `s`
    /// (premultiplied) on byte `b`; `len() == mask + 1`, a power of two.
    trans: Vec<u32>,
    mask: usize,
    /// States (premultiplied) below this are match states.
    match_limit: u32,
    start: u32,
    /// The keyword (pattern) ids of match state `s / 256`:
    /// `patterns[offsets[k]..offsets[k + 1]]`.
    patterns: Vec<u32>,
    offsets: Vec<usize>,
}

/// Most match states [`KeywordDfa::walk`] collects before it returns.
pub(super) const MAX_MATCHES: usize = 64;

impl KeywordDfa {
    /// Copies the states reachable from `dfa`'s unanchored start state.
    /// Errors (as text) when `dfa` has no unanchored start state or too
    /// many states for 32-bit premultiplied ids.
    pub(super) fn from_aho(dfa: &aho_corasick::dfa::DFA) -> Result<Self, String> {
        let start = dfa.start_state(aho_corasick::Anchored::No).map_err(|e| e.to_string())?;
        // Every reachable state, breadth first, with its 256 next states
        // (asked of the DFA once each).
        let mut order: Vec<StateID> = vec![start];
        let mut index: HashMap<StateID, usize> = HashMap::from([(start, 0)]);
        let mut next_of: Vec<usize> = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let s = order[i];
            for b in 0..=255u8 {
                let next = dfa.next_state(aho_corasick::Anchored::No, s, b);
                let k = *index.entry(next).or_insert_with(|| {
                    order.push(next);
                    order.len() - 1
                });
                next_of.push(k);
            }
            i += 1;
        }
        // Match states first: `rank[k]` is state k's place in the table.
        let mut by_rank: Vec<usize> = (0..order.len()).collect();
        by_rank.sort_by_key(|&k| !dfa.is_match(order[k]));
        let matches = by_rank.iter().take_while(|&&k| dfa.is_match(order[k])).count();
        let mut rank = vec![0; order.len()];
        for (r, &k) in by_rank.iter().enumerate() {
            rank[k] = r;
        }
        u32::try_from(order.len() * 256).map_err(|_| "too many keyword states")?;
        let len = (order.len() * 256).next_power_of_two();
        let mut trans = vec![0u32; len];
        let mut patterns = Vec::new();
        let mut offsets = vec![0];
        for (r, &k) in by_rank.iter().enumerate() {
            for b in 0..256 {
                trans[r * 256 + b] = (rank[next_of[k * 256 + b]] * 256) as u32;
            }
            if r < matches {
                let s = order[k];
                patterns.extend((0..dfa.match_len(s)).map(|m| dfa.match_pattern(s, m).as_u32()));
                offsets.push(patterns.len());
            }
        }
        Ok(KeywordDfa { trans, mask: len - 1, match_limit: (matches * 256) as u32, start: (rank[0] * 256) as u32, patterns, offsets })
    }

    /// The start state, for the first [`Self::walk`] of a text.
    pub(super) fn start(&self) -> u32 {
        self.start
    }

    /// The keyword ids that end in match state `s`.
    pub(super) fn patterns(&self, s: u32) -> &[u32] {
        let k = (s / 256) as usize;
        &self.patterns[self.offsets[k]..self.offsets[k + 1]]
    }

    /// Walk `bytes` from `*from` in state `*state`, pushing `(match state,
    /// end)` for every match state reached, up to [`MAX_MATCHES`] of them;
    /// returns true when done (the end of `bytes`), false when the list is
    /// full (`*from` and `*state` then say where and in which state to go
    /// on).
    #[inline(never)]
    pub(super) fn walk(&self, state: &mut u32, bytes: &[u8], from: &mut usize, matches: &mut Vec<(u32, usize)>) -> bool {
        let trans = &self.trans[..=self.mask];
        let mask = self.mask;
        let limit = self.match_limit;
        let start = *from;
        let mut s = *state;
        // A match state (rare) is handled out of the loop: recorded, and
        // the walk stops when the list is full. `end` is the byte after it.
        let mut hit = |s: u32, end: usize| -> bool {
            matches.push((s, end));
            if matches.len() == MAX_MATCHES && end < bytes.len() {
                *state = s;
                *from = end;
                return true;
            }
            false
        };
        // Eight bytes a step (unrolled: no loop counter per byte), then the rest.
        let mut chunks = bytes[start..].chunks_exact(8);
        for (n, c) in chunks.by_ref().enumerate() {
            let c: &[u8; 8] = c.try_into().expect("8 bytes");
            for (k, &b) in c.iter().enumerate() {
                s = trans[(s as usize + usize::from(b)) & mask];
                if s < limit && hit(s, start + n * 8 + k + 1) {
                    return false;
                }
            }
        }
        let tail = chunks.remainder();
        let tail_start = bytes.len() - tail.len();
        for (k, &b) in tail.iter().enumerate() {
            s = trans[(s as usize + usize::from(b)) & mask];
            if s < limit && hit(s, tail_start + k + 1) {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (keyword, end) the table's walk reports, in text order, the
    /// walk resumed each time its list is full.
    fn walk_all(t: &KeywordDfa, text: &[u8]) -> Vec<(u32, usize)> {
        let (mut state, mut from, mut matches, mut out) = (t.start(), 0, Vec::new(), Vec::new());
        loop {
            let done = t.walk(&mut state, text, &mut from, &mut matches);
            for &(s, end) in &matches {
                out.extend(t.patterns(s).iter().map(|&p| (p, end)));
            }
            matches.clear();
            if done {
                return out;
            }
        }
    }

    #[test]
    fn the_table_reports_what_aho_corasick_reports() {
        let keywords = ["token", "api", "ap", "key", "secret", "sk_live", "-----begin"];
        let dfa = aho_corasick::dfa::DFA::builder()
            .match_kind(aho_corasick::MatchKind::Standard)
            .ascii_case_insensitive(true)
            .prefilter(false)
            .start_kind(aho_corasick::StartKind::Unanchored)
            .build(keywords)
            .unwrap();
        let table = KeywordDfa::from_aho(&dfa).unwrap();
        assert!(table.trans.len().is_power_of_two());
        // 180 keyword ends in one text (six a repeat): the walk stops at 64 and resumes
        // twice; short texts end inside and outside the unrolled steps.
        let long = "Api TOKEN apikey; ".repeat(30);
        for text in ["", "a", "api", "xxapixx", "sk_live_x SECRET", "-----BEGIN RSA", "tokentoken", long.as_str()] {
            let mut want: Vec<(u32, usize)> = aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(keywords)
                .unwrap()
                .find_overlapping_iter(text)
                .map(|m| (m.pattern().as_u32(), m.end()))
                .collect();
            let mut got = walk_all(&table, text.as_bytes());
            want.sort_unstable_by_key(|&(p, e)| (e, p));
            got.sort_unstable_by_key(|&(p, e)| (e, p));
            assert_eq!(got, want, "{text:?}");
        }
        assert_eq!(walk_all(&table, long.as_bytes()).len(), 180);
    }
}
