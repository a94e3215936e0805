//! Token ledger (seed 000 `recordTokens` / `tokenTotals`). Token numbers and
//! model/provider names are plaintext (DESIGN.md allows them).

use super::{journal, now_ms, SessionStore, TokenTotals, TokenUsage, Tx};
use crate::backend::{NewTokenRow, TokenRow};
use crate::error::{Error, Result};

/// The record id of a token-ledger row in errors and `doctor --check`:
/// `tokens:<session id>:<row id>` (token numbers are plaintext, no AAD).
pub(crate) fn token_record(session_id: &str, row_id: i64) -> String {
    format!("tokens:{session_id}:{row_id}")
}

/// A token row's `(input, output, cached)`. Errors: `Corrupt` naming the
/// record for a negative count (the ledger only ever stores counts ≥ 0).
pub(crate) fn token_counts(session_id: &str, row: &TokenRow) -> Result<(u64, u64, u64)> {
    let n = |v: i64| {
        u64::try_from(v).map_err(|_| Error::corrupt(format!("record `{}`: negative token count", token_record(session_id, row.row_id))))
    };
    Ok((n(row.input)?, n(row.output)?, n(row.cached)?))
}

/// Record `usages` in the ledger. `times[i]` (ms since the epoch) is when
/// usage `i` happened, when the source says (an imported message's
/// timestamp); a missing one is now. The viewer's per-day usage reads it.
pub(crate) fn record_in_tx(t: &Tx<'_>, session_id: &str, usages: &[TokenUsage], times: &[Option<i64>]) -> Result<()> {
    for usage in usages {
        for (what, v) in [("input", usage.input), ("output", usage.output), ("cached", usage.cached)] {
            if v > i64::MAX as u64 {
                return Err(Error::invalid(format!("{what} token count is out of range")));
            }
        }
    }
    if !t.tx.session_exists(session_id)? {
        return Err(Error::not_found("session", session_id));
    }
    let now = now_ms();
    let rows: Vec<NewTokenRow<'_>> = usages
        .iter()
        .enumerate()
        .map(|(i, u)| NewTokenRow {
            model: u.model.as_deref(),
            provider: u.provider.as_deref(),
            input: u.input,
            output: u.output,
            cached: u.cached,
            created_at: times.get(i).copied().flatten().unwrap_or(now),
        })
        .collect();
    t.tx.insert_tokens(session_id, &rows)?;
    let (mut input, mut output, mut cached) = (0u64, 0u64, 0u64);
    for u in usages {
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
        self.write(|t| record_in_tx(t, session_id, std::slice::from_ref(&usage), &[]))
    }

    /// Add several ledger records in one transaction with one `TokensRecorded`
    /// journal event (imports). All or none. Errors: as [`Self::record_tokens`].
    pub fn record_tokens_batch(&self, session_id: &str, usages: Vec<TokenUsage>) -> Result<()> {
        if usages.is_empty() {
            return Ok(());
        }
        self.write(|t| record_in_tx(t, session_id, &usages, &[]))
    }

    /// A session's ledger records in the order written, each with the time it
    /// was recorded (ms since the epoch; an import records its usage at
    /// import time) and its model: what the viewer's usage charts add up
    /// (`crate::serve`). Errors: `Corrupt` for a negative count.
    #[cfg_attr(not(feature = "viewer"), allow(dead_code))]
    pub(crate) fn token_ledger(&self, session_id: &str) -> Result<Vec<(TokenUsage, i64)>> {
        self.read(|c, _| {
            c.token_copies(session_id)?
                .into_iter()
                .enumerate()
                .map(|(i, r)| {
                    let n = |v: i64| u64::try_from(v).map_err(|_| Error::corrupt(format!("record `tokens:{session_id}:#{}`: negative token count", i + 1)));
                    Ok((TokenUsage { input: n(r.input)?, output: n(r.output)?, cached: n(r.cached)?, model: r.model, provider: r.provider }, r.created_at))
                })
                .collect()
        })
    }

    /// Sums of a session's token ledger.
    ///
    /// Errors: `NotFound` (session).
    pub fn token_totals(&self, session_id: &str) -> Result<TokenTotals> {
        self.read(|c, _| {
            if !c.session_exists(session_id)? {
                return Err(Error::not_found("session", session_id));
            }
            // Sums saturate at u64::MAX instead of failing with an integer overflow.
            let mut t = TokenTotals::default();
            for row in c.token_rows(session_id)? {
                let (input, output, cached) = token_counts(session_id, &row)?;
                t.input = t.input.saturating_add(input);
                t.output = t.output.saturating_add(output);
                t.cached = t.cached.saturating_add(cached);
            }
            Ok(t)
        })
    }
}
