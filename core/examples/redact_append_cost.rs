//! Appends for the callgrind comparison of issue 30 item 2 ("appends with
//! on-write stay within 1.3x of today's instructions"):
//! `redact_append_cost POLICY N` opens a new store in a temporary directory
//! (key bytes, compression off: the default), creates a session and appends
//! N entries one by one: tool outputs of 1 to 4 KiB of ordinary text (log
//! lines, code, paths, JSON), one in 20 with a secret in it. Run under
//! `valgrind --tool=callgrind` by `scripts/bench-redact.sh`, which subtracts
//! the N = 0 run (open and create) from each policy's count.
use sessiondb::privacy::RedactPolicy;
use sessiondb::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let policy = RedactPolicy::parse(args.get(1).map(String::as_str).unwrap_or("off")).unwrap();
    let n: usize = args.get(2).and_then(|x| x.parse().ok()).unwrap_or(200);
    let d = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions { redact: policy, ..OpenOptions::at(d.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[7; 32]).unwrap())) }).unwrap();
    let a = s.create_session(None, None).unwrap();
    if policy != RedactPolicy::Off {
        // Compile the rules now, so the N = 0 run counts it and the
        // difference is the appends alone.
        s.redactor();
    }
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
        if i % 20 == 0 {
            body.push_str("export GITHUB_TOKEN=ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5\n");
        }
        total += body.len();
        s.append_transcript(&a.id, Role::Tool, body).unwrap();
    }
    eprintln!("{} entries, {total} bytes, policy {}, redacted {}", n, policy.as_str(), s.redaction_report().total());
}
