//! Import throughput (issue 4, "Performance"): generates a ≥100 MB thClaws
//! file and a ≥100 MB Codex rollout in a temp dir, then for each prints
//! MB/s of (a) a plain serde_json parse of every line to `Value` (the
//! baseline), (b) our reader (parse + model, events dropped), (c) a full
//! import into an encrypted store (parse, AES-256-GCM, SQLite, journal,
//! token ledger), each with its ratio to (a), and the peak RSS (VmHWM,
//! reset before each phase through /proc/self/clear_refs).
//!
//! `SESSIONDB_BENCH_MB` overrides the size per file (default 100).
//! Run: `cargo bench -p sessiondb --bench import`.

use sessiondb::keys::KeySource;
use sessiondb::portable::{import_file, read_stream, Event, EventSink, ReadOptions, SourceFormat, Thread};
use sessiondb::store::{NewEntry, OpenOptions, Role, SessionStore};
use sessiondb::DataKey;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::time::Instant;

fn target_bytes() -> u64 {
    std::env::var("SESSIONDB_BENCH_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(100u64) * 1024 * 1024
}

fn filler(i: u64, n: usize) -> String {
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "ไทย", "naïve", "日本語"];
    let mut s = String::with_capacity(n + 16);
    let mut k = i;
    while s.len() < n {
        s.push_str(words[(k % words.len() as u64) as usize]);
        s.push(' ');
        k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407) >> 7;
    }
    s
}

fn gen_thclaws(path: &Path) -> u64 {
    let mut w = BufWriter::new(std::fs::File::create(path).unwrap());
    let mut n = 0u64;
    let mut written = 0u64;
    let line = |w: &mut BufWriter<std::fs::File>, v: serde_json::Value, written: &mut u64| {
        let s = v.to_string();
        w.write_all(s.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        *written += s.len() as u64 + 1;
    };
    line(&mut w, serde_json::json!({"type":"header","id":"sess-bench","model":"zai/glm-5.1","cwd":"/workspace","created_at":1778930901}), &mut written);
    while written < target_bytes() {
        let ts = 1778930901 + n as i64;
        line(&mut w, serde_json::json!({"type":"user","content":[{"type":"text","text":filler(n, 200)}],"timestamp":ts}), &mut written);
        line(&mut w, serde_json::json!({"type":"assistant","content":[
            {"type":"thinking","content":filler(n+1, 400)},
            {"type":"text","text":filler(n+2, 300)},
            {"type":"tool_use","id":format!("call_{n}"),"name":"Bash","input":{"command":format!("ls -la /tmp/{n}")}}
        ],"timestamp":ts,"provider":"zai","model":"zai/glm-5.1"}), &mut written);
        line(&mut w, serde_json::json!({"type":"user","content":[{"type":"tool_result","tool_use_id":format!("call_{n}"),"content":filler(n+3, 4000)}],"timestamp":ts}), &mut written);
        if n.is_multiple_of(50) {
            line(&mut w, serde_json::json!({"type":"plan_snapshot","plan":{"id":"p","steps":[{"id":"1","title":"t","description":"d","status":"in_progress"}]},"timestamp":ts}), &mut written);
        }
        n += 1;
    }
    w.flush().unwrap();
    written
}

fn gen_codex(path: &Path) -> u64 {
    let mut w = BufWriter::new(std::fs::File::create(path).unwrap());
    let mut written = 0u64;
    let line = |w: &mut BufWriter<std::fs::File>, v: serde_json::Value, written: &mut u64| {
        let s = v.to_string();
        w.write_all(s.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        *written += s.len() as u64 + 1;
    };
    let ts = "2026-02-23T19:34:26.098Z";
    line(&mut w, serde_json::json!({"timestamp":ts,"type":"session_meta","payload":{"id":"019c8bfe-ec25-79e0-97d7-bda6a9c575ff","timestamp":ts,"cwd":"/w","originator":"codex_cli_rs","cli_version":"0.104.0","source":"cli","model_provider":"openai"}}), &mut written);
    let (mut tin, mut tout, mut tcached) = (0u64, 0u64, 0u64);
    let mut n = 0u64;
    while written < target_bytes() {
        let text = filler(n, 200);
        line(&mut w, serde_json::json!({"timestamp":ts,"type":"turn_context","payload":{"turn_id":format!("t{n}"),"cwd":"/w","model":"gpt-5.3-codex","effort":"medium"}}), &mut written);
        line(&mut w, serde_json::json!({"timestamp":ts,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":text}]}}), &mut written);
        line(&mut w, serde_json::json!({"timestamp":ts,"type":"event_msg","payload":{"type":"user_message","message":text,"images":[]}}), &mut written);
        let reasoning = filler(n + 1, 300);
        line(&mut w, serde_json::json!({"timestamp":ts,"type":"event_msg","payload":{"type":"agent_reasoning","text":reasoning}}), &mut written);
        line(&mut w, serde_json::json!({"timestamp":ts,"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":reasoning}],"content":null,"encrypted_content":"gAAAAB"}}), &mut written);
        line(&mut w, serde_json::json!({"timestamp":ts,"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":format!("{{\"cmd\":\"ls /tmp/{n}\"}}"),"call_id":format!("call_{n}")}}), &mut written);
        tin += 40_000; tout += 200; tcached += 30_000;
        let tc = serde_json::json!({"timestamp":ts,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":tin,"cached_input_tokens":tcached,"output_tokens":tout,"reasoning_output_tokens":0,"total_tokens":tin+tout},"last_token_usage":{"input_tokens":40000,"cached_input_tokens":30000,"output_tokens":200,"reasoning_output_tokens":0,"total_tokens":40200},"model_context_window":258400}}});
        line(&mut w, tc.clone(), &mut written);
        line(&mut w, serde_json::json!({"timestamp":ts,"type":"response_item","payload":{"type":"function_call_output","call_id":format!("call_{n}"),"output":filler(n + 2, 4000)}}), &mut written);
        line(&mut w, tc, &mut written);
        let answer = filler(n + 3, 300);
        line(&mut w, serde_json::json!({"timestamp":ts,"type":"event_msg","payload":{"type":"agent_message","message":answer}}), &mut written);
        line(&mut w, serde_json::json!({"timestamp":ts,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":answer}],"phase":"final_answer"}}), &mut written);
        n += 1;
    }
    w.flush().unwrap();
    written
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<f64>().ok()))
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn baseline(path: &Path) -> f64 {
    let mut r = BufReader::with_capacity(1 << 20, std::fs::File::open(path).unwrap());
    let mut buf = Vec::new();
    let mut n = 0u64;
    let t = Instant::now();
    loop {
        buf.clear();
        if r.read_until(b'\n', &mut buf).unwrap() == 0 {
            break;
        }
        let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        n += u64::from(v.is_object());
    }
    std::hint::black_box(n);
    t.elapsed().as_secs_f64()
}

#[derive(Default)]
struct Count(u64);
impl EventSink for Count {
    fn event(&mut self, _: &Thread, e: Event) -> sessiondb::Result<()> {
        self.0 += u64::from(matches!(e, Event::Turn(_)));
        Ok(())
    }
}

fn run(name: &str, format: SourceFormat, path: &Path, bytes: u64, dir: &Path) {
    let mb = bytes as f64 / (1024.0 * 1024.0);
    reset_peak();
    let base = baseline(path);
    let base_rss = peak_rss_mb();

    reset_peak();
    let t = Instant::now();
    let mut sink = Count::default();
    let rep = read_stream(format, BufReader::with_capacity(1 << 20, std::fs::File::open(path).unwrap()), &ReadOptions::default(), &mut sink).unwrap();
    let parse = t.elapsed().as_secs_f64();
    let parse_rss = peak_rss_mb();
    assert!(rep.skipped.is_empty());

    let key = DataKey::from_bytes(&[9u8; 32]).unwrap();
    let store = SessionStore::open(OpenOptions::at(dir.join(format!("{name}.db")), KeySource::Bytes(key))).unwrap();
    reset_peak();
    let t = Instant::now();
    let imp = import_file(&store, path, Some(format)).unwrap();
    let import = t.elapsed().as_secs_f64();
    let import_rss = peak_rss_mb();
    // What is still only in the WAL is copied into the database later (by
    // an automatic checkpoint or at close): count that copy too.
    let t = Instant::now();
    let c = rusqlite::Connection::open(dir.join(format!("{name}.db"))).unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    drop(c);
    let checkpoint = t.elapsed().as_secs_f64();
    let entries: u64 = imp.sessions.iter().map(|s| s.entries).sum();
    let usage: u64 = imp.sessions.iter().map(|s| s.usage_records).sum();
    let t = Instant::now();
    let again = import_file(&store, path, Some(format)).unwrap();
    let reimport = t.elapsed().as_secs_f64();

    // The store's own ceiling: append the same number of content bytes as
    // pre-built 4 KiB text entries in batches of 512 (no parsing at all).
    let sid = store.create_session(None, None).unwrap().id;
    let chunk = filler(7, 4096);
    let batch: Vec<NewEntry> = (0..512).map(|_| NewEntry::text(Role::User, chunk.clone())).collect();
    let t = Instant::now();
    let mut done = 0u64;
    while done < bytes {
        store.append_entries(&sid, batch.clone()).unwrap();
        done += 512 * chunk.len() as u64;
    }
    let ceiling = t.elapsed().as_secs_f64();
    drop(store);

    println!("{name}: {mb:.1} MB, {} lines, {} turns, {entries} entries, {usage} token records", rep.lines, sink.0);
    println!("  serde_json Value parse : {:8.1} MB/s  (peak RSS {:.0} MB)", mb / base, base_rss);
    println!("  portable reader        : {:8.1} MB/s  ratio {:.2}  (peak RSS {:.0} MB)", mb / parse, base / parse, parse_rss);
    println!("  import into store      : {:8.1} MB/s  ratio {:.2}  (peak RSS {:.0} MB)", mb / import, base / import, import_rss);
    println!(
        "  import + WAL checkpoint: {:8.1} MB/s  ratio {:.2}  (the WAL left by the import copied into the database)",
        mb / (import + checkpoint),
        base / (import + checkpoint)
    );
    println!("  re-import (up to date) : {:8.3} s, status {:?}", reimport, again.status);
    println!("  store append ceiling   : {:8.1} MB/s  ratio {:.2}  (append_entries of 4 KiB text, no parsing)", done as f64 / 1048576.0 / ceiling, base / (ceiling * mb / (done as f64 / 1048576.0)));
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing useful: run small then.
    let dir = tempfile::tempdir().unwrap();
    let th = dir.path().join("sess-bench.jsonl");
    let cx = dir.path().join("rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl");
    let t = Instant::now();
    let a = gen_thclaws(&th);
    let b = gen_codex(&cx);
    println!("generated {:.1} MB + {:.1} MB in {:.1} s", a as f64 / 1048576.0, b as f64 / 1048576.0, t.elapsed().as_secs_f64());
    run("thclaws", SourceFormat::Thclaws, &th, a, dir.path());
    run("codex", SourceFormat::Codex, &cx, b, dir.path());
}
