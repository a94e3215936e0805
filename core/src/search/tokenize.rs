//! Tokenisation for code and prose (issue 26 item 3): the same function
//! indexes entries, analyses query words and finds what a snippet highlights.
//!
//! * Case-insensitive and diacritics folded: each character is lowercased,
//!   decomposed (NFD) and stripped of combining marks, so `Café`, `CAFÉ`
//!   and `cafe\u{301}` all give `cafe`.
//! * A *compound* is a run of letters, digits and the connectors
//!   `_ - . / \ : @ # ~` (trimmed of connectors at both ends). It is split
//!   into *parts* at connectors and at camelCase boundaries (`openDatabase`
//!   → `open`, `database`; `HTTPServer` → `http`, `server`; digits stay
//!   with their letters: `0x7f3a`, `utf8`). Parts get consecutive
//!   positions (phrases match across them); the whole compound, and each
//!   connector-separated piece that camelCase split, are also indexed at
//!   the position of their first part: `retry_busy` matches `retry`,
//!   `busy` and `retry_busy`; `core/src/store/mod.rs` matches `store` and
//!   the whole path.
//! * CJK (Han, Hiragana, Katakana, Hangul) is indexed one character per
//!   position; a CJK query word is a phrase of its characters.
//! * Tokens longer than [`MAX_TOKEN_BYTES`] (folded) are not indexed (long
//!   base64 or hex blobs would only grow the dictionary); a part dropped so
//!   still takes its position (a phrase does not match across it).

use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// Longest token indexed, in bytes of its folded form.
pub const MAX_TOKEN_BYTES: usize = 80;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokKind {
    /// A part: consecutive positions.
    Part,
    /// A whole compound or camelCase piece, at its first part's position.
    Whole,
}

/// One token: folded text, byte offsets in the original text, position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tok {
    /// Folded text.
    pub text: String,
    /// Byte offset of the first character.
    pub from: usize,
    /// Byte offset after the last character.
    pub to: usize,
    /// Position (parts count up from 0).
    pub pos: usize,
    /// Part or whole.
    pub kind: TokKind,
}

/// Is `c` CJK (indexed per character)?
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF | 0x20000..=0x2FA1F)
}

/// Connector characters inside a compound.
pub fn is_connector(c: char) -> bool {
    matches!(c, '_' | '-' | '.' | '/' | '\\' | ':' | '@' | '#' | '~')
}

fn is_word(c: char) -> bool {
    !is_cjk(c) && (c.is_alphanumeric() || is_combining_mark(c))
}

/// Append the folded form of `c` to `out`.
pub fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    for l in c.to_lowercase() {
        decompose_canonical(l, |d| {
            if !is_combining_mark(d) {
                out.push(d);
            }
        });
    }
}

/// Append the folded form of `s` to `out` (ASCII: lowercased in place, no
/// per-character work).
fn fold_into(s: &str, out: &mut String) {
    if s.is_ascii() {
        let n = out.len();
        out.push_str(s);
        out[n..].make_ascii_lowercase();
        return;
    }
    for c in s.chars() {
        fold_char(c, out);
    }
}

/// The folded form of `s`.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    fold_into(s, &mut out);
    out
}

/// A token whose text is `arena[a..b]` of its [`Sink`].
#[derive(Debug, Clone, Copy)]
struct Raw {
    a: usize,
    b: usize,
    from: usize,
    to: usize,
    pos: usize,
    kind: TokKind,
}

/// The tokens of one text, their texts in one buffer (no allocation per
/// token), and scratch space; reused from text to text by [`SdbTokenizer`].
#[derive(Debug, Clone, Default)]
struct Sink {
    arena: String,
    toks: Vec<Raw>,
    wholes: Vec<Raw>,
    pieces: Vec<(usize, usize)>,
    parts: Vec<(usize, usize)>,
}

impl Sink {
    fn text(&self, r: &Raw) -> &str {
        &self.arena[r.a..r.b]
    }
}

/// The next character of `text` at byte `i` and its length (ASCII without decoding).
#[inline]
fn char_at(text: &str, i: usize) -> (char, usize) {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        (b as char, 1)
    } else {
        let c = text[i..].chars().next().expect("a char boundary");
        (c, c.len_utf8())
    }
}

/// Part of a compound (a word character or a connector)?
#[inline]
fn in_compound(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || is_connector(c)
    } else {
        is_word(c)
    }
}

/// Tokenise `text` into `sink` (cleared first), sorted by position.
fn run(text: &str, sink: &mut Sink) {
    sink.arena.clear();
    sink.toks.clear();
    let mut pos = 0usize;
    let mut i = 0usize;
    while i < text.len() {
        let (c, n) = char_at(text, i);
        if !c.is_ascii() && is_cjk(c) {
            let a = sink.arena.len();
            fold_char(c, &mut sink.arena);
            sink.toks.push(Raw { a, b: sink.arena.len(), from: i, to: i + n, pos, kind: TokKind::Part });
            pos += 1;
            i += n;
        } else if in_compound(c) {
            let start = i;
            // `simple`: ASCII letters and digits only, no capital after a
            // non-capital, no two capitals before a lowercase letter
            // (`compound`'s fast path), found while scanning.
            let bytes = text.as_bytes();
            let mut simple = true;
            // Were the previous byte and the one before it capitals?
            let (mut p1, mut p2) = (false, false);
            while i < text.len() {
                let b = bytes[i];
                if b < 0x80 {
                    if b.is_ascii_alphanumeric() {
                        let up = b.is_ascii_uppercase();
                        if i > start && ((up && !p1) || (b.is_ascii_lowercase() && p1 && p2)) {
                            simple = false;
                        }
                        p2 = p1;
                        p1 = up;
                        i += 1;
                    } else if is_connector(b as char) {
                        simple = false;
                        i += 1;
                    } else {
                        break;
                    }
                } else {
                    let (d, m) = char_at(text, i);
                    if in_compound(d) {
                        simple = false;
                        i += m;
                    } else {
                        break;
                    }
                }
            }
            compound(text, start, i, simple, &mut pos, sink);
        } else {
            i += n;
        }
    }
    // Positions never go back (tantivy delta-encodes each term's positions):
    // `compound` sorts the tokens of each compound, whose wholes are listed
    // at their first part's position.
    debug_assert!(sink.toks.is_sorted_by_key(|t| t.pos));
}

/// Tokenise `text` (see the module docs). Pure.
pub fn tokenize(text: &str) -> Vec<Tok> {
    let mut sink = Sink::default();
    run(text, &mut sink);
    sink.toks.iter().map(|r| Tok { text: sink.text(r).to_string(), from: r.from, to: r.to, pos: r.pos, kind: r.kind }).collect()
}

/// Call `f(folded text, from, to)` for the tokens of `text`, in
/// [`tokenize`]'s order, until it returns true (then true); without a
/// `String` per token (snippets and the field of a hit).
pub fn any_token(text: &str, mut f: impl FnMut(&str, usize, usize) -> bool) -> bool {
    let mut sink = Sink::default();
    run(text, &mut sink);
    sink.toks.iter().any(|r| f(sink.text(r), r.from, r.to))
}

/// Whether `text` holds a part that [`tokenize`] drops for being longer
/// than [`MAX_TOKEN_BYTES`] folded (a run of letters and digits that no
/// connector or camelCase boundary splits). Such a part is in no index, so
/// a query word holding one could never match as written: the query parser
/// refuses it rather than search the rest of the phrase without it.
pub fn has_unindexed_part(text: &str) -> bool {
    let too_long = |s: usize, e: usize| camel_split(text, s, e).into_iter().any(|(a, b)| fold(&text[a..b]).len() > MAX_TOKEN_BYTES);
    let mut start = None;
    for (i, c) in text.char_indices() {
        if is_word(c) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            if too_long(s, i) {
                return true;
            }
        }
    }
    start.is_some_and(|s| too_long(s, text.len()))
}

/// The tantivy tokenizer (registered as [`TOKENIZER`] on every index this
/// crate opens) over [`tokenize`]. It keeps its buffers from text to text:
/// a token's text is copied into one reused [`Token`](tantivy::tokenizer::Token).
#[derive(Clone, Default)]
pub struct SdbTokenizer {
    sink: Sink,
    token: tantivy::tokenizer::Token,
}

/// The name the index's text fields use for [`SdbTokenizer`].
pub const TOKENIZER: &str = "sessiondb-v1";

/// The token stream of one text.
pub struct SdbTokenStream<'a> {
    sink: &'a Sink,
    token: &'a mut tantivy::tokenizer::Token,
    at: usize,
}

impl tantivy::tokenizer::Tokenizer for SdbTokenizer {
    type TokenStream<'a> = SdbTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> SdbTokenStream<'a> {
        run(text, &mut self.sink);
        SdbTokenStream { sink: &self.sink, token: &mut self.token, at: 0 }
    }
}

impl tantivy::tokenizer::TokenStream for SdbTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let Some(r) = self.sink.toks.get(self.at) else { return false };
        self.at += 1;
        let t = &mut *self.token;
        t.text.clear();
        t.text.push_str(self.sink.text(r));
        t.offset_from = r.from;
        t.offset_to = r.to;
        t.position = r.pos;
        t.position_length = 1;
        true
    }
    fn token(&self) -> &tantivy::tokenizer::Token {
        self.token
    }
    fn token_mut(&mut self) -> &mut tantivy::tokenizer::Token {
        self.token
    }
}

/// Split `text[start..end]` (a run of word and connector characters).
/// `simple`: ASCII letters and digits only, no camelCase boundary (see [`run`]).
fn compound(text: &str, start: usize, end: usize, simple: bool, pos: &mut usize, sink: &mut Sink) {
    let s = &text[start..end];
    // Fast path (most prose): ASCII letters and digits only, no capital
    // after a lowercase letter or digit: one part, lowercased.
    debug_assert_eq!(simple, {
        let b = s.as_bytes();
        b.iter().all(u8::is_ascii_alphanumeric) && !b.windows(2).any(|w| w[1].is_ascii_uppercase() && !w[0].is_ascii_uppercase()) && !b.windows(3).any(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase())
    });
    if simple {
        if s.len() <= MAX_TOKEN_BYTES {
            let a = sink.arena.len();
            fold_into(s, &mut sink.arena);
            sink.toks.push(Raw { a, b: sink.arena.len(), from: start, to: end, pos: *pos, kind: TokKind::Part });
        }
        // A part too long to index still takes its position, so the words
        // either side of it are not next to each other for a phrase.
        *pos += 1;
        return;
    }
    let trimmed_start = s.find(|c: char| !is_connector(c));
    let Some(ts) = trimmed_start else { return };
    let te = s.rfind(|c: char| !is_connector(c)).map(|j| j + s[j..].chars().next().map_or(1, char::len_utf8)).unwrap_or(s.len());
    let (cs, ce) = (start + ts, start + te);
    let first_pos = *pos;
    let first_tok = sink.toks.len();
    let mut n_parts = 0usize;
    let mut wholes = std::mem::take(&mut sink.wholes);
    let mut pieces = std::mem::take(&mut sink.pieces);
    let mut parts = std::mem::take(&mut sink.parts);
    wholes.clear();
    pieces.clear();
    // Connector-separated pieces, each split at camelCase boundaries.
    let body = &text[cs..ce];
    let mut piece_start: Option<usize> = None;
    for (j, c) in body.char_indices() {
        if is_connector(c) {
            if let Some(p) = piece_start.take() {
                pieces.push((cs + p, cs + j));
            }
        } else if piece_start.is_none() {
            piece_start = Some(j);
        }
    }
    if let Some(p) = piece_start {
        pieces.push((cs + p, ce));
    }
    // An ASCII compound is folded once (lowercase: same length, same
    // offsets) and its parts and wholes are ranges of that one copy;
    // otherwise each is folded on its own.
    let ascii = body.is_ascii();
    let base = sink.arena.len();
    if ascii {
        sink.arena.push_str(body);
        sink.arena[base..].make_ascii_lowercase();
    }
    // The folded text of `text[a..b]` (within the body): its range in the arena.
    let fold_range = |arena: &mut String, a: usize, b: usize| -> (usize, usize) {
        if ascii {
            (base + a - cs, base + b - cs)
        } else {
            let at = arena.len();
            fold_into(&text[a..b], arena);
            (at, arena.len())
        }
    };
    for &(ps, pe) in &pieces {
        let piece_pos = *pos;
        camel_split_into(text, ps, pe, &mut parts);
        let split = parts.len() > 1;
        for &(a, b) in &parts {
            let (fa, fb) = fold_range(&mut sink.arena, a, b);
            let len = fb - fa;
            if len > 0 && len <= MAX_TOKEN_BYTES {
                sink.toks.push(Raw { a: fa, b: fb, from: a, to: b, pos: *pos, kind: TokKind::Part });
                *pos += 1;
                n_parts += 1;
            } else {
                if !ascii {
                    sink.arena.truncate(fa);
                }
                if len > 0 {
                    // Not indexed, but it keeps its position (see above).
                    *pos += 1;
                }
            }
        }
        if split {
            let (fa, fb) = fold_range(&mut sink.arena, ps, pe);
            if fb - fa <= MAX_TOKEN_BYTES && *pos > piece_pos {
                wholes.push(Raw { a: fa, b: fb, from: ps, to: pe, pos: piece_pos, kind: TokKind::Whole });
            } else if !ascii {
                sink.arena.truncate(fa);
            }
        }
    }
    let (at, end) = fold_range(&mut sink.arena, cs, ce);
    let len = end - at;
    let mut kept = false;
    if n_parts > 0 && len <= MAX_TOKEN_BYTES && (n_parts > 1 || !wholes.is_empty() || body.contains(is_connector)) {
        // Skip a whole equal to a piece already emitted (`fooBar` alone).
        let whole = &sink.arena[at..end];
        if !wholes.iter().any(|w| &sink.arena[w.a..w.b] == whole) {
            sink.toks.push(Raw { a: at, b: end, from: cs, to: ce, pos: first_pos, kind: TokKind::Whole });
            kept = true;
        }
    }
    if !kept && !ascii {
        sink.arena.truncate(at);
    }
    sink.toks.extend_from_slice(&wholes);
    // Every token before this compound is at a lower position and every
    // later one at a higher: sorting this compound's tokens (a few, stable)
    // sorts them all, as one stable sort of the whole text would (it was
    // a fifth of the tokenizer's instructions, callgrind).
    let mine = &mut sink.toks[first_tok..];
    if !mine.is_sorted_by_key(|t| t.pos) {
        mine.sort_by_key(|t| t.pos);
    }
    sink.wholes = wholes;
    sink.pieces = pieces;
    sink.parts = parts;
}

/// camelCase boundaries inside `text[s..e]` (no connectors): a lowercase
/// letter or digit followed by an uppercase one, and the last capital of a
/// run of capitals followed by a lowercase letter (`HTTPServer`).
fn camel_split(text: &str, s: usize, e: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    camel_split_into(text, s, e, &mut out);
    out
}

/// [`camel_split`] into `out` (cleared first).
fn camel_split_into(text: &str, s: usize, e: usize, out: &mut Vec<(usize, usize)>) {
    out.clear();
    if text[s..e].is_ascii() {
        // The same rules on bytes (ASCII case and digits are the Unicode ones).
        let b = text.as_bytes();
        let mut begin = s;
        for j in s + 1..e {
            let (p, c) = (b[j - 1], b[j]);
            let next_lower = j + 1 < e && b[j + 1].is_ascii_lowercase();
            if c.is_ascii_uppercase() && (p.is_ascii_lowercase() || p.is_ascii_digit() || (p.is_ascii_uppercase() && next_lower)) {
                out.push((begin, j));
                begin = j;
            }
        }
        out.push((begin, e));
        return;
    }
    let mut it = text[s..e].char_indices().map(|(j, c)| (s + j, c)).peekable();
    let mut begin = s;
    if let Some((_, mut p)) = it.next() {
        while let Some((j, c)) = it.next() {
            let next_lower = it.peek().is_some_and(|&(_, n)| n.is_lowercase());
            let boundary = (c.is_uppercase() && (p.is_lowercase() || p.is_ascii_digit())) || (c.is_uppercase() && p.is_uppercase() && next_lower);
            if boundary {
                out.push((begin, j));
                begin = j;
            }
            p = c;
        }
    }
    out.push((begin, e));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<(String, usize, TokKind)> {
        tokenize(s).into_iter().map(|t| (t.text, t.pos, t.kind)).collect()
    }
    use TokKind::*;

    #[test]
    fn identifiers_paths_and_prose() {
        assert_eq!(texts("retry_busy"), vec![("retry".into(), 0, Part), ("retry_busy".into(), 0, Whole), ("busy".into(), 1, Part)]);
        assert_eq!(texts("openDatabase()"), vec![("open".into(), 0, Part), ("opendatabase".into(), 0, Whole), ("database".into(), 1, Part)]);
        assert_eq!(
            texts("core/src/store/mod.rs"),
            vec![
                ("core".into(), 0, Part),
                ("core/src/store/mod.rs".into(), 0, Whole),
                ("src".into(), 1, Part),
                ("store".into(), 2, Part),
                ("mod".into(), 3, Part),
                ("rs".into(), 4, Part),
            ]
        );
        assert_eq!(texts("0x7f3a"), vec![("0x7f3a".into(), 0, Part)]);
        assert_eq!(texts("HTTPServer"), vec![("http".into(), 0, Part), ("httpserver".into(), 0, Whole), ("server".into(), 1, Part)]);
        // A piece equal to a later part: positions still never go back.
        let t = tokenize("fooBar_foobar");
        assert!(t.windows(2).all(|w| w[0].pos <= w[1].pos), "{t:?}");
        assert_eq!(texts("Café, done."), vec![("cafe".into(), 0, Part), ("done".into(), 1, Part)]);
        assert_eq!(texts("cafe\u{301}"), vec![("cafe".into(), 0, Part)]);
        assert_eq!(texts("数据库 ok"), vec![("数".into(), 0, Part), ("据".into(), 1, Part), ("库".into(), 2, Part), ("ok".into(), 3, Part)]);
        let t = tokenize("x ERR_SOCKET_TIMEOUT y");
        assert_eq!(t[2], Tok { text: "err_socket_timeout".into(), from: 2, to: 20, pos: 1, kind: Whole });
        assert_eq!(texts(&"a".repeat(81)), vec![]);
        assert_eq!(texts("ABc HTTPServer Hello WORLD x9Y"), vec![
            ("a".into(), 0, Part), ("abc".into(), 0, Whole), ("bc".into(), 1, Part),
            ("http".into(), 2, Part), ("httpserver".into(), 2, Whole), ("server".into(), 3, Part),
            ("hello".into(), 4, Part), ("world".into(), 5, Part),
            ("x9".into(), 6, Part), ("x9y".into(), 6, Whole), ("y".into(), 7, Part),
        ]);
    }

    /// The tokenizer as it was before the allocation-free rewrite: the
    /// reference the new one must match token for token.
    mod old {
        use super::super::{fold_char, is_connector, is_cjk, is_word, Tok, TokKind, MAX_TOKEN_BYTES};
        /// The folded form of `s`.
        fn fold(s: &str) -> String {
            let mut out = String::with_capacity(s.len());
            for c in s.chars() {
                fold_char(c, &mut out);
            }
            out
        }

        /// Tokenise `text` (see the module docs). Pure.
        pub fn tokenize(text: &str) -> Vec<Tok> {
            let mut out = Vec::new();
            let mut pos = 0usize;
            let mut it = text.char_indices().peekable();
            while let Some(&(i, c)) = it.peek() {
                if is_cjk(c) {
                    let mut t = String::new();
                    fold_char(c, &mut t);
                    out.push(Tok { text: t, from: i, to: i + c.len_utf8(), pos, kind: TokKind::Part });
                    pos += 1;
                    it.next();
                } else if is_word(c) || is_connector(c) {
                    let start = i;
                    let mut end = i;
                    while let Some(&(j, d)) = it.peek() {
                        if is_word(d) || is_connector(d) {
                            end = j + d.len_utf8();
                            it.next();
                        } else {
                            break;
                        }
                    }
                    compound(text, start, end, &mut pos, &mut out);
                } else {
                    it.next();
                }
            }
            // Positions never go back (tantivy delta-encodes each term's positions):
            // wholes are listed at their first part's position.
            out.sort_by_key(|t| t.pos);
            out
        }

        /// Split `text[start..end]` (a run of word and connector characters).
        fn compound(text: &str, start: usize, end: usize, pos: &mut usize, out: &mut Vec<Tok>) {
            let s = &text[start..end];
            // Fast path (most prose): ASCII letters and digits only, no capital
            // after a lowercase letter or digit: one part, lowercased.
            let b = s.as_bytes();
            if b.iter().all(u8::is_ascii_alphanumeric) && !b.windows(2).any(|w| w[1].is_ascii_uppercase() && !w[0].is_ascii_uppercase()) && !b.windows(3).any(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase()) {
                if b.len() <= MAX_TOKEN_BYTES {
                    out.push(Tok { text: s.to_ascii_lowercase(), from: start, to: end, pos: *pos, kind: TokKind::Part });
                }
                // A part too long to index still takes its position, so the words
                // either side of it are not next to each other for a phrase.
                *pos += 1;
                return;
            }
            let trimmed_start = s.find(|c: char| !is_connector(c));
            let Some(ts) = trimmed_start else { return };
            let te = s.rfind(|c: char| !is_connector(c)).map(|j| j + s[j..].chars().next().map_or(1, char::len_utf8)).unwrap_or(s.len());
            let (cs, ce) = (start + ts, start + te);
            let first_pos = *pos;
            let mut n_parts = 0usize;
            let mut wholes: Vec<Tok> = Vec::new();
            // Connector-separated pieces, each split at camelCase boundaries.
            let body = &text[cs..ce];
            let mut piece_start: Option<usize> = None;
            let mut pieces = Vec::new();
            for (j, c) in body.char_indices() {
                if is_connector(c) {
                    if let Some(p) = piece_start.take() {
                        pieces.push((cs + p, cs + j));
                    }
                } else if piece_start.is_none() {
                    piece_start = Some(j);
                }
            }
            if let Some(p) = piece_start {
                pieces.push((cs + p, ce));
            }
            for (ps, pe) in pieces {
                let piece_pos = *pos;
                let parts = camel_split(text, ps, pe);
                let split = parts.len() > 1;
                for (a, b) in parts {
                    let t = fold(&text[a..b]);
                    if !t.is_empty() && t.len() <= MAX_TOKEN_BYTES {
                        out.push(Tok { text: t, from: a, to: b, pos: *pos, kind: TokKind::Part });
                        *pos += 1;
                        n_parts += 1;
                    } else if !t.is_empty() {
                        // Not indexed, but it keeps its position (see above).
                        *pos += 1;
                    }
                }
                if split {
                    let t = fold(&text[ps..pe]);
                    if t.len() <= MAX_TOKEN_BYTES && *pos > piece_pos {
                        wholes.push(Tok { text: t, from: ps, to: pe, pos: piece_pos, kind: TokKind::Whole });
                    }
                }
            }
            let whole = fold(body);
            if n_parts > 0 && whole.len() <= MAX_TOKEN_BYTES && (n_parts > 1 || !wholes.is_empty() || body.contains(is_connector)) {
                // Skip a whole equal to a piece already emitted (`fooBar` alone).
                if !wholes.iter().any(|w| w.text == whole) {
                    out.push(Tok { text: whole, from: cs, to: ce, pos: first_pos, kind: TokKind::Whole });
                }
            }
            out.extend(wholes);
        }

        /// camelCase boundaries inside `text[s..e]` (no connectors): a lowercase
        /// letter or digit followed by an uppercase one, and the last capital of a
        /// run of capitals followed by a lowercase letter (`HTTPServer`).
        fn camel_split(text: &str, s: usize, e: usize) -> Vec<(usize, usize)> {
            let chars: Vec<(usize, char)> = text[s..e].char_indices().map(|(j, c)| (s + j, c)).collect();
            let mut out = Vec::new();
            let mut begin = s;
            for k in 1..chars.len() {
                let (j, c) = chars[k];
                let p = chars[k - 1].1;
                let next_lower = chars.get(k + 1).is_some_and(|&(_, n)| n.is_lowercase());
                let boundary = (c.is_uppercase() && (p.is_lowercase() || p.is_ascii_digit())) || (c.is_uppercase() && p.is_uppercase() && next_lower);
                if boundary {
                    out.push((begin, j));
                    begin = j;
                }
            }
            out.push((begin, e));
            out
        }


    }

    /// Texts mixing every class of character the tokenizer tells apart.
    fn samples() -> Vec<String> {
        let mut v: Vec<String> = [
            "", " ", "retry_busy", "openDatabase()", "core/src/store/mod.rs", "HTTPServer", "ABc HTTPServer Hello WORLD x9Y",
            "Café, CAFÉ cafe\u{301}", "数据库 ok 数据_库 ひらがなカタカナ 한국어", "__init__", "--flag=value", "a.b.c.", "...", "x ERR_SOCKET_TIMEOUT y",
            "fooBar_foobar fooBar FooBAR fOO", "ÀÉÎõü_Straße ǅungla ΣΊΣΥΦΟΣ", "e\u{301}\u{301}x \u{301}\u{302} a\u{301}B", "😀emoji😀 x😀y",
            "0x7f3a 0XFF 12abC 3D", "https://example.com/a?b=c#frag user@host:~/dir", "tab\there\nnew\r\nline",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.push("a".repeat(81));
        v.push(format!("{}_{} {}Bc", "a".repeat(79), "B".repeat(82), "é".repeat(41)));
        // Deterministic pseudo-random mixes.
        let alphabet: Vec<char> = "aZq9_-./\\:@#~ \n,;()\"'éÉ\u{301}ß数字한😀İıǅﬁΣς\u{2028}\u{0}AbCDeF".chars().collect();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for n in 0..3000 {
            let len = 1 + n % 40;
            let mut s = String::new();
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            v.push(s);
        }
        v
    }

    #[test]
    fn same_tokens_as_the_reference_and_the_tantivy_stream() {
        use tantivy::tokenizer::{TokenStream, Tokenizer};
        let mut tk = SdbTokenizer::default();
        for s in samples() {
            let new = tokenize(&s);
            assert_eq!(new, old::tokenize(&s), "{s:?}");
            let mut stream = tk.token_stream(&s);
            let mut got = Vec::new();
            while stream.advance() {
                let t = stream.token();
                got.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
            }
            let want: Vec<_> = new.iter().map(|t| (t.text.clone(), t.from, t.to, t.pos)).collect();
            assert_eq!(got, want, "{s:?}");
        }
    }
}
