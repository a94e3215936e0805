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
//!   `regex::RegexSet` pass over the text tells which); the secret is the
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
        Ok(Allow { regexes, stopwords: a.stopwords.iter().map(|w| w.to_lowercase()).collect(), target, and, scoped: !a.paths.is_empty() || !a.commits.is_empty() })
    }

    /// Does this allowlist let the finding through as not a secret?
    fn allows(&self, secret: &str, matched: &str, line: &str) -> bool {
        let t = match self.target {
            Target::Secret => secret,
            Target::Match => matched,
            Target::Line => line,
        };
        let by_regex = self.regexes.iter().any(|r| r.is_match(t));
        let by_word = !self.stopwords.is_empty() && {
            let s = secret.to_lowercase();
            self.stopwords.iter().any(|w| s.contains(w.as_str()))
        };
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

fn compile(pattern: &str, what: &str) -> Result<Regex> {
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
fn from_go_syntax(p: &str) -> String {
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

/// One compiled rule.
struct Rule {
    id: String,
    regex: Regex,
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
    /// The ASCII keywords of every rule, ASCII case-insensitive: the
    /// prefilter of an ASCII text (the same answer as `prefilter` there,
    /// at a fraction of its cost: issue 30 item 2's append budget).
    keywords_ascii: aho_corasick::AhoCorasick,
    /// Rule index of each `keywords_ascii` pattern.
    keyword_rule: Vec<usize>,
    /// Rules with a keyword that is not ASCII, with their own `(?i)`
    /// keyword pattern (one that case-folds to ASCII could occur in an
    /// ASCII text): tried one by one on an ASCII text.
    unicode_keyword_rules: Vec<(usize, Regex)>,
    /// Rules without keywords (always run).
    always: Vec<usize>,
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
                let rule = Rule {
                    generic: r.id.starts_with("generic"),
                    id: r.id,
                    regex,
                    secret_group: r.secret_group,
                    entropy: r.entropy,
                    keywords: r.keywords.iter().map(|k| k.to_lowercase()).filter(|k| !k.is_empty()).collect(),
                    allow,
                };
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
        let mut unicode_keyword_rules = Vec::new();
        for (p, &i) in prefilter_rule.iter().enumerate() {
            let kws = &rules[i].keywords;
            if kws.iter().all(|k| k.is_ascii()) {
                for k in kws {
                    ascii.push(k.as_str());
                    keyword_rule.push(i);
                }
            } else {
                let re = Regex::new(&patterns[p]).map_err(|e| Error::invalid(format!("redaction rules: the keywords do not compile: {e}")))?;
                unicode_keyword_rules.push((i, re));
            }
        }
        // A DFA: the keyword lists are small, and an overlapping search
        // through the NFAs costs several times more per byte.
        let keywords_ascii = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(&ascii)
            .map_err(|e| Error::invalid(format!("redaction rules: the keywords do not compile: {e}")))?;
        Ok(RuleSet { rules, global, prefilter, prefilter_rule, keywords_ascii, keyword_rule, unicode_keyword_rules, always })
    }

    /// Could any rule find something in `text` (one of its keywords occurs,
    /// or a rule has none)? False means [`Self::find`] finds nothing.
    pub fn may_match(&self, text: &str) -> bool {
        if !self.always.is_empty() {
            return true;
        }
        if text.is_ascii() {
            self.keywords_ascii.is_match(text) || self.unicode_keyword_rules.iter().any(|(_, re)| re.is_match(text))
        } else {
            self.prefilter.is_match(text)
        }
    }

    /// The rules whose keywords occur in `text` (case-insensitive), in no
    /// particular order, possibly repeated.
    fn keyword_rules(&self, text: &str) -> Vec<usize> {
        if !text.is_ascii() {
            // Unicode case folding (`(?i)`): the RegexSet.
            return self.prefilter.matches(text).iter().map(|p| self.prefilter_rule[p]).collect();
        }
        // ASCII text: ASCII case folding is `(?i)`'s answer for ASCII
        // keywords; each rule counted once.
        let mut seen = vec![false; self.rules.len()];
        let mut out = Vec::new();
        for m in self.keywords_ascii.find_overlapping_iter(text) {
            let i = self.keyword_rule[m.pattern().as_usize()];
            if !seen[i] {
                seen[i] = true;
                out.push(i);
            }
        }
        out.extend(self.unicode_keyword_rules.iter().filter(|(_, re)| re.is_match(text)).map(|(i, _)| *i));
        out
    }

    /// The rule ids, in the order they are tried.
    pub fn rule_ids(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.id.as_str()).collect()
    }

    /// Every finding in `text`, not overlapping, in text order: `(byte
    /// range of the secret, rule id)`.
    pub fn find(&self, text: &str) -> Vec<(std::ops::Range<usize>, &str)> {
        let mut candidates: Vec<usize> = self.keyword_rules(text);
        candidates.extend_from_slice(&self.always);
        if candidates.is_empty() {
            return Vec::new();
        }
        candidates.sort_unstable();
        let mut found: Vec<(usize, usize, bool, usize)> = Vec::new();
        for &ri in &candidates {
            let r = &self.rules[ri];
            for caps in r.regex.captures_iter(text) {
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

    /// On ASCII text the Aho-Corasick prefilter picks exactly the rules the
    /// `(?i)` RegexSet picks (the set the non-ASCII path still uses).
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
            let mut fast = rules.keyword_rules(t);
            fast.sort_unstable();
            let mut set: Vec<usize> = rules.prefilter.matches(t).iter().map(|p| rules.prefilter_rule[p]).collect();
            set.sort_unstable();
            assert_eq!(fast, set, "{t}");
            assert_eq!(rules.may_match(t), !set.is_empty(), "{t}");
            picked_any += usize::from(!set.is_empty());
        }
        assert_eq!(picked_any, 4);
    }
}
