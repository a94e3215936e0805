//! Atomic rewrites of a session's visible tail: the Agents SDK JS
//! session's history transactions (`@openai/agents-core`
//! `src/memory/session.ts`, `SessionHistoryTransactionAwareSession`:
//! `append_items` and `replace_suffix`, and the `replace_function_call`
//! mutation of `SessionHistoryRewriteAwareSession`; issue 29 item 1).
//!
//! Rows are never rewritten (seed 000, "Saved Transcript vs. Active
//! Context"): a replaced entry is retracted, as `pop_item` does, and the
//! replacement is appended after it, all in one transaction with one
//! `TranscriptTailReplaced` journal event.

use serde_json::Value;

use super::transcript::{append_digest, append_rows_in_tx, entry_of, open_meta, stored_entries, AppendEvent};
use super::{journal, EntryMeta, NewEntry, SessionStore, TranscriptEntry, Tx};
use crate::error::{Error, Result};

impl SessionStore {
    /// Replace the session's last visible entries, which must hold
    /// `expected_items`, with `entries`, all or none: the SDK's
    /// `replace_suffix` (with no expected items, an append that records its
    /// key even when `entries` is empty: the SDK's `append_items`).
    ///
    /// `expected_items` are JSON texts, oldest first, compared as JSON
    /// values (object keys in any order) with the structured items
    /// ([`EntryMeta::item`]) of the session's last `expected_items.len()`
    /// visible entries; an entry without an item compares as `{"role":
    /// <role>, "content": <content>}`, the item the Agents SDK adapters read
    /// for it. The matching entries are retracted (left out of every read,
    /// never deleted) and `entries` appended after them, with one
    /// `TranscriptTailReplaced` journal event `{retracted: [seq, ...],
    /// from_seq, count, digest, at}` (payload sealed). Returns the appended
    /// entries with their seqs.
    ///
    /// With an `idempotency_key` (the event's id, as in
    /// [`Self::append_entries_keyed`]), a repeat of the same replacement
    /// (same expected items and entries) writes nothing and returns the
    /// entries the first call stored, though the tail no longer matches.
    ///
    /// Errors: `NotFound` (session); `InvalidInput` (an expected item that
    /// is not JSON, the entries' metadata, the key's form); `Conflict` (the
    /// tail does not hold the expected items, or the key was used for
    /// another change or event; nothing is written); `Busy`, `Closed`.
    pub fn replace_tail_items(
        &self,
        session_id: &str,
        expected_items: Vec<String>,
        entries: Vec<(NewEntry, EntryMeta)>,
        idempotency_key: Option<&str>,
    ) -> Result<Vec<TranscriptEntry>> {
        let expected = expected_items
            .iter()
            .enumerate()
            .map(|(i, t)| serde_json::from_str::<Value>(t).map_err(|e| Error::invalid(format!("expected item {}: not JSON ({e})", i + 1))))
            .collect::<Result<Vec<_>>>()?;
        let (entries, metas): (Vec<NewEntry>, Vec<EntryMeta>) = entries.into_iter().unzip();
        let digest = replace_digest(&expected, &entries, &metas);
        let counted = self.counts_for_storage(session_id, &entries);
        self.write(|t| {
            if let Some(key) = idempotency_key {
                if let Some((first, at)) = journal::keyed_event(t, session_id, key, "TranscriptTailReplaced", &digest)? {
                    return Ok(stored_entries(session_id, &entries, first, at));
                }
            }
            let retracted = match_tail(t, session_id, &expected)?;
            for &seq in &retracted {
                t.tx.retract_entry(session_id, seq)?;
            }
            let (first, now) = match append_rows_in_tx(t, session_id, &entries, Some(&metas), None, &counted, AppendEvent::ByCaller)? {
                (0, _) => (t.tx.last_entry_seq(session_id)? + 1, super::now_ms()),
                written => written,
            };
            let payload = serde_json::json!({ "retracted": retracted, "from_seq": first, "count": entries.len(), "digest": digest, "at": now });
            match idempotency_key {
                Some(key) => journal::record_keyed(t, key, session_id, "TranscriptTailReplaced", payload)?,
                None => journal::record(t, session_id, "TranscriptTailReplaced", payload)?,
            };
            Ok(stored_entries(session_id, &entries, first, now))
        })
    }
}

/// The seqs of the session's last `expected.len()` visible entries, oldest
/// first, when their items equal `expected`. Errors: `NotFound` (session),
/// `Conflict` (fewer entries, or another item), those of decryption.
fn match_tail(t: &Tx<'_>, session_id: &str, expected: &[Value]) -> Result<Vec<u64>> {
    if t.tx.session_updated_at(session_id)?.is_none() {
        return Err(Error::not_found("session", session_id));
    }
    if expected.is_empty() {
        return Ok(Vec::new());
    }
    let n = u32::try_from(expected.len()).map_err(|_| Error::invalid("too many expected items"))?;
    let rows = t.tx.entries_tail(session_id, n, true)?;
    let mismatch = |why: String| Error::conflict(format!("the session's last entries no longer hold the expected items ({why})"));
    if rows.len() != expected.len() {
        return Err(mismatch(format!("{} expected, {} visible", expected.len(), rows.len())));
    }
    for (i, (row, want)) in rows.iter().zip(expected).enumerate() {
        let have = match open_meta(t.key, session_id, row)?.1 {
            Some(text) => serde_json::from_str::<Value>(&text).map_err(|_| Error::corrupt(format!("record `transcript:{session_id}:{}:meta`: item is not JSON", row.seq)))?,
            None => {
                let e = entry_of(t.key, session_id, row)?;
                serde_json::json!({ "role": e.role.as_str(), "content": e.content })
            }
        };
        if &have != want {
            return Err(mismatch(format!("item {} of {} differs", i + 1, expected.len())));
        }
    }
    Ok(rows.iter().map(|r| r.seq).collect())
}

/// SHA-256 (hex) of a replacement: the expected items (as JSON values,
/// serialized) and the entries' [`append_digest`], each length-prefixed.
fn replace_digest(expected: &[Value], entries: &[NewEntry], metas: &[EntryMeta]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update((expected.len() as u64).to_le_bytes());
    for v in expected {
        let text = v.to_string();
        h.update((text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
    }
    h.update(append_digest(entries, Some(metas)).as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
