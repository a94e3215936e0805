//! Redaction on write (issue 30 item 2) as the store applies it: the
//! handle's policy, its redactor and what it redacted (moved out of
//! `store/mod.rs` as is).

use super::{lock, redact_entry, EntryMeta, NewEntry, SessionStore};

impl SessionStore {
    /// This handle's redaction policy ([`OpenOptions::redact`](super::OpenOptions::redact)).
    pub fn redact_policy(&self) -> crate::privacy::RedactPolicy {
        self.redact
    }

    /// The store's redactor: its rules ([`OpenOptions::redact_rules`](super::OpenOptions::redact_rules) or
    /// the built-in ones) with markers keyed by a key derived from the data
    /// key. Made at the first call (compiling the built-in rules once per
    /// process).
    pub fn redactor(&self) -> &crate::privacy::Redactor {
        self.redactor.get_or_init(|| {
            let rules = self.redact_rules.clone().unwrap_or_else(crate::privacy::RuleSet::builtin);
            crate::privacy::Redactor::new(rules, &self.key)
        })
    }

    /// Secrets this handle redacted on write (policy `OnWrite`) since it
    /// was opened, per rule.
    pub fn redaction_report(&self) -> crate::privacy::RedactionReport {
        lock(&self.redacted).clone()
    }

    /// With policy `OnWrite`: redact an entry's content (as JSON when its
    /// format is `Blocks`) and metadata (`extra` and the item) in place,
    /// before they are sealed; counted in [`Self::redaction_report`].
    pub(crate) fn redact_on_write(&self, entry: &mut NewEntry, meta: Option<&mut EntryMeta>) {
        if self.redact != crate::privacy::RedactPolicy::OnWrite {
            return;
        }
        let mut rep = crate::privacy::RedactionReport::default();
        redact_entry(self.redactor(), entry.format, &mut entry.content, meta, &mut rep);
        if rep.total() > 0 {
            lock(&self.redacted).add(&rep);
        }
    }

    /// With policy `OnWrite`: a context extension's body (JSON text)
    /// redacted; else `None`.
    pub(crate) fn redact_text_on_write(&self, json: &str) -> Option<String> {
        if self.redact != crate::privacy::RedactPolicy::OnWrite {
            return None;
        }
        let mut rep = crate::privacy::RedactionReport::default();
        let out = self.redactor().redact_json_text(json, &mut rep);
        if rep.total() > 0 {
            lock(&self.redacted).add(&rep);
        }
        out
    }
}
