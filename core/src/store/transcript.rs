//! Transcript entries: gapless per-session seq, encrypted content (AAD
//! `transcript:<sid>:<seq>:content`), paged reads.
//!
//! Per-entry metadata ([`EntryMeta`], schema v3): `model` and `provider` in
//! plaintext columns, the source's other fields sealed with record id
//! `transcript:<sid>:<seq>:meta`. Those columns come after `content_enc`
//! (see `schema::V3`), so only [`SessionStore::get_transcript_with_meta`]
//! selects them.
//!
//! Source: seed 000, "SessionStore" (`appendTranscript`, `getTranscript`)
//! and "Saved Transcript vs. Active Context": entries are never rewritten.

use std::borrow::Borrow;

use super::entry_meta::{decode_meta, encode_meta, item_offset, meta_record, split_meta, write_meta_record};
use super::{journal, now_ms, open_required, open_sealed, ContentFormat, EntryMeta, ItemPage, NewEntry, Role, SessionStore, TranscriptEntry, Tx};
use crate::backend::{EntryRow, NewEntryRow, ReadTx, Sealed};
use crate::crypto;
use crate::error::{Error, Result};

/// `updated_at` advances on append only when it is at least this far behind
/// (milliseconds): "most recently active" ordering has 1-second resolution.
pub const ACTIVITY_GRANULARITY_MS: i64 = 1000;

/// Largest page `get_transcript` returns in one call.
pub const MAX_PAGE: u32 = 10_000;

/// The page size every host uses when the caller gives none (transcript and
/// journal reads): the same in Python, Node, Kotlin and Swift.
pub const DEFAULT_PAGE: u32 = 1_000;

fn content_record(sid: &str, seq: u64) -> String {
    // Pushed, not `format!`ed: one per entry read or written.
    let mut rec = String::with_capacity(sid.len() + 40);
    rec.push_str("transcript:");
    rec.push_str(sid);
    rec.push(':');
    crypto::push_decimal(&mut rec, seq);
    rec.push_str(":content");
    rec
}

/// The content envelope of entry `seq` of session `sid` (AAD record id
/// `transcript:<sid>:<seq>:content`), in the binary form; `compress`: see
/// [`crypto::seal`].
pub(crate) fn seal_content(key: &crate::crypto::DataKey, sid: &str, seq: u64, content: &str, compress: bool) -> Vec<u8> {
    crypto::seal(key, &content_record(sid, seq), content.as_bytes(), compress)
}

/// Everything [`append_rows_in_tx`] computes of an entry before its row is
/// written, made off the writing thread for the seq the entry is expected
/// to get (issue 33 item 3: the import's sealing stage): its content and
/// metadata sealed for that seq, its kind and its stored call keys.
pub(crate) struct SealedRow {
    /// The content's envelope ([`seal_content`]).
    pub(crate) content: Vec<u8>,
    /// The metadata's envelope (`None`: no metadata to store).
    pub(crate) meta: Option<Vec<u8>>,
    /// Its [`entry_kind`].
    pub(crate) kind: &'static str,
    /// Its [`call_keys`].
    pub(crate) call_keys: String,
}

/// The [`SealedRow`] of `entry` (with `meta`) at `seq` of session `sid`:
/// what [`append_rows_in_tx`] would compute for it there.
pub(crate) fn seal_row(key: &crate::crypto::DataKey, calls_by: &mut Option<crypto::KeyedDigester>, sid: &str, seq: u64, entry: &NewEntry, meta: Option<&EntryMeta>, compress: bool) -> SealedRow {
    let content = seal_content(key, sid, seq, &entry.content, compress);
    let meta = meta.and_then(encode_meta).map(|json| crypto::seal(key, &meta_record(sid, seq), json.as_bytes(), compress));
    let (kind, calls) = entry_shape(entry.role, entry.format, &entry.content);
    let call_keys = if calls.is_empty() { String::new() } else { call_keys_by(calls_by.get_or_insert_with(|| crypto::KeyedDigester::new(key, CALL_ID_DOMAIN)), &calls) };
    SealedRow { content, meta, kind, call_keys }
}

/// Kind names stored in `transcript_entries.kind` (schema version 4).
pub mod entry_kind {
    /// A user or assistant message without tool calls.
    pub const MESSAGE: &str = "message";
    /// An assistant message that makes tool calls (`tool_use` blocks).
    pub const TOOL_CALL: &str = "tool_call";
    /// A tool result (role `tool`, or `tool_result` blocks).
    pub const TOOL_RESULT: &str = "tool_result";
    /// A system prompt or notice.
    pub const SYSTEM: &str = "system";
}

/// What an entry is for context planning, and the tool-call ids that link
/// it to other entries: for `blocks` content, `tool_use` blocks (`id`) make
/// a tool call and `tool_result` blocks (`tool_use_id`) a tool result; role
/// `tool` is a tool result, role `system` a system item, anything else a
/// message. Pure; content that is not a JSON array of blocks has no calls.
pub fn entry_shape(role: Role, format: ContentFormat, content: &str) -> (&'static str, Vec<String>) {
    let mut calls = Vec::new();
    let mut kind = match role {
        Role::System => entry_kind::SYSTEM,
        Role::Tool => entry_kind::TOOL_RESULT,
        Role::User | Role::Assistant => entry_kind::MESSAGE,
    };
    // Most block contents hold no tool blocks: skip the parse for them. The
    // parse reads only `type`, `id` and `tool_use_id` of each block (serde
    // skips everything else without building it).
    #[derive(serde::Deserialize)]
    struct Block {
        #[serde(rename = "type", default)]
        kind: Option<serde_json::Value>,
        #[serde(default)]
        id: Option<serde_json::Value>,
        #[serde(default)]
        tool_use_id: Option<serde_json::Value>,
    }
    if format == ContentFormat::Blocks && (content.contains("tool_use") || content.contains("tool_result")) {
        // Elements that are not objects: read the general way.
        let blocks: Vec<Block> = match serde_json::from_str::<Vec<Block>>(content) {
            Ok(b) => b,
            Err(_) => serde_json::from_str::<Vec<serde_json::Value>>(content)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|v| v.is_object().then(|| serde_json::from_value(v).ok()).flatten())
                .collect(),
        };
        {
            for b in &blocks {
                match b.kind.as_ref().and_then(|v| v.as_str()) {
                    Some("tool_use") => {
                        if let Some(id) = b.id.as_ref().and_then(|v| v.as_str()) {
                            calls.push(id.to_string());
                            if kind == entry_kind::MESSAGE {
                                kind = entry_kind::TOOL_CALL;
                            }
                        }
                    }
                    Some("tool_result") => {
                        if let Some(id) = b.tool_use_id.as_ref().and_then(|v| v.as_str()) {
                            calls.push(id.to_string());
                            if kind != entry_kind::SYSTEM {
                                kind = entry_kind::TOOL_RESULT;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    (kind, calls)
}

/// The stored form of tool-call ids: each id's keyed hash
/// (`crypto::keyed_hash`, domain `call-id`, first 16 hex digits),
/// space-separated, so plaintext columns link a call to its result without
/// holding the id.
pub fn call_keys(key: &crate::crypto::DataKey, ids: &[String]) -> String {
    call_keys_by(&crypto::KeyedDigester::new(key, CALL_ID_DOMAIN), ids)
}

/// The `crypto::keyed_hash` domain of [`call_keys`].
const CALL_ID_DOMAIN: &str = "call-id";

/// [`call_keys`] with the keyed state of domain [`CALL_ID_DOMAIN`] made
/// once by the caller (the same text).
fn call_keys_by(d: &crypto::KeyedDigester, ids: &[String]) -> String {
    let mut out = String::with_capacity(ids.len() * 17);
    for id in ids {
        if !out.is_empty() {
            out.push(' ');
        }
        // The first 16 hex digits of the keyed hash: its first 8 bytes.
        out.push_str(&crypto::hex(&d.digest(&[id.as_bytes()])[..8]));
    }
    out
}

/// Check a structured item before anything is written: one JSON value.
/// Errors: `InvalidInput`.
fn check_item(item: &Option<String>) -> Result<()> {
    match item {
        Some(text) if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() => {
            Err(Error::invalid("EntryMeta.item must be the JSON text of one value (a framework item)"))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
thread_local! {
    /// Test hook: fail the write right after the first row insert.
    pub(crate) static FAIL_AFTER_FIRST_INSERT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Test hook: panic right after the first row insert.
    pub(crate) static PANIC_AFTER_FIRST_INSERT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Append `entries` to a session in `t` with gapless seqs and one
/// `TranscriptAppended` journal event; `metas`, when given, holds one
/// [`EntryMeta`] per entry (same order; an empty `extra` stores no
/// `meta_enc`). Returns the seq of the first entry and
/// the time (ms) given to entries without `created_at_ms` (`(0, 0)` when
/// `entries` is empty, and nothing is written). Entries and metadata are
/// only borrowed. Errors: `NotFound` (session); `InvalidInput` (metadata
/// count, a bad model/provider name, or `tokens`/`source_line` above
/// `i64::MAX`, naming the entry from 1).
///
/// `event` says which journal event records the append (see [`AppendEvent`]).
///
/// `sealed`, when given, is `(first seq, envelopes)`: each entry's content
/// already sealed by [`seal_content`] for the seq it was expected to get
/// (work done off the writing thread). They are used only when the session's
/// next seq is that first seq; otherwise (another writer appended in
/// between) the content is sealed again for the seqs it actually gets.
///
/// `counted`: each entry's token count taken where its content was in hand
/// (`context::tokens::count_for_storage`, with the encoding of the
/// session's model as the caller knew it), stored in `counted_tokens`; one
/// per entry, or empty for none (the column stays NULL and `context` counts
/// when it needs to). Not tied to seqs, so used whatever seqs the entries get.
pub(crate) fn append_rows_in_tx<E: Borrow<NewEntry>, M: Borrow<EntryMeta>>(
    t: &Tx<'_>,
    session_id: &str,
    entries: &[E],
    metas: Option<&[M]>,
    sealed: Option<(u64, &[Vec<u8>])>,
    counted: &[Option<u64>],
    event: AppendEvent<'_>,
) -> Result<(u64, i64)> {
    append_prepared_in_tx(t, session_id, entries, metas, sealed.map(|(first, env)| (first, Presealed::Content(env))), counted, event)
}

/// What was made of the entries off the writing thread for the seqs from a
/// first one (see [`append_rows_in_tx`]'s `sealed`).
#[derive(Clone, Copy)]
pub(crate) enum Presealed<'a> {
    /// Each content's envelope.
    Content(&'a [Vec<u8>]),
    /// Each entry's whole [`SealedRow`] (made with the same metadata).
    Rows(&'a [SealedRow]),
}

impl Presealed<'_> {
    fn len(&self) -> usize {
        match self {
            Presealed::Content(c) => c.len(),
            Presealed::Rows(r) => r.len(),
        }
    }
}

/// [`append_rows_in_tx`], the work done beforehand given as [`Presealed`]:
/// whole rows are used as they are when the session's next seq is their
/// first seq (else everything is made again for the seqs the entries get).
pub(crate) fn append_prepared_in_tx<E: Borrow<NewEntry>, M: Borrow<EntryMeta>>(
    t: &Tx<'_>,
    session_id: &str,
    entries: &[E],
    metas: Option<&[M]>,
    sealed: Option<(u64, Presealed<'_>)>,
    counted: &[Option<u64>],
    event: AppendEvent<'_>,
) -> Result<(u64, i64)> {
    if entries.is_empty() {
        return Ok((0, 0));
    }
    // Both are INTEGER (i64) columns: a larger value would be stored clamped
    // while the caller is told it was stored as given.
    for (i, e) in entries.iter().enumerate() {
        let e = e.borrow();
        for (what, v) in [("tokens", e.tokens), ("source_line", e.source_line)] {
            if let Some(v) = v.filter(|&v| v > i64::MAX as u64) {
                return Err(Error::invalid(format!("entry {}: {what} {v} is out of range (at most {})", i + 1, i64::MAX)));
            }
        }
    }
    if let Some(m) = metas {
        if m.len() != entries.len() {
            return Err(Error::invalid("one EntryMeta per entry is required"));
        }
        for x in m {
            super::sessions::check_label("model", &x.borrow().model)?;
            super::sessions::check_label("provider", &x.borrow().provider)?;
            check_item(&x.borrow().item)?;
        }
    }
    let updated_at = t.tx.session_updated_at(session_id)?.ok_or_else(|| Error::not_found("session", session_id))?;
    // Seqs are gapless from 1, so the entry count of a session is its last seq.
    let last = t.tx.last_entry_seq(session_id)?;
    let sealed = sealed.filter(|(first, env)| *first == last + 1 && env.len() == entries.len()).map(|(_, env)| env);
    let now = now_ms();
    let latest = entries.iter().map(|e| e.borrow().created_at_ms.unwrap_or(now)).max().unwrap_or(0).max(0);
    // Seal everything first (unless done beforehand), then hand the backend the rows.
    let made: Vec<SealedRow>;
    let (rows_made, contents): (&[SealedRow], Option<&[Vec<u8>]>) = match sealed {
        Some(Presealed::Rows(rows)) => (rows, None),
        Some(Presealed::Content(env)) => {
            made = make_rows(t, session_id, entries, metas, last, Some(env));
            (&made, Some(env))
        }
        None => {
            made = make_rows(t, session_id, entries, metas, last, None);
            (&made, None)
        }
    };
    let rows: Vec<NewEntryRow<'_>> = entries
        .iter()
        .zip(rows_made)
        .enumerate()
        .map(|(i, (e, r))| {
            let e = e.borrow();
            let meta = metas.map(|m| m[i].borrow());
            NewEntryRow {
                seq: last + 1 + i as u64,
                role: e.role.as_str(),
                format: e.format.as_str(),
                // Envelopes sealed beforehand are borrowed, not copied.
                content: contents.map_or(r.content.as_slice(), |c| c[i].as_slice()),
                created_at: e.created_at_ms.unwrap_or(now),
                tokens: e.tokens,
                source_line: e.source_line,
                model: meta.and_then(|m| m.model.as_deref()),
                provider: meta.and_then(|m| m.provider.as_deref()),
                meta: r.meta.as_deref(),
                content_bytes: e.content.len() as u64,
                kind: r.kind,
                call_keys: r.call_keys.as_str(),
                counted_tokens: counted.get(i).copied().flatten(),
            }
        })
        .collect();
    #[cfg(test)]
    if FAIL_AFTER_FIRST_INSERT.with(|f| f.get()) {
        t.tx.insert_entries(session_id, &rows[..1])?;
        return Err(Error::Database("injected failure after the first insert".into()));
    }
    #[cfg(test)]
    if PANIC_AFTER_FIRST_INSERT.with(|f| f.get()) {
        t.tx.insert_entries(session_id, &rows[..1])?;
        panic!("injected panic after the first insert");
    }
    t.tx.insert_entries(session_id, &rows)?;
    // The activity clock (`updated_at`, which orders listings) moves in steps
    // of at least ACTIVITY_GRANULARITY_MS, so most appends leave the session
    // row and its two indexes untouched and write fewer pages.
    // Entries carrying their own time (imports) move the clock to that time, not to now.
    if latest.saturating_sub(updated_at) >= ACTIVITY_GRANULARITY_MS {
        t.tx.set_session_updated_at(session_id, latest)?;
    }
    let first = last + 1;
    match event {
        AppendEvent::Appended => journal::record(t, session_id, "TranscriptAppended", serde_json::json!({ "from_seq": first, "count": entries.len() }))?,
        AppendEvent::Keyed { key, digest } => journal::record_keyed(
            t,
            key,
            session_id,
            "TranscriptAppended",
            serde_json::json!({ "from_seq": first, "count": entries.len(), "digest": digest, "at": now }),
        )?,
        AppendEvent::ByCaller => return Ok((first, now)),
    };
    Ok((first, now))
}

/// The [`SealedRow`]s of `entries` at seqs from `last + 1` (`contents`:
/// their content envelopes, made beforehand; the rows' `content` is then
/// left empty and the caller uses those).
fn make_rows<E: Borrow<NewEntry>, M: Borrow<EntryMeta>>(t: &Tx<'_>, session_id: &str, entries: &[E], metas: Option<&[M]>, last: u64, contents: Option<&[Vec<u8>]>) -> Vec<SealedRow> {
    let mut calls_by = None;
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let e = e.borrow();
            let seq = last + 1 + i as u64;
            let meta = metas.map(|m| m[i].borrow());
            match contents {
                Some(_) => {
                    let meta = meta.and_then(encode_meta).map(|json| crypto::seal(t.key, &meta_record(session_id, seq), json.as_bytes(), t.compress));
                    let (kind, calls) = entry_shape(e.role, e.format, &e.content);
                    let call_keys = if calls.is_empty() { String::new() } else { call_keys_by(calls_by.get_or_insert_with(|| crypto::KeyedDigester::new(t.key, CALL_ID_DOMAIN)), &calls) };
                    SealedRow { content: Vec::new(), meta, kind, call_keys }
                }
                None => seal_row(t.key, &mut calls_by, session_id, seq, e, meta, t.compress),
            }
        })
        .collect()
}

/// The journal event [`append_rows_in_tx`] records for the rows it writes.
#[derive(Clone, Copy)]
pub(crate) enum AppendEvent<'a> {
    /// A `TranscriptAppended` event under a fresh event id.
    Appended,
    /// A `TranscriptAppended` event under the caller's idempotency key,
    /// with the entries' [`append_digest`] in its sealed payload.
    Keyed { key: &'a str, digest: &'a str },
    /// None: the caller records its own event in the same transaction
    /// (`SessionStore::replace_tail_items`).
    ByCaller,
}

/// SHA-256 (hex) over what an append stores of each entry (role, format,
/// content, own time, tokens, source line, model, provider, encoded
/// metadata), each part
/// length-prefixed: two appends share a digest only when they would store
/// the same entries. Kept in the keyed append's (sealed) journal payload.
pub(crate) fn append_digest(entries: &[NewEntry], metas: Option<&[EntryMeta]>) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut part = |b: &[u8]| {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    };
    for (i, e) in entries.iter().enumerate() {
        part(e.role.as_str().as_bytes());
        part(e.format.as_str().as_bytes());
        part(e.content.as_bytes());
        for v in [e.created_at_ms.map(|v| v as u64), e.tokens, e.source_line] {
            part(&v.map(|v| v.to_le_bytes().to_vec()).unwrap_or_default());
        }
        let meta = metas.and_then(|m| m.get(i));
        for label in [meta.and_then(|m| m.model.as_deref()), meta.and_then(|m| m.provider.as_deref())] {
            // `None` and `Some("")` differ: a tag byte before the text.
            part(&label.map(|l| [&[1u8][..], l.as_bytes()].concat()).unwrap_or_default());
        }
        part(meta.and_then(encode_meta).unwrap_or_default().as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// [`append_rows_in_tx`], returning the stored entries.
///
/// With an `idempotency_key` (issue 29 item 2), the append's journal event
/// takes the key as its id, and an append that finds the key already used
/// by an append of the same entries to this session writes nothing and
/// returns that append's entries (same seqs and times): a retried call
/// stores its entries once. Errors: as [`append_rows_in_tx`]; those of
/// [`journal::keyed_event`] (`InvalidInput` for a malformed key,
/// `Conflict` for a key used for anything else).
pub(crate) fn append_in_tx(
    t: &Tx<'_>,
    session_id: &str,
    entries: &[NewEntry],
    metas: Option<&[EntryMeta]>,
    counted: &[Option<u64>],
    idempotency_key: Option<&str>,
) -> Result<Vec<TranscriptEntry>> {
    let (first, now) = match idempotency_key {
        Some(key) => {
            let digest = append_digest(entries, metas);
            match journal::keyed_event(t, session_id, key, "TranscriptAppended", &digest)? {
                Some(earlier) => earlier,
                None => append_rows_in_tx(t, session_id, entries, metas, None, counted, AppendEvent::Keyed { key, digest: &digest })?,
            }
        }
        None => append_rows_in_tx(t, session_id, entries, metas, None, counted, AppendEvent::Appended)?,
    };
    Ok(stored_entries(session_id, entries, first, now))
}

/// The entries an append stored from `first` on, entries without their own
/// time given `now`.
pub(crate) fn stored_entries(session_id: &str, entries: &[NewEntry], first: u64, now: i64) -> Vec<TranscriptEntry> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| TranscriptEntry {
            session_id: session_id.to_string(),
            seq: first + i as u64,
            role: e.role,
            format: e.format,
            content: e.content.clone(),
            created_at_ms: e.created_at_ms.unwrap_or(now),
            tokens: e.tokens,
            source_line: e.source_line,
        })
        .collect()
}

impl SessionStore {
    /// One page: up to `limit` (1..=10000) entries with `seq >= from_seq`.
    ///
    /// In seq order. Page through a large session with `from_seq = last.seq +
    /// 1`; at most [`MAX_PAGE`] entries are decrypted per call. Errors:
    /// `NotFound` (session), `AuthenticationFailed`, `InvalidInput` (limit 0 or
    /// above MAX_PAGE).
    pub fn get_transcript(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<TranscriptEntry>> {
        self.read_entries(session_id, Some(from_seq), limit, false, |_, _, e| Ok(e))
    }

    /// The last `limit` (1..=10000) entries, in seq order (all of a shorter session).
    ///
    /// Read in one transaction: the tail of a long session without paging
    /// through it. Errors: as [`Self::get_transcript`].
    pub fn get_transcript_tail(&self, session_id: &str, limit: u32) -> Result<Vec<TranscriptEntry>> {
        self.read_entries(session_id, None, limit, false, |_, _, e| Ok(e))
    }

    /// `get_transcript` with each entry's metadata (an empty `EntryMeta`
    /// for entries written without).
    ///
    /// Slower on large entries than `get_transcript`: the metadata columns sit
    /// after the content (see `schema::V3`). Errors: as `get_transcript`;
    /// `Corrupt` when decrypted metadata is not a JSON object.
    pub fn get_transcript_with_meta(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<(TranscriptEntry, EntryMeta)>> {
        self.read_entries(session_id, Some(from_seq), limit, true, |key, row, e| with_meta(key, session_id, row, e))
    }

    /// The last `limit` (1..=10000) entries with their metadata, in seq
    /// order, in one read.
    ///
    /// What an Agents SDK session's `get_items(limit)` needs. Errors: as
    /// [`Self::get_transcript_with_meta`].
    pub fn get_transcript_tail_with_meta(&self, session_id: &str, limit: u32) -> Result<Vec<(TranscriptEntry, EntryMeta)>> {
        self.read_entries(session_id, None, limit, true, |key, row, e| with_meta(key, session_id, row, e))
    }

    /// The session's last seq, retracted entries included (0 when it has
    /// none): where the next append goes minus one. Errors: `NotFound`.
    pub fn last_seq(&self, session_id: &str) -> Result<u64> {
        self.read(|c, _| {
            if !c.session_exists(session_id)? {
                return Err(Error::not_found("session", session_id));
            }
            c.last_entry_seq(session_id)
        })
    }

    /// Retract entry `seq`: it stays stored but is left out of reads, counts,
    /// export, fork and the context from now on (one EntryRetracted journal
    /// event). Returns the entry, or none when it was already retracted.
    ///
    /// DESIGN.md "Operations and recovery" (the Agents SDK's `pop_item`): the
    /// row is never deleted or rewritten; retracting it again records nothing.
    ///
    /// Errors: `NotFound` (session, or no entry `seq`), `Busy`.
    pub fn retract_entry(&self, session_id: &str, seq: u64) -> Result<Option<TranscriptEntry>> {
        let entry = self.read_one(session_id, seq)?;
        self.write(|t| {
            if !t.tx.session_exists(session_id)? {
                return Err(Error::not_found("session", session_id));
            }
            if seq == 0 || seq > t.tx.last_entry_seq(session_id)? {
                return Err(Error::not_found("entry", format!("{session_id}:{seq}")));
            }
            if !t.tx.retract_entry(session_id, seq)? {
                return Ok(None);
            }
            journal::record(t, session_id, "EntryRetracted", serde_json::json!({ "seq": seq }))?;
            Ok(entry.clone())
        })
    }

    /// Retract the last visible entry and return it (none when there is
    /// none): the Agents SDK's `pop_item`.
    ///
    /// Errors: `NotFound` (session), `Busy`.
    pub fn retract_last_entry(&self, session_id: &str) -> Result<Option<TranscriptEntry>> {
        loop {
            let Some(last) = self.get_transcript_tail(session_id, 1)?.pop() else { return Ok(None) };
            // Another handle may retract it first: then take the next one.
            if let Some(e) = self.retract_entry(session_id, last.seq)? {
                return Ok(Some(e));
            }
        }
    }

    /// Entry `seq` if it exists and is not retracted.
    fn read_one(&self, session_id: &str, seq: u64) -> Result<Option<TranscriptEntry>> {
        Ok(self.get_transcript(session_id, seq.max(1), 1)?.into_iter().find(|e| e.seq == seq))
    }

    /// The planning columns of up to `limit` entries from `from_seq` (no
    /// content is read or decrypted): what context status and compaction
    /// planning need (DESIGN.md "Context governance": planning reads stored
    /// counts and lengths). Errors: `NotFound` (session), `InvalidInput` (limit).
    pub(crate) fn entry_stats(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<crate::backend::EntryStatRow>> {
        self.read_page(session_id, limit, |c, _| c.entry_stats(session_id, from_seq, limit))
    }

    /// One read of a page of `session_id`: `limit` checked (1..=[`MAX_PAGE`],
    /// else `InvalidInput`), then the session (`NotFound`), then `f`.
    fn read_page<T>(&self, session_id: &str, limit: u32, f: impl FnOnce(&dyn ReadTx, &crypto::DataKey) -> Result<T>) -> Result<T> {
        if limit == 0 || limit > MAX_PAGE {
            return Err(Error::invalid(format!("limit must be 1..={MAX_PAGE}")));
        }
        self.read(|c, key| {
            if !c.session_exists(session_id)? {
                return Err(Error::not_found("session", session_id));
            }
            f(c, key)
        })
    }

    /// The rows of a page from `from_seq` (`None`: the last `limit`).
    fn page_rows(c: &dyn ReadTx, session_id: &str, from_seq: Option<u64>, limit: u32, with_meta: bool) -> Result<Vec<EntryRow>> {
        match from_seq {
            Some(seq) => c.entries(session_id, seq, limit, with_meta),
            None => c.entries_tail(session_id, limit, with_meta),
        }
    }

    /// Read one page of entries (with their metadata columns when
    /// `with_meta`) from `from_seq` (`None`: the last `limit`), decrypt each
    /// and map it through `f`.
    fn read_entries<T>(
        &self,
        session_id: &str,
        from_seq: Option<u64>,
        limit: u32,
        with_meta: bool,
        mut f: impl FnMut(&crypto::DataKey, &EntryRow, TranscriptEntry) -> Result<T>,
    ) -> Result<Vec<T>> {
        self.read_page(session_id, limit, |c, key| {
            let mut out = Vec::new();
            for mut row in Self::page_rows(c, session_id, from_seq, limit, with_meta)? {
                let content = std::mem::replace(&mut row.content, Sealed::Absent);
                let entry = entry_of_owned(key, session_id, &row, content)?;
                out.push(f(key, &row, entry)?);
            }
            Ok(out)
        })
    }

    /// Up to `limit` (1..=10000) entries with `seq >= from_seq` as their
    /// structured items, in one read (see `ItemPage`). Contents of entries
    /// with an item are not decrypted.
    ///
    /// An [`ItemPage`]: one JSON array text of the items (`null` for an entry
    /// without one), the seqs, and the entries without an item with content and
    /// metadata. The content envelope of an entry that carries an item is
    /// neither returned nor decrypted, so this reads an Agents SDK session's
    /// items faster than [`Self::get_transcript_with_meta`]. Retracted entries
    /// are left out, as in every read. Page on with `from_seq = seqs.last() +
    /// 1`.
    ///
    /// Errors: `NotFound` (session), `InvalidInput` (limit 0 or above
    /// MAX_PAGE), `AuthenticationFailed`, `Corrupt` (metadata that is not what
    /// [`encode_meta`] writes; a bad role or format of an entry without an
    /// item).
    pub fn get_entry_items(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<ItemPage> {
        self.read_items(session_id, Some(from_seq), limit)
    }

    /// The last `limit` (1..=10000) entries as their structured items, in
    /// seq order, in one read (see `ItemPage`).
    ///
    /// [`Self::get_entry_items`] of the tail, what an Agents SDK session's
    /// `get_items(limit)` needs. Errors: as `get_entry_items`.
    pub fn get_entry_items_tail(&self, session_id: &str, limit: u32) -> Result<ItemPage> {
        self.read_items(session_id, None, limit)
    }

    /// [`Self::get_entry_items`] from `from_seq` (`None`: the last `limit`).
    /// The backend's [`ReadTx::entry_items`] leaves out the content envelope
    /// of an entry with metadata; an entry whose metadata holds no item
    /// (rare: an imported entry with source metadata) is read again whole.
    fn read_items(&self, session_id: &str, from_seq: Option<u64>, limit: u32) -> Result<ItemPage> {
        self.read_page(session_id, limit, |c, key| {
            let rows = c.entry_items(session_id, from_seq, limit)?;
            let sealed_len: usize = rows.iter().map(|r| r.meta.as_ref().map_or(0, |m| match &m.extra { Sealed::Bytes(b) => b.len(), _ => 0 })).sum();
            let mut page = ItemPage { items_json: String::new(), seqs: Vec::with_capacity(rows.len()), without_item: Vec::new() };
            // The array's text, built as bytes (each item decrypted in
            // place at its end) and checked UTF-8 part by part.
            let mut json: Vec<u8> = Vec::with_capacity(sealed_len + rows.len() * 5 + 2);
            json.push(b'[');
            let mut rec = String::new();
            for row in &rows {
                if !page.seqs.is_empty() {
                    json.push(b',');
                }
                page.seqs.push(row.seq);
                let meta = row.meta.as_ref().expect("read with metadata");
                rec.clear();
                write_meta_record(&mut rec, session_id, row.seq);
                // The plaintext is decrypted at the end of the page's text
                // and the item kept there (the U+0001 form: only the short
                // `extra` before it is cut out), with no buffer of its own.
                let plain = match &meta.extra {
                    Sealed::Bytes(env) => {
                        let start = json.len();
                        crypto::open_append(key, &rec, env, &mut json)?;
                        if let Some(at) = item_offset(&json[start..], &rec)? {
                            json.drain(start..start + at);
                            continue;
                        }
                        Some(String::from_utf8(json.split_off(start)).expect("open_append checks UTF-8"))
                    }
                    other => open_sealed(key, other, &rec)?,
                };
                let mut parts = plain.as_deref().map(|t| split_meta(t, &rec)).transpose()?;
                if let Some(item) = parts.as_mut().and_then(|p| p.item.take()) {
                    json.extend_from_slice(item.as_bytes());
                    continue;
                }
                json.extend_from_slice(b"null");
                let extra = parts.map(|p| p.extra(&rec)).transpose()?.unwrap_or_default();
                let whole;
                let src = match row.content {
                    Sealed::Absent => {
                        whole = c.entries(session_id, row.seq, 1, false)?;
                        whole.first().filter(|r| r.seq == row.seq).ok_or_else(|| {
                            Error::corrupt(format!("record `{}`: the entry vanished within one read", content_record(session_id, row.seq)))
                        })?
                    }
                    _ => row,
                };
                let entry = entry_of(key, session_id, src)?;
                page.without_item.push((entry, EntryMeta { model: meta.model.clone(), provider: meta.provider.clone(), extra, item: None }));
            }
            json.push(b']');
            page.items_json = String::from_utf8(json).expect("each part is UTF-8: checked as it was added");
            Ok(page)
        })
    }
}

/// The entry of a row, its content decrypted (record `transcript:<sid>:<seq>:content`).
/// Errors: `AuthenticationFailed`, `Corrupt` (unknown role or format, no envelope).
pub(super) fn entry_of(key: &crypto::DataKey, session_id: &str, row: &EntryRow) -> Result<TranscriptEntry> {
    entry_with(session_id, row, |rec| open_required(key, &row.content, rec))
}

/// [`entry_of`] taking the row's content envelope by value (`content`,
/// taken out of `row`): decrypted in its own buffer ([`crypto::open_owned`]).
pub(super) fn entry_of_owned(key: &crypto::DataKey, session_id: &str, row: &EntryRow, content: Sealed) -> Result<TranscriptEntry> {
    entry_with(session_id, row, |rec| match content {
        Sealed::Bytes(b) => crypto::open_owned(key, rec, b),
        other => open_required(key, &other, rec),
    })
}

/// The entry of `row` with the content `open` returns for its record id;
/// the role and format are checked first.
fn entry_with(session_id: &str, row: &EntryRow, open: impl FnOnce(&str) -> Result<String>) -> Result<TranscriptEntry> {
    let rec = content_record(session_id, row.seq);
    Ok(TranscriptEntry {
        session_id: session_id.to_string(),
        seq: row.seq,
        role: Role::parse(&row.role).map_err(|_| Error::corrupt(format!("record `{rec}`: unknown role")))?,
        format: ContentFormat::parse(&row.format).map_err(|_| Error::corrupt(format!("record `{rec}`: unknown content format")))?,
        content: open(&rec)?,
        created_at_ms: row.created_at,
        tokens: row.tokens,
        source_line: row.source_line,
    })
}

/// An entry read with its metadata columns, with its [`EntryMeta`] decrypted.
/// Errors: `AuthenticationFailed`, `Corrupt` (not what [`encode_meta`] writes).
fn with_meta(key: &crypto::DataKey, session_id: &str, row: &EntryRow, e: TranscriptEntry) -> Result<(TranscriptEntry, EntryMeta)> {
    let meta = row.meta.as_ref().expect("read with metadata");
    let (extra, item) = open_meta(key, session_id, row)?;
    Ok((e, EntryMeta { model: meta.model.clone(), provider: meta.provider.clone(), extra, item }))
}

/// The sealed part of a row's metadata (record `transcript:<sid>:<seq>:meta`):
/// `extra` and the structured item; empty for a row read without metadata
/// or written without any. Errors: `AuthenticationFailed`, `Corrupt` (not
/// what [`encode_meta`] writes).
pub(super) fn open_meta(key: &crypto::DataKey, session_id: &str, row: &EntryRow) -> Result<(serde_json::Map<String, serde_json::Value>, Option<String>)> {
    let rec = meta_record(session_id, row.seq);
    match row.meta.as_ref().map(|m| open_sealed(key, &m.extra, &rec)).transpose()?.flatten() {
        None => Ok((serde_json::Map::new(), None)),
        Some(json) => decode_meta(&json, &rec),
    }
}


#[cfg(test)]
mod tests;
