//! Every row-level read statement of the SQLite backend: [`ReadTx`] over
//! one rusqlite transaction (its writes, `WriteTx`, are in `writes.rs`).
//! Statements are cached per connection (`prepare_cached`).
//!
//! A plaintext column of a type the schema never writes there (a damaged
//! row) is `Corrupt` naming the row as the store names its records
//! (`session:<id>`, `transcript:<sid>:<seq>:content`, `tokens:<sid>:<row>`,
//! `journal:<event id>:payload`, `ctxext:<sid>:<n>`).

use rusqlite::types::{FromSql, ValueRef};
use rusqlite::{params, OptionalExtension, Row, Transaction};

use crate::backend::{JournalChange, 
    EntryCopyRow, EventCopyRow, SessionCopyRow, TokenCopyRow,
    EntryMetaRow, EntryRow, EntryStatRow, EventRow, ExtensionRow, OpenOperationRow, ReadTx,
    RecordId, RowCounts, Sealed, SessionQuery, SessionRow, TokenRow,
};
use crate::error::{Error, Result};


/// One transaction of the SQLite backend.
pub(super) struct SqlTx<'a>(pub(super) &'a Transaction<'a>);

const SESSION_COLUMNS: &str = "id, name_enc, workspace_enc, model, provider, work_mode, created_at, updated_at,
     (SELECT CASE typeof(m) WHEN 'integer' THEN m - (SELECT COUNT(*) FROM retractions r WHERE r.session_id = sessions.id) ELSE m END
        FROM (SELECT COALESCE(MAX(t.seq), 0) AS m FROM transcript_entries t WHERE t.session_id = sessions.id)),
     forked_from, forked_at_seq";

const ENTRY_COLUMNS: &str = "t.seq, t.role, t.format, b.content_enc, t.created_at, t.tokens, t.source_line";
const ENTRY_META_COLUMNS: &str = "t.seq, t.role, t.format, b.content_enc, t.created_at, t.tokens, t.source_line, t.model, t.provider, b.meta_enc";
/// [`ENTRY_META_COLUMNS`] without the content envelope of a row that has a
/// metadata envelope (`ReadTx::entry_items`); a set row's empty content
/// (its `meta_enc` is NULL) still says "in a set".
const ENTRY_ITEM_COLUMNS: &str = "t.seq, t.role, t.format, CASE WHEN b.meta_enc IS NULL THEN b.content_enc END, t.created_at, t.tokens, t.source_line, t.model, t.provider, b.meta_enc";
/// Leaves out retracted entries of `transcript_entries t`.
const NOT_RETRACTED: &str = "NOT EXISTS (SELECT 1 FROM retractions x WHERE x.session_id = t.session_id AND x.seq = t.seq)";
/// An entry row with its body (schema version 4: bodies live in `entry_bodies`).
const ENTRY_FROM: &str = "transcript_entries t JOIN entry_bodies b ON b.id = t.body_id";

/// Column `idx` of a row of `record`; a value of the wrong type is `Corrupt` naming it.
/// `record` names the row only when there is an error (no allocation per row).
fn column<T: FromSql>(r: &Row<'_>, idx: usize, record: &dyn Fn() -> String) -> Result<T> {
    r.get(idx).map_err(|e| match e {
        rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::IntegralValueOutOfRange(..) => {
            Error::corrupt(format!("record `{}`: column {idx} holds a value of a type this schema never writes there", record()))
        }
        other => other.into(),
    })
}

/// A name column (role, format) without an allocation for a name the
/// schema writes ([`crate::backend::known_name`]); anything else as
/// [`column`] reads it (its error for a value of another type).
fn name_column(r: &Row<'_>, idx: usize, record: &dyn Fn() -> String) -> Result<std::borrow::Cow<'static, str>> {
    match r.get_ref(idx)? {
        ValueRef::Text(b) => match std::str::from_utf8(b) {
            Ok(name) => Ok(crate::backend::known_name(name)),
            Err(_) => column::<String>(r, idx, record).map(std::borrow::Cow::Owned),
        },
        _ => column::<String>(r, idx, record).map(std::borrow::Cow::Owned),
    }
}

/// A non-negative integer column as `u64`.
fn count(r: &Row<'_>, idx: usize, record: &dyn Fn() -> String) -> Result<u64> {
    u64::try_from(column::<i64>(r, idx, record)?).map_err(|_| Error::corrupt(format!("record `{}`: negative count", record())))
}

fn opt_count(r: &Row<'_>, idx: usize, record: &dyn Fn() -> String) -> Result<Option<u64>> {
    column::<Option<i64>>(r, idx, record)?
        .map(|v| u64::try_from(v).map_err(|_| Error::corrupt(format!("record `{}`: negative count", record()))))
        .transpose()
}

/// An envelope column, raw.
fn sealed(r: &Row<'_>, idx: usize) -> Result<Sealed> {
    Ok(match r.get_ref(idx)? {
        ValueRef::Null => Sealed::Absent,
        ValueRef::Text(b) | ValueRef::Blob(b) => Sealed::Bytes(b.to_vec()),
        ValueRef::Integer(_) => Sealed::NotBytes("integer"),
        ValueRef::Real(_) => Sealed::NotBytes("real"),
    })
}

/// A key column as text, whatever it holds (for naming a damaged row).
fn key_text(r: &Row<'_>, idx: usize) -> String {
    match r.get_ref(idx) {
        Ok(ValueRef::Text(b)) => String::from_utf8_lossy(b).into_owned(),
        Ok(ValueRef::Integer(i)) => i.to_string(),
        _ => "<unreadable id>".to_string(),
    }
}

/// A session row. A plaintext column of the wrong type (a damaged row)
/// leaves its field at its default and is named in `damaged`, so one
/// damaged session never hides the others from a listing.
fn session_row(r: &Row<'_>) -> Result<SessionRow> {
    let id: String = column(r, 0, &|| "session:<unknown>".to_string())?;
    let rec = || format!("session:{id}");
    fn soft<T: Default>(damaged: &mut Vec<(&'static str, String)>, field: &'static str, res: Result<T>) -> Result<T> {
        match res {
            Ok(v) => Ok(v),
            Err(Error::Corrupt { reason }) => {
                damaged.push((field, reason));
                Ok(T::default())
            }
            Err(e) => Err(e),
        }
    }
    let mut damaged = Vec::new();
    let d = &mut damaged;
    let model = soft(d, "model", column(r, 3, &rec))?;
    let provider = soft(d, "provider", column(r, 4, &rec))?;
    let work_mode = soft(d, "work_mode", column(r, 5, &rec))?;
    let created_at = soft(d, "created_at", column(r, 6, &rec))?;
    let updated_at = soft(d, "updated_at", column(r, 7, &rec))?;
    let entry_count = soft(d, "entry_count", count(r, 8, &|| format!("transcript:{id} (its last seq)")))?;
    let forked_from = soft(d, "forked_from", column(r, 9, &rec))?;
    let forked_at_seq = soft(d, "forked_at_seq", opt_count(r, 10, &rec))?;
    Ok(SessionRow {
        name: sealed(r, 1)?,
        workspace: sealed(r, 2)?,
        model,
        provider,
        work_mode,
        created_at,
        updated_at,
        entry_count,
        forked_from,
        forked_at_seq,
        damaged,
        id,
    })
}

/// The last `entry_bodies` set row read (schema version 7, see
/// [`super::schema`]'s `V7`): the session and seqs of its members, its
/// `set_enc` (each member's content envelope, then its metadata envelope)
/// and the members' end offsets (content, metadata) from its `ends`.
pub(super) struct BodySet {
    session_id: String,
    first_seq: u64,
    bytes: Vec<u8>,
    ends: Vec<u64>,
}

/// The parsed `ends` of a set row: a JSON array of non-negative integers.
fn parse_ends(text: &str) -> Option<Vec<u64>> {
    // The form `writes.rs` stores (`[12,340,412]`: digits and commas, no
    // spaces) read in one pass (issue 33 item 4: splitting, trimming and
    // parsing each number was ~5% of reading a page of imported entries);
    // anything else the general way.
    fn plain(inner: &[u8]) -> Option<Vec<u64>> {
        let mut out = Vec::with_capacity(inner.len() / 4 + 1);
        for part in inner.split(|&b| b == b',') {
            if part.is_empty() || part.len() > 19 || !part.iter().all(u8::is_ascii_digit) {
                return None;
            }
            out.push(part.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')));
        }
        Some(out)
    }
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    plain(inner.as_bytes()).or_else(|| inner.split(',').map(|x| x.trim().parse().ok()).collect())
}

/// Whether an entry's body column says "my envelopes are in a set": the
/// zero-length `content_enc` of a set row (an envelope is never empty).
fn in_set(content: &Sealed) -> bool {
    matches!(content, Sealed::Bytes(b) if b.is_empty())
}

impl SqlTx<'_> {
    /// The envelopes `(content, metadata)` of entry `seq` of `session_id`,
    /// a member of a body set, reading its set row unless `cache` holds it.
    /// A member the set does not hold (a damaged row) is `Corrupt` naming `rec`.
    /// With `skip_content`, a member with a metadata envelope gets
    /// [`Sealed::Absent`] for its content (see `ReadTx::entry_items`).
    fn set_member(&self, cache: &mut Option<BodySet>, session_id: &str, seq: u64, skip_content: bool, rec: &dyn Fn() -> String) -> Result<(Sealed, Sealed)> {
        let held = |c: &BodySet| c.session_id == session_id && seq >= c.first_seq && seq - c.first_seq < (c.ends.len() as u64 - 1) / 2;
        if !cache.as_ref().is_some_and(held) {
            let row: Option<(Option<String>, Option<Vec<u8>>)> = self
                .0
                .prepare_cached(
                    "SELECT CASE typeof(b.ends) WHEN 'text' THEN b.ends END, CASE typeof(b.set_enc) WHEN 'blob' THEN b.set_enc END
                     FROM transcript_entries t JOIN entry_bodies b ON b.id = t.body_id WHERE t.session_id = ?1 AND t.seq = ?2",
                )?
                .query_row(params![session_id, seq_arg(seq)], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let set = match row {
                Some((Some(e), Some(bytes))) => parse_ends(&e).filter(|e| e.len() % 2 == 1).map(|ends| BodySet {
                    session_id: session_id.to_string(),
                    first_seq: ends[0],
                    bytes,
                    ends,
                }),
                _ => None,
            };
            *cache = Some(set.filter(held).ok_or_else(|| Error::corrupt(format!("record `{}`: its body set is missing or damaged", rec())))?);
        }
        let set = cache.as_ref().expect("just filled");
        let k = (seq - set.first_seq) as usize;
        let (start, c_end, m_end) = (if k == 0 { 0 } else { set.ends[2 * k] }, set.ends[2 * k + 1], set.ends[2 * k + 2]);
        if !(start <= c_end && c_end <= m_end && m_end <= set.bytes.len() as u64) {
            return Err(Error::corrupt(format!("record `{}`: its envelope lies outside its body set", rec())));
        }
        let meta = if m_end > c_end { Sealed::Bytes(set.bytes[c_end as usize..m_end as usize].to_vec()) } else { Sealed::Absent };
        let content = if skip_content && m_end > c_end { Sealed::Absent } else { Sealed::Bytes(set.bytes[start as usize..c_end as usize].to_vec()) };
        Ok((content, meta))
    }
}

/// Which columns a transcript read selects: [`ENTRY_COLUMNS`],
/// [`ENTRY_META_COLUMNS`] or [`ENTRY_ITEM_COLUMNS`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum EntryCols {
    Plain,
    Meta,
    Items,
}

impl EntryCols {
    fn of(with_meta: bool) -> Self {
        if with_meta {
            EntryCols::Meta
        } else {
            EntryCols::Plain
        }
    }

    fn sql(self) -> &'static str {
        match self {
            EntryCols::Plain => ENTRY_COLUMNS,
            EntryCols::Meta => ENTRY_META_COLUMNS,
            EntryCols::Items => ENTRY_ITEM_COLUMNS,
        }
    }
}

/// A transcript row from `cols` at `base`; a member of a body set is
/// sliced from it (`cache`).
fn entry_row(tx: &SqlTx<'_>, cache: &mut Option<BodySet>, r: &Row<'_>, sid: &str, base: usize, cols: EntryCols) -> Result<EntryRow> {
    let with_meta = cols != EntryCols::Plain;
    let seq = count(r, base, &|| format!("transcript:{sid}"))?;
    let rec = || format!("transcript:{sid}:{seq}:content");
    let content = sealed(r, base + 3)?;
    let (content, extra) = if in_set(&content) {
        tx.set_member(cache, sid, seq, cols == EntryCols::Items, &rec)?
    } else {
        (content, if with_meta { sealed(r, base + 9)? } else { Sealed::Absent })
    };
    let meta = if with_meta {
        Some(EntryMetaRow { model: column(r, base + 7, &rec)?, provider: column(r, base + 8, &rec)?, extra })
    } else {
        None
    };
    Ok(EntryRow {
        seq,
        role: name_column(r, base + 1, &rec)?,
        format: name_column(r, base + 2, &rec)?,
        content,
        created_at: column(r, base + 4, &rec)?,
        tokens: opt_count(r, base + 5, &rec)?,
        source_line: opt_count(r, base + 6, &rec)?,
        meta,
    })
}

fn event_row(r: &Row<'_>) -> Result<EventRow> {
    let event_id: String = column(r, 0, &|| "journal:<unknown>".to_string())?;
    let rec = || format!("journal:{event_id}:payload");
    Ok(EventRow {
        session_id: column(r, 1, &rec)?,
        seq: count(r, 2, &rec)?,
        aggregate_version: count(r, 3, &rec)?,
        operation_id: column(r, 4, &rec)?,
        kind: column(r, 5, &rec)?,
        payload: sealed(r, 6)?,
        created_at: column(r, 7, &rec)?,
        event_id,
    })
}

const EVENT_COLUMNS: &str = "event_id, session_id, seq, aggregate_version, operation_id, payload_kind, payload_json, created_at";

fn limit_arg(limit: Option<u32>) -> i64 {
    limit.map(i64::from).unwrap_or(-1)
}

pub(super) fn seq_arg(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

impl SqlTx<'_> {
    fn rows<T>(&self, sql: &str, params: impl rusqlite::Params, mut f: impl FnMut(&Row<'_>) -> Result<T>) -> Result<Vec<T>> {
        let mut st = self.0.prepare_cached(sql)?;
        let mut rows = st.query(params)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(f(r)?);
        }
        Ok(out)
    }
}

impl SqlTx<'_> {
    /// Visible entries of a session from `from_seq` (`None`: the last
    /// `limit`), at most `limit`, in seq order, with the columns `cols`.
    fn entry_page(&self, session_id: &str, from_seq: Option<u64>, limit: u32, cols: EntryCols) -> Result<Vec<EntryRow>> {
        let cols_sql = cols.sql();
        let mut cache = None;
        let mut row = |r: &Row<'_>| entry_row(self, &mut cache, r, session_id, 0, cols);
        // Most sessions have no retraction: one probe of `retractions` for
        // a page instead of one per row (a one-row read keeps its one probe).
        let per_row = limit <= 1
            || self.0.prepare_cached("SELECT EXISTS (SELECT 1 FROM retractions WHERE session_id = ?1)")?.query_row([session_id], |r| r.get::<_, bool>(0))?;
        let visible = if per_row { NOT_RETRACTED } else { "1" };
        match from_seq {
            Some(seq) => self.rows(
                &format!("SELECT {cols_sql} FROM {ENTRY_FROM} WHERE t.session_id = ?1 AND t.seq >= ?2 AND {visible} ORDER BY t.seq LIMIT ?3"),
                params![session_id, seq_arg(seq), limit as i64],
                &mut row,
            ),
            None => {
                let mut v = self.rows(
                    &format!("SELECT {cols_sql} FROM {ENTRY_FROM} WHERE t.session_id = ?1 AND {visible} ORDER BY t.seq DESC LIMIT ?2"),
                    params![session_id, limit as i64],
                    &mut row,
                )?;
                v.reverse();
                Ok(v)
            }
        }
    }
}

impl ReadTx for SqlTx<'_> {
    fn session(&self, id: &str) -> Result<Option<SessionRow>> {
        let mut v = self.rows(&format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"), [id], session_row)?;
        Ok(v.pop())
    }

    fn sessions(&self, query: SessionQuery<'_>, limit: Option<u32>) -> Result<Vec<SessionRow>> {
        let recent = "ORDER BY updated_at DESC, id DESC LIMIT ?2";
        let (cond, arg, order) = match query {
            SessionQuery::All => ("1 = 1 OR ?1 IS NULL", None, recent),
            SessionQuery::Unbound => ("workspace_index IS NULL AND ?1 IS NULL", None, recent),
            SessionQuery::Index(i) => ("workspace_index = ?1", Some(i), recent),
            SessionQuery::OtherThan(i) => ("workspace_index IS NOT NULL AND workspace_index <> ?1", Some(i), recent),
            // Prefix match on the plaintext id (range scan on the primary key).
            SessionQuery::IdPrefix(p) => ("id >= ?1 AND id < ?1 || char(1114111)", Some(p), "ORDER BY id LIMIT ?2"),
            SessionQuery::Titled => ("name_enc IS NOT NULL AND ?1 IS NULL", None, recent),
        };
        self.rows(&format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE {cond} {order}"), params![arg, limit_arg(limit)], session_row)
    }

    fn session_exists(&self, id: &str) -> Result<bool> {
        let n: i64 = self.0.prepare_cached("SELECT COUNT(*) FROM sessions WHERE id = ?1")?.query_row([id], |r| r.get(0))?;
        Ok(n > 0)
    }

    fn session_updated_at(&self, id: &str) -> Result<Option<i64>> {
        Ok(self
            .0
            .prepare_cached("SELECT updated_at FROM sessions WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?)
    }

    fn entries(&self, session_id: &str, from_seq: u64, limit: u32, with_meta: bool) -> Result<Vec<EntryRow>> {
        self.entry_page(session_id, Some(from_seq), limit, EntryCols::of(with_meta))
    }

    fn entries_tail(&self, session_id: &str, limit: u32, with_meta: bool) -> Result<Vec<EntryRow>> {
        self.entry_page(session_id, None, limit, EntryCols::of(with_meta))
    }

    fn entry_items(&self, session_id: &str, from_seq: Option<u64>, limit: u32) -> Result<Vec<EntryRow>> {
        self.entry_page(session_id, from_seq, limit, EntryCols::Items)
    }

    fn is_retracted(&self, session_id: &str, seq: u64) -> Result<bool> {
        Ok(self
            .0
            .prepare_cached("SELECT 1 FROM retractions WHERE session_id = ?1 AND seq = ?2")?
            .query_row(params![session_id, seq_arg(seq)], |_| Ok(()))
            .optional()?
            .is_some())
    }

    fn entry_stats(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EntryStatRow>> {
        self.rows(
            &format!("SELECT seq, role, format, tokens, content_bytes, kind, call_keys, counted_tokens FROM transcript_entries t
             WHERE session_id = ?1 AND seq >= ?2 AND {NOT_RETRACTED} ORDER BY seq LIMIT ?3"),
            params![session_id, seq_arg(from_seq), limit as i64],
            |r| {
                let seq = count(r, 0, &|| format!("transcript:{session_id}"))?;
                let rec = || format!("transcript:{session_id}:{seq}:content");
                Ok(EntryStatRow {
                    seq,
                    role: column(r, 1, &rec)?,
                    format: column(r, 2, &rec)?,
                    tokens: opt_count(r, 3, &rec)?,
                    content_bytes: opt_count(r, 4, &rec)?,
                    kind: column(r, 5, &rec)?,
                    call_keys: column(r, 6, &rec)?,
                    counted_tokens: opt_count(r, 7, &rec)?,
                })
            },
        )
    }

    fn last_entry_seq(&self, session_id: &str) -> Result<u64> {
        let last: i64 = self
            .0
            .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM transcript_entries WHERE session_id = ?1")?
            .query_row([session_id], |r| r.get(0))?;
        Ok(last.max(0) as u64)
    }

    fn event(&self, _session_id: &str, event_id: &str) -> Result<Option<EventRow>> {
        // `event_id` is the seed's PRIMARY KEY: unique store-wide.
        let mut v = self.rows(&format!("SELECT {EVENT_COLUMNS} FROM journal WHERE event_id = ?1"), [event_id], event_row)?;
        Ok(v.pop())
    }

    fn events(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EventRow>> {
        self.rows(
            &format!("SELECT {EVENT_COLUMNS} FROM journal WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3"),
            params![session_id, seq_arg(from_seq), limit as i64],
            event_row,
        )
    }

    fn operation_has_event(&self, operation_id: &str, kinds: &[&str]) -> Result<bool> {
        let marks: Vec<String> = (0..kinds.len()).map(|i| format!("?{}", i + 2)).collect();
        let sql = format!("SELECT 1 FROM journal WHERE operation_id = ?1 AND payload_kind IN ({}) LIMIT 1", marks.join(", "));
        let mut args: Vec<&dyn rusqlite::ToSql> = vec![&operation_id];
        args.extend(kinds.iter().map(|k| k as &dyn rusqlite::ToSql));
        let seen: Option<i64> = self.0.prepare_cached(&sql)?.query_row(args.as_slice(), |r| r.get(0)).optional()?;
        Ok(seen.is_some())
    }

    fn open_operation_session(&self, operation_id: &str) -> Result<Option<String>> {
        Ok(self
            .0
            .prepare_cached("SELECT session_id FROM open_operations WHERE operation_id = ?1")?
            .query_row([operation_id], |r| r.get(0))
            .optional()?)
    }

    fn open_operations(&self) -> Result<Vec<OpenOperationRow>> {
        self.rows("SELECT session_id, operation_id, owner FROM open_operations ORDER BY operation_id", [], |r| {
            Ok(OpenOperationRow { session_id: r.get(0)?, operation_id: r.get(1)?, owner: r.get(2)? })
        })
    }

    fn token_rows(&self, session_id: &str) -> Result<Vec<TokenRow>> {
        self.rows("SELECT input, output, cached, id FROM token_ledger WHERE session_id = ?1", [session_id], |r| {
            let row_id: i64 = r.get(3)?;
            let rec = || format!("tokens:{session_id}:{row_id}");
            Ok(TokenRow { row_id, input: column(r, 0, &rec)?, output: column(r, 1, &rec)?, cached: column(r, 2, &rec)? })
        })
    }

    fn extensions(&self, session_id: &str) -> Result<Vec<ExtensionRow>> {
        self.rows(
            "SELECT n, kind, body_enc, created_at FROM context_extensions WHERE session_id = ?1 ORDER BY n",
            [session_id],
            |r| {
                let n = count(r, 0, &|| format!("ctxext:{session_id}"))?;
                let rec = || format!("ctxext:{session_id}:{n}");
                Ok(ExtensionRow { n, kind: column(r, 1, &rec)?, body: sealed(r, 2)?, created_at: column(r, 3, &rec)? })
            },
        )
    }

    fn meta(&self, key: &str) -> Result<Sealed> {
        let mut v = self.rows("SELECT value FROM meta WHERE key = ?1", [key], |r| sealed(r, 0))?;
        Ok(v.pop().unwrap_or(Sealed::Absent))
    }

    fn counts(&self) -> Result<RowCounts> {
        let count = |sql: &str| -> Result<u64> { Ok(self.0.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
        Ok(RowCounts {
            sessions: count("SELECT COUNT(*) FROM sessions")?,
            transcript_entries: count("SELECT COUNT(*) FROM transcript_entries")?,
            journal_events: count("SELECT COUNT(*) FROM journal")?,
            open_operations: count("SELECT COUNT(*) FROM open_operations")?,
        })
    }

    fn schema_version(&self) -> Result<u32> {
        super::schema::current_version(self.0)
    }

    fn scan_sessions(&self, f: &mut dyn FnMut(&str, Result<SessionRow>) -> Result<()>) -> Result<()> {
        let mut st = self.0.prepare(&format!("SELECT {SESSION_COLUMNS} FROM sessions ORDER BY id"))?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            f(&key_text(r, 0), session_row(r))?;
        }
        Ok(())
    }

    fn scan_entries(&self, f: &mut dyn FnMut(&str, u64, Result<EntryRow>) -> Result<()>) -> Result<()> {
        let mut st = self.0.prepare(&format!(
            "SELECT t.session_id, {ENTRY_META_COLUMNS} FROM {ENTRY_FROM} ORDER BY t.session_id, t.seq"
        ))?;
        let mut rows = st.query([])?;
        let mut cache = None;
        while let Some(r) = rows.next()? {
            let sid = key_text(r, 0);
            let seq = column::<i64>(r, 1, &|| format!("transcript:{sid}")).map(|s| s.max(0) as u64).unwrap_or(0);
            f(&sid, seq, entry_row(self, &mut cache, r, &sid, 1, EntryCols::Meta))?;
        }
        Ok(())
    }

    fn scan_extensions(&self, f: &mut dyn FnMut(&str, u64, Result<ExtensionRow>) -> Result<()>) -> Result<()> {
        let mut st = self.0.prepare("SELECT session_id, n, kind, body_enc, created_at FROM context_extensions ORDER BY session_id, n")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let sid = key_text(r, 0);
            let n = column::<i64>(r, 1, &|| format!("ctxext:{sid}")).map(|s| s.max(0) as u64).unwrap_or(0);
            let rec = || format!("ctxext:{sid}:{n}");
            let row = (|| Ok(ExtensionRow { n, kind: column(r, 2, &rec)?, body: sealed(r, 3)?, created_at: column(r, 4, &rec)? }))();
            f(&sid, n, row)?;
        }
        Ok(())
    }

    fn scan_tokens(&self, f: &mut dyn FnMut(&str, i64, Result<TokenRow>) -> Result<()>) -> Result<()> {
        let mut st = self.0.prepare("SELECT session_id, id, input, output, cached, created_at FROM token_ledger ORDER BY session_id, id")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let sid = key_text(r, 0);
            let row_id: i64 = column(r, 1, &|| "tokens".to_string())?;
            let rec = || format!("tokens:{sid}:{row_id}");
            let row = (|| {
                column::<i64>(r, 5, &rec)?;
                Ok(TokenRow { row_id, input: column(r, 2, &rec)?, output: column(r, 3, &rec)?, cached: column(r, 4, &rec)? })
            })();
            f(&sid, row_id, row)?;
        }
        Ok(())
    }

    fn scan_event_payloads(&self, f: &mut dyn FnMut(&str, Sealed) -> Result<()>) -> Result<()> {
        let mut st = self.0.prepare("SELECT event_id, payload_json FROM journal ORDER BY rowid")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            f(&key_text(r, 0), sealed(r, 1)?)?;
        }
        Ok(())
    }

    fn scan_meta(&self, prefix: &str, f: &mut dyn FnMut(&str, Sealed) -> Result<()>) -> Result<()> {
        let mut st = self.0.prepare("SELECT key, value FROM meta WHERE substr(key, 1, length(?1)) = ?1 ORDER BY key")?;
        let mut rows = st.query([prefix])?;
        while let Some(r) = rows.next()? {
            f(&key_text(r, 0), sealed(r, 1)?)?;
        }
        Ok(())
    }

    fn import_records(&self, session_id: &str, f: &mut dyn FnMut(RecordId) -> Result<()>) -> Result<()> {
        // Schema 6: sets of concatenated 16-byte ids, one row per import batch.
        let bad = || Error::corrupt(format!("an import record set of session `{session_id}` is not a whole number of 16-byte ids"));
        let mut ids: Vec<RecordId> = Vec::new();
        let mut st = self.0.prepare_cached("SELECT ids FROM import_record_sets WHERE session_id = ?1 ORDER BY n")?;
        let mut rows = st.query([session_id])?;
        while let Some(r) = rows.next()? {
            let ValueRef::Blob(b) = r.get_ref(0)? else { return Err(bad()) };
            if b.len() % 16 != 0 {
                return Err(bad());
            }
            ids.extend(b.chunks_exact(16).map(|c| RecordId::try_from(c).expect("16 bytes")));
        }
        // In byte order, each id once (sets may repeat an id given twice).
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            f(id)?;
        }
        Ok(())
    }

    fn copy_session_ids(&self) -> Result<Vec<String>> {
        self.rows("SELECT id FROM sessions UNION SELECT session_id FROM journal ORDER BY 1", [], |r| Ok(key_text(r, 0)))
    }

    fn session_copy(&self, id: &str) -> Result<Option<SessionCopyRow>> {
        let rec = || format!("session:{id}");
        let mut v = self.rows(
            "SELECT id, name_enc, workspace_enc, workspace_index, model, provider, work_mode, created_at, updated_at, forked_from, forked_at_seq
             FROM sessions WHERE id = ?1",
            [id],
            |r| {
                Ok(SessionCopyRow {
                    id: column(r, 0, &rec)?,
                    name: sealed(r, 1)?,
                    workspace: sealed(r, 2)?,
                    workspace_index: column(r, 3, &rec)?,
                    model: column(r, 4, &rec)?,
                    provider: column(r, 5, &rec)?,
                    work_mode: column(r, 6, &rec)?,
                    created_at: column(r, 7, &rec)?,
                    updated_at: column(r, 8, &rec)?,
                    forked_from: column(r, 9, &rec)?,
                    forked_at_seq: opt_count(r, 10, &rec)?,
                })
            },
        )?;
        Ok(v.pop())
    }

    fn entry_copies(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EntryCopyRow>> {
        let mut cache = None;
        self.rows(
            &format!(
                "SELECT t.seq, t.role, t.format, t.created_at, t.tokens, t.source_line, t.model, t.provider, t.content_bytes, t.kind, t.call_keys,
                        b.content_enc, b.meta_enc, t.counted_tokens
                 FROM {ENTRY_FROM} WHERE t.session_id = ?1 AND t.seq >= ?2 ORDER BY t.seq LIMIT ?3"
            ),
            params![session_id, seq_arg(from_seq), limit as i64],
            |r| {
                let seq = count(r, 0, &|| format!("transcript:{session_id}"))?;
                let rec = || format!("transcript:{session_id}:{seq}:content");
                let content = sealed(r, 11)?;
                let (content, meta) =
                    if in_set(&content) { self.set_member(&mut cache, session_id, seq, false, &rec)? } else { (content, sealed(r, 12)?) };
                Ok(EntryCopyRow {
                    seq,
                    role: column(r, 1, &rec)?,
                    format: column(r, 2, &rec)?,
                    created_at: column(r, 3, &rec)?,
                    tokens: opt_count(r, 4, &rec)?,
                    source_line: opt_count(r, 5, &rec)?,
                    model: column(r, 6, &rec)?,
                    provider: column(r, 7, &rec)?,
                    content_bytes: opt_count(r, 8, &rec)?,
                    kind: column(r, 9, &rec)?,
                    call_keys: column(r, 10, &rec)?,
                    counted_tokens: opt_count(r, 13, &rec)?,
                    content,
                    meta,
                })
            },
        )
    }

    fn retracted_seqs(&self, session_id: &str) -> Result<Vec<u64>> {
        self.rows("SELECT seq FROM retractions WHERE session_id = ?1 ORDER BY seq", [session_id], |r| {
            count(r, 0, &|| format!("transcript:{session_id} (a retraction)"))
        })
    }

    fn token_copies(&self, session_id: &str) -> Result<Vec<TokenCopyRow>> {
        self.rows(
            "SELECT model, provider, input, output, cached, created_at, id FROM token_ledger WHERE session_id = ?1 ORDER BY id",
            [session_id],
            |r| {
                let row_id: i64 = r.get(6)?;
                let rec = || format!("tokens:{session_id}:{row_id}");
                Ok(TokenCopyRow {
                    model: column(r, 0, &rec)?,
                    provider: column(r, 1, &rec)?,
                    input: column(r, 2, &rec)?,
                    output: column(r, 3, &rec)?,
                    cached: column(r, 4, &rec)?,
                    created_at: column(r, 5, &rec)?,
                })
            },
        )
    }

    fn event_copies(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EventCopyRow>> {
        self.rows(
            &format!("SELECT {EVENT_COLUMNS}, envelope_json FROM journal WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3"),
            params![session_id, seq_arg(from_seq), limit as i64],
            |r| {
                let event = event_row(r)?;
                let rec = || format!("journal:{}:payload", event.event_id);
                Ok(EventCopyRow { envelope: column(r, 8, &rec)?, event })
            },
        )
    }

    fn last_event_seq(&self, session_id: &str) -> Result<u64> {
        let last: i64 = self
            .0
            .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM journal WHERE session_id = ?1")?
            .query_row([session_id], |r| r.get(0))?;
        Ok(last.max(0) as u64)
    }

    fn journal_changes(&self, after: u64, limit: u32) -> Result<Vec<JournalChange>> {
        // The rowid is the commit position: an O(log n) seek on the table.
        self.rows(
            "SELECT rowid, session_id, payload_kind FROM journal WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
            params![after.min(i64::MAX as u64) as i64, limit],
            |r| {
                let rec = || "journal (a change)".to_string();
                Ok(JournalChange { position: count(r, 0, &rec)?, session_id: r.get(1)?, kind: r.get(2)? })
            },
        )
    }

    fn journal_position(&self) -> Result<u64> {
        let last: i64 = self.0.prepare_cached("SELECT COALESCE(MAX(rowid), 0) FROM journal")?.query_row([], |r| r.get(0))?;
        Ok(last.max(0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_ends;

    #[test]
    fn body_set_ends_parse_the_stored_form_and_anything_else_the_general_way() {
        let general = |text: &str| -> Option<Vec<u64>> {
            let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
            inner.split(',').map(|x| x.trim().parse().ok()).collect()
        };
        let cases = [
            "[12,340,412]",
            "[0]",
            "[007,1]",
            "[9999999999999999999,18446744073709551615]",
            "[18446744073709551616]",
            " [1, 2 ,3] ",
            "[+1,2]",
            "[]",
            "[1,,2]",
            "[1,2,]",
            "[-1]",
            "[1.5]",
            "1,2",
            "[1,2",
            "[١]",
        ];
        for text in cases {
            assert_eq!(parse_ends(text), general(text), "{text:?}");
        }
        assert_eq!(parse_ends("[12,340,412]"), Some(vec![12, 340, 412]));
        assert_eq!(parse_ends("[18446744073709551616]"), None);
    }
}
