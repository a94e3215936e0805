//! Secret redaction (issue 30 item 2; DESIGN.md "Privacy").
//!
//! * Rules are in gitleaks' TOML format (`[[rules]]` with `id`, `regex`,
//!   `secretGroup`, `entropy`, `keywords`, `[[rules.allowlists]]`, and a
//!   global `[allowlist]`): a vendored subset of gitleaks' default rules
//!   ([`GITLEAKS_RULES`], MIT, see the file's header), then sessiondb's own
//!   ([`SESSIONDB_RULES`]: connection-string passwords, Authorization
//!   headers), then an optional user file whose rules replace those of the
//!   same id and add the others ([`RuleSet::with_user_file`]).
//! * Matching follows gitleaks' `detect.go` (`detectRule`): a rule runs only
//!   when one of its keywords occurs in the text (case-insensitive; one
//!   `regex::RegexSet` pass over the text tells which, or for an ASCII text
//!   one walk of an Aho-Corasick DFA; there a rule with a keyword-anchored
//!   check, see [`anchor_check`], runs only when the check matches at one of
//!   its keywords, which changes no finding); the secret is the
//!   rule's `secretGroup`, else its first non-empty group, else the whole
//!   match; a finding whose secret's Shannon entropy (bits per byte, over
//!   characters, as gitleaks computes it) is at most the rule's `entropy`
//!   is dropped, as is one a global or rule allowlist allows (`regexes` on
//!   the secret, the match or the line per `regexTarget`; `stopwords` in the
//!   lowercased secret; `condition` OR/AND; `paths` and `commits` never
//!   apply to session text, so an AND allowlist that has them allows
//!   nothing). gitleaks' decoding passes (base64, hex, percent) are not run.
//! * Each secret is replaced by `[REDACTED:<rule id>:<8 hex>]`, the hex the
//!   first 4 bytes of HMAC-SHA-256 under a key derived (HKDF, info
//!   [`MARKER_KEY_INFO`]) from the data key: the same secret gives the same
//!   marker within a store, and nothing about it can be checked without the
//!   key. Overlapping findings: the earliest, then the longest, then a
//!   specific rule over a `generic-*` one, wins.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use regex::{Regex, RegexSet};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::crypto::{self, DataKey};
use crate::error::{Error, Result};

mod anchor;
mod keywords;
mod syntax;

use anchor::{anchor_check, AnchorCaches, AnchorCheck};
use keywords::KeywordDfa;
use syntax::{compile, from_go_syntax};

/// gitleaks' default rules, the subset sessiondb ships (verbatim; made by
/// `scripts/vendor-gitleaks-rules.py`; MIT, Copyright (c) 2019 Zachary Rice).
pub const GITLEAKS_RULES: &str = include_str!("rules/gitleaks.toml");
/// sessiondb's own rules in the same format (connection strings with a
/// password, Authorization headers).
pub const SESSIONDB_RULES: &str = include_str!("rules/sessiondb.toml");
/// HKDF info label of the marker key (derived from the data key).
pub const MARKER_KEY_INFO: &str = "sessiondb redaction marker v1";
/// Largest user rule file read (bytes): 4 MiB.
pub const MAX_RULE_FILE_BYTES: u64 = 4 << 20;

/// When a store redacts secrets (issue 30 item 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RedactPolicy {
    /// Never by itself (the default); the Markdown export still redacts
    /// unless told not to.
    #[default]
    Off,
    /// Every export (thClaws JSONL, Markdown) and `copy` redact unless told
    /// not to; what is stored stays as given.
    OnExport,
    /// Content, entry metadata (with Agents SDK items) and context
    /// extensions are redacted before they are sealed: the secret is never
    /// stored. Exports then hold markers too.
    OnWrite,
}

impl RedactPolicy {
    /// `off`, `on-export` or `on-write`.
    pub fn as_str(self) -> &'static str {
        match self {
            RedactPolicy::Off => "off",
            RedactPolicy::OnExport => "on-export",
            RedactPolicy::OnWrite => "on-write",
        }
    }

    /// Parse `off` / `on-export` / `on-write` (also `on_export`,
    /// `on_write`). Errors: `InvalidInput` naming the accepted values.
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "off" => Ok(RedactPolicy::Off),
            "on-export" => Ok(RedactPolicy::OnExport),
            "on-write" => Ok(RedactPolicy::OnWrite),
            _ => Err(Error::invalid(format!("redaction policy `{s}` is not one of off, on-export, on-write"))),
        }
    }
}

impl std::str::FromStr for RedactPolicy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse(s)
    }
}

/// How many secrets of each rule were replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedactionReport {
    /// Rule id -> secrets replaced, in rule-id order.
    pub by_rule: BTreeMap<String, u64>,
}

impl RedactionReport {
    /// Secrets replaced, over every rule.
    pub fn total(&self) -> u64 {
        self.by_rule.values().sum()
    }

    /// Add `other`'s counts to these.
    pub fn add(&mut self, other: &RedactionReport) {
        for (k, v) in &other.by_rule {
            *self.by_rule.entry(k.clone()).or_default() += v;
        }
    }

    /// `rule ×n, rule ×n` (empty when nothing was redacted).
    pub fn summary(&self) -> String {
        self.by_rule.iter().map(|(k, v)| format!("{k} ×{v}")).collect::<Vec<_>>().join(", ")
    }
}

// ---- the gitleaks file format (the fields sessiondb reads) ----

#[derive(Deserialize, Default)]
struct FileConfig {
    #[serde(default)]
    rules: Vec<FileRule>,
    #[serde(default)]
    allowlist: Option<FileAllowlist>,
    #[serde(default)]
    allowlists: Vec<FileAllowlist>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileRule {
    id: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    regex: Option<String>,
    #[serde(default)]
    secret_group: usize,
    #[serde(default)]
    entropy: f64,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    allowlists: Vec<FileAllowlist>,
    #[serde(default)]
    allowlist: Option<FileAllowlist>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct FileAllowlist {
    #[serde(default)]
    condition: Option<String>,
    #[serde(default)]
    regex_target: Option<String>,
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    commits: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Secret,
    Match,
    Line,
}

/// One compiled allowlist.
struct Allow {
    regexes: Vec<Regex>,
    stopwords: Vec<String>,
    /// `stopwords` as one Aho-Corasick automaton (gitleaks' generic rule
    /// has over a thousand): "one of them occurs in the secret" in one pass.
    stopword_set: Option<aho_corasick::AhoCorasick>,
    /// One of `stopwords` is empty (it occurs in every secret).
    empty_stopword: bool,
    target: Target,
    and: bool,
    /// It names paths or commits (which never apply to session text).
    scoped: bool,
}

impl Allow {
    fn compile(a: FileAllowlist, what: &str) -> Result<Self> {
        let target = match a.regex_target.as_deref().unwrap_or("secret") {
            "secret" | "" => Target::Secret,
            "match" => Target::Match,
            "line" => Target::Line,
            t => return Err(Error::invalid(format!("{what}: regexTarget `{t}` is not secret, match or line"))),
        };
        let and = match a.condition.as_deref().unwrap_or("OR").to_ascii_uppercase().as_str() {
            "OR" | "" => false,
            "AND" => true,
            c => return Err(Error::invalid(format!("{what}: condition `{c}` is not OR or AND"))),
        };
        let regexes = a.regexes.iter().map(|r| compile(r, what)).collect::<Result<_>>()?;
        let stopwords: Vec<String> = a.stopwords.iter().map(|w| w.to_lowercase()).collect();
        let stopword_set = if stopwords.is_empty() {
            None
        } else {
            Some(aho_corasick::AhoCorasick::new(&stopwords).map_err(|e| Error::invalid(format!("{what}: the stopwords do not compile: {e}")))?)
        };
        let empty_stopword = stopwords.iter().any(String::is_empty);
        Ok(Allow { regexes, stopwords, stopword_set, empty_stopword, target, and, scoped: !a.paths.is_empty() || !a.commits.is_empty() })
    }

    /// Does this allowlist let the finding through as not a secret?
    fn allows(&self, secret: &str, matched: &str, line: &str) -> bool {
        let t = match self.target {
            Target::Secret => secret,
            Target::Match => matched,
            Target::Line => line,
        };
        let by_regex = self.regexes.iter().any(|r| r.is_match(t));
        // An empty stopword occurs in every secret (`str::contains`).
        let by_word = self.stopword_set.as_ref().is_some_and(|set| self.empty_stopword || set.is_match(&secret.to_lowercase()));
        if self.and {
            if self.scoped || (self.regexes.is_empty() && self.stopwords.is_empty()) {
                return false;
            }
            (self.regexes.is_empty() || by_regex) && (self.stopwords.is_empty() || by_word)
        } else {
            by_regex || by_word
        }
    }
}

/// One compiled rule.
struct Rule {
    id: String,
    regex: Regex,
    /// The keyword-anchored check (see [`anchor_check`]): when the rule's
    /// regex is a concatenation one of whose parts only matches text that
    /// starts with one of the rule's (ASCII) keywords, that part and the
    /// rest after it; a match of the rule in an ASCII text needs this to
    /// match, anchored, where a keyword starts.
    anchor: Option<AnchorCheck>,
    /// With `anchor`: the most bytes a match can have before the keyword
    /// the check starts at (the longest match of the parts before it), when
    /// finite: no match starts further back than that from the first
    /// keyword where the check matches.
    anchor_lead: Option<usize>,
    secret_group: usize,
    entropy: f64,
    keywords: Vec<String>,
    allow: Vec<Allow>,
    generic: bool,
}

/// A compiled rule set (see the module docs).
pub struct RuleSet {
    rules: Vec<Rule>,
    global: Vec<Allow>,
    /// One pattern per rule with keywords (`(?i)` alternation of them):
    /// the prefilter of a text that is not ASCII.
    prefilter: RegexSet,
    /// Rule index of each prefilter pattern.
    prefilter_rule: Vec<usize>,
    /// The ASCII keywords of every rule, ASCII case-insensitive, as an
    /// Aho-Corasick DFA (`MatchKind::Standard`, no prefilter): the prefilter
    /// of an ASCII text (the same answer as `prefilter` there, at a
    /// fraction of its cost: issue 30 item 2's append budget). One pass
    /// over the bytes ([`Self::scan_ascii`]) reports every occurrence of
    /// every keyword: a match state of a Standard DFA lists every pattern
    /// that ends there.
    keywords_ascii: KeywordDfa,
    /// Rule index of each `keywords_ascii` pattern.
    keyword_rule: Vec<usize>,
    /// Length in bytes of each `keywords_ascii` pattern.
    keyword_len: Vec<usize>,
    /// Rules with a keyword that is not ASCII, with their own `(?i)`
    /// keyword pattern (one that case-folds to ASCII could occur in an
    /// ASCII text): tried one by one on an ASCII text.
    unicode_keyword_rules: Vec<(usize, Regex)>,
    /// Rules without keywords (always run).
    always: Vec<usize>,
    /// The anchored checks' lazy-DFA caches (indexed by rule), one set per
    /// thread at a time.
    anchor_caches: regex_automata::util::pool::Pool<AnchorCaches, fn() -> AnchorCaches>,
}

impl std::fmt::Debug for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleSet").field("rules", &self.rule_ids()).finish_non_exhaustive()
    }
}

impl RuleSet {
    /// The built-in rules ([`GITLEAKS_RULES`] then [`SESSIONDB_RULES`]),
    /// compiled once per process.
    pub fn builtin() -> Arc<RuleSet> {
        static BUILTIN: OnceLock<Arc<RuleSet>> = OnceLock::new();
        BUILTIN
            .get_or_init(|| Arc::new(RuleSet::from_tomls(&[("gitleaks.toml", GITLEAKS_RULES), ("sessiondb.toml", SESSIONDB_RULES)]).expect("the built-in rules compile")))
            .clone()
    }

    /// The built-in rules extended by the gitleaks-format file at `path`:
    /// its rules replace built-in rules of the same id and add the others,
    /// its allowlists add to the global ones. Errors: `Io` reading it,
    /// `InvalidInput` for a path that is not a regular file (a FIFO or a
    /// device such as `/dev/zero`, which has no length to check and never
    /// ends: refused before it is opened), a file over
    /// [`MAX_RULE_FILE_BYTES`] (at most that many bytes and one more are
    /// ever read, even if the file grows meanwhile), text that is not UTF-8,
    /// TOML that is not gitleaks' format, or a regex that does not compile
    /// (naming the file and the rule).
    pub fn with_user_file(path: &Path) -> Result<RuleSet> {
        use std::io::Read;
        let meta = std::fs::metadata(path).map_err(|e| Error::io("reading the redaction rules file", e))?;
        if !meta.is_file() {
            return Err(Error::invalid(format!("the redaction rules file {} is not a regular file (a FIFO or a device)", path.display())));
        }
        let too_big = || Error::invalid(format!("the redaction rules file {} is over {MAX_RULE_FILE_BYTES} bytes", path.display()));
        if meta.len() > MAX_RULE_FILE_BYTES {
            return Err(too_big());
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_RULE_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| Error::io("reading the redaction rules file", e))?;
        if bytes.len() as u64 > MAX_RULE_FILE_BYTES {
            return Err(too_big());
        }
        let text = String::from_utf8(bytes).map_err(|_| Error::invalid(format!("the redaction rules file {} is not UTF-8", path.display())))?;
        Self::with_user_rules(&path.display().to_string(), &text)
    }

    /// [`Self::with_user_file`] over the file's text (`name` names it in errors).
    pub fn with_user_rules(name: &str, text: &str) -> Result<RuleSet> {
        Self::from_tomls(&[("gitleaks.toml", GITLEAKS_RULES), ("sessiondb.toml", SESSIONDB_RULES), (name, text)])
    }

    /// Compile `(name, toml text)` files in order; a later rule replaces an
    /// earlier one of the same id. Errors: `InvalidInput` (see
    /// [`Self::with_user_file`]).
    pub fn from_tomls(files: &[(&str, &str)]) -> Result<RuleSet> {
        let mut rules: Vec<Rule> = Vec::new();
        let mut global = Vec::new();
        for (name, text) in files {
            let cfg: FileConfig = toml::from_str(text).map_err(|e| Error::invalid(format!("redaction rules {name}: not gitleaks' TOML format: {e}")))?;
            for a in cfg.allowlist.into_iter().chain(cfg.allowlists) {
                global.push(Allow::compile(a, &format!("redaction rules {name}: global allowlist"))?);
            }
            for r in cfg.rules {
                let what = format!("redaction rules {name}: rule `{}`", r.id);
                // A rule with only a `path` matches file names, not text.
                let Some(pattern) = r.regex else { continue };
                let _ = r.description;
                let regex = compile(&pattern, &what)?;
                if r.secret_group >= regex.captures_len() {
                    return Err(Error::invalid(format!("{what}: secretGroup {} but the regex has {} group(s)", r.secret_group, regex.captures_len() - 1)));
                }
                let allow = r.allowlists.into_iter().chain(r.allowlist).map(|a| Allow::compile(a, &what)).collect::<Result<Vec<_>>>()?;
                let keywords: Vec<String> = r.keywords.iter().map(|k| k.to_lowercase()).filter(|k| !k.is_empty()).collect();
                let mut rule = Rule {
                    generic: r.id.starts_with("generic"),
                    anchor: None,
                    anchor_lead: None,
                    id: r.id,
                    regex,
                    secret_group: r.secret_group,
                    entropy: r.entropy,
                    keywords,
                    allow,
                };
                if let Some((check, lead)) = anchor_check(&from_go_syntax(&pattern), &rule.keywords) {
                    rule.anchor = Some(check);
                    rule.anchor_lead = lead;
                }
                match rules.iter_mut().find(|x| x.id == rule.id) {
                    Some(x) => *x = rule,
                    None => rules.push(rule),
                }
            }
        }
        let mut patterns = Vec::new();
        let mut prefilter_rule = Vec::new();
        let mut always = Vec::new();
        for (i, r) in rules.iter().enumerate() {
            if r.keywords.is_empty() {
                always.push(i);
            } else {
                patterns.push(format!("(?i:{})", r.keywords.iter().map(|k| regex::escape(k)).collect::<Vec<_>>().join("|")));
                prefilter_rule.push(i);
            }
        }
        let prefilter = RegexSet::new(&patterns).map_err(|e| Error::invalid(format!("redaction rules: the keywords do not compile: {e}")))?;
        let mut ascii = Vec::new();
        let mut keyword_rule = Vec::new();
        let mut keyword_len = Vec::new();
        let mut unicode_keyword_rules = Vec::new();
        for (p, &i) in prefilter_rule.iter().enumerate() {
            let kws = &rules[i].keywords;
            if kws.iter().all(|k| k.is_ascii()) {
                for k in kws {
                    ascii.push(k.as_str());
                    keyword_rule.push(i);
                    keyword_len.push(k.len());
                }
            } else {
                let re = Regex::new(&patterns[p]).map_err(|e| Error::invalid(format!("redaction rules: the keywords do not compile: {e}")))?;
                unicode_keyword_rules.push((i, re));
            }
        }
        // A DFA walked byte by byte (`scan_ascii`), from a flat copy of its
        // table (`KeywordDfa`): the keyword lists are small. No prefilter:
        // keywords start with most letters, so in ordinary text a prefilter
        // is called at nearly every byte and costs more than the transition
        // it would skip.
        let keywords_ascii = aho_corasick::dfa::DFA::builder()
            .match_kind(aho_corasick::MatchKind::Standard)
            .ascii_case_insensitive(true)
            .prefilter(false)
            .start_kind(aho_corasick::StartKind::Unanchored)
            .build(&ascii)
            .map_err(|e| Error::invalid(format!("redaction rules: the keywords do not compile: {e}")))?;
        let keywords_ascii = KeywordDfa::from_aho(&keywords_ascii).map_err(|e| Error::invalid(format!("redaction rules: the keywords do not compile: {e}")))?;
        let anchor_caches = regex_automata::util::pool::Pool::new(Vec::new as fn() -> AnchorCaches);
        Ok(RuleSet { rules, global, prefilter, prefilter_rule, keywords_ascii, keyword_rule, keyword_len, unicode_keyword_rules, always, anchor_caches })
    }

    /// Could any rule find something in `text` (one of its keywords occurs,
    /// or a rule has none)? False means [`Self::find`] finds nothing.
    pub fn may_match(&self, text: &str) -> bool {
        if !self.always.is_empty() {
            return true;
        }
        if text.is_ascii() {
            self.scan_ascii(text, |_, _| true) || self.unicode_keyword_rules.iter().any(|(_, re)| re.is_match(text))
        } else {
            self.prefilter.is_match(text)
        }
    }

    /// The rules whose keywords occur in `text` (case-insensitive), in no
    /// particular order, possibly repeated.
    fn keyword_rules(&self, text: &str) -> Vec<(usize, usize)> {
        if !text.is_ascii() {
            // Unicode case folding (`(?i)`): the RegexSet.
            return self.prefilter.matches(text).iter().map(|p| (self.prefilter_rule[p], 0)).collect();
        }
        // ASCII text: ASCII case folding is `(?i)`'s answer for ASCII
        // keywords; each rule counted once.
        // A rule with a keyword-anchored check runs only when the check
        // matches at one of its keywords' starts (otherwise its regex cannot
        // match anywhere in the text: see `anchor_check`); the others run
        // when one of their keywords occurs.
        const UNSEEN: u8 = 0;
        const PICKED: u8 = 1;
        const FAILED: u8 = 2;
        let mut seen = vec![UNSEEN; self.rules.len()];
        let mut out = Vec::new();
        // (rule, keyword start) of each rule's last anchored check: few
        // rules are checked in one text, so a short list searched in place
        // (a vector of every rule's was a quarter of this pass's own cost).
        let mut last_check: Vec<(usize, usize)> = Vec::new();
        // Taken from the pool at the first check only (most texts need none).
        let mut caches = None;
        self.scan_ascii(text, |p, end| {
            let i = self.keyword_rule[p];
            if seen[i] == PICKED {
                return false;
            }
            match &self.rules[i].anchor {
                None => {
                    seen[i] = PICKED;
                    out.push((i, 0));
                }
                Some(check) => {
                    let start = end - self.keyword_len[p];
                    match last_check.iter_mut().find(|(rule, _)| *rule == i) {
                        Some((_, at)) if *at == start => return false,
                        Some((_, at)) => *at = start,
                        None => last_check.push((i, start)),
                    }
                    let caches = caches.get_or_insert_with(|| {
                        let mut c = self.anchor_caches.get();
                        c.resize_with(self.rules.len(), || None);
                        c
                    });
                    if check.is_match_at(&mut caches[i], text, start) {
                        seen[i] = PICKED;
                        // Hits come in text order: this is the first
                        // keyword where a match of the rule can be.
                        out.push((i, self.rules[i].anchor_lead.map_or(0, |l| start.saturating_sub(l))));
                    } else {
                        seen[i] = FAILED;
                    }
                }
            }
            false
        });
        out.extend(self.unicode_keyword_rules.iter().filter(|(_, re)| re.is_match(text)).map(|(i, _)| (*i, 0)));
        out
    }

    /// One pass of the keyword DFA over `text` (ASCII): `hit(pattern, end)`
    /// for every occurrence of every ASCII keyword (each pattern that ends
    /// at byte `end`), in text order; stops early, returning true, when
    /// `hit` returns true. The walk itself ([`KeywordDfa::walk`]) only collects the
    /// match states, so that its loop stays a few instructions per byte.
    fn scan_ascii(&self, text: &str, mut hit: impl FnMut(usize, usize) -> bool) -> bool {
        let dfa = &self.keywords_ascii;
        let mut state = dfa.start();
        let mut matches = Vec::new();
        let mut from = 0;
        loop {
            let done = dfa.walk(&mut state, text.as_bytes(), &mut from, &mut matches);
            for &(s, end) in &matches {
                for &p in dfa.patterns(s) {
                    if hit(p as usize, end) {
                        return true;
                    }
                }
            }
            if done {
                return false;
            }
            matches.clear();
        }
    }

    /// The rule ids, in the order they are tried.
    pub fn rule_ids(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.id.as_str()).collect()
    }

    /// Every finding in `text`, not overlapping, in text order: `(byte
    /// range of the secret, rule id)`.
    pub fn find(&self, text: &str) -> Vec<(std::ops::Range<usize>, &str)> {
        let mut candidates = self.keyword_rules(text);
        candidates.extend(self.always.iter().map(|&i| (i, 0)));
        self.find_among(text, candidates)
    }

    /// [`Self::find`] without its shortcuts, for tests that check they
    /// change nothing: the rules picked by the `(?i)` keyword `RegexSet`
    /// (whatever the text), each rule's regex over the whole text.
    #[doc(hidden)]
    pub fn find_reference(&self, text: &str) -> Vec<(std::ops::Range<usize>, &str)> {
        let mut candidates: Vec<(usize, usize)> = self.prefilter.matches(text).iter().map(|p| (self.prefilter_rule[p], 0)).collect();
        candidates.extend(self.always.iter().map(|&i| (i, 0)));
        self.find_among(text, candidates)
    }

    /// The findings of the rules `candidates` in `text`: `(rule index,
    /// where its first match can start at the earliest)`, any order, repeats
    /// allowed. A rule searched from a later place than 0 has an anchored
    /// check (`Rule::anchor`): none of its matches is empty, so searching on
    /// from each match's end is what `captures_iter` does.
    fn find_among(&self, text: &str, mut candidates: Vec<(usize, usize)>) -> Vec<(std::ops::Range<usize>, &str)> {
        if candidates.is_empty() {
            return Vec::new();
        }
        candidates.sort_unstable();
        candidates.dedup_by_key(|c| c.0);
        let mut found: Vec<(usize, usize, bool, usize)> = Vec::new();
        for &(ri, from) in &candidates {
            let r = &self.rules[ri];
            let mut at = from;
            let later = std::iter::from_fn(|| {
                if at > text.len() {
                    return None;
                }
                let caps = r.regex.captures_at(text, at)?;
                at = caps.get(0).expect("group 0 always matches").end().max(at + 1);
                Some(caps)
            });
            let all: Box<dyn Iterator<Item = regex::Captures<'_>> + '_> = if from == 0 { Box::new(r.regex.captures_iter(text)) } else { Box::new(later) };
            for caps in all {
                let whole = caps.get(0).expect("group 0 always matches");
                let secret = if r.secret_group > 0 {
                    match caps.get(r.secret_group) {
                        Some(m) => m,
                        None => continue,
                    }
                } else {
                    (1..caps.len()).filter_map(|g| caps.get(g)).find(|m| !m.is_empty()).unwrap_or(whole)
                };
                if secret.is_empty() {
                    continue;
                }
                let s = secret.as_str();
                if r.entropy != 0.0 && shannon_entropy(s) <= r.entropy {
                    continue;
                }
                let line = line_around(text, whole.start(), whole.end());
                if self.global.iter().chain(&r.allow).any(|a| a.allows(s, whole.as_str(), line)) {
                    continue;
                }
                found.push((secret.start(), secret.end(), r.generic, ri));
            }
        }
        found.sort_unstable_by_key(|&(s, e, g, i)| (s, std::cmp::Reverse(e), g, i));
        let mut out: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
        for (s, e, _, i) in found {
            if out.last().is_some_and(|(r, _)| s < r.end) {
                continue;
            }
            out.push((s..e, self.rules[i].id.as_str()));
        }
        out
    }
}


/// The line of `text` holding `start..end` (the lines it spans).
fn line_around(text: &str, start: usize, end: usize) -> &str {
    let a = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let b = text[end..].find('\n').map_or(text.len(), |i| end + i);
    &text[a..b]
}

/// Shannon entropy of `s` as gitleaks computes it (`detect/utils.go`
/// `shannonEntropy`): over characters, with frequencies divided by the
/// length in bytes.
pub fn shannon_entropy(s: &str) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    for c in s.chars() {
        *counts.entry(c).or_default() += 1;
    }
    let inv = 1.0 / s.len() as f64;
    -counts.values().map(|&n| n as f64 * inv).map(|f| f * f.log2()).sum::<f64>()
}

/// Redacts with one rule set and one store's marker key.
pub struct Redactor {
    rules: Arc<RuleSet>,
    key: DataKey,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor").field("rules", &self.rules).finish_non_exhaustive()
    }
}

impl Redactor {
    /// A redactor with `rules` whose markers are keyed by a key derived
    /// from `data_key` (HKDF-SHA-256, info [`MARKER_KEY_INFO`]).
    pub fn new(rules: Arc<RuleSet>, data_key: &DataKey) -> Self {
        Redactor { rules, key: crypto::derive_key(data_key, b"", MARKER_KEY_INFO) }
    }

    /// The rules in use.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// `[REDACTED:<rule>:<8 hex>]` for `secret` (see the module docs).
    pub fn marker(&self, rule: &str, secret: &str) -> String {
        let d = crypto::keyed_digest(&self.key, "redaction-marker", secret.as_bytes());
        format!("[REDACTED:{rule}:{:02x}{:02x}{:02x}{:02x}]", d[0], d[1], d[2], d[3])
    }

    /// `text` with every secret replaced by its marker, or `None` when it
    /// holds none; counts go to `report`.
    pub fn redact_str(&self, text: &str, report: &mut RedactionReport) -> Option<String> {
        let found = self.rules.find(text);
        if found.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (range, rule) in found {
            out.push_str(&text[at..range.start]);
            out.push_str(&self.marker(rule, &text[range.clone()]));
            *report.by_rule.entry(rule.to_string()).or_default() += 1;
            at = range.end;
        }
        out.push_str(&text[at..]);
        Some(out)
    }

    /// Redact every string in `v` (object keys stay); true when one changed.
    pub fn redact_json(&self, v: &mut Value, report: &mut RedactionReport) -> bool {
        match v {
            Value::String(s) => match self.redact_str(s, report) {
                Some(r) => {
                    *s = r;
                    true
                }
                None => false,
            },
            Value::Array(a) => a.iter_mut().fold(false, |ch, x| self.redact_json(x, report) | ch),
            Value::Object(o) => o.values_mut().fold(false, |ch, x| self.redact_json(x, report) | ch),
            _ => false,
        }
    }

    /// Redact a JSON text: its strings, re-serialized when one changed (so
    /// a secret inside a string never breaks an escape); text that is not
    /// JSON is redacted as text. `None` when nothing changed.
    pub fn redact_json_text(&self, text: &str, report: &mut RedactionReport) -> Option<String> {
        // Most texts hold no rule's keyword: one prefilter pass decides.
        if !self.rules.may_match(text) {
            return None;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(mut v) => self.redact_json(&mut v, report).then(|| v.to_string()),
            Err(_) => self.redact_str(text, report),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RuleSet;

    /// On ASCII text the Aho-Corasick keyword pass picks exactly the rules
    /// the `(?i)` RegexSet picks (the set the non-ASCII path still uses).
    #[test]
    fn the_ascii_keyword_prefilter_picks_the_rules_the_regex_set_picks() {
        let rules = RuleSet::builtin();
        let texts = [
            "nothing to see here",
            "export GITHUB_TOKEN=ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5",
            "AKIA and Api_Key and SECRET and xoxb- and postgres://u:p@h/db",
            "Authorization: Bearer abc; sk_live_ and -----BEGIN RSA PRIVATE KEY-----",
            "TOKEN token ToKeN apikey APIKEY passwd PassWord",
        ];
        let mut picked_any = 0;
        for t in texts {
            // Every keyword occurrence the DFA pass reports (before the
            // keyword-anchored checks narrow the rules down).
            let mut fast = Vec::new();
            rules.scan_ascii(t, |p, _| {
                fast.push(rules.keyword_rule[p]);
                false
            });
            fast.extend(rules.unicode_keyword_rules.iter().filter(|(_, re)| re.is_match(t)).map(|(i, _)| *i));
            fast.sort_unstable();
            fast.dedup();
            let mut set: Vec<usize> = rules.prefilter.matches(t).iter().map(|p| rules.prefilter_rule[p]).collect();
            set.sort_unstable();
            assert_eq!(fast, set, "{t}");
            assert_eq!(rules.may_match(t), !set.is_empty(), "{t}");
            picked_any += usize::from(!set.is_empty());
        }
        assert_eq!(picked_any, 4);
    }
}
