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

/// The folded form of `s`.
pub fn fold(s: &str) -> String {
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
/// crate opens) over [`tokenize`].
#[derive(Clone, Default)]
pub struct SdbTokenizer;

/// The name the index's text fields use for [`SdbTokenizer`].
pub const TOKENIZER: &str = "sessiondb-v1";

/// The token stream of one text.
pub struct SdbTokenStream {
    tokens: Vec<tantivy::tokenizer::Token>,
    at: usize,
}

impl tantivy::tokenizer::Tokenizer for SdbTokenizer {
    type TokenStream<'a> = SdbTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> SdbTokenStream {
        let tokens = tokenize(text)
            .into_iter()
            .map(|t| tantivy::tokenizer::Token { offset_from: t.from, offset_to: t.to, position: t.pos, text: t.text, position_length: 1 })
            .collect();
        SdbTokenStream { tokens, at: 0 }
    }
}

impl tantivy::tokenizer::TokenStream for SdbTokenStream {
    fn advance(&mut self) -> bool {
        if self.at < self.tokens.len() {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn token(&self) -> &tantivy::tokenizer::Token {
        &self.tokens[self.at - 1]
    }
    fn token_mut(&mut self) -> &mut tantivy::tokenizer::Token {
        &mut self.tokens[self.at - 1]
    }
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
}
