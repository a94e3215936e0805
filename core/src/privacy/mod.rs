//! Privacy policies (issue 30; DESIGN.md "Privacy"): retention.
//! (The size-oracle switch is [`crate::OpenOptions::compress`]; deletion's
//! scrubbing is [`crate::SessionStore::delete_session`].)

pub mod retention;

pub use retention::{PrunedSession, RetentionPolicy};
