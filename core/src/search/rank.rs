//! From a parsed query to ranked hits: the tantivy queries of its atoms,
//! the best-hit-per-session collector, the terms to highlight and the page
//! cursor (moved out of `search/mod.rs` as is).

use std::collections::{HashMap, HashSet};
use std::ops::Bound;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::{AllQuery, BooleanQuery, EmptyQuery, Occur, PhraseQuery, Query, RangeQuery, RegexQuery, TermQuery, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, DocId, Score, SegmentOrdinal, SegmentReader, Term};

use super::index::{tv, Fields};
use super::query::{Atom, Parsed, FIELDS};
use super::tokenize::{self, fold, tokenize, TokKind};
use crate::error::{Error, Result};

/// What one search found: `(session, seq, score)` of the page's hits, the
/// total and the marks to highlight.
pub(super) type Found = (Vec<(String, u64, f64)>, u64, Marks);

/// Terms a query's atoms look for, for highlighting.
#[derive(Default)]
pub(super) struct Marks {
    pub(super) terms: HashSet<String>,
    pub(super) prefixes: Vec<String>,
}

impl Marks {
    pub(super) fn matches(&self, t: &str) -> bool {
        self.terms.contains(t) || self.prefixes.iter().any(|p| t.starts_with(p.as_str()))
    }
}

/// What a word or phrase asks for: one term, or a phrase of parts.
pub(super) enum Want {
    Term(String),
    Phrase(Vec<(usize, String)>),
}

pub(super) fn analyse(text: &str, phrase: bool) -> Want {
    let toks = tokenize(text);
    let parts: Vec<_> = toks.iter().filter(|t| t.kind == TokKind::Part).collect();
    let wholes: Vec<_> = toks.iter().filter(|t| t.kind == TokKind::Whole && t.pos == 0).collect();
    let covers = |w: &&tokenize::Tok| parts.iter().all(|p| p.from >= w.from && p.to <= w.to);
    if !phrase {
        if let Some(w) = wholes.iter().find(|w| covers(w)) {
            return Want::Term(w.text.clone());
        }
    }
    if parts.len() == 1 {
        return Want::Term(parts[0].text.clone());
    }
    let base = parts.first().map_or(0, |p| p.pos);
    Want::Phrase(parts.iter().map(|p| (p.pos - base, p.text.clone())).collect())
}

pub(super) fn atom_query(a: &Atom, fields: &[Field], marks: &mut Marks) -> Result<Box<dyn Query>> {
    let mut per_field: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    match a {
        Atom::Word(t) | Atom::Phrase(t) => {
            let want = analyse(t, matches!(a, Atom::Phrase(_)));
            for &fld in fields {
                let q: Box<dyn Query> = match &want {
                    Want::Term(t) => Box::new(TermQuery::new(Term::from_field_text(fld, t), IndexRecordOption::WithFreqs)),
                    Want::Phrase(p) => Box::new(PhraseQuery::new_with_offset(p.iter().map(|(o, t)| (*o, Term::from_field_text(fld, t))).collect())),
                };
                per_field.push((Occur::Should, q));
            }
            match want {
                Want::Term(t) => {
                    marks.terms.insert(t);
                }
                Want::Phrase(p) => marks.terms.extend(p.into_iter().map(|(_, t)| t)),
            }
        }
        Atom::Prefix(t) => {
            let folded = fold(t.trim_matches(tokenize::is_connector));
            let pattern = format!("{}.*", regex_escape(&folded));
            for &fld in fields {
                let q = RegexQuery::from_pattern(&pattern, fld).map_err(|e| Error::invalid(format!("search query: prefix `{t}`: {e}")))?;
                per_field.push((Occur::Should, Box::new(q)));
            }
            marks.prefixes.push(folded);
        }
    }
    Ok(Box::new(BooleanQuery::new(per_field)))
}

pub(super) fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~\"@<>".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Build the tantivy query of a parsed query. `sessions_in`: the session
/// ids the workspace filter allows (`None`: all).
pub(super) fn build(p: &Parsed, f: &Fields, sessions_in: Option<Vec<String>>, marks: &mut Marks) -> Result<Box<dyn Query>> {
    let fields: Vec<Field> = if p.fields.is_empty() {
        f.text.to_vec()
    } else {
        p.fields.iter().map(|n| f.text[FIELDS.iter().position(|x| x == n).expect("checked by the parser")]).collect()
    };
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for g in &p.groups {
        let mut any = Vec::new();
        for a in g {
            any.push((Occur::Should, atom_query(a, &fields, marks)?));
        }
        clauses.push((Occur::Must, Box::new(BooleanQuery::new(any))));
    }
    if p.groups.is_empty() {
        clauses.push((Occur::Must, Box::new(AllQuery)));
    }
    for a in &p.excluded {
        let mut ignore = Marks::default();
        // An excluded word is excluded from every field, not only the `in:` ones.
        clauses.push((Occur::MustNot, atom_query(a, &f.text, &mut ignore)?));
    }
    let set = |field: Field, v: &[String]| -> Box<dyn Query> { Box::new(TermSetQuery::new(v.iter().map(|x| Term::from_field_text(field, x)))) };
    if !p.roles.is_empty() {
        clauses.push((Occur::Must, set(f.role, &p.roles)));
    }
    if !p.sessions.is_empty() {
        clauses.push((Occur::Must, set(f.sid, &p.sessions)));
    }
    if !p.models.is_empty() {
        clauses.push((Occur::Must, set(f.model, &p.models)));
    }
    if p.after_ms.is_some() || p.before_ms.is_some() {
        let lo = p.after_ms.map_or(Bound::Unbounded, |t| Bound::Included(Term::from_field_i64(f.time, t)));
        let hi = p.before_ms.map_or(Bound::Unbounded, |t| Bound::Excluded(Term::from_field_i64(f.time, t)));
        clauses.push((Occur::Must, Box::new(RangeQuery::new(lo, hi))));
    }
    if !p.fields.contains(&"title".to_string()) && !p.fields.is_empty() {
        // `in:` without title: title documents cannot match anyway.
    }
    if let Some(ids) = sessions_in {
        if ids.is_empty() {
            return Ok(Box::new(EmptyQuery));
        }
        clauses.push((Occur::Must, set(f.sid, &ids)));
    }
    Ok(Box::new(BooleanQuery::new(clauses)))
}

/// Best hit per session: `(score, doc)` per session id, over all matches.
pub(super) struct BestPerSession;
pub(super) struct BestSeg {
    pub(super) ord: SegmentOrdinal,
    pub(super) col: Option<tantivy::columnar::StrColumn>,
    pub(super) best: HashMap<u64, (Score, DocId)>,
}

impl Collector for BestPerSession {
    type Fruit = HashMap<String, (Score, DocAddress)>;
    type Child = BestSeg;
    fn for_segment(&self, ord: SegmentOrdinal, r: &SegmentReader) -> tantivy::Result<BestSeg> {
        Ok(BestSeg { ord, col: r.fast_fields().str("sid")?, best: HashMap::new() })
    }
    fn requires_scoring(&self) -> bool {
        true
    }
    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let mut out: Self::Fruit = HashMap::new();
        for fr in fruits {
            for (k, v) in fr {
                let e = out.entry(k).or_insert(v);
                if v.0 > e.0 {
                    *e = v;
                }
            }
        }
        Ok(out)
    }
}

impl SegmentCollector for BestSeg {
    type Fruit = HashMap<String, (Score, DocAddress)>;
    fn collect(&mut self, doc: DocId, score: Score) {
        let Some(col) = &self.col else { return };
        if let Some(o) = col.term_ords(doc).next() {
            let e = self.best.entry(o).or_insert((score, doc));
            if score > e.0 {
                *e = (score, doc);
            }
        }
    }
    fn harvest(self) -> Self::Fruit {
        let mut out = HashMap::new();
        if let Some(col) = &self.col {
            for (o, (s, d)) in self.best {
                let mut id = String::new();
                if col.ord_to_str(o, &mut id).unwrap_or(false) {
                    out.insert(id, (s, DocAddress::new(self.ord, d)));
                }
            }
        }
        out
    }
}

pub(super) fn doc_key(searcher: &tantivy::Searcher, a: DocAddress) -> Result<(String, u64)> {
    let r = searcher.segment_reader(a.segment_ord);
    let ff = r.fast_fields();
    let seq = ff.u64("seq").map_err(tv)?.first(a.doc_id).unwrap_or(0);
    let col = ff.str("sid").map_err(tv)?.ok_or_else(|| tv("no sid column"))?;
    let mut sid = String::new();
    if let Some(o) = col.term_ords(a.doc_id).next() {
        col.ord_to_str(o, &mut sid).map_err(tv)?;
    }
    Ok((sid, seq))
}

/// Cursor: `s1.<offset>.<query hash>` in URL-safe base64.
pub(super) fn cursor(offset: u64, qhash: &str) -> String {
    data_encoding::BASE64URL_NOPAD.encode(format!("s1.{offset}.{qhash}").as_bytes())
}

pub(super) fn parse_cursor(c: &str, qhash: &str) -> Result<u64> {
    let bad = || Error::invalid("search cursor: not a cursor of this query (pass the next_cursor of the previous page, with the same query and mode)");
    let raw = data_encoding::BASE64URL_NOPAD.decode(c.as_bytes()).map_err(|_| bad())?;
    let s = String::from_utf8(raw).map_err(|_| bad())?;
    let mut it = s.splitn(3, '.');
    match (it.next(), it.next().and_then(|o| o.parse().ok()), it.next()) {
        (Some("s1"), Some(o), Some(h)) if h == qhash => Ok(o),
        _ => Err(bad()),
    }
}
