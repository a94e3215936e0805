//! Token ledger (seed 000 `recordTokens` / `tokenTotals`). Token numbers and
//! model/provider names are plaintext (DESIGN.md allows them).

use rusqlite::params;

use super::{now_ms, SessionStore, TokenTotals, TokenUsage, Tx};
use crate::error::{Error, Result};
use crate::journal;

pub(crate) fn record_in_tx(t: &Tx<'_>, session_id: &str, usage: &TokenUsage) -> Result<()> {
    for (what, v) in [("input", usage.input), ("output", usage.output), ("cached", usage.cached)] {
        if v > i64::MAX as u64 {
            return Err(Error::invalid(format!("{what} token count is out of range")));
        }
    }
    let n: i64 = t.tx.query_row("SELECT COUNT(*) FROM sessions WHERE id = ?1", [session_id], |r| r.get(0))?;
    if n == 0 {
        return Err(Error::not_found("session", session_id));
    }
    t.tx.prepare_cached(
        "INSERT INTO token_ledger (session_id, model, provider, input, output, cached, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        session_id,
        usage.model,
        usage.provider,
        usage.input as i64,
        usage.output as i64,
        usage.cached as i64,
        now_ms()
    ])?;
    journal::record(
        t,
        session_id,
        "TokensRecorded",
        serde_json::json!({ "input": usage.input, "output": usage.output, "cached": usage.cached, "model": usage.model }),
    )?;
    Ok(())
}

impl SessionStore {
    /// Add one ledger record. Errors: `NotFound` (session), `InvalidInput` (count above 2^63-1).
    pub fn record_tokens(&self, session_id: &str, usage: TokenUsage) -> Result<()> {
        self.write(|t| record_in_tx(t, session_id, &usage))
    }

    /// Sums of a session's ledger. Errors: `NotFound` (session).
    pub fn token_totals(&self, session_id: &str) -> Result<TokenTotals> {
        self.read(|c, _| {
            let n: i64 = c.query_row("SELECT COUNT(*) FROM sessions WHERE id = ?1", [session_id], |r| r.get(0))?;
            if n == 0 {
                return Err(Error::not_found("session", session_id));
            }
            // Sums saturate at u64::MAX instead of failing with SQLite's integer overflow.
            let mut st = c.prepare_cached("SELECT input, output, cached FROM token_ledger WHERE session_id = ?1")?;
            let mut rows = st.query([session_id])?;
            let mut t = TokenTotals::default();
            while let Some(r) = rows.next()? {
                t.input = t.input.saturating_add(r.get::<_, i64>(0)? as u64);
                t.output = t.output.saturating_add(r.get::<_, i64>(1)? as u64);
                t.cached = t.cached.saturating_add(r.get::<_, i64>(2)? as u64);
            }
            Ok(t)
        })
    }
}
