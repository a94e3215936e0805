//! Privacy policies (issue 30; DESIGN.md "Privacy"): secret redaction and
//! retention.
//! (The size-oracle switch is [`crate::OpenOptions::compress`]; deletion's
//! scrubbing is [`crate::SessionStore::delete_session`].)

pub mod redact;
pub mod retention;

pub use redact::{RedactPolicy, RedactionReport, Redactor, RuleSet};

pub use retention::{PrunedSession, RetentionPolicy};
