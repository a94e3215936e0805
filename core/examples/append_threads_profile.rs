//! Profiling aid for concurrent appends: T threads each append N/T 1 KiB
//! entries (one `append_transcript` each) to one session; prints appends/s.
//! Run: `cargo run --profile profiling -p sessiondb --example append_threads_profile -- N T`.
use sessiondb::*;
use std::sync::Arc;
fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|v| v.parse().ok()).unwrap_or(20000);
    let threads: usize = args.next().and_then(|v| v.parse().ok()).unwrap_or(4);
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(SessionStore::open(OpenOptions::at(dir.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()))).unwrap());
    let id = s.create_session(None, None).unwrap().id;
    let body = "z".repeat(1024);
    let t = std::time::Instant::now();
    let hs: Vec<_> = (0..threads)
        .map(|_| {
            let (s, id, body) = (Arc::clone(&s), id.clone(), body.clone());
            std::thread::spawn(move || {
                for _ in 0..n / threads {
                    s.append_transcript(&id, Role::User, body.clone()).unwrap();
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    let d = t.elapsed();
    eprintln!("{threads} threads, {} appends in {d:?}: {:.0}/s", n / threads * threads, (n / threads * threads) as f64 / d.as_secs_f64());
}
