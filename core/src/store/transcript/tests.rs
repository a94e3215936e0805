//! Unit tests of transcript.rs (the write rules, the test hooks), moved out of it as they were.

use super::*;
use crate::backend::lock;
use std::sync::Arc;
use crate::store::test_support::temp_store;

#[test]
fn appends_queued_together_commit_together_and_a_failing_one_is_rolled_back_alone() {
    let (_d, s) = temp_store();
    let s = Arc::new(s);
    let a = s.create_session(None, None).unwrap().id;
    let b = s.create_session(None, None).unwrap().id;
    let journal_before = s.journal_events(&a, 1, 1000).unwrap().len();
    // Hold the connection: the first append's thread leads a group of
    // one and waits for it; the next two queue up behind it.
    let guard = s.lock_state();
    let mut threads = Vec::new();
    for (sid, text) in [(a.clone(), "one"), ("no-such-session".to_string(), "lost"), (b.clone(), "two")] {
        let st = Arc::clone(&s);
        threads.push(std::thread::spawn(move || st.append_transcript(&sid, Role::User, text.to_string())));
        loop {
            let g = lock(&s.appends.state);
            if g.leading && g.queue.len() == threads.len() - 1 {
                break;
            }
            drop(g);
            std::thread::yield_now();
        }
    }
    drop(guard);
    let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(results[0].as_ref().unwrap().seq, 1);
    assert_eq!(results[1].as_ref().unwrap_err().kind(), crate::ErrorKind::NotFound);
    assert_eq!(results[2].as_ref().unwrap().seq, 1);
    assert_eq!(s.get_transcript(&a, 1, 10).unwrap().iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), ["one"]);
    assert_eq!(s.get_transcript(&b, 1, 10).unwrap().iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), ["two"]);
    // Each append kept its own journal event; the last two shared one commit.
    assert_eq!(s.journal_events(&a, 1, 1000).unwrap().len(), journal_before + 1);
    assert_eq!(lock(&s.group_sizes).as_slice(), [1, 2]);
    let g = lock(&s.appends.state);
    assert!(g.queue.is_empty() && !g.leading);
}

#[test]
fn a_panic_while_writing_a_group_fails_that_append_and_later_appends_still_work() {
    let (_d, s) = temp_store();
    let s = Arc::new(s);
    let a = s.create_session(None, None).unwrap().id;
    PANIC_AFTER_FIRST_INSERT.with(|f| f.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.append_transcript(&a, Role::User, "boom".into())));
    PANIC_AFTER_FIRST_INSERT.with(|f| f.set(false));
    assert!(r.is_err(), "the panic reaches the caller");
    // Nothing of it was stored, the group state is free, and other
    // threads append at once (before the fix they waited forever).
    assert!(s.get_transcript(&a, 1, 10).unwrap().is_empty());
    let g = lock(&s.appends.state);
    assert!(!g.leading && g.queue.is_empty());
    drop(g);
    let st = Arc::clone(&s);
    let sid = a.clone();
    let seq = std::thread::spawn(move || st.append_transcript(&sid, Role::User, "after".into()).unwrap().seq).join().unwrap();
    assert_eq!(seq, 1);
}

#[test]
fn concurrent_appends_from_many_threads_keep_every_entry_gapless_and_in_each_threads_order() {
    let (_d, s) = temp_store();
    let s = Arc::new(s);
    let sid = s.create_session(None, None).unwrap().id;
    let (threads, per) = (8, 300);
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (s, sid) = (Arc::clone(&s), sid.clone());
            std::thread::spawn(move || (0..per).map(|i| s.append_transcript(&sid, Role::User, format!("{t}:{i}")).unwrap().seq).collect::<Vec<u64>>())
        })
        .collect();
    let seqs: Vec<Vec<u64>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    // Each thread's appends got increasing seqs, and together every seq once.
    assert!(seqs.iter().all(|v| v.windows(2).all(|w| w[0] < w[1])));
    let mut all: Vec<u64> = seqs.concat();
    all.sort_unstable();
    assert_eq!(all, (1..=(threads * per) as u64).collect::<Vec<_>>());
    let entries = s.get_transcript(&sid, 1, 10_000).unwrap();
    for (t, v) in seqs.iter().enumerate() {
        for (i, seq) in v.iter().enumerate() {
            assert_eq!(entries[*seq as usize - 1].content, format!("{t}:{i}"));
        }
    }
    let appended = s.journal_events(&sid, 1, 10_000).unwrap().iter().filter(|e| e.kind == "TranscriptAppended").count();
    assert_eq!(appended, threads * per);
}

#[test]
fn presealed_content_is_used_only_for_the_seqs_it_was_sealed_for() {
    let (_d, s) = temp_store();
    let a = s.create_session(None, None).unwrap();
    let entries = vec![NewEntry::text(Role::User, "one"), NewEntry::text(Role::User, "two")];
    let sealed: Vec<Vec<u8>> = ["one", "two"].iter().enumerate().map(|(i, c)| seal_content(s.key(), &a.id, 1 + i as u64, c, true)).collect();
    // Expected seqs 1 and 2, and they are free: the envelopes are stored as given.
    let (first, _) = s.write(|t| append_rows_in_tx(t, &a.id, &entries, None::<&[EntryMeta]>, Some((1, &sealed)), &[], AppendEvent::Appended)).unwrap();
    assert_eq!(first, 1);
    let stored: Vec<Vec<u8>> = s
        .read(|c, _| {
            Ok(c.entries(&a.id, 1, 10, false)?
                .into_iter()
                .map(|e| match e.content {
                    crate::backend::Sealed::Bytes(b) => b,
                    other => panic!("{other:?}"),
                })
                .collect())
        })
        .unwrap();
    assert_eq!(stored, sealed);
    // Sealed for seqs 3 and 4, but another writer took seq 3 first: the
    // content is sealed again for 4 and 5, and reads back.
    let sealed: Vec<Vec<u8>> = ["three", "four"].iter().enumerate().map(|(i, c)| seal_content(s.key(), &a.id, 3 + i as u64, c, true)).collect();
    s.append_transcript(&a.id, Role::Assistant, "interloper".into()).unwrap();
    let entries = vec![NewEntry::text(Role::User, "three"), NewEntry::text(Role::User, "four")];
    let (first, _) = s.write(|t| append_rows_in_tx(t, &a.id, &entries, None::<&[EntryMeta]>, Some((3, &sealed)), &[], AppendEvent::Appended)).unwrap();
    assert_eq!(first, 4);
    let got: Vec<(u64, String)> = s.get_transcript(&a.id, 1, 10).unwrap().into_iter().map(|e| (e.seq, e.content)).collect();
    assert_eq!(got, vec![(1, "one".into()), (2, "two".into()), (3, "interloper".into()), (4, "three".into()), (5, "four".into())]);
}

#[test]
fn entry_items_do_not_open_the_content_of_an_entry_that_carries_an_item() {
    let (_d, s) = temp_store();
    let a = s.create_session(None, None).unwrap().id;
    let rows = vec![
        (NewEntry::text(Role::User, "with item"), EntryMeta::default().with_item("{\"k\": 1}")),
        (NewEntry::text(Role::User, "without"), EntryMeta::default()),
    ];
    s.append_entries_with_meta(&a, rows).unwrap();
    // Damage both content envelopes: entry 1's is never opened, entry 2's is.
    // (Both share one body set row, schema 7: entry `seq`'s envelope starts at its `body_off`.)
    let other = rusqlite::Connection::open(s.path()).unwrap();
    let damage = |seq: u64| {
        let body = "(SELECT body_row FROM entry_envelopes WHERE session_id = ?1 AND seq = ?2)";
        let off: Option<i64> = other
            .query_row("SELECT body_off FROM entry_envelopes WHERE session_id = ?1 AND seq = ?2", rusqlite::params![a, seq as i64], |r| r.get(0))
            .unwrap();
        let col = if off.is_some() { "set_enc" } else { "content_enc" };
        let mut env: Vec<u8> = other
            .query_row(&format!("SELECT {col} FROM entry_bodies WHERE id = {body}"), rusqlite::params![a, seq as i64], |r| r.get(0))
            .unwrap();
        env[off.unwrap_or(0) as usize + 14] ^= 1; // a ciphertext byte (after v and the 12-byte nonce)
        other.execute(&format!("UPDATE entry_bodies SET {col} = ?3 WHERE id = {body}"), rusqlite::params![a, seq as i64, env]).unwrap()
    };
    assert_eq!(damage(1), 1);
    assert_eq!(s.get_transcript(&a, 1, 1).unwrap_err().kind(), crate::ErrorKind::AuthenticationFailed);
    let page = s.get_entry_items(&a, 1, 1).unwrap();
    assert_eq!((page.items_json.as_str(), page.seqs.as_slice()), ("[{\"k\": 1}]", &[1u64][..]));
    assert_eq!(s.get_entry_items(&a, 1, 2).unwrap().without_item[0].0.content, "without");
    assert_eq!(damage(2), 1);
    assert_eq!(s.get_entry_items(&a, 1, 2).unwrap_err().kind(), crate::ErrorKind::AuthenticationFailed);
    assert_eq!(s.get_entry_items_tail(&a, 1).unwrap_err().kind(), crate::ErrorKind::AuthenticationFailed);
}

#[test]
fn every_metadata_form_reads_back_and_an_item_is_kept_byte_exact() {
    let (_d, s) = temp_store();
    let a = s.create_session(None, None).unwrap().id;
    let extra = |v: &str| match serde_json::json!({ "note": v }) {
        serde_json::Value::Object(m) => m,
        _ => unreachable!(),
    };
    // An item with raw line feeds (pretty-printed) and an `extra` whose
    // text holds one: the first raw line feed of the sealed text ends `extra`.
    let pretty = "{\n  \"type\": \"message\",\n  \"text\": \"a\\nb\"\n}";
    let meta = EntryMeta { extra: extra("x\ny"), ..EntryMeta::default() }.with_item(pretty);
    assert_eq!(encode_meta(&meta).unwrap(), format!("\u{1}{{\"note\":\"x\\ny\"}}\n{pretty}"));
    s.append_entries_with_meta(&a, vec![(NewEntry::text(Role::User, "one"), meta.clone())]).unwrap();
    // Entries without an item, alone and in a set: their content is read again.
    s.append_entries_with_meta(&a, vec![(NewEntry::text(Role::Tool, "two"), EntryMeta { extra: extra("e2"), ..EntryMeta::default() })]).unwrap();
    s.append_entries_with_meta(
        &a,
        vec![
            (NewEntry::text(Role::Assistant, "three"), EntryMeta { extra: extra("e3"), ..EntryMeta::default() }),
            (NewEntry::text(Role::Assistant, "four"), EntryMeta::default().with_item("[4]")),
            (NewEntry::text(Role::Assistant, "five"), EntryMeta::default()),
        ],
    )
    .unwrap();
    // Entry 6: the metadata as a build before schema 8 sealed it, `[extra, "item"]`.
    s.append_entries_with_meta(&a, vec![(NewEntry::text(Role::User, "six"), EntryMeta::default().with_item("{}"))]).unwrap();
    let old = serde_json::to_string(&(extra("old"), "{\"v\": 6}")).unwrap();
    let env = crypto::seal(&s.key, &meta_record(&a, 6), old.as_bytes(), false);
    let other = rusqlite::Connection::open(s.path()).unwrap();
    let body = "(SELECT body_id FROM transcript_entries WHERE session_id = ?1 AND seq = 6)";
    assert_eq!(other.execute(&format!("UPDATE entry_bodies SET meta_enc = ?2 WHERE id = {body}"), rusqlite::params![a, env]).unwrap(), 1);

    let page = s.get_entry_items(&a, 1, 100).unwrap();
    assert_eq!(page.items_json, format!("[{pretty},null,null,[4],null,{{\"v\": 6}}]"));
    assert_eq!(page.seqs, vec![1, 2, 3, 4, 5, 6]);
    let without: Vec<_> = page.without_item.iter().map(|(e, m)| (e.seq, e.content.as_str(), m.extra.get("note").cloned())).collect();
    assert_eq!(without, vec![(2, "two", Some("e2".into())), (3, "three", Some("e3".into())), (5, "five", None)]);
    let tail = s.get_entry_items_tail(&a, 3).unwrap();
    assert_eq!((tail.items_json.as_str(), tail.seqs.as_slice()), ("[[4],null,{\"v\": 6}]", &[4u64, 5, 6][..]));
    let metas: Vec<_> = s.get_transcript_with_meta(&a, 1, 100).unwrap().into_iter().map(|(_, m)| (m.item, m.extra.get("note").cloned())).collect();
    assert_eq!(metas[0], (Some(pretty.to_string()), Some("x\ny".into())));
    assert_eq!(metas[5], (Some("{\"v\": 6}".to_string()), Some("old".into())));
    // Anything else in the envelope is `Corrupt`, naming the record.
    for bad in ["\u{1}{}", "[{}, 6]", "\u{1}[]\n{}"] {
        let env = crypto::seal(&s.key, &meta_record(&a, 6), bad.as_bytes(), false);
        other.execute(&format!("UPDATE entry_bodies SET meta_enc = ?2 WHERE id = {body}"), rusqlite::params![a, env]).unwrap();
        let err = s.get_transcript_with_meta(&a, 6, 1).unwrap_err();
        assert_eq!((err.kind(), err.to_string().contains(&format!("transcript:{a}:6:meta"))), (crate::ErrorKind::Corrupt, true), "{bad:?}");
        // A read of items alone does not parse `extra` next to an item.
        assert_eq!(s.get_entry_items(&a, 6, 1).map(|p| p.items_json).map_err(|e| e.kind()), if bad.contains('\n') { Ok("[{}]".into()) } else { Err(crate::ErrorKind::Corrupt) });
    }
}

#[test]
fn a_write_failing_after_the_first_insert_leaves_no_rows_and_no_lock() {
    let (_d, s) = temp_store();
    let a = s.create_session(None, None).unwrap();
    s.append_transcript(&a.id, Role::User, "kept".into()).unwrap();
    let journal_before = s.journal_events(&a.id, 1, 100).unwrap().len();
    FAIL_AFTER_FIRST_INSERT.with(|f| f.set(true));
    let e = s.append_entries(&a.id, vec![NewEntry::text(Role::User, "a"), NewEntry::text(Role::User, "b")]).unwrap_err();
    FAIL_AFTER_FIRST_INSERT.with(|f| f.set(false));
    assert_eq!(e.kind(), crate::ErrorKind::Database);
    let t = s.get_transcript(&a.id, 1, 100).unwrap();
    assert_eq!(t.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), vec!["kept"]);
    assert_eq!(s.get_session(&a.id).unwrap().entry_count, 1);
    assert_eq!(s.journal_events(&a.id, 1, 100).unwrap().len(), journal_before);
    // No write lock held: another connection can write immediately.
    let other = rusqlite::Connection::open(s.path()).unwrap();
    other.busy_timeout(std::time::Duration::from_millis(0)).unwrap();
    other.execute_batch("BEGIN IMMEDIATE; COMMIT;").unwrap();
    // And the next append gets seq 2 (no gap).
    assert_eq!(s.append_transcript(&a.id, Role::User, "next".into()).unwrap().seq, 2);
}

#[test]
fn a_page_leaves_out_its_own_sessions_retractions_only() {
    // A page's query leaves out the row-by-row retraction probe when the
    // session has no retraction at all: a retraction in another session
    // must not change that, and one in this session must still hide its entry.
    let (_d, s) = temp_store();
    let a = s.create_session(None, None).unwrap().id;
    let b = s.create_session(None, None).unwrap().id;
    for i in 1..=4 {
        s.append_transcript(&a, Role::User, format!("a{i}")).unwrap();
        s.append_transcript(&b, Role::User, format!("b{i}")).unwrap();
    }
    s.retract_entry(&b, 2).unwrap();
    let texts = |sid: &str| s.get_transcript(sid, 1, 10).unwrap().into_iter().map(|e| e.content).collect::<Vec<_>>();
    assert_eq!(texts(&a), ["a1", "a2", "a3", "a4"]);
    assert_eq!(texts(&b), ["b1", "b3", "b4"]);
    s.retract_entry(&a, 4).unwrap();
    assert_eq!(texts(&a), ["a1", "a2", "a3"]);
    assert_eq!(s.get_transcript(&b, 2, 1).unwrap()[0].content, "b3");
    let tail = |sid: &str| s.get_transcript_tail(sid, 2).unwrap().into_iter().map(|e| e.content).collect::<Vec<_>>();
    assert_eq!(tail(&a), ["a2", "a3"]);
    assert_eq!(tail(&b), ["b3", "b4"]);
}
