//! Every row-level write statement of the SQLite backend: [`WriteTx`] over
//! one rusqlite transaction ([`SqlTx`], whose reads are in `rows.rs`), and
//! the layout of entry bodies (moved out of `rows.rs` as is).

use rusqlite::{params, Transaction};

use crate::backend::{EntryCopyRow, NewEntryRow, NewEventRow, NewSessionRow, NewTokenRow, RecordId, Sealed, SessionCopyRow, WriteTx};
use crate::error::{Error, Result};

use super::rows::{seq_arg, SqlTx};
use super::schema::BODY_SET_BYTES;

/// Write the body rows of entries `seqs` (in order) whose envelopes are
/// `bodies` (content, metadata), and give each entry's `body_id`. One entry
/// alone, or one whose envelopes are over a quarter of [`BODY_SET_BYTES`],
/// gets a row of its own; runs of the others (consecutive seqs) share set
/// rows of at most [`BODY_SET_BYTES`] bytes: `content_enc` empty, `set_enc`
/// each content envelope followed by its metadata envelope, `ends` the JSON
/// array of the first member's seq, then each member's content end and
/// metadata end.
fn write_bodies(tx: &Transaction<'_>, seqs: &[u64], bodies: &[(&[u8], Option<&[u8]>)]) -> Result<Vec<i64>> {
    let mut own = tx.prepare_cached("INSERT INTO entry_bodies (content_enc, meta_enc) VALUES (?1, ?2)")?;
    let size = |i: usize| bodies[i].0.len() + bodies[i].1.map_or(0, <[u8]>::len);
    let alone = |i: usize| bodies.len() == 1 || size(i) > BODY_SET_BYTES / 4;
    let mut out = Vec::with_capacity(bodies.len());
    let mut i = 0;
    while i < bodies.len() {
        let (mut j, mut total) = (i, 0);
        while j < bodies.len() && !alone(j) && total + size(j) <= BODY_SET_BYTES && (j == i || seqs[j] == seqs[j - 1] + 1) {
            total += size(j);
            j += 1;
        }
        if j <= i + 1 {
            own.execute(params![bodies[i].0, bodies[i].1])?;
            out.push(tx.last_insert_rowid());
            i += 1;
            continue;
        }
        let mut set = Vec::with_capacity(total);
        let mut ends = format!("[{}", seqs[i]);
        for (content, meta) in &bodies[i..j] {
            set.extend_from_slice(content);
            let c_end = set.len();
            if let Some(m) = meta {
                set.extend_from_slice(m);
            }
            ends.push_str(&format!(",{c_end},{}", set.len()));
        }
        ends.push(']');
        tx.prepare_cached("INSERT INTO entry_bodies (content_enc, ends, set_enc) VALUES (x'', ?1, ?2)")?.execute(params![ends, set])?;
        let id = tx.last_insert_rowid();
        out.extend(std::iter::repeat_n(id, j - i));
        i = j;
    }
    Ok(out)
}

impl WriteTx for SqlTx<'_> {
    fn insert_session(&self, row: &NewSessionRow<'_>) -> Result<()> {
        self.0.prepare_cached(
            "INSERT INTO sessions (id, name_enc, workspace_enc, workspace_index, model, provider, work_mode,
                                   created_at, updated_at, forked_from, forked_at_seq)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10)",
        )?
        .execute(params![
            row.id,
            row.name,
            row.workspace,
            row.workspace_index,
            row.model,
            row.provider,
            row.work_mode,
            row.created_at,
            row.forked_from,
            row.forked_at_seq.map(seq_arg)
        ])?;
        Ok(())
    }

    fn set_session_name(&self, id: &str, name: Option<&[u8]>) -> Result<bool> {
        let n = self.0.prepare_cached("UPDATE sessions SET name_enc = ?2 WHERE id = ?1")?.execute(params![id, name])?;
        Ok(n > 0)
    }

    fn set_session_model(&self, id: &str, model: Option<&str>, provider: Option<&str>) -> Result<bool> {
        let n = self.0.prepare_cached("UPDATE sessions SET model = ?2, provider = ?3 WHERE id = ?1")?.execute(params![id, model, provider])?;
        Ok(n > 0)
    }

    fn set_session_work_mode(&self, id: &str, work_mode: Option<&str>) -> Result<bool> {
        let n = self.0.prepare_cached("UPDATE sessions SET work_mode = ?2 WHERE id = ?1")?.execute(params![id, work_mode])?;
        Ok(n > 0)
    }

    fn set_session_updated_at(&self, id: &str, updated_at: i64) -> Result<()> {
        self.0.prepare_cached("UPDATE sessions SET updated_at = ?2 WHERE id = ?1")?.execute(params![id, updated_at])?;
        Ok(())
    }

    fn delete_session(&self, id: &str) -> Result<Option<u64>> {
        if self.0.execute("DELETE FROM sessions WHERE id = ?1", [id])? == 0 {
            return Ok(None);
        }
        self.0.execute("DELETE FROM entry_bodies WHERE id IN (SELECT body_id FROM transcript_entries WHERE session_id = ?1)", [id])?;
        let entries = self.0.execute("DELETE FROM transcript_entries WHERE session_id = ?1", [id])?;
        self.0.execute("DELETE FROM token_ledger WHERE session_id = ?1", [id])?;
        self.0.execute("DELETE FROM context_extensions WHERE session_id = ?1", [id])?;
        self.0.execute("DELETE FROM retractions WHERE session_id = ?1", [id])?;
        self.0.execute("DELETE FROM import_record_sets WHERE session_id = ?1", [id])?;
        Ok(Some(entries as u64))
    }

    fn insert_entries(&self, session_id: &str, rows: &[NewEntryRow<'_>]) -> Result<()> {
        // Several entries: body sets; a single append: its own body row, as before sets existed.
        let set_ids = if rows.len() > 1 {
            let seqs: Vec<u64> = rows.iter().map(|e| e.seq).collect();
            let bodies: Vec<(&[u8], Option<&[u8]>)> = rows.iter().map(|e| (e.content, e.meta)).collect();
            Some(write_bodies(self.0, &seqs, &bodies)?)
        } else {
            None
        };
        let mut body = self.0.prepare_cached("INSERT INTO entry_bodies (content_enc, meta_enc) VALUES (?1, ?2)")?;
        let mut ins = self.0.prepare_cached(
            "INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, model, provider,
                                             content_bytes, kind, call_keys, body_id, counted_tokens)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )?;
        for (i, e) in rows.iter().enumerate() {
            let body_id = match &set_ids {
                Some(ids) => ids[i],
                None => {
                    body.execute(params![e.content, e.meta])?;
                    self.0.last_insert_rowid()
                }
            };
            ins.execute(params![
                session_id,
                seq_arg(e.seq),
                e.role,
                e.format,
                e.created_at,
                e.tokens.map(seq_arg),
                e.source_line.map(seq_arg),
                e.model,
                e.provider,
                seq_arg(e.content_bytes),
                e.kind,
                e.call_keys,
                body_id,
                e.counted_tokens.map(seq_arg)
            ])?;
        }
        Ok(())
    }

    fn retract_entry(&self, session_id: &str, seq: u64) -> Result<bool> {
        Ok(self
            .0
            .prepare_cached("INSERT OR IGNORE INTO retractions (session_id, seq) VALUES (?1, ?2)")?
            .execute(params![session_id, seq_arg(seq)])?
            > 0)
    }

    fn insert_event(&self, row: &NewEventRow<'_>) -> Result<(u64, u64)> {
        let seq: i64 = self
            .0
            .prepare_cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM journal WHERE session_id = ?1")?
            .query_row([row.session_id], |r| r.get(0))?;
        // aggregate_version doubles as the row's rowid, so the next one is an
        // O(log n) seek on the table itself and needs no extra index.
        let version: i64 = self.0.prepare_cached("SELECT COALESCE(MAX(rowid), 0) + 1 FROM journal")?.query_row([], |r| r.get(0))?;
        self.0
            .prepare_cached(
                "INSERT INTO journal (rowid, event_id, session_id, seq, aggregate_version, operation_id, payload_kind, payload_json, envelope_json, created_at)
                 VALUES (?4, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![row.event_id, row.session_id, seq, version, row.operation_id, row.kind, row.payload, row.envelope, row.created_at])?;
        Ok((seq as u64, version as u64))
    }

    fn open_operation(&self, operation_id: &str, session_id: &str, owner: &str, dispatched_event_id: &str) -> Result<()> {
        self.0
            .prepare_cached("INSERT INTO open_operations (operation_id, session_id, owner, dispatched_event_id) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![operation_id, session_id, owner, dispatched_event_id])?;
        Ok(())
    }

    fn close_operation(&self, operation_id: &str) -> Result<()> {
        self.0.prepare_cached("DELETE FROM open_operations WHERE operation_id = ?1")?.execute([operation_id])?;
        Ok(())
    }

    fn insert_tokens(&self, session_id: &str, rows: &[NewTokenRow<'_>]) -> Result<()> {
        let mut ins = self.0.prepare_cached(
            "INSERT INTO token_ledger (session_id, id, model, provider, input, output, cached, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        // Schema 6: ids count per session (the key is `(session_id, id)`).
        let mut id: i64 = self
            .0
            .prepare_cached("SELECT COALESCE(MAX(id), 0) FROM token_ledger WHERE session_id = ?1")?
            .query_row([session_id], |r| r.get(0))?;
        for u in rows {
            id += 1;
            ins.execute(params![session_id, id, u.model, u.provider, u.input as i64, u.output as i64, u.cached as i64, u.created_at])?;
        }
        Ok(())
    }

    fn next_extension_n(&self, session_id: &str) -> Result<u64> {
        let next: i64 = self
            .0
            .prepare_cached("SELECT COALESCE(MAX(n), 0) + 1 FROM context_extensions WHERE session_id = ?1")?
            .query_row([session_id], |r| r.get(0))?;
        Ok(next as u64)
    }

    fn insert_extension(&self, session_id: &str, n: u64, kind: &str, body: &[u8], created_at: i64) -> Result<()> {
        self.0
            .prepare_cached("INSERT INTO context_extensions (session_id, n, kind, body_enc, created_at) VALUES (?1, ?2, ?3, ?4, ?5)")?
            .execute(params![session_id, seq_arg(n), kind, body, created_at])?;
        Ok(())
    }

    fn put_meta(&self, key: &str, value: &str, replace: bool) -> Result<()> {
        let sql = if replace {
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2"
        } else {
            "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)"
        };
        self.0.prepare_cached(sql)?.execute(params![key, value])?;
        Ok(())
    }

    fn delete_meta(&self, key: &str) -> Result<()> {
        self.0.prepare_cached("DELETE FROM meta WHERE key = ?1")?.execute([key])?;
        Ok(())
    }

    fn insert_import_records(&self, session_id: &str, ids: &[RecordId]) -> Result<()> {
        // One set row per call: the ids concatenated (16 bytes each). An id
        // already held is not looked up here (that would read every set of
        // the session per batch): the importer and copy pass only new ids,
        // and the reader keeps each id once.
        if ids.is_empty() {
            return Ok(());
        }
        let n: i64 = self
            .0
            .prepare_cached("SELECT COALESCE(MAX(n), 0) + 1 FROM import_record_sets WHERE session_id = ?1")?
            .query_row([session_id], |r| r.get(0))?;
        let blob: Vec<u8> = ids.iter().flatten().copied().collect();
        self.0.prepare_cached("INSERT INTO import_record_sets (session_id, n, ids) VALUES (?1, ?2, ?3)")?.execute(params![session_id, n, blob])?;
        Ok(())
    }

    fn put_session_copy(&self, row: &SessionCopyRow) -> Result<()> {
        let env = |s: &Sealed| -> Option<Vec<u8>> {
            match s {
                Sealed::Bytes(b) => Some(b.clone()),
                _ => None,
            }
        };
        self.0
            .prepare_cached(
                "INSERT INTO sessions (id, name_enc, workspace_enc, workspace_index, model, provider, work_mode,
                                       created_at, updated_at, forked_from, forked_at_seq)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 ON CONFLICT(id) DO UPDATE SET name_enc = ?2, workspace_enc = ?3, workspace_index = ?4, model = ?5, provider = ?6,
                   work_mode = ?7, created_at = ?8, updated_at = ?9, forked_from = ?10, forked_at_seq = ?11",
            )?
            .execute(params![
                row.id,
                env(&row.name),
                env(&row.workspace),
                row.workspace_index,
                row.model,
                row.provider,
                row.work_mode,
                row.created_at,
                row.updated_at,
                row.forked_from,
                row.forked_at_seq.map(seq_arg)
            ])?;
        Ok(())
    }

    fn insert_entry_copies(&self, session_id: &str, rows: &[EntryCopyRow]) -> Result<()> {
        let mut ins = self.0.prepare_cached(
            "INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, model, provider,
                                             content_bytes, kind, call_keys, body_id, counted_tokens)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )?;
        fn bytes(s: &Sealed) -> Option<&[u8]> {
            match s {
                Sealed::Bytes(b) => Some(b.as_slice()),
                _ => None,
            }
        }
        let mut bodies = Vec::with_capacity(rows.len());
        for e in rows {
            let content = bytes(&e.content).ok_or_else(|| Error::corrupt(format!("record `transcript:{session_id}:{}:content` has no envelope", e.seq)))?;
            bodies.push((content, bytes(&e.meta)));
        }
        let seqs: Vec<u64> = rows.iter().map(|e| e.seq).collect();
        let body_ids = write_bodies(self.0, &seqs, &bodies)?;
        for (e, body_id) in rows.iter().zip(body_ids) {
            ins.execute(params![
                session_id,
                seq_arg(e.seq),
                e.role,
                e.format,
                e.created_at,
                e.tokens.map(seq_arg),
                e.source_line.map(seq_arg),
                e.model,
                e.provider,
                e.content_bytes.map(seq_arg),
                e.kind,
                e.call_keys,
                body_id,
                e.counted_tokens.map(seq_arg)
            ])?;
        }
        Ok(())
    }
}
