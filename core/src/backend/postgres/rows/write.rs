//! [`WriteTx`] over one PostgreSQL transaction (or a speculative append):
//! every row-level write statement of the backend. Moved out of rows.rs,
//! whose helpers and [`PgTx`] it uses, as it was.

use super::*;

impl WriteTx for PgTx<'_> {
    fn insert_session(&self, row: &NewSessionRow<'_>) -> Result<()> {
        self.exec(
            "INSERT INTO sessions (session_id, name_enc, workspace_enc, workspace_index, model, provider, work_mode,
                                   created_at, updated_at, forked_from, forked_at_seq)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10)",
            &[
                &row.id,
                &row.name,
                &row.workspace,
                &row.workspace_index,
                &row.model,
                &row.provider,
                &row.work_mode,
                &row.created_at,
                &row.forked_from,
                &row.forked_at_seq.map(i),
            ],
        )?;
        Ok(())
    }

    fn set_session_name(&self, id: &str, name: Option<&[u8]>) -> Result<bool> {
        Ok(self.exec("UPDATE sessions SET name_enc = $2 WHERE session_id = $1", &[&id, &name])? > 0)
    }

    fn set_session_model(&self, id: &str, model: Option<&str>, provider: Option<&str>) -> Result<bool> {
        Ok(self.exec("UPDATE sessions SET model = $2, provider = $3 WHERE session_id = $1", &[&id, &model, &provider])? > 0)
    }

    fn set_session_work_mode(&self, id: &str, work_mode: Option<&str>) -> Result<bool> {
        Ok(self.exec("UPDATE sessions SET work_mode = $2 WHERE session_id = $1", &[&id, &work_mode])? > 0)
    }

    fn set_session_updated_at(&self, id: &str, updated_at: i64) -> Result<()> {
        if let Some(spec) = self.spec_for(id) {
            spec?.new_updated_at = Some(updated_at);
            return Ok(());
        }
        self.learn(id, Some(updated_at), None);
        self.exec("UPDATE sessions SET updated_at = $2 WHERE session_id = $1", &[&id, &updated_at])?;
        Ok(())
    }

    fn delete_session(&self, id: &str) -> Result<Option<u64>> {
        self.learned.borrow_mut().remove(id);
        self.locked.borrow_mut().remove(id);
        if self.exec("DELETE FROM sessions WHERE session_id = $1", &[&id])? == 0 {
            return Ok(None);
        }
        let entries = self.exec("DELETE FROM transcript_entries WHERE session_id = $1", &[&id])?;
        self.exec("DELETE FROM token_ledger WHERE session_id = $1", &[&id])?;
        self.exec("DELETE FROM context_extensions WHERE session_id = $1", &[&id])?;
        self.exec("DELETE FROM retractions WHERE session_id = $1", &[&id])?;
        self.exec("DELETE FROM import_records WHERE session_id = $1", &[&id])?;
        Ok(Some(entries))
    }

    fn retract_entry(&self, session_id: &str, seq: u64) -> Result<bool> {
        Ok(self.exec("INSERT INTO retractions (session_id, seq) VALUES ($1, $2) ON CONFLICT DO NOTHING", &[&session_id, &i(seq)])? > 0)
    }

    fn insert_entries(&self, session_id: &str, rows: &[NewEntryRow<'_>]) -> Result<()> {
        if let Some(spec) = self.spec_for(session_id) {
            let mut spec = spec?;
            let next = spec.seen.1 + spec.entries.seq.len() as u64 + 1;
            if spec.event.is_some() || rows.iter().enumerate().any(|(k, e)| e.seq != next + k as u64) {
                drop(spec);
                return Err(self.abort());
            }
            let c = &mut spec.entries;
            for e in rows {
                c.seq.push(i(e.seq));
                c.role.push(e.role.to_string());
                c.format.push(e.format.to_string());
                c.created_at.push(e.created_at);
                c.tokens.push(e.tokens.map(i));
                c.source_line.push(e.source_line.map(i));
                c.model.push(e.model.map(str::to_string));
                c.provider.push(e.provider.map(str::to_string));
                c.content_bytes.push(i(e.content_bytes));
                c.kind.push(e.kind.to_string());
                c.call_keys.push(e.call_keys.to_string());
                c.counted_tokens.push(e.counted_tokens.map(i));
                c.content.push(e.content.to_vec());
                c.meta.push(e.meta.map(<[u8]>::to_vec));
            }
            return Ok(());
        }
        if let Some(last) = rows.last() {
            self.learn(session_id, None, Some(last.seq));
        }
        let st = self.stmt(
            "INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, model, provider,
                                             content_bytes, kind, call_keys, content_enc, meta_enc, counted_tokens)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )?;
        let mut tx = self.t()?;
        for e in rows {
            tx.execute(
                &st,
                &[
                    &session_id,
                    &i(e.seq),
                    &e.role,
                    &e.format,
                    &e.created_at,
                    &e.tokens.map(i),
                    &e.source_line.map(i),
                    &e.model,
                    &e.provider,
                    &i(e.content_bytes),
                    &e.kind,
                    &e.call_keys,
                    &e.content,
                    &e.meta,
                    &e.counted_tokens.map(i),
                ],
            )?;
        }
        Ok(())
    }

    fn insert_event(&self, row: &NewEventRow<'_>) -> Result<(u64, u64)> {
        // One statement: the session's journal head row allocates the seq
        // under its row lock (rolled back with the transaction, so seqs
        // stay gapless; the upsert's update sees the latest committed head
        // even after waiting for the lock), `journal_version` the
        // aggregate version (see the module docs), and the row goes in,
        // only if this handle still holds its epoch (the fence: no row
        // means fenced).
        if let Some(spec) = self.spec_for(row.session_id) {
            let mut spec = spec?;
            if spec.event.is_some() {
                drop(spec);
                return Err(self.abort());
            }
            spec.event = Some(OwnedEvent {
                event_id: row.event_id.to_string(),
                operation_id: row.operation_id.to_string(),
                kind: row.kind.to_string(),
                payload: row.payload.to_string(),
                envelope: row.envelope.to_string(),
                created_at: row.created_at.to_string(),
            });
            // Its seq and aggregate version are the server's, known at the
            // commit; the only caller that speculates (an append) does not
            // use them.
            return Ok((0, 0));
        }
        let (instance, epoch) = self.owner.as_ref().map_or(("", 0), |o| (o.instance_id, o.epoch));
        let fence = self.owner.is_some();
        let rows = self.query(
            "WITH head AS (
               INSERT INTO journal_heads (session_id, last_seq) VALUES ($1, 1)
               ON CONFLICT (session_id) DO UPDATE SET last_seq = journal_heads.last_seq + 1 RETURNING last_seq)
             INSERT INTO journal (session_id, seq, event_id, aggregate_version, operation_id, payload_kind, payload_json, envelope_json, created_at)
             SELECT $1, head.last_seq, $2, nextval('journal_version'), $3, $4, $5, $6, $7 FROM head
             WHERE NOT $8 OR EXISTS (SELECT 1 FROM owners WHERE session_id = '' AND instance_id = $9 AND epoch = $10)
             RETURNING seq, aggregate_version",
            &[&row.session_id, &row.event_id, &row.operation_id, &row.kind, &row.payload, &row.envelope, &row.created_at, &fence, &instance, &epoch],
        )?;
        let Some(r) = rows.first() else {
            let o = self.owner.as_ref().expect("only a fenced insert returns no row");
            return Err(super::super::owners::fence_unless(false, o.fenced).expect_err("fenced"));
        };
        self.fence_checked.set(true);
        Ok((u(r.get(0)), u(r.get(1))))
    }

    fn open_operation(&self, operation_id: &str, session_id: &str, owner: &str, dispatched_event_id: &str) -> Result<()> {
        self.exec(
            "INSERT INTO open_operations (session_id, operation_id, owner, dispatched_event_id) VALUES ($1, $2, $3, $4)",
            &[&session_id, &operation_id, &owner, &dispatched_event_id],
        )?;
        Ok(())
    }

    fn close_operation(&self, operation_id: &str) -> Result<()> {
        self.exec("DELETE FROM open_operations WHERE operation_id = $1", &[&operation_id])?;
        Ok(())
    }

    fn insert_tokens(&self, session_id: &str, rows: &[NewTokenRow<'_>]) -> Result<()> {
        for t in rows {
            self.exec(
                "INSERT INTO token_ledger (session_id, model, provider, input, output, cached, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[&session_id, &t.model, &t.provider, &i(t.input), &i(t.output), &i(t.cached), &t.created_at],
            )?;
        }
        Ok(())
    }

    fn next_extension_n(&self, session_id: &str) -> Result<u64> {
        self.lock_session(session_id)?;
        Ok(u(self.one("SELECT COALESCE(MAX(n), 0) + 1 FROM context_extensions WHERE session_id = $1", &[&session_id])?.get(0)))
    }

    fn insert_extension(&self, session_id: &str, n: u64, kind: &str, body: &[u8], created_at: i64) -> Result<()> {
        self.exec(
            "INSERT INTO context_extensions (session_id, n, kind, body_enc, created_at) VALUES ($1, $2, $3, $4, $5)",
            &[&session_id, &i(n), &kind, &body, &created_at],
        )?;
        Ok(())
    }

    fn put_meta(&self, key: &str, value: &str, replace: bool) -> Result<()> {
        let sql = if replace {
            "INSERT INTO meta (session_id, key, value) VALUES ('', $1, $2) ON CONFLICT (session_id, key) DO UPDATE SET value = EXCLUDED.value"
        } else {
            "INSERT INTO meta (session_id, key, value) VALUES ('', $1, $2) ON CONFLICT (session_id, key) DO NOTHING"
        };
        self.exec(sql, &[&key, &value])?;
        Ok(())
    }

    fn delete_meta(&self, key: &str) -> Result<()> {
        self.exec("DELETE FROM meta WHERE session_id = '' AND key = $1", &[&key])?;
        Ok(())
    }

    fn insert_import_records(&self, session_id: &str, ids: &[RecordId]) -> Result<()> {
        let ids: Vec<&[u8]> = ids.iter().map(|id| &id[..]).collect();
        self.exec(
            "INSERT INTO import_records (session_id, record_id) SELECT $1, unnest($2::bytea[]) ON CONFLICT DO NOTHING",
            &[&session_id, &ids],
        )?;
        Ok(())
    }

    fn put_session_copy(&self, row: &SessionCopyRow) -> Result<()> {
        let env = |s: &Sealed| -> Option<Vec<u8>> {
            match s {
                Sealed::Bytes(b) => Some(b.clone()),
                _ => None,
            }
        };
        self.exec(
            "INSERT INTO sessions (session_id, name_enc, workspace_enc, workspace_index, model, provider, work_mode,
                                   created_at, updated_at, forked_from, forked_at_seq)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
             ON CONFLICT (session_id) DO UPDATE SET name_enc = $2, workspace_enc = $3, workspace_index = $4, model = $5, provider = $6,
               work_mode = $7, created_at = $8, updated_at = $9, forked_from = $10, forked_at_seq = $11",
            &[
                &row.id,
                &env(&row.name),
                &env(&row.workspace),
                &row.workspace_index,
                &row.model,
                &row.provider,
                &row.work_mode,
                &row.created_at,
                &row.updated_at,
                &row.forked_from,
                &row.forked_at_seq.map(i),
            ],
        )?;
        Ok(())
    }

    fn insert_entry_copies(&self, session_id: &str, rows: &[EntryCopyRow]) -> Result<()> {
        let bytes = |s: &Sealed| match s {
            Sealed::Bytes(b) => Some(b.clone()),
            _ => None,
        };
        self.learned.borrow_mut().remove(session_id);
        let mut tx = self.t()?;
        let st = tx.prepare(
            "INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, model, provider,
                                             content_bytes, kind, call_keys, content_enc, meta_enc, counted_tokens)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )?;
        for e in rows {
            let content = bytes(&e.content)
                .ok_or_else(|| crate::error::Error::corrupt(format!("record `transcript:{session_id}:{}:content` has no envelope", e.seq)))?;
            tx.execute(
                &st,
                &[
                    &session_id,
                    &i(e.seq),
                    &e.role,
                    &e.format,
                    &e.created_at,
                    &e.tokens.map(i),
                    &e.source_line.map(i),
                    &e.model,
                    &e.provider,
                    &e.content_bytes.map(i),
                    &e.kind,
                    &e.call_keys,
                    &content,
                    &bytes(&e.meta),
                    &e.counted_tokens.map(i),
                ],
            )?;
        }
        Ok(())
    }
}
