//! Profiling aid for the Agents SDK adapter's read (issue 16): 500 turns of 10
//! items shaped as `python/bench/bench_agents_adapter.py` writes them, then
//! `get_entry_items` (pages of 1,000) and `get_transcript_with_meta` of all
//! of them, R times each (ms per read of all items).
//! Run: `cargo run --profile profiling -p sessiondb --example items_profile [-- R [get_entry_items|get_transcript_with_meta]]`
//! (release code with line tables, for `perf record` or `valgrind --tool=callgrind`).
use sessiondb::*;

fn turn(t: usize) -> Vec<(String, Role, serde_json::Value)> {
    let out = (0..20).map(|i| format!("src/module_{t}_{i}.rs: fn handler_{i}() -> Result<(), Error>")).collect::<Vec<_>>().join("\n");
    let mut v = vec![(
        format!("Turn {t}: find where the login handler is defined and rename it to sign_in."),
        Role::User,
        serde_json::json!({"role": "user", "content": format!("Turn {t}: find where the login handler is defined and rename it to sign_in.")}),
    )];
    for c in 0..4 {
        let args = serde_json::json!({"pattern": format!("login_{c}"), "path": "src"}).to_string();
        v.push((format!("grep({args})"), Role::Assistant, serde_json::json!({"type": "function_call", "call_id": format!("call_{t}_{c}"), "name": "grep", "arguments": args, "id": format!("fc_{t}_{c}"), "status": "completed"})));
        v.push((out.clone(), Role::Tool, serde_json::json!({"type": "function_call_output", "call_id": format!("call_{t}_{c}"), "output": out})));
    }
    let text = format!("Renamed login to sign_in in {t} files. ") + &"Checked callers. ".repeat(20);
    v.push((text.clone(), Role::Assistant, serde_json::json!({"id": format!("msg_{t}"), "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]})));
    v
}

fn main() {
    let r: usize = std::env::args().nth(1).and_then(|v| v.parse().ok()).unwrap_or(20);
    let dir = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(dir.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()))).unwrap();
    let id = s.create_session(None, None).unwrap().id;
    for t in 0..500 {
        let rows = turn(t).into_iter().map(|(text, role, item)| (NewEntry::text(role, text), EntryMeta::default().with_item(item.to_string()))).collect();
        s.append_entries_with_meta_keyed(&id, rows, Some(&format!("{t:032x}"))).unwrap();
    }
    let all_items = || {
        let (mut seq, mut n) = (1, 0);
        loop {
            let p = s.get_entry_items(&id, seq, 1000).unwrap();
            let Some(last) = p.seqs.last() else { return n };
            n += p.seqs.len();
            seq = last + 1;
        }
    };
    let all_meta = || {
        let (mut seq, mut n) = (1, 0);
        loop {
            let p = s.get_transcript_with_meta(&id, seq, 1000).unwrap();
            let Some(last) = p.last() else { return n };
            n += p.len();
            seq = last.0.seq + 1;
        }
    };
    let only = std::env::args().nth(2);
    for (name, f) in [("get_entry_items", &all_items as &dyn Fn() -> usize), ("get_transcript_with_meta", &all_meta)] {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let t = std::time::Instant::now();
        let mut n = 0;
        for _ in 0..r {
            n = f();
        }
        eprintln!("{name}: {n} items, {:.2} ms per read of all", t.elapsed().as_secs_f64() * 1e3 / r as f64);
    }
}
