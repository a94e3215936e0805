//! `doctor --check`: read and authenticate every stored record, report the
//! damaged ones by record id, change nothing (issue "Nothing lost under
//! real use": one damaged row never hides the others).

use serde::{Deserialize, Serialize};

use super::{open_required, open_sealed, sessions, tokens, ContentFormat, Role, SessionStore, UnreadableField};
use crate::backend::Sealed;
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
            c.scan_sessions(&mut |id, row| {
                match row.and_then(|row| sessions::session_from_row(key, row)) {
                    Ok(s) => {
                        report.records += 2;
                        report.damaged.extend(s.unreadable);
                        Ok(())
                    }
                    Err(e) => note(&mut report, "session", &format!("session:{id}"), Err(e)),
                }
            })?;
            c.scan_entries(&mut |sid, seq, row| {
                let rec = format!("transcript:{sid}:{seq}:content");
                let meta = format!("transcript:{sid}:{seq}:meta");
                let row = match row {
                    Ok(row) => row,
                    Err(e) => return note(&mut report, "content", &rec, Err(e)),
                };
                let res = (|| {
                    Role::parse(&row.role).map_err(|_| Error::corrupt(format!("record `{rec}`: unknown role")))?;
                    ContentFormat::parse(&row.format).map_err(|_| Error::corrupt(format!("record `{rec}`: unknown content format")))?;
                    open_required(key, &row.content, &rec).map(drop)
                })();
                note(&mut report, "content", &rec, res)?;
                match row.meta.map(|m| m.extra) {
                    None | Some(Sealed::Absent) => Ok(()),
                    Some(extra) => {
                        note(&mut report, "meta", &meta, open_sealed(key, &extra, &meta).and_then(|t| match t {
                            None => Ok(()),
                            Some(t) => super::entry_meta::decode_meta(&t, &meta).map(drop),
                        }))
                    }
                }
            })?;
            c.scan_extensions(&mut |sid, n, row| {
                let rec = format!("ctxext:{sid}:{n}");
                let res = row.and_then(|row| open_required(key, &row.body, &rec).map(drop));
                note(&mut report, "body", &rec, res)
            })?;
            c.scan_tokens(&mut |sid, row_id, row| {
                let rec = tokens::token_record(sid, row_id);
                let res = row.and_then(|row| tokens::token_counts(sid, &row).map(drop));
                note(&mut report, "tokens", &rec, res)
            })?;
            c.scan_event_payloads(&mut |event_id, payload| {
                let rec = format!("journal:{event_id}:payload");
                let res = open_required(key, &payload, &rec).and_then(|text| {
                    serde_json::from_str::<serde_json::Value>(&text)
                        .map(drop)
                        .map_err(|_| Error::corrupt(format!("record `{rec}`: journal payload is not JSON")))
                });
                note(&mut report, "payload", &rec, res)
            })?;
            // Import progress records are envelopes whose record id is their meta key.
            c.scan_meta("import-source:", &mut |k, value| note(&mut report, "value", k, open_required(key, &value, k).map(drop)))?;
            Ok(report)
        })
    }
}
