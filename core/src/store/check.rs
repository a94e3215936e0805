//! `doctor --check`: read and authenticate every stored record, report the
//! damaged ones by record id, change nothing (issue "Nothing lost under
//! real use": one damaged row never hides the others).

use rusqlite::types::ValueRef;
use rusqlite::Row;
use serde::{Deserialize, Serialize};

use super::{column, open_column, tokens::token_record, SessionStore, UnreadableField};
use crate::error::{Error, Result};

/// What [`SessionStore::check_records`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckReport {
    /// Records read (session fields, transcript entries, context
    /// extensions, token records, journal events, import progress records).
    pub records: u64,
    /// The records that could not be read, in table order.
    pub damaged: Vec<UnreadableField>,
}

/// Count one record; keep a damaged one, pass any other error on.
fn note(report: &mut CheckReport, field: &str, record: &str, res: Result<()>) -> Result<()> {
    report.records += 1;
    match res {
        Ok(()) => Ok(()),
        Err(e @ (Error::Corrupt { .. } | Error::AuthenticationFailed { .. })) => {
            report.damaged.push(UnreadableField::new(field, record, &e));
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// A key column as text for a record id, whatever it holds.
fn id_text(r: &Row<'_>, idx: usize) -> String {
    match r.get_ref(idx) {
        Ok(ValueRef::Text(b)) => String::from_utf8_lossy(b).into_owned(),
        Ok(ValueRef::Integer(i)) => i.to_string(),
        _ => "<unreadable id>".to_string(),
    }
}

impl SessionStore {
    /// Read every record the store holds, decrypting and authenticating
    /// each envelope and type-checking each column, in one read
    /// transaction; writes nothing. Cost: one pass over the database.
    ///
    /// Errors: `Closed`, `Busy`, `Database` (the database itself cannot be
    /// read). A damaged record is not an error: it is listed in
    /// [`CheckReport::damaged`] with its record id.
    pub fn check_records(&self) -> Result<CheckReport> {
        self.read(|c, key| {
            let mut report = CheckReport::default();
            let sealed = |r: &Row<'_>, idx: usize, record: &str, required: bool| -> Result<Option<String>> {
                match open_column(key, r, idx, record)? {
                    None if required => Err(Error::corrupt(format!("record `{record}` has no envelope"))),
                    v => Ok(v),
                }
            };
            let json_object = |text: Option<String>, record: &str| -> Result<()> {
                match text.map(|t| serde_json::from_str::<serde_json::Value>(&t)) {
                    None | Some(Ok(serde_json::Value::Object(_))) => Ok(()),
                    Some(_) => Err(Error::corrupt(format!("record `{record}` is not a JSON object"))),
                }
            };

            let mut st = c.prepare(&format!("SELECT {} FROM sessions ORDER BY id", super::sessions::SESSION_COLUMNS))?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let id = id_text(r, 0);
                match super::sessions::session_from_row(key, r) {
                    Ok(s) => {
                        report.records += 2;
                        report.damaged.extend(s.unreadable);
                    }
                    Err(e) => note(&mut report, "session", &format!("session:{id}"), Err(e))?,
                }
            }

            let mut st = c.prepare(
                "SELECT session_id, seq, role, format, content_enc, created_at, tokens, source_line, model, provider, meta_enc
                 FROM transcript_entries ORDER BY session_id, seq",
            )?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let (sid, seq) = (id_text(r, 0), id_text(r, 1));
                let rec = format!("transcript:{sid}:{seq}:content");
                let res = (|| {
                    let role: String = column(r, 2, &rec)?;
                    super::Role::parse(&role).map_err(|_| Error::corrupt(format!("record `{rec}`: unknown role")))?;
                    let format: String = column(r, 3, &rec)?;
                    super::ContentFormat::parse(&format)
                        .map_err(|_| Error::corrupt(format!("record `{rec}`: unknown content format")))?;
                    column::<i64>(r, 5, &rec)?;
                    column::<Option<i64>>(r, 6, &rec)?;
                    column::<Option<i64>>(r, 7, &rec)?;
                    column::<Option<String>>(r, 8, &rec)?;
                    column::<Option<String>>(r, 9, &rec)?;
                    sealed(r, 4, &rec, true).map(drop)
                })();
                note(&mut report, "content", &rec, res)?;
                let meta = format!("transcript:{sid}:{seq}:meta");
                if !matches!(r.get_ref(10)?, ValueRef::Null) {
                    note(&mut report, "meta", &meta, sealed(r, 10, &meta, false).and_then(|t| json_object(t, &meta)))?;
                }
            }

            let mut st = c.prepare("SELECT session_id, n, kind, body_enc, created_at FROM context_extensions ORDER BY session_id, n")?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let rec = format!("ctxext:{}:{}", id_text(r, 0), id_text(r, 1));
                let res = column::<String>(r, 2, &rec)
                    .and_then(|_| column::<i64>(r, 4, &rec))
                    .and_then(|_| sealed(r, 3, &rec, true).map(drop));
                note(&mut report, "body", &rec, res)?;
            }

            let mut st = c.prepare("SELECT session_id, id, input, output, cached, created_at FROM token_ledger ORDER BY id")?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let rec = token_record(&id_text(r, 0), column::<i64>(r, 1, "tokens")?);
                let res = (2..=5).try_for_each(|i| {
                    if column::<i64>(r, i, &rec)? < 0 {
                        return Err(Error::corrupt(format!("record `{rec}`: negative count")));
                    }
                    Ok(())
                });
                note(&mut report, "tokens", &rec, res)?;
            }

            let mut st = c.prepare("SELECT event_id, payload_json FROM journal ORDER BY rowid")?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let rec = format!("journal:{}:payload", id_text(r, 0));
                let res = sealed(r, 1, &rec, true).and_then(|t| {
                    let text = t.unwrap_or_default();
                    serde_json::from_str::<serde_json::Value>(&text)
                        .map(drop)
                        .map_err(|_| Error::corrupt(format!("record `{rec}`: journal payload is not JSON")))
                });
                note(&mut report, "payload", &rec, res)?;
            }

            // Import progress records are envelopes whose record id is their meta key.
            let mut st = c.prepare("SELECT key, value FROM meta WHERE key LIKE 'import-source:%' ORDER BY key")?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let rec = id_text(r, 0);
                note(&mut report, "value", &rec, sealed(r, 1, &rec, true).map(drop))?;
            }
            Ok(report)
        })
    }
}
