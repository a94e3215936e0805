//! Appends and a delete for the callgrind comparison of issue 30 item 3
//! (what `PRAGMA secure_delete=ON` costs): `secure_delete_cost PHASE N`
//! opens a new store in a temporary directory (key bytes, compression off:
//! the default), creates two sessions and appends N entries alternately to
//! each, one by one: tool outputs of 1 to 4 KiB of ordinary text (as
//! `redact_append_cost`). With PHASE `delete` it then deletes the first
//! session (`delete_session`: secure_delete's zeroing and the truncating
//! checkpoint). Run under `valgrind --tool=callgrind` by
//! `scripts/bench-secure-delete.sh`, once built as is and once with the
//! measurement-only feature `bench-no-secure-delete`; the script subtracts
//! the N = 0 run (open and create) and the `append` run from `delete`.
use sessiondb::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let phase = args.get(1).map(String::as_str).unwrap_or("append");
    let n: usize = args.get(2).and_then(|x| x.parse().ok()).unwrap_or(200);
    let d = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(d.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[7; 32]).unwrap()))).unwrap();
    let a = s.create_session(None, None).unwrap();
    let b = s.create_session(None, None).unwrap();
    let lines = [
        "   Compiling serde_json v1.0.140",
        "error[E0308]: mismatched types --> src/main.rs:42:17",
        "{\"level\":\"info\",\"msg\":\"request done\",\"status\":200,\"path\":\"/api/v1/items\"}",
        "fn parse(input: &str) -> Result<Vec<Token>, ParseError> {",
        "/home/dev/project/src/backend/sqlite/schema.rs",
        "test store::tests::append_many ... ok",
        "The function returns the token count for the model's window.",
    ];
    let mut total = 0usize;
    for i in 0..n {
        let want = 1024 + (i * 977) % 3072;
        let mut body = String::with_capacity(want + 64);
        let mut j = i;
        while body.len() < want {
            body.push_str(lines[j % lines.len()]);
            body.push('\n');
            j += 3;
        }
        total += body.len();
        let sid = if i % 2 == 0 { &a.id } else { &b.id };
        s.append_transcript(sid, Role::Tool, body).unwrap();
    }
    if phase == "delete" {
        s.delete_session(&a.id).unwrap();
    }
    eprintln!("{n} entries, {total} bytes, phase {phase}, secure_delete {}", if cfg!(feature = "bench-no-secure-delete") { "off" } else { "on" });
}
