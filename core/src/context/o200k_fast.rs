//! A faster exact count for `o200k_base` (issue 33 item 7: counts on the
//! write path must not slow appends and imports by much): tiktoken-rs
//! splits text with a backtracking regex (`fancy-regex`), measured at
//! ~31 MB/s on prose, which made an import of a gpt-4o session 2.8× slower.
//!
//! Here, ASCII stretches of a text are split by hand, piece for piece as
//! tiktoken's `o200k_base` pattern splits them (`tiktoken_rs::O200K_BASE_PAT_STR`,
//! seven alternatives tried in order at each piece's start):
//!
//! 1. `[^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+('s|'t|'re|'ve|'m|'ll|'d)?` and
//! 2. `[^\r\n\p{L}\p{N}]?[\p{Lu}…]+[\p{Ll}…]*(…)?`: letters (in ASCII: an
//!    upper-case run then a lower-case run, at least one letter; one
//!    optional leading byte that is not a letter, digit, CR or LF; an
//!    optional contraction, any case);
//! 3. `\p{N}{1,3}`: one to three digits;
//! 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`: an optional space, a run of other
//!    bytes, then any CR, LF and `/`;
//! 5. `\s*[\r\n]+`: whitespace up to the run's last CR or LF;
//! 6. `\s+(?!\S)`: a whitespace run to the end of the text, or all of it but
//!    its last byte when that is followed by a non-space;
//! 7. `\s+`: (here) one whitespace byte.
//!
//! A text is cut into stretches at safe points: after an LF followed by an
//! ASCII byte that is neither whitespace nor `/` (no piece of the pattern
//! spans that point, and none looks past it). A stretch with a byte above
//! 0x7F is counted by tiktoken-rs itself; an ASCII stretch by the split above,
//! each piece one token when it is one in the rank table, else merged by
//! byte-pair encoding (tiktoken's rule: repeatedly merge the adjacent pair
//! whose bytes have the lowest rank, the leftmost on a tie), and pieces over
//! [`LONG_PIECE`] bytes by tiktoken-rs. The counts equal tiktoken-rs's:
//! `tokens::tests` checks them on the corpus, on random text and on the
//! shared samples.

use rustc_hash::FxHashMap;
use tiktoken_rs::{CoreBPE, Rank};

/// The ordinary ranks of an encoding, arranged for lookups by piece: a
/// token of at most 7 bytes under one integer key (its bytes, little-endian,
/// and its length in the top byte: one multiply to hash, one compare),
/// longer ones by their bytes.
pub(crate) struct Ranks {
    short: FxHashMap<u64, Rank>,
    long: FxHashMap<Vec<u8>, Rank>,
}

impl Ranks {
    /// From an encoding's ordinary ranks (token bytes → rank).
    pub(crate) fn new(all: FxHashMap<Vec<u8>, Rank>) -> Self {
        let mut short = FxHashMap::default();
        let mut long = FxHashMap::default();
        for (bytes, rank) in all {
            match short_key(&bytes) {
                Some(k) => {
                    short.insert(k, rank);
                }
                None => {
                    long.insert(bytes, rank);
                }
            }
        }
        Ranks { short, long }
    }

    fn get(&self, piece: &[u8]) -> Option<Rank> {
        match short_key(piece) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(piece).copied(),
        }
    }
}

/// The integer key of a piece of at most 7 bytes (see [`Ranks`]).
fn short_key(piece: &[u8]) -> Option<u64> {
    if piece.len() > 7 {
        return None;
    }
    // Byte by byte: a slice copy of a variable length is a `memcpy` call.
    let mut k = (piece.len() as u64) << 56;
    for (i, &b) in piece.iter().enumerate() {
        k |= u64::from(b) << (8 * i);
    }
    Some(k)
}

/// Pieces longer than this (bytes) go to tiktoken-rs's merge (the merge
/// here scans all parts for each merge: quadratic in a piece's length).
const LONG_PIECE: usize = 256;

fn is_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

fn is_other(b: u8) -> bool {
    !b.is_ascii_alphanumeric() && !is_ws(b)
}

/// The end of the piece of ASCII `s` that starts at `i` (see the module docs).
fn piece_end(s: &[u8], i: usize) -> usize {
    let n = s.len();
    let c = s[i];
    let next_is_letter = i + 1 < n && s[i + 1].is_ascii_alphabetic();
    if c.is_ascii_alphabetic() || (next_is_letter && c != b'\r' && c != b'\n' && !c.is_ascii_digit()) {
        let mut j = if c.is_ascii_alphabetic() { i } else { i + 1 };
        while j < n && s[j].is_ascii_uppercase() {
            j += 1;
        }
        while j < n && s[j].is_ascii_lowercase() {
            j += 1;
        }
        if j + 1 < n && s[j] == b'\'' {
            let a = s[j + 1].to_ascii_lowercase();
            if matches!(a, b's' | b't' | b'm' | b'd') {
                j += 2;
            } else if j + 2 < n {
                let b = s[j + 2].to_ascii_lowercase();
                if matches!((a, b), (b'r', b'e') | (b'v', b'e') | (b'l', b'l')) {
                    j += 3;
                }
            }
        }
        return j;
    }
    if c.is_ascii_digit() {
        let mut j = i + 1;
        while j < n && j < i + 3 && s[j].is_ascii_digit() {
            j += 1;
        }
        return j;
    }
    if is_other(c) || (c == b' ' && i + 1 < n && is_other(s[i + 1])) {
        let mut j = i + 1;
        while j < n && is_other(s[j]) {
            j += 1;
        }
        while j < n && matches!(s[j], b'\r' | b'\n' | b'/') {
            j += 1;
        }
        return j;
    }
    // Whitespace.
    let mut end = i;
    let mut last_nl = None;
    while end < n && is_ws(s[end]) {
        if matches!(s[end], b'\r' | b'\n') {
            last_nl = Some(end);
        }
        end += 1;
    }
    match last_nl {
        Some(k) => k + 1,
        None if end == n => n,
        None if end - i >= 2 => end - 1,
        None => i + 1,
    }
}

/// Tokens of one piece: byte-pair merges by rank (module docs).
fn piece_tokens(ranks: &Ranks, bpe: &dyn Fn() -> &'static CoreBPE, piece: &[u8]) -> usize {
    if ranks.get(piece).is_some() {
        return 1;
    }
    if piece.len() > LONG_PIECE {
        // ASCII, so valid UTF-8; one piece of the pattern, split alike alone.
        return bpe().count_ordinary(std::str::from_utf8(piece).expect("ASCII"));
    }
    // Each part's start and the rank of it merged with the next part
    // (`Rank::MAX`: not a token); a merge changes only the ranks beside it
    // (tiktoken's `_byte_pair_merge`).
    let rank = |parts: &[(usize, Rank)], k: usize| -> Rank {
        if k + 2 < parts.len() {
            ranks.get(&piece[parts[k].0..parts[k + 2].0]).unwrap_or(Rank::MAX)
        } else {
            Rank::MAX
        }
    };
    let mut parts: Vec<(usize, Rank)> = (0..=piece.len()).map(|i| (i, Rank::MAX)).collect();
    for k in 0..parts.len() {
        parts[k].1 = rank(&parts, k);
    }
    loop {
        let (mut min, mut at) = (Rank::MAX, 0);
        for (k, &(_, r)) in parts.iter().enumerate() {
            if r < min {
                (min, at) = (r, k);
            }
        }
        if min == Rank::MAX {
            return parts.len() - 1;
        }
        parts.remove(at + 1);
        parts[at].1 = rank(&parts, at);
        if at > 0 {
            parts[at - 1].1 = rank(&parts, at - 1);
        }
    }
}

/// Tokens of an ASCII stretch.
fn ascii_tokens(ranks: &Ranks, bpe: &dyn Fn() -> &'static CoreBPE, s: &[u8]) -> usize {
    let mut i = 0;
    let mut tokens = 0;
    while i < s.len() {
        let j = piece_end(s, i);
        tokens += piece_tokens(ranks, bpe, &s[i..j]);
        i = j;
    }
    tokens
}

/// `o200k_base` tokens of `text` (tiktoken-rs's `count_ordinary`, faster on
/// ASCII): `ranks` are the encoding's ordinary ranks, `bpe` gives its
/// tiktoken-rs encoder for the rest (made only when a text needs it).
pub(crate) fn count(ranks: &Ranks, bpe: &dyn Fn() -> &'static CoreBPE, text: &str) -> usize {
    // All ASCII (most turns, code and tool output): one stretch, no cutting
    // (`is_ascii` reads a word at a time).
    if text.is_ascii() {
        return ascii_tokens(ranks, bpe, text.as_bytes());
    }
    let s = text.as_bytes();
    let mut tokens = 0;
    let mut start = 0;
    let mut ascii = true;
    for k in 0..s.len() {
        let b = s[k];
        if b >= 0x80 {
            ascii = false;
        }
        // A safe point after s[k] (module docs).
        if b == b'\n' && k + 1 < s.len() && s[k + 1] < 0x80 && !is_ws(s[k + 1]) && s[k + 1] != b'/' {
            tokens += stretch(ranks, bpe, &text[start..=k], ascii);
            start = k + 1;
            ascii = true;
        }
    }
    tokens + stretch(ranks, bpe, &text[start..], ascii)
}

fn stretch(ranks: &Ranks, bpe: &dyn Fn() -> &'static CoreBPE, s: &str, ascii: bool) -> usize {
    if ascii {
        ascii_tokens(ranks, bpe, s.as_bytes())
    } else {
        bpe().count_ordinary(s)
    }
}
