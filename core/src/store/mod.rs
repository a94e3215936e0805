//! SessionStore (placeholder while the store lands).
/// Default `busy_timeout` in milliseconds.
pub const DEFAULT_BUSY_TIMEOUT_MS: u64 = 10_000;
