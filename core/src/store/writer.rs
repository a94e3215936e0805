//! The store's writer for the code above it (the import pipeline,
//! `crate::portable`): the writes of one transaction, each applying the
//! store's own rules (validation, record ids, sealing, the journal), so an
//! importer never reaches into the store's internals (its transaction, its
//! key, its sealing functions).
//!
//! [`SessionStore::write_batch`] runs a closure over a [`Writer`] in one
//! write transaction, committed only when the closure returns `Ok`.

use super::journal::{self, AppendOutcome};
use super::{context_ext, open_sealed, sessions, tokens, transcript, EntryMeta, NewEntry, NewSession, SessionRecord, SessionStore, TokenUsage, Tx};
use crate::backend::{RecordId, Sealed};
use crate::error::Result;

/// The writes of one store transaction ([`SessionStore::write_batch`]).
pub(crate) struct Writer<'a> {
    t: &'a Tx<'a>,
}

/// A new session checked and resolved outside the write transaction
/// ([`SessionStore::prepare_session`]): its id, workspace binding and
/// creation time (ms).
pub(crate) struct PreparedSession {
    id: String,
    binding: Option<sessions::WorkspaceBinding>,
    created_at: i64,
}

impl PreparedSession {
    /// The session's id (the one given, or a new UUIDv7).
    pub(crate) fn id(&self) -> &str {
        &self.id
    }
}

impl SessionStore {
    /// Run `f` over a [`Writer`] in one write transaction, committed only
    /// when `f` returns `Ok`. Errors: `f`'s, `Busy`, `Closed`.
    pub(crate) fn write_batch<T>(&self, f: impl FnOnce(&Writer<'_>) -> Result<T>) -> Result<T> {
        self.write(|t| f(&Writer { t }))
    }

    /// The content envelope of an entry that is to be seq `seq` of session
    /// `session_id` (record `transcript:<sid>:<seq>:content`), sealed ahead
    /// of its write transaction (an importer seals on its reading thread);
    /// [`Writer::append_entries`] seals again the entries whose seq turned
    /// out to be another.
    pub(crate) fn seal_entry_content(&self, session_id: &str, seq: u64, content: &str) -> Vec<u8> {
        transcript::seal_content(self.key(), session_id, seq, content, self.compress())
    }

    /// Everything of an entry's row that is made before its write
    /// transaction, for seq `seq` of session `session_id`: its content and
    /// `meta` sealed, its kind and call keys ([`transcript::SealedRow`];
    /// `calls_by`: the call keys' keyed state, made on first use and kept
    /// for the next rows). [`Writer::append_sealed_rows`] makes them again
    /// when the seqs turned out to be others.
    pub(crate) fn seal_entry_row(&self, calls_by: &mut Option<crate::crypto::KeyedDigester>, session_id: &str, seq: u64, entry: &NewEntry, meta: &EntryMeta) -> transcript::SealedRow {
        transcript::seal_row(self.key(), calls_by, session_id, seq, entry, Some(meta), self.compress())
    }

    /// The text of the sealed `meta` value `key` (its record id is the key
    /// itself); `None` when absent. Errors: `Corrupt`, `AuthenticationFailed`.
    pub(crate) fn sealed_meta(&self, key: &str) -> Result<Option<String>> {
        let env = self.read(|c, _| c.meta(key))?;
        open_sealed(self.key(), &env, key)
    }

    /// Check a new session and resolve its id, workspace binding and
    /// creation time, for [`Writer::create_session`].
    /// Errors: `InvalidInput`.
    pub(crate) fn prepare_session(&self, new: &NewSession) -> Result<PreparedSession> {
        let (id, binding, created_at) = sessions::prepare_session(self.key(), new)?;
        Ok(PreparedSession { id, binding, created_at })
    }
}

impl Writer<'_> {
    /// The text of the sealed `meta` value `key`, read in this transaction
    /// (see [`SessionStore::sealed_meta`]).
    pub(crate) fn sealed_meta(&self, key: &str) -> Result<Option<String>> {
        open_sealed(self.t.key, &self.t.tx.meta(key)?, key)
    }

    /// The plaintext `meta` value `key`, as stored.
    pub(crate) fn meta(&self, key: &str) -> Result<Sealed> {
        self.t.tx.meta(key)
    }

    /// Set the plaintext `meta` value `key` (`replace` false: keep an existing one).
    pub(crate) fn put_meta(&self, key: &str, value: &str, replace: bool) -> Result<()> {
        self.t.tx.put_meta(key, value, replace)
    }

    /// Remove the `meta` value `key`.
    pub(crate) fn delete_meta(&self, key: &str) -> Result<()> {
        self.t.tx.delete_meta(key)
    }

    /// Create the session `prepared` resolved from `new`, with its
    /// `SessionCreated` event. Errors: `Conflict` if the id exists.
    pub(crate) fn create_session(&self, prepared: &PreparedSession, new: &NewSession) -> Result<SessionRecord> {
        sessions::create_in_tx(self.t, &prepared.id, new, prepared.binding.as_ref(), prepared.created_at)
    }

    /// Append `entries` (with their `metas`) to a session, their contents
    /// already sealed (`sealed`, [`SessionStore::seal_entry_content`]) for
    /// seqs `first_seq`, `first_seq + 1`, ...; sealed again if the session's
    /// next seq is another. One `TranscriptAppended` event.
    /// Errors: `NotFound`, `InvalidInput`.
    ///
    /// `counted`: each entry's token count as stored (see
    /// `transcript::append_rows_in_tx`), one per entry, or empty for none.
    pub(crate) fn append_entries(
        &self,
        session_id: &str,
        entries: &[NewEntry],
        metas: &[EntryMeta],
        first_seq: u64,
        sealed: &[Vec<u8>],
        counted: &[Option<u64>],
    ) -> Result<()> {
        transcript::append_rows_in_tx(self.t, session_id, entries, Some(metas), Some((first_seq, sealed)), counted, transcript::AppendEvent::Appended)
            .map(|_| ())
    }

    /// [`Self::append_entries`] with each entry's whole row made beforehand
    /// ([`SessionStore::seal_entry_row`] for the seqs from `first_seq`, one
    /// per entry). Errors: as `append_entries`.
    pub(crate) fn append_sealed_rows(
        &self,
        session_id: &str,
        entries: &[NewEntry],
        metas: &[EntryMeta],
        first_seq: u64,
        rows: &[transcript::SealedRow],
        counted: &[Option<u64>],
    ) -> Result<()> {
        transcript::append_prepared_in_tx(self.t, session_id, entries, Some(metas), Some((first_seq, transcript::Presealed::Rows(rows))), counted, transcript::AppendEvent::Appended)
            .map(|_| ())
    }

    /// Record token usage rows; `times[i]` (ms since the epoch) is when usage
    /// `i` happened where the source says, else now.
    /// Errors: `NotFound`, `InvalidInput`.
    pub(crate) fn record_token_usage(&self, session_id: &str, usages: &[TokenUsage], times: &[Option<i64>]) -> Result<()> {
        tokens::record_in_tx(self.t, session_id, usages, times)
    }

    /// Set or clear a session's title (checked with
    /// [`check_title`](super::sessions::check_title) first), with its
    /// `SessionRenamed` event. Errors: `NotFound`.
    pub(crate) fn rename_session(&self, session_id: &str, title: Option<&str>) -> Result<()> {
        sessions::rename_in_tx(self.t, session_id, title)
    }

    /// Set a session's model and provider, with a `SessionModelChanged` event.
    /// Errors: `NotFound`.
    pub(crate) fn set_session_model(&self, session_id: &str, model: Option<&str>, provider: Option<&str>) -> Result<()> {
        sessions::set_model_in_tx(self.t, session_id, model, provider)
    }

    /// Append a journal event of `kind` with `payload` to a session's journal.
    pub(crate) fn record_event(&self, session_id: &str, kind: &str, payload: serde_json::Value) -> Result<AppendOutcome> {
        journal::record(self.t, session_id, kind, payload)
    }

    /// Record that a session holds these source records.
    pub(crate) fn insert_import_records(&self, session_id: &str, ids: &[RecordId]) -> Result<()> {
        self.t.tx.insert_import_records(session_id, ids)
    }

    /// Append a context extension whose body `rules` accept (the layer
    /// above the store that owns the kind's rules hands them in: context
    /// governance, `crate::context`). Errors: `NotFound`, `InvalidInput`.
    pub(crate) fn append_extension_checked(&self, session_id: &str, kind: &str, body_json: &str, rules: context_ext::BodyRules<'_>) -> Result<u64> {
        context_ext::append_in_tx(self.t, session_id, kind, body_json, rules)
    }
}
