//! Instruction counts of a full import against a plain serde_json parse of
//! the same file (issue 12, "Full import >= 0.5x of a plain serde_json
//! parse"): run each mode under `valgrind --tool=callgrind` and divide
//! (`valgrind --tool=callgrind target/release/examples/import_ir parse FILE`,
//! then `import FILE`). Counts are repeatable on a loaded machine where
//! seconds are not.
//!
//! Run: `cargo run --release -p sessiondb --example import_ir -- parse|import FILE` or `-- read FILE FORMAT`
//! * `parse`: every line to a `serde_json::Value` (the baseline);
//! * `read`: our reader (parse + neutral model), events dropped;
//! * `import`: `import_file` into a fresh encrypted store in a temp dir.
use sessiondb::portable::{read_stream, Event, EventSink, ReadOptions, SourceFormat, Thread};
use sessiondb::*;
use std::io::BufRead;

struct Drop_;
impl EventSink for Drop_ {
    fn event(&mut self, _thread: &Thread, e: Event) -> Result<()> {
        std::hint::black_box(e);
        Ok(())
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().expect("usage: import_ir parse|read|import FILE");
    let path = std::path::PathBuf::from(args.next().expect("usage: import_ir parse|read|import FILE"));
    match mode.as_str() {
        "parse" => {
            let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
            let mut n = 0u64;
            for line in f.lines() {
                let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
                n += std::hint::black_box(v).is_object() as u64;
            }
            eprintln!("{n} lines parsed");
        }
        "read" => {
            let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
            let format = SourceFormat::parse(&args.next().expect("read FILE FORMAT (thclaws, codex, claude-code)")).unwrap();
            let r = read_stream(format, f, &ReadOptions::default(), &mut Drop_).unwrap();
            eprintln!("{} lines read", r.lines);
        }
        "import" => {
            let dir = tempfile::tempdir().unwrap();
            let s = SessionStore::open(OpenOptions::at(dir.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()))).unwrap();
            let r = sessiondb::portable::import_file(&s, &path, None).unwrap();
            eprintln!("{} entries imported", r.sessions.iter().map(|s| s.entries).sum::<u64>());
        }
        m => panic!("unknown mode {m}"),
    }
}
