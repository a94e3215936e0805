//! Token ledger (seed 000 `recordTokens` / `tokenTotals`). Token numbers and
//! model/provider names are plaintext (DESIGN.md allows them).

use rusqlite::params;

use super::{now_ms, SessionStore, TokenTotals, TokenUsage, Tx};
use crate::error::{Error, Result};
use crate::journal;

/// The record id of a token-ledger row in errors and `doctor --check`:
/// `tokens:<session id>:<row id>` (token numbers are plaintext, no AAD).
pub(crate) fn token_record(session_id: &str, row_id: i64) -> String {
    format!("tokens:{session_id}:{row_id}")
}

pub(crate) fn record_in_tx(t: &Tx<'_>, session_id: &str, usages: &[TokenUsage]) -> Result<()> {
    for usage in usages {
        for (what, v) in [("input", usage.input), ("output", usage.output), ("cached", usage.cached)] {
            if v > i64::MAX as u64 {
                return Err(Error::invalid(format!("{what} token count is out of range")));
            }
        }
    }
    let n: i64 = t.tx.query_row("SELECT COUNT(*) FROM sessions WHERE id = ?1", [session_id], |r| r.get(0))?;
    if n == 0 {
        return Err(Error::not_found("session", session_id));
    }
    let now = now_ms();
    let mut ins = t.tx.prepare_cached(
        "INSERT INTO token_ledger (session_id, model, provider, input, output, cached, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let (mut input, mut output, mut cached) = (0u64, 0u64, 0u64);
    for u in usages {
        ins.execute(params![session_id, u.model, u.provider, u.input as i64, u.output as i64, u.cached as i64, now])?;
        input = input.saturating_add(u.input);
        output = output.saturating_add(u.output);
        cached = cached.saturating_add(u.cached);
    }
    let payload = match usages {
        [u] => serde_json::json!({ "input": u.input, "output": u.output, "cached": u.cached, "model": u.model }),
        _ => serde_json::json!({ "records": usages.len(), "input": input, "output": output, "cached": cached }),
    };
    journal::record(t, session_id, "TokensRecorded", payload)?;
    Ok(())
}

impl SessionStore {
    /// Add one ledger record. Errors: `NotFound` (session), `InvalidInput` (count above 2^63-1).
    pub fn record_tokens(&self, session_id: &str, usage: TokenUsage) -> Result<()> {
        self.write(|t| record_in_tx(t, session_id, std::slice::from_ref(&usage)))
    }

    /// Add several ledger records in one transaction with one `TokensRecorded`
    /// journal event (imports). All or none. Errors: as [`Self::record_tokens`].
    pub fn record_tokens_batch(&self, session_id: &str, usages: Vec<TokenUsage>) -> Result<()> {
        if usages.is_empty() {
            return Ok(());
        }
        self.write(|t| record_in_tx(t, session_id, &usages))
    }

    /// Sums of a session's ledger. Errors: `NotFound` (session).
    pub fn token_totals(&self, session_id: &str) -> Result<TokenTotals> {
        self.read(|c, _| {
            let n: i64 = c.query_row("SELECT COUNT(*) FROM sessions WHERE id = ?1", [session_id], |r| r.get(0))?;
            if n == 0 {
                return Err(Error::not_found("session", session_id));
            }
            // Sums saturate at u64::MAX instead of failing with SQLite's integer overflow.
            let mut st = c.prepare_cached("SELECT input, output, cached, id FROM token_ledger WHERE session_id = ?1")?;
            let mut rows = st.query([session_id])?;
            let mut t = TokenTotals::default();
            while let Some(r) = rows.next()? {
                let rec = token_record(session_id, r.get(3)?);
                let count = |i: usize| -> Result<u64> {
                    u64::try_from(super::column::<i64>(r, i, &rec)?)
                        .map_err(|_| Error::corrupt(format!("record `{rec}`: negative token count")))
                };
                t.input = t.input.saturating_add(count(0)?);
                t.output = t.output.saturating_add(count(1)?);
                t.cached = t.cached.saturating_add(count(2)?);
            }
            Ok(t)
        })
    }
}
