//! The first `context` of a large session, before and after token counts
//! on the write path (issue 33 item 7), in one run on the same content.
//!
//! Run: `cargo run --release -p sessiondb --example context_first [-- BIG]`
//! (BIG: tool outputs of 2-5 MB, default 100, as `scripts/bench-sessions.py`'s
//! 50,000-entry / ~385 MB session: 49,900 turns of 300-900 bytes of prose).
//!
//! The same generated thClaws file is imported twice:
//! * "before": the header names a model without a tokenizer
//!   (`anthropic/claude-sonnet-4-5`), so nothing is counted at import; then the
//!   session's model is set to `gpt-4o` (o200k_base): every entry has no
//!   stored count for it, and `context` decrypts and tokenizes all of them,
//!   as every `context` did before counts were stored;
//! * "after": the header names `openai/gpt-4o`: the import counts each
//!   entry as it seals it, and `context` reads the stored counts.
//!
//! Printed: import seconds and MB/s of each, wall and CPU seconds of the
//! first and second `context` (each on a freshly opened store, as the CLI
//! does), their active tokens (equal: the stored counts are exact), and the
//! tokenizer's own throughput (`count_tokens` over the session's contents,
//! and tiktoken-rs's `count_ordinary` over the same texts).
//!
//! `-- append N`: N single appends of a 1 KiB text to a session without a
//! model (`phase_append_plain`) and to one with `gpt-4o`
//! (`phase_append_counted`), for callgrind:
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*phase_append_counted*' target/release/examples/context_first append 500`
//! (`*phase_tables*`: the one-time decoding of the tokenizer's tables that
//! the first count of a process pays).
use std::io::Write;
use std::time::Instant;

use sessiondb::*;

fn key() -> KeySource {
    KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap())
}

/// Process CPU seconds (user + system), from `/proc/self/stat`.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split(' ').collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / 100.0
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn prose(rng: &mut Rng, n: usize) -> String {
    const W: [&str; 18] = ["parser", "token", "build", "error", "the", "a", "function", "returns", "value", "test", "fails", "because", "index", "cargo", "src", "lib", "main", "async"];
    let mut s = String::with_capacity(n + 16);
    while s.len() < n {
        let r = rng.next();
        if r % 10 == 0 {
            s.push_str(&format!("{:x}", r));
        } else {
            s.push_str(W[(r as usize / 10) % W.len()]);
        }
        s.push(' ');
    }
    s
}

/// A thClaws file of 49,900 turns and `big` tool call/result pairs of 2-5 MB.
fn write_file(path: &std::path::Path, model: &str, big: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut rng = Rng(7);
    writeln!(f, "{}", serde_json::json!({"type": "header", "id": "big-session", "model": model, "cwd": "/w", "created_at": 1778930901})).unwrap();
    let chunk = prose(&mut rng, 4096);
    let every = if big == 0 { usize::MAX } else { 49_900 / big.max(1) };
    for i in 0..49_900usize {
        let ts = 1778930901 + i as u64;
        if big > 0 && i > 0 && i % every == 0 && i / every <= big {
            let n = 2_000_000 + (rng.next() as usize % 3_000_000);
            let text = chunk.repeat(n / chunk.len() + 1)[..n].to_string();
            writeln!(f, "{}", serde_json::json!({"type": "assistant", "content": [{"type": "tool_use", "id": format!("c{i}"), "name": "Bash", "input": {"command": "cat big"}}], "timestamp": ts})).unwrap();
            writeln!(f, "{}", serde_json::json!({"type": "user", "content": [{"type": "tool_result", "tool_use_id": format!("c{i}"), "content": text}], "timestamp": ts})).unwrap();
        } else {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let n = 300 + rng.next() as usize % 600;
            writeln!(f, "{}", serde_json::json!({"type": role, "content": [{"type": "text", "text": prose(&mut rng, n)}], "timestamp": ts})).unwrap();
        }
    }
}

fn timed_context(db: &std::path::Path, sid: &str) -> (f64, f64, u64) {
    let (c0, t0) = (cpu_seconds(), Instant::now());
    let s = SessionStore::open(OpenOptions::at(db, key())).unwrap();
    let st = context::context_status(&s, sid, 128_000, None, None).unwrap();
    (t0.elapsed().as_secs_f64(), cpu_seconds() - c0, st.meter.active_tokens)
}

/// The first `o200k_base` count of a process: its tables decoded.
#[inline(never)]
fn phase_tables() {
    assert_eq!(context::count_tokens("gpt-4o", "hello world", None).tokens, 2);
}

#[inline(never)]
fn phase_append_plain(s: &SessionStore, sid: &str, body: &str, n: usize) {
    for _ in 0..n {
        s.append_transcript(sid, Role::User, body.to_string()).unwrap();
    }
}

#[inline(never)]
fn phase_append_counted(s: &SessionStore, sid: &str, body: &str, n: usize) {
    for _ in 0..n {
        s.append_transcript(sid, Role::User, body.to_string()).unwrap();
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let first = args.next();
    if first.as_deref() == Some("append") {
        let n: usize = args.next().and_then(|v| v.parse().ok()).unwrap_or(500);
        let dir = tempfile::tempdir().unwrap();
        let s = SessionStore::open(OpenOptions::at(dir.path().join("s.db"), key())).unwrap();
        let plain = s.create_session(None, None).unwrap().id;
        let counted = s.create_session(None, None).unwrap().id;
        s.set_session_model(&counted, Some("gpt-4o".into()), None).unwrap();
        let body = prose(&mut Rng(3), 1024)[..1024].to_string();
        // The tokenizer's tables are decoded on the first count of a process.
        phase_tables();
        // Warm both sessions (the encoding of each session's model is read
        // once per handle), outside the measured phases.
        s.append_transcript(&plain, Role::User, body.clone()).unwrap();
        s.append_transcript(&counted, Role::User, body.clone()).unwrap();
        let t = Instant::now();
        phase_append_plain(&s, &plain, &body, n);
        let a = t.elapsed().as_secs_f64();
        let t = Instant::now();
        phase_append_counted(&s, &counted, &body, n);
        let b = t.elapsed().as_secs_f64();
        println!("{n} appends of 1 KiB: no model {:.0}/s, gpt-4o (counted) {:.0}/s, ratio {:.3}", n as f64 / a, n as f64 / b, a / b);
        return;
    }
    let big: usize = first.and_then(|v| v.parse().ok()).unwrap_or(100);
    let dir = tempfile::tempdir().unwrap();
    let mut figures = Vec::new();
    for (label, model) in [("before", "anthropic/claude-sonnet-4-5"), ("after", "openai/gpt-4o")] {
        let file = dir.path().join(format!("{label}.jsonl"));
        write_file(&file, model, big);
        let mb = std::fs::metadata(&file).unwrap().len() as f64 / 1e6;
        let db = dir.path().join(format!("{label}.db"));
        let s = SessionStore::open(OpenOptions::at(&db, key())).unwrap();
        let (c0, t0) = (cpu_seconds(), Instant::now());
        let r = portable::import_file(&s, &file, None).unwrap();
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
        let sid = r.sessions[0].session_id.clone();
        if label == "before" {
            s.set_session_model(&sid, Some("gpt-4o".into()), None).unwrap();
        }
        let entries = s.get_session(&sid).unwrap().entry_count;
        println!("{label:6} import {mb:.1} MB, {entries} entries: {wall:.2} s wall ({:.1} MB/s), {cpu:.2} s CPU", mb / wall);
        drop(s);
        std::fs::remove_file(&file).unwrap();
        let one = timed_context(&db, &sid);
        let two = timed_context(&db, &sid);
        println!("{label:6} context 1st: {:.3} s wall {:.3} s CPU; 2nd: {:.3} s wall {:.3} s CPU; active tokens {} / {}", one.0, one.1, two.0, two.1, one.2, two.2);
        figures.push((db, sid, one.2));
    }
    assert_eq!(figures[0].2, figures[1].2, "stored counts equal counts taken at read time");
    // The tokenizer alone over the session's contents.
    let (db, sid, _) = &figures[1];
    let s = SessionStore::open(OpenOptions::at(db, key())).unwrap();
    let mut texts = Vec::new();
    let mut from = 1;
    loop {
        let page = s.get_transcript(sid, from, 1000).unwrap();
        let Some(last) = page.last() else { break };
        from = last.seq + 1;
        texts.extend(page.into_iter().map(|e| e.content));
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let t = Instant::now();
    let tokens: u64 = texts.iter().map(|x| context::count_tokens("gpt-4o", x, None).tokens).sum();
    let secs = t.elapsed().as_secs_f64();
    println!("count_tokens o200k_base: {:.1} MB in {secs:.2} s = {:.1} MB/s ({tokens} tokens)", bytes as f64 / 1e6, bytes as f64 / 1e6 / secs);
    // tiktoken-rs alone (its own tables and regex split), the same texts.
    let bpe = tiktoken_rs::o200k_base_singleton();
    let _ = bpe.count_ordinary("warm up");
    let t = Instant::now();
    let theirs: u64 = texts.iter().map(|x| bpe.count_ordinary(x) as u64).sum();
    let secs2 = t.elapsed().as_secs_f64();
    println!("tiktoken-rs count_ordinary: {secs2:.2} s = {:.1} MB/s ({theirs} tokens); ratio {:.2}x", bytes as f64 / 1e6 / secs2, secs2 / secs);
    assert_eq!(tokens, theirs);
}
