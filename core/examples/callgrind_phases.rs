//! A small fixed workload for instruction counts (callgrind): one function
//! per phase (open, append, read, import), so each can be counted alone:
//!
//! ```text
//! cargo build --profile profiling -p sessiondb --example callgrind_phases
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*phase_append*' \
//!     target/profiling/examples/callgrind_phases
//! ```
//!
//! (`phase_open`, `phase_append`, `phase_read`, `phase_import`; the total
//! is the `summary:` line of the callgrind output file). Counts are
//! compared between two builds measured in the same run, never against a
//! figure from another machine. Sizes are fixed: 10 opens of a store of
//! 1,500 entries; 500 single appends of 1 KiB and 10 batches of 100; 5 full
//! reads and 50 tail reads; the import of a 600-line thClaws file.
use std::io::Write;
use std::path::Path;

use sessiondb::*;

fn key() -> KeySource {
    KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap())
}

fn text(i: usize, n: usize) -> String {
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
    let mut s = String::with_capacity(n + 8);
    let mut k = i;
    while s.len() < n {
        s.push_str(words[k % words.len()]);
        s.push(' ');
        k = k.wrapping_mul(31).wrapping_add(7) % 1009;
    }
    s
}

#[inline(never)]
fn phase_open(db: &Path) {
    for _ in 0..10 {
        let s = SessionStore::open(OpenOptions::at(db, key())).unwrap();
        s.close();
    }
}

#[inline(never)]
fn phase_append(s: &SessionStore, id: &str) {
    for i in 0..500 {
        s.append_transcript(id, Role::User, text(i, 1024)).unwrap();
    }
    for b in 0..10 {
        s.append_entries(id, (0..100).map(|i| NewEntry::text(Role::Assistant, text(b * 100 + i, 1024))).collect()).unwrap();
    }
}

#[inline(never)]
fn phase_read(s: &SessionStore, id: &str) {
    for _ in 0..5 {
        assert_eq!(s.get_transcript(id, 1, 10_000).unwrap().len(), 1500);
    }
    for _ in 0..50 {
        assert_eq!(s.get_transcript_tail(id, 20).unwrap().len(), 20);
    }
}

#[inline(never)]
fn phase_import(s: &SessionStore, file: &Path) {
    let r = sessiondb::portable::import_file(s, file, None).unwrap();
    assert_eq!(r.sessions.iter().map(|x| x.entries).sum::<u64>(), 600);
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let s = SessionStore::open(OpenOptions::at(&db, key())).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    phase_append(&s, &id);
    phase_read(&s, &id);
    let file = dir.path().join("a.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    writeln!(w, "{}", serde_json::json!({"type":"header","id":"sess-cg","model":"m","cwd":"/w","created_at":1778930901})).unwrap();
    for n in 0..300usize {
        let ts = 1778930901 + n as i64;
        writeln!(w, "{}", serde_json::json!({"type":"user","content":[{"type":"text","text":text(n, 200)}],"timestamp":ts})).unwrap();
        writeln!(w, "{}", serde_json::json!({"type":"assistant","content":[{"type":"text","text":text(n + 1, 800)}],"timestamp":ts,"model":"m"})).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    phase_import(&s, &file);
    s.close();
    drop(s);
    phase_open(&db);
}
