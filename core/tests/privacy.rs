//! Privacy (issue 30, DESIGN.md "Privacy"): the compression switch and the
//! size oracle it closes; deletion that leaves no envelope byte behind.
use sessiondb::*;

fn key(b: u8) -> DataKey {
    DataKey::from_bytes(&[b; 32]).unwrap()
}

fn temp() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("sessions.db");
    (d, p)
}

fn open(p: &std::path::Path, compress: Option<bool>) -> SessionStore {
    SessionStore::open(OpenOptions { compress, ..OpenOptions::at(p, KeySource::Bytes(key(1))) }).unwrap()
}

/// `(seq, stored content envelope)` of every entry of `sid`, in seq order,
/// read from the database file (the `entry_envelopes` view).
fn envelopes(p: &std::path::Path, sid: &str) -> Vec<(i64, Vec<u8>)> {
    let c = rusqlite::Connection::open(p).unwrap();
    let v = c
        .prepare("SELECT seq, content_enc FROM entry_envelopes WHERE session_id = ?1 ORDER BY seq")
        .unwrap()
        .query_map([sid], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(|x| x.unwrap())
        .collect();
    v
}

/// A 4 KiB body that zstd shrinks a lot.
fn body_4k() -> String {
    "tool output line, repeated\n".repeat(4096 / 27 + 1)[..4096].to_string()
}

/// The envelope version (first byte of the binary form) of a 4 KiB entry
/// appended with `compress`.
fn version_of_4k_body(compress: Option<bool>) -> u8 {
    let (_d, p) = temp();
    let s = open(&p, compress);
    let a = s.create_session(None, None).unwrap();
    s.append_transcript(&a.id, Role::Tool, body_4k()).unwrap();
    assert_eq!(s.get_transcript(&a.id, 1, 1).unwrap()[0].content, body_4k());
    drop(s);
    let e = envelopes(&p, &a.id);
    assert_eq!(e.len(), 1);
    e[0].1[0]
}

#[test]
fn a_4k_body_is_v1_with_compress_off_or_by_default_and_v2_with_it_on() {
    assert_eq!(version_of_4k_body(Some(false)), 1);
    assert_eq!(version_of_4k_body(Some(true)), 2);
    assert_eq!(version_of_4k_body(None), 1);
}

/// Issue 30 item 1: Padmé padding does not close the oracle against an
/// adaptive attacker (`padme_leaks_to_an_adaptive_attacker` below), so a
/// database file does not compress by default either.
#[test]
fn the_backend_default_is_off_for_a_file_and_for_a_server() {
    assert!(!store::default_compress(false));
    assert!(!store::default_compress(true));
    let o = OpenOptions::for_host(None, None, KeySource::OsKeyring, None, None);
    assert_eq!(o.compress, None);
    assert_eq!(o.clone().with_compress(Some(false)).compress, Some(false));
    assert_eq!(o.with_compress(Some(true)).compress, Some(true));
}

/// A deterministic xorshift stream (no test depends on a random seed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// `n` characters of `alphabet`.
    fn text(&mut self, alphabet: &[u8], n: usize) -> String {
        (0..n).map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize] as char).collect()
    }
}

/// Letters outside the hex digits: filler that never extends a guess.
const NON_HEX: &[u8] = b"ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ";

/// What the CRIME-style oracle of issue 30 recovers: a tool output echoes an
/// attacker-chosen page next to an environment dump holding a 40-digit hex
/// secret; the attacker, who sees stored lengths (`length(content_enc)` in a
/// synced file, or a PostgreSQL operator), appends for each next digit 16
/// guesses x `pads` paddings and takes the guess whose stored lengths sum
/// lowest (only when uniquely lowest). Returns (digits recovered correctly
/// of `digits`, guesses stored, whether every guess of a position had the
/// same length under each padding).
fn run_oracle(compress: bool, digits: usize, pads: usize) -> (usize, usize, bool) {
    run_oracle_measured(compress, digits, pads, |n| n)
}

/// [`run_oracle`] where the attacker sees `measure(stored length)` instead
/// of the stored length (a simulated length-hiding padding).
fn run_oracle_measured(compress: bool, digits: usize, pads: usize, measure: fn(usize) -> usize) -> (usize, usize, bool) {
    let (_d, p) = temp();
    let s = open(&p, Some(compress));
    let a = s.create_session(None, None).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let secret = rng.text(b"0123456789abcdef", 40);
    let env_dump = format!(
        "--- environment ---\nHOME=/home/dev\nSHELL=/bin/bash\nLANG=C.UTF-8\nAWS_SECRET_ACCESS_KEY={secret}\nTERM=xterm-256color\n{}\n",
        rng.text(NON_HEX, 300)
    );
    let mut known = String::new();
    let (mut recovered, mut stored, mut all_equal) = (0, 0, true);
    for pos in 0..digits {
        // The same padding for every guess: only the guessed digit differs.
        let paddings: Vec<(String, String)> = (0..pads).map(|pad| (rng.text(NON_HEX, 1 + pad), rng.text(NON_HEX, 40))).collect();
        let mut batch = Vec::new();
        for g in b"0123456789abcdef" {
            for (head, tail) in &paddings {
                let page = format!("fetched https://attacker.example/page:\n{head}AWS_SECRET_ACCESS_KEY={known}{}{tail}\n", *g as char);
                batch.push(NewEntry::text(Role::Tool, format!("{page}{env_dump}")));
            }
        }
        stored += batch.len();
        let first = s.append_entries(&a.id, batch).unwrap()[0].seq as usize;
        let lens: Vec<usize> = envelopes(&p, &a.id)[first - 1..].iter().map(|(_, e)| measure(e.len())).collect();
        assert_eq!(lens.len(), 16 * pads);
        // lens[g * pads + pad]; plaintext lengths differ only by pad.
        for pad in 0..pads {
            let l0 = lens[pad];
            all_equal &= (0..16).all(|g| lens[g * pads + pad] == l0);
        }
        let sums: Vec<usize> = (0..16).map(|g| lens[g * pads..(g + 1) * pads].iter().sum()).collect();
        let min = *sums.iter().min().unwrap();
        let best: Vec<usize> = (0..16).filter(|&g| sums[g] == min).collect();
        let truth = secret.as_bytes()[pos];
        // The attacker keeps going with the true digit either way (a best
        // case for the attacker: one wrong pick would derail the rest).
        if best.len() == 1 && b"0123456789abcdef"[best[0]] == truth {
            recovered += 1;
        }
        known.push(truth as char);
    }
    (recovered, stored, all_equal)
}

/// Figures quoted in SECURITY.md ("Size oracle"): with compression on the
/// oracle recovers 39 of 40 digits from 10,240 stored guesses; off, every guess has the same stored
/// length and it recovers none.
#[test]
fn the_size_oracle_recovers_digits_with_compression_and_none_without() {
    let (on, stored_on, equal_on) = run_oracle(true, 40, 16);
    let (off, stored_off, equal_off) = run_oracle(false, 40, 16);
    eprintln!("oracle: compress on {on} of 40 digits, off {off} of 40, {stored_on} guesses stored per setting");
    assert_eq!((stored_on, stored_off), (10_240, 10_240));
    assert!(!equal_on, "compressed lengths depend on the guess");
    // 39: at one position a wrong digit ties or wins (deterministic: fixed text, zstd level).
    assert_eq!(on, 39);
    assert!(equal_off, "uncompressed lengths depend only on the plaintext length");
    assert_eq!(off, 0);
}

/// Padmé (Nikitin et al., "Reducing Metadata Leakage from Encrypted Files
/// and Communication with PURBs", PETS 2019, section 4, Algorithm 1): the
/// length `l` rounded up so that only its top `floor(log2 floor(log2 l)) + 1`
/// bits may be non-zero; at most 12% overhead, O(log log l) bits of `l` left.
fn padme(l: usize) -> usize {
    if l < 2 {
        return l;
    }
    let e = usize::BITS - 1 - l.leading_zeros(); // floor(log2 l)
    let s = u32::BITS - e.leading_zeros(); // floor(log2 e) + 1
    let last_bits = e.saturating_sub(s);
    let mask = (1usize << last_bits) - 1;
    (l + mask) & !mask
}

/// The stored length of a binary envelope if its sealed plaintext (the zstd
/// frame) were Padmé-padded: `v` + nonce + tag (29 bytes) + padme(body).
fn padme_envelope(stored: usize) -> usize {
    29 + padme(stored - 29)
}

#[test]
fn padme_matches_the_papers_examples() {
    // PURBs, Table 2 / Algorithm 1: 9 and 10 bits of length, then coarser.
    assert_eq!((0..=8).map(padme).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!([9, 10, 100, 400, 401, 1000, 4097].map(padme), [10, 10, 104, 400, 416, 1024, 4352]);
}

/// The adaptive attacker of issue 30 against compressed lengths as seen
/// through `measure` (Padmé-padded, or plain): free padding, 10,000 stored guesses at most. For each next digit
/// it stores the 16 guesses behind a prefix of a fixed filler of length `p`
/// (the same for all 16) and reads their padded lengths; where they differ
/// (the right guess compresses one byte shorter and the filler put the
/// lengths on a Padmé boundary) and one guess alone is shortest, it takes
/// that guess; otherwise it grows `p` by one and tries again. It starts each
/// digit at the `p` that worked for the one before (the boundary moves
/// little as the known prefix grows). Returns (digits recovered correctly,
/// guesses stored).
fn run_adaptive_oracle(digits: usize, budget: usize, measure: fn(usize) -> usize) -> (usize, usize) {
    let (_d, p) = temp();
    let s = open(&p, Some(true));
    let a = s.create_session(None, None).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let secret = rng.text(b"0123456789abcdef", 40);
    let env_dump = format!(
        "--- environment ---\nHOME=/home/dev\nSHELL=/bin/bash\nLANG=C.UTF-8\nAWS_SECRET_ACCESS_KEY={secret}\nTERM=xterm-256color\n{}\n",
        rng.text(NON_HEX, 300)
    );
    let filler = rng.text(NON_HEX, 4000);
    let tail = rng.text(NON_HEX, 40);
    let (mut known, mut recovered, mut stored, mut pad) = (String::new(), 0, 0, 0usize);
    'digits: for pos in 0..digits {
        while stored + 16 <= budget && pad < filler.len() {
            let batch: Vec<NewEntry> = b"0123456789abcdef"
                .iter()
                .map(|g| {
                    let page = format!("fetched https://attacker.example/page:\n{}AWS_SECRET_ACCESS_KEY={known}{}{tail}\n", &filler[..pad], *g as char);
                    NewEntry::text(Role::Tool, format!("{page}{env_dump}"))
                })
                .collect();
            stored += 16;
            let first = s.append_entries(&a.id, batch).unwrap()[0].seq as usize;
            let lens: Vec<usize> = envelopes(&p, &a.id)[first - 1..].iter().map(|(_, e)| measure(e.len())).collect();
            let min = *lens.iter().min().unwrap();
            let best: Vec<usize> = (0..16).filter(|&g| lens[g] == min).collect();
            if best.len() == 1 {
                if b"0123456789abcdef"[best[0]] == secret.as_bytes()[pos] {
                    recovered += 1;
                }
                known.push(secret.as_bytes()[pos] as char);
                continue 'digits;
            }
            pad += 1;
        }
        break;
    }
    (recovered, stored)
}

/// Issue 30 item 1, the option of keeping compression with length-hiding
/// padding, measured: Padmé over the compressed body. Against the fixed
/// (non-adaptive) oracle above it recovers fewer digits than plain
/// compression; against an adaptive attacker with free padding it still
/// recovers nearly every digit within the 10,000-guess budget: so padding
/// does not close the oracle, and a database file no longer compresses by
/// default (SECURITY.md "Size oracle").
#[test]
fn padme_leaks_to_an_adaptive_attacker() {
    let (fixed, stored_fixed, _) = run_oracle_measured(true, 40, 16, padme_envelope);
    let (adaptive, stored_adaptive) = run_adaptive_oracle(40, 10_000, padme_envelope);
    // The same attacker on plain compressed lengths (a baseline for its budget).
    let (plain, stored_plain) = run_adaptive_oracle(40, 10_000, |n| n);
    eprintln!(
        "oracle with Padmé: fixed 16x16 {fixed} of 40 digits ({stored_fixed} guesses); adaptive {adaptive} of 40 ({stored_adaptive} guesses); adaptive without padding {plain} of 40 ({stored_plain} guesses)"
    );
    assert_eq!((fixed, stored_fixed), (FIXED_PADME, 10_240));
    assert_eq!((adaptive, stored_adaptive), (ADAPTIVE_PADME, ADAPTIVE_PADME_STORED));
    assert_eq!((plain, stored_plain), (ADAPTIVE_PLAIN, ADAPTIVE_PLAIN_STORED));
}

// Measured (deterministic: fixed text, zstd level 3).
const FIXED_PADME: usize = 3;
const ADAPTIVE_PADME: usize = 40;
const ADAPTIVE_PADME_STORED: usize = 2_000;
const ADAPTIVE_PLAIN: usize = 39;
const ADAPTIVE_PLAIN_STORED: usize = 768;

/// Every envelope of session `sid` as stored: title, workspace, contents,
/// entry metadata, context extensions.
fn session_envelopes(p: &std::path::Path, sid: &str) -> Vec<Vec<u8>> {
    let c = rusqlite::Connection::open(p).unwrap();
    let mut out = Vec::new();
    for sql in [
        "SELECT name_enc FROM sessions WHERE id = ?1",
        "SELECT workspace_enc FROM sessions WHERE id = ?1",
        "SELECT content_enc FROM entry_envelopes WHERE session_id = ?1",
        "SELECT meta_enc FROM entry_envelopes WHERE session_id = ?1",
        "SELECT body_enc FROM context_extensions WHERE session_id = ?1",
    ] {
        let mut st = c.prepare(sql).unwrap();
        let rows = st.query_map([sid], |r| r.get::<_, Option<Vec<u8>>>(0)).unwrap();
        out.extend(rows.filter_map(|x| x.unwrap()));
    }
    out
}

/// Pieces to look for: every 32-byte window of each envelope at offsets
/// 0, 32, 64, ... and its last 32 bytes (random ciphertext: no 32-byte
/// window occurs by chance); an envelope shorter than 32 bytes whole.
fn needles(envelopes: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for e in envelopes {
        if e.len() < 32 {
            out.push(e.clone());
        } else {
            out.extend(e.chunks_exact(32).map(<[u8]>::to_vec));
            out.push(e[e.len() - 32..].to_vec());
        }
    }
    out
}

/// `(file name, needle)` of every needle found in any file under `dir`.
fn found_in(dir: &std::path::Path, needles: &[Vec<u8>]) -> Vec<(String, Vec<u8>)> {
    let windows: std::collections::HashSet<&[u8]> = needles.iter().filter(|n| n.len() == 32).map(Vec::as_slice).collect();
    let mut hits = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            hits.extend(bytes.windows(32).filter(|w| windows.contains(w)).map(|w| (name.clone(), w.to_vec())));
            for n in needles.iter().filter(|n| n.len() < 32) {
                if bytes.windows(n.len()).any(|w| w == n.as_slice()) {
                    hits.push((name.clone(), n.clone()));
                }
            }
        }
    }
    hits
}

/// Issue 30 "Deletion leaves nothing": after `delete_session` returns, no
/// envelope of the deleted session (nor any 32-byte window of one) is in
/// any file of the store's directory (db, -wal, -shm, owner locks), while
/// the session kept beside it still reads back; with compression on and off
/// (small entries in body sets, a large one over overflow pages).
#[test]
fn a_deleted_session_leaves_no_envelope_byte_in_any_file() {
    for compress in [true, false] {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sessions.db");
        let s = open(&p, Some(compress));
        let ws = d.path().join("secret-project");
        std::fs::create_dir_all(&ws).unwrap();
        let keep = s.create_session(Some("kept".into()), None).unwrap();
        let gone = s.create_session(Some("DELETE-ME title".into()), Some(ws.to_string_lossy().into())).unwrap();
        let mut rng = Rng(7);
        for i in 0..20 {
            // Interleaved, so the two sessions share pages.
            s.append_transcript(&keep.id, Role::User, format!("kept {i} {}", rng.text(NON_HEX, 50))).unwrap();
            s.append_transcript(&gone.id, Role::Tool, format!("gone {i} {}", rng.text(NON_HEX, 300 * (i % 3) + 40))).unwrap();
        }
        s.append_entries(&gone.id, (0..5).map(|i| NewEntry::text(Role::User, format!("set member {i}"))).collect()).unwrap();
        s.append_transcript(&gone.id, Role::Tool, rng.text(NON_HEX, 20_000)).unwrap();
        s.append_entries_with_meta(
            &gone.id,
            vec![(
                NewEntry::text(Role::Assistant, "with meta"),
                EntryMeta { model: None, provider: None, extra: serde_json::from_str(r#"{"k":"DELETE-ME meta"}"#).unwrap(), item: None },
            )],
        )
        .unwrap();
        s.append_context_extension(&gone.id, "artifact_manifest", r#"{"files":["DELETE-ME ext"]}"#).unwrap();
        let envs = session_envelopes(&p, &gone.id);
        assert_eq!(envs.len(), 2 + 27 + 1 + 1, "title, workspace, 27 contents, 1 meta, 1 extension");
        let needles = needles(&envs);
        assert!(!found_in(d.path(), &needles).is_empty(), "the planted envelopes are in the files before deleting");
        s.delete_session(&gone.id).unwrap();
        assert_eq!(found_in(d.path(), &needles), vec![], "compress {compress}");
        assert_eq!(s.get_transcript(&keep.id, 1, 100).unwrap().len(), 20);
        assert_eq!(s.check_records().unwrap().damaged, vec![]);
        drop(s);
        assert_eq!(found_in(d.path(), &needles), vec![], "compress {compress}, after close");
    }
}

/// The same scan while other threads of the handle keep reading (issue 33
/// item 6: reads run on their own connections, whose snapshots could keep
/// the WAL's old frames): the deletion's truncating checkpoint waits for
/// the reads in progress, and no envelope byte of the deleted session is
/// left in any file when `delete_session` returns.
#[test]
fn a_deleted_session_leaves_no_envelope_byte_while_other_threads_read() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("sessions.db");
    let s = std::sync::Arc::new(open(&p, Some(true)));
    let keep = s.create_session(Some("kept".into()), None).unwrap();
    let gone = s.create_session(Some("DELETE-ME title".into()), None).unwrap();
    let mut rng = Rng(11);
    for i in 0..30 {
        s.append_transcript(&keep.id, Role::User, format!("kept {i} {}", rng.text(NON_HEX, 50))).unwrap();
        s.append_transcript(&gone.id, Role::Tool, format!("gone {i} {}", rng.text(NON_HEX, 300 * (i % 3) + 40))).unwrap();
    }
    let needles = needles(&session_envelopes(&p, &gone.id));
    assert!(!found_in(d.path(), &needles).is_empty());
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let reads = std::sync::Arc::new(AtomicU64::new(0));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (s, id, stop, reads) = (s.clone(), keep.id.clone(), stop.clone(), reads.clone());
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    assert_eq!(s.get_transcript(&id, 1, 100).unwrap().len(), 30);
                    reads.fetch_add(1, Ordering::Relaxed);
                    n += 1;
                }
                n
            })
        })
        .collect();
    // The readers are running when the delete starts.
    while reads.load(Ordering::Relaxed) < 30 {
        std::thread::yield_now();
    }
    s.delete_session(&gone.id).unwrap();
    let hits = found_in(d.path(), &needles);
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    assert_eq!(hits, vec![]);
    assert_eq!(s.get_transcript(&keep.id, 1, 100).unwrap().len(), 30);
}

/// Issue 30 "Retention you can trust": off by default, a dry run that lists
/// exactly what goes, the newest N and named sessions kept, every deletion
/// journaled with its reason and title.
#[test]
fn retention_prunes_only_what_its_dry_run_lists_and_journals_each_deletion() {
    use sessiondb::privacy::{PrunedSession, RetentionPolicy};
    const DAY: i64 = 86_400_000;
    let (_d, p) = temp();
    let s = open(&p, None);
    let a = s.create_session(None, None).unwrap();
    let b = s.create_session(None, None).unwrap();
    let c = s.create_session(Some("keep me".into()), None).unwrap();
    let d = s.create_session(None, None).unwrap();
    let t0 = a.created_at_ms;
    // Activity: a at t0 (no entry), b at t0 + 10 days, c at t0, d at t0 + 40 days.
    s.append_entries(&b.id, vec![NewEntry { created_at_ms: Some(t0 + 10 * DAY), ..NewEntry::text(Role::User, "b") }]).unwrap();
    s.append_entries(&d.id, vec![NewEntry { created_at_ms: Some(t0 + 40 * DAY), ..NewEntry::text(Role::User, "d") }]).unwrap();
    let now = t0 + 45 * DAY;
    let ids = |v: &[PrunedSession]| v.iter().map(|p| (p.session_id.clone(), p.reason.clone())).collect::<Vec<_>>();

    // Off by default: nothing goes.
    assert_eq!(s.prune(&RetentionPolicy::default(), now).unwrap(), vec![]);
    // Count limit 2: d and b are the newest two; c is named; a goes.
    let by_count = RetentionPolicy { max_sessions: Some(2), ..Default::default() };
    assert_eq!(ids(&s.prune_plan(&by_count, now).unwrap()), vec![(a.id.clone(), "max_sessions".to_string())]);
    // Age limit 30 days (cutoff t0 + 15 days): a and b, oldest first; d is
    // the newest (kept by the floor even with a 1-day limit).
    let by_age = RetentionPolicy { max_age_days: Some(30), ..Default::default() };
    let plan = s.prune_plan(&by_age, now).unwrap();
    assert_eq!(ids(&plan), vec![(a.id.clone(), "max_age_days".into()), (b.id.clone(), "max_age_days".into())]);
    assert_eq!((plan[1].updated_at_ms, plan[1].entry_count, plan[1].last_seq), (t0 + 10 * DAY, 1, 1));
    let tight = RetentionPolicy { max_age_days: Some(1), keep_named: false, keep_latest: 1, ..Default::default() };
    assert_eq!(s.prune_plan(&tight, now).unwrap().len(), 3, "a, b and the named c; never d, the newest");
    // The dry run deleted nothing.
    assert_eq!(s.list_sessions(None).unwrap().len(), 4);
    // Prune deletes exactly the plan.
    assert_eq!(s.prune(&by_age, now).unwrap(), plan);
    let left: Vec<String> = s.list_sessions(None).unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(left, vec![d.id.clone(), c.id.clone()]);
    // Each deletion is a SessionDeleted event in the session's journal.
    let ev = s.journal_events(&b.id, 1, 100).unwrap().pop().unwrap();
    assert_eq!(ev.kind, "SessionDeleted");
    assert_eq!(ev.payload, serde_json::json!({"entries": 1, "reason": "max_age_days", "title": null, "updated_at_ms": t0 + 10 * DAY}));
    // Nothing else is due now.
    assert_eq!(s.prune(&by_age, now).unwrap(), vec![]);
}

/// Issue 30 item 1, the storage cost of each setting, measured on the
/// shared samples (`../shared/samples`, every session file of every agent;
/// skipped when absent): the stored content envelopes' bytes with
/// compression off (the default since issue 30), on, and on with Padmé
/// padding of every sealed body (simulated as in the oracle above).
#[test]
fn storage_cost_of_each_setting_on_the_samples() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples");
    if !root.is_dir() {
        eprintln!("SKIP: samples not found at {} (they live beside the repo, never in it)", root.display());
        return;
    }
    let mut sizes = Vec::new();
    for compress in [false, true] {
        let (_d, p) = temp();
        let s = open(&p, Some(compress));
        let rep = sessiondb::portable::import_paths(&s, std::slice::from_ref(&root), &mut |_| {}).unwrap();
        assert!(rep.entries() > 0);
        drop(s);
        let c = rusqlite::Connection::open(&p).unwrap();
        let lens: Vec<usize> = c
            .prepare("SELECT length(content_enc) FROM entry_envelopes")
            .unwrap()
            .query_map([], |r| r.get::<_, i64>(0))
            .unwrap()
            .map(|x| x.unwrap() as usize)
            .collect();
        let plain: i64 = c.query_row("SELECT sum(content_bytes) FROM transcript_entries", [], |r| r.get(0)).unwrap();
        sizes.push((lens.len(), plain, lens.iter().sum::<usize>(), lens.iter().map(|&n| padme_envelope(n)).sum::<usize>()));
    }
    let [(n_off, plain_off, off, _), (n_on, plain_on, on, on_padme)] = sizes[..] else { unreachable!() };
    eprintln!(
        "samples: {n_off} entries, {plain_off} content bytes; envelopes: off {off} B, on {on} B ({:.3}x off), on + Padmé {on_padme} B ({:.3}x off)",
        on as f64 / off as f64,
        on_padme as f64 / off as f64
    );
    assert_eq!((n_off, plain_off), (n_on, plain_on));
    assert_eq!(off, plain_off as usize + 29 * n_off, "off: 29 bytes over each content");
    assert_eq!((n_off, plain_off, off, on, on_padme), SAMPLE_SIZES);
}

/// (entries, content bytes, envelope bytes off, on, on + Padmé), measured.
const SAMPLE_SIZES: (usize, i64, usize, usize, usize) = (207, 181_832, 187_835, 87_125, 89_625);

/// Issue 30 item 4, "on open when set": `OpenOptions::retention` prunes at
/// open, journals each deletion, and says what went; without it nothing is
/// deleted at open.
#[test]
fn retention_set_at_open_prunes_then_and_lists_what_went() {
    use sessiondb::privacy::RetentionPolicy;
    let (_d, p) = temp();
    let ids: Vec<String> = {
        let s = open(&p, None);
        (0..3)
            .map(|i| {
                let a = s.create_session(None, None).unwrap();
                // Activity a minute apart (fixed order, whatever the clock's resolution).
                let at = a.created_at_ms + (i + 1) * 60_000;
                s.append_entries(&a.id, vec![NewEntry { created_at_ms: Some(at), ..NewEntry::text(Role::User, format!("turn {i}")) }]).unwrap();
                a.id
            })
            .collect()
    };
    let s = open(&p, None);
    assert_eq!(s.open_pruned(), &[]);
    assert_eq!(s.list_sessions(None).unwrap().len(), 3);
    drop(s);
    let policy = RetentionPolicy { max_sessions: Some(1), ..Default::default() };
    let s = SessionStore::open(OpenOptions { retention: Some(policy), ..OpenOptions::at(&p, KeySource::Bytes(key(1))) }).unwrap();
    let went: Vec<(&str, &str)> = s.open_pruned().iter().map(|x| (x.session_id.as_str(), x.reason.as_str())).collect();
    assert_eq!(went, vec![(ids[0].as_str(), "max_sessions"), (ids[1].as_str(), "max_sessions")]);
    assert_eq!(s.list_sessions(None).unwrap().into_iter().map(|r| r.id).collect::<Vec<_>>(), vec![ids[2].clone()]);
    assert_eq!(s.journal_events(&ids[0], 1, 100).unwrap().pop().unwrap().kind, "SessionDeleted");
}

/// Every 32-byte window at offsets 0, 32, 64, ... (and the last) of each
/// file of the search index folder: the sealed segments as they are now.
fn index_file_needles(p: &std::path::Path) -> Vec<Vec<u8>> {
    let mut dir = p.as_os_str().to_owned();
    dir.push(".search");
    let mut files: Vec<Vec<u8>> = Vec::new();
    for e in std::fs::read_dir(std::path::PathBuf::from(dir)).unwrap() {
        let path = e.unwrap().path();
        if !path.to_string_lossy().ends_with(".lock") {
            files.push(std::fs::read(&path).unwrap());
        }
    }
    // Skip each file's magic, the same in every file: from its salt on.
    needles(&files.iter().filter(|f| f.len() > 8).map(|f| f[8..].to_vec()).collect::<Vec<_>>())
}

/// Issue 30 "Deletion leaves nothing", the search index: a session indexed
/// by one handle's search and deleted by another handle that never
/// searched (as `sessiondb delete` is), or pruned by retention, leaves no
/// posting in the index once the call returns: its distinctive terms are in
/// no segment of the decrypted index (deleted documents included) and no
/// 32-byte window of the sealed index files that held them is in any file
/// of the directory, while the kept session's terms stay; the store's
/// envelopes are gone too.
#[test]
fn a_deleted_session_leaves_no_posting_in_the_search_index() {
    use sessiondb::privacy::RetentionPolicy;
    for how in ["delete", "prune"] {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sessions.db");
        let (keep, gone) = {
            let s = open(&p, None);
            let gone = s.create_session(Some("Zanzibarcanary title".into()), None).unwrap().id;
            s.append_transcript(&gone, Role::Tool, "output with Xylophonecanary and Quagmirecanary in it".into()).unwrap();
            let keep = s.create_session(Some("kept".into()), None).unwrap().id;
            s.append_transcript(&keep, Role::User, "Marmaladecanary stays".into()).unwrap();
            let hits = s.search("xylophonecanary", &SearchOptions::default()).unwrap().hits;
            assert_eq!(hits.iter().map(|h| (h.session_id.clone(), h.seq)).collect::<Vec<_>>(), vec![(gone.clone(), 1)]);
            (keep, gone)
        };
        // A new handle, which has not searched.
        let s = open(&p, None);
        let terms = ["xylophonecanary", "quagmirecanary", "zanzibarcanary"];
        for t in terms {
            assert!(s.search_index_has_term(t).unwrap(), "{how}: `{t}` is indexed before");
        }
        let envs = needles(&session_envelopes(&p, &gone));
        let index = index_file_needles(&p);
        // Before: every piece of the session's envelopes and of the index
        // files is found (so the scan below can fail).
        let distinct = |v: Vec<Vec<u8>>| v.into_iter().collect::<std::collections::BTreeSet<_>>().len();
        let found = |n: &[Vec<u8>]| distinct(found_in(d.path(), n).into_iter().map(|(_, w)| w).collect());
        assert_eq!((found(&envs), found(&index)), (distinct(envs.clone()), distinct(index.clone())), "{how}: before");
        eprintln!("{how}: before: {} envelope pieces, {} index file pieces found", found(&envs), found(&index));
        match how {
            "delete" => s.delete_session(&gone).unwrap(),
            _ => {
                let policy = RetentionPolicy { max_sessions: Some(1), keep_named: false, ..Default::default() };
                let went = s.prune(&policy, i64::MAX / 2).unwrap();
                assert_eq!(went.iter().map(|x| x.session_id.clone()).collect::<Vec<_>>(), vec![gone.clone()]);
            }
        }
        // No search in between: what the files hold when the call returns.
        for t in terms {
            assert!(!s.search_index_has_term(t).unwrap(), "{how}: `{t}` still in the index");
        }
        assert!(s.search_index_has_term("marmaladecanary").unwrap(), "{how}: the kept session stays indexed");
        assert_eq!((found_in(d.path(), &envs), found_in(d.path(), &index)), (vec![], vec![]), "{how}");
        let hits = s.search("marmaladecanary OR xylophonecanary", &SearchOptions::default()).unwrap().hits;
        assert_eq!(hits.iter().map(|h| (h.session_id.clone(), h.seq)).collect::<Vec<_>>(), vec![(keep.clone(), 1)]);
        drop(s);
        assert_eq!((found_in(d.path(), &envs), found_in(d.path(), &index)), (vec![], vec![]), "{how}, after close");
    }
}

/// Issue 30 "every other removal": a `copy` that deletes in the destination
/// a session deleted in the source scrubs the destination as `delete`
/// does: none of the session's envelopes, none of the sealed index files
/// that held its postings, none of its terms in the decrypted index.
#[test]
fn a_copy_that_deletes_leaves_nothing_in_the_destination() {
    let (da, pa) = temp();
    let (db, pb) = temp();
    let a = open(&pa, None);
    let gone = a.create_session(Some("Zanzibarcanary title".into()), None).unwrap().id;
    a.append_transcript(&gone, Role::Tool, "output with Xylophonecanary in it".into()).unwrap();
    let keep = a.create_session(Some("kept".into()), None).unwrap().id;
    a.append_transcript(&keep, Role::User, "Marmaladecanary stays".into()).unwrap();
    let b = open(&pb, None);
    assert_eq!(a.copy_to(&b).unwrap().sessions_deleted, 0);
    assert_eq!(b.search("xylophonecanary", &SearchOptions::default()).unwrap().hits.len(), 1);
    let envs = needles(&session_envelopes(&pb, &gone));
    let index = index_file_needles(&pb);
    let distinct = |v: Vec<Vec<u8>>| v.into_iter().collect::<std::collections::BTreeSet<_>>().len();
    let found = |n: &[Vec<u8>]| distinct(found_in(db.path(), n).into_iter().map(|(_, w)| w).collect());
    assert_eq!((found(&envs), found(&index)), (distinct(envs.clone()), distinct(index.clone())), "before");
    a.delete_session(&gone).unwrap();
    assert_eq!(a.copy_to(&b).unwrap().sessions_deleted, 1);
    assert_eq!((found(&envs), found(&index)), (0, 0), "after the copy");
    assert!(!b.search_index_has_term("xylophonecanary").unwrap());
    assert!(b.search_index_has_term("marmaladecanary").unwrap());
    drop(da);
}
