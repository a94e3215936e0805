//! The floor of the search index build (issue 26 "How fast"; a benchmark
//! that prints figures, not a timed test): what tantivy itself costs on the
//! documents `search_bench` indexes, so the rebuild's MB per CPU second can
//! be read against it. scripts/bench-search.py runs it beside the rebuild.
//!
//! Usage: search_floor DB KEY_FILE
//!   env FLOOR_THREADS (indexing threads, default 1), FLOOR_MEMORY_MB
//!   (writer memory, default sessiondb::search::BUILD_MEMORY), FLOOR_DOCS
//!   (only the first N documents: a small run under callgrind),
//!   FLOOR_ROWS (comma-separated row names: only those), FLOOR_REPEAT
//!   (runs of each build and tokenizer pass, default 1: the least CPU is
//!   kept, the one least disturbed by other processes on a shared machine).
//!
//! Reads and decrypts every document a rebuild indexes once, up front (not
//! counted), then measures, each on the same documents, in one process:
//! * `default-plain`: tantivy's `default` tokenizer, a plain schema (the
//!   five text fields, `TEXT`, nothing else);
//! * `default-ours`: tantivy's `default` tokenizer in our schema (session
//!   id, seq, role, model, time and the five text fields);
//! * `ours`: our tokenizer and schema, exactly as a rebuild builds (no
//!   merge while building, one final merge), without encryption (in RAM);
//! * `tok-default`, `tok-ours`: each tokenizer alone over every text.
//!
//! Index builds: process CPU seconds (user + system, every thread, from
//! /proc/self/stat), wall seconds, MB (10^6 bytes) of text per CPU second,
//! index bytes (every file of the index) / text bytes. Tokenizers: CPU
//! seconds of the calling thread (/proc/thread-self/schedstat), tokens.
//! Machine-readable lines start with `row`; a table follows.

use std::path::{Path, PathBuf};
use std::time::Instant;

use sessiondb::search::bench::{self, Doc};
use sessiondb::search::tokenize::{SdbTokenizer, TOKENIZER};
use sessiondb::{DataKey, KeySource, OpenOptions, SessionStore};
use tantivy::directory::{Directory, RamDirectory};
use tantivy::schema::{Schema, TEXT};
use tantivy::tokenizer::{TextAnalyzer, TokenStream};
use tantivy::{HasLen, Index, IndexWriter, TantivyDocument};

/// CPU seconds of the process, every thread (user + system).
fn cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let f: Vec<&str> = s[s.rfind(')').expect("stat") + 2..].split_whitespace().collect();
    // Fields 14 and 15 of stat(5) (utime, stime), in clock ticks (100 per second on Linux).
    (f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()) as f64 / 100.0
}

/// CPU seconds of the calling thread (nanoseconds in schedstat).
fn thread_cpu_s() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("/proc/thread-self/schedstat");
    s.split_whitespace().next().unwrap().parse::<u64>().unwrap() as f64 / 1e9
}

/// Bytes of every file of the index in `dir` (segments, meta.json), and per component.
fn index_bytes(index: &Index, dir: &RamDirectory) -> (u64, Vec<(String, u64)>) {
    let mut files: Vec<PathBuf> = vec![PathBuf::from("meta.json")];
    for m in index.searchable_segment_metas().unwrap() {
        use tantivy::index::SegmentComponent as C;
        files.extend([C::Postings, C::Positions, C::FastFields, C::FieldNorms, C::Terms, C::Store, C::Delete].map(|c| m.relative_path(c)));
    }
    let mut by: std::collections::BTreeMap<String, u64> = Default::default();
    let mut total = 0;
    for p in files {
        let Ok(f) = dir.open_read(&p) else { continue };
        let n = f.len() as u64;
        total += n;
        *by.entry(p.extension().map_or("meta".into(), |e| e.to_string_lossy().into_owned())).or_default() += n;
    }
    (total, by.into_iter().collect())
}

struct Row {
    name: &'static str,
    what: &'static str,
    cpu: f64,
    wall: f64,
    text: u64,
    index: u64,
    parts: Vec<(String, u64)>,
}

fn build_plain(dir: RamDirectory, docs: &[Doc], threads: usize, memory: usize) -> Index {
    let mut b = Schema::builder();
    let fields = sessiondb::search::query::FIELDS.map(|f| b.add_text_field(f, TEXT));
    let index = Index::create(dir, b.build(), Default::default()).unwrap();
    let mut w: IndexWriter = index.writer_with_num_threads(threads, memory).unwrap();
    w.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    for d in docs {
        let mut doc = TantivyDocument::default();
        for (i, t) in d.texts.iter().enumerate() {
            if !t.is_empty() {
                doc.add_text(fields[i], t.clone());
            }
        }
        w.add_document(doc).unwrap();
    }
    w.commit().unwrap();
    let ids = index.searchable_segment_ids().unwrap();
    if ids.len() > 1 {
        w.merge(&ids).wait().unwrap();
    }
    w.wait_merging_threads().unwrap();
    index
}

fn repeat() -> usize {
    std::env::var("FLOOR_REPEAT").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1)
}

fn measure(name: &'static str, what: &'static str, text: u64, f: impl Fn(RamDirectory) -> Index) -> Row {
    let mut best: Option<Row> = None;
    for _ in 0..repeat() {
        let dir = RamDirectory::create();
        let (c, t) = (cpu_s(), Instant::now());
        let index = f(dir.clone());
        let (cpu, wall) = (cpu_s() - c, t.elapsed().as_secs_f64());
        let (bytes, parts) = index_bytes(&index, &dir);
        if best.as_ref().is_none_or(|b| cpu < b.cpu) {
            best = Some(Row { name, what, cpu, wall, text, index: bytes, parts });
        }
    }
    best.expect("one run at least")
}

/// [`tokenize_all`] [`repeat`] times: the least CPU.
fn tokenize_best(docs: &[Doc], tk: &mut TextAnalyzer) -> (u64, u64, f64) {
    (0..repeat()).map(|_| tokenize_all(docs, tk)).min_by(|a, b| a.2.total_cmp(&b.2)).expect("one run at least")
}

/// Tokens and CPU seconds of `tk` over every text of `docs`.
fn tokenize_all(docs: &[Doc], tk: &mut TextAnalyzer) -> (u64, u64, f64) {
    let c = thread_cpu_s();
    let (mut n, mut bytes) = (0u64, 0u64);
    for d in docs {
        for t in d.texts.iter().filter(|t| !t.is_empty()) {
            let mut s = tk.token_stream(t);
            while s.advance() {
                n += 1;
                bytes += s.token().text.len() as u64;
            }
        }
    }
    (n, bytes, thread_cpu_s() - c)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (db, key_file) = (Path::new(&args[1]), &args[2]);
    let threads: usize = std::env::var("FLOOR_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let memory: usize = std::env::var("FLOOR_MEMORY_MB").ok().and_then(|v| v.parse::<usize>().ok()).map_or(sessiondb::search::BUILD_MEMORY, |m| m << 20);
    let key = DataKey::from_base64(&std::fs::read_to_string(key_file).unwrap()).unwrap();
    let store = SessionStore::open(OpenOptions::at(db, KeySource::Bytes(key))).unwrap();
    let t = Instant::now();
    let mut docs = bench::documents(&store).unwrap();
    drop(store);
    if let Some(n) = std::env::var("FLOOR_DOCS").ok().and_then(|v| v.parse::<usize>().ok()) {
        docs.truncate(n);
    }
    let only = std::env::var("FLOOR_ROWS").ok();
    let want = |name: &str| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == name));
    let text: u64 = docs.iter().map(|d| d.texts.iter().map(|t| t.len() as u64).sum::<u64>()).sum();
    println!("docs {} text_bytes {text} read_s {:.1} threads {threads} memory_mb {}", docs.len(), t.elapsed().as_secs_f64(), memory >> 20);

    let mut rows = Vec::new();
    if want("default-plain") {
        rows.push(measure("default-plain", "tantivy `default` tokenizer, plain schema (5 TEXT fields)", text, |d| build_plain(d, &docs, threads, memory)));
    }
    if want("default-ours") {
        rows.push(measure("default-ours", "tantivy `default` tokenizer, our schema", text, |d| {
            bench::build(d.clone(), &docs, "default", threads, memory).unwrap();
            Index::open(d).unwrap()
        }));
    }
    if want("ours") {
        rows.push(measure("ours", "our tokenizer and schema, no encryption", text, |d| {
            bench::build(d.clone(), &docs, TOKENIZER, threads, memory).unwrap();
            Index::open(d).unwrap()
        }));
    }
    let mut default_tk = tantivy::tokenizer::TokenizerManager::default().get("default").unwrap();
    let mut ours_tk = TextAnalyzer::from(SdbTokenizer::default());
    // Once each untimed (warm the allocator and caches), then timed.
    let warm = &docs[..docs.len().min(2000)];
    let (dn, db_, dc) = if want("tok-default") {
        let _ = tokenize_all(warm, &mut default_tk);
        tokenize_best(&docs, &mut default_tk)
    } else {
        (0, 0, f64::NAN)
    };
    let (on, ob, oc) = if want("tok-ours") {
        let _ = tokenize_all(warm, &mut ours_tk);
        tokenize_best(&docs, &mut ours_tk)
    } else {
        (0, 0, f64::NAN)
    };

    for r in &rows {
        let parts: Vec<String> = r.parts.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!(
            "row {} cpu_s {:.2} wall_s {:.2} mb_per_cpu_s {:.2} index_bytes {} ratio {:.4} parts {}",
            r.name,
            r.cpu,
            r.wall,
            r.text as f64 / 1e6 / r.cpu,
            r.index,
            r.index as f64 / r.text as f64,
            parts.join(",")
        );
    }
    println!("row tok-default cpu_s {dc:.3} mb_per_cpu_s {:.1} tokens {dn} token_bytes {db_}", text as f64 / 1e6 / dc);
    println!("row tok-ours cpu_s {oc:.3} mb_per_cpu_s {:.1} tokens {on} token_bytes {ob}", text as f64 / 1e6 / oc);

    println!();
    println!("{:.1} MB of text in {} documents; {threads} indexing thread(s), {} MiB writer memory; least CPU of {} run(s) each", text as f64 / 1e6, docs.len(), memory >> 20, repeat());
    println!("| build | CPU s | wall s | MB per CPU s | index / text |");
    println!("| --- | --- | --- | --- | --- |");
    for r in rows.drain(..) {
        println!("| {} ({}) | {:.2} | {:.2} | {:.1} | {:.3} |", r.name, r.what, r.cpu, r.wall, r.text as f64 / 1e6 / r.cpu, r.index as f64 / r.text as f64);
    }
    println!("| tokenizer | CPU s | MB per CPU s | tokens | M tokens per CPU s |");
    println!("| --- | --- | --- | --- | --- |");
    println!("| tantivy `default` alone | {dc:.2} | {:.1} | {dn} | {:.1} |", text as f64 / 1e6 / dc, dn as f64 / 1e6 / dc);
    println!("| ours alone | {oc:.2} | {:.1} | {on} ({:.3}x) | {:.1} |", text as f64 / 1e6 / oc, on as f64 / dn as f64, on as f64 / 1e6 / oc);
}
