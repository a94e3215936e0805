//! Bounded input (issue 30, item 5): the JSONL readers keep at most
//! `ReadOptions::max_line_bytes` of a line (default 64 MiB), skip and report
//! longer lines with their line number, and read past a line that cannot
//! start a JSON record without keeping it; an import's peak memory stays
//! bounded whatever the file (a 2 GiB file of NULs, a 70 MB line).
//!
//! One test per concern; the memory test is alone in its own binary's
//! process-wide peak (`VmHWM`), so it runs its two files in one test.
use std::io::{BufReader, Write};

use sessiondb::portable::{read_thclaws, Collector, ReadOptions, ReadReport, SkipReason, SourceFormat};
use sessiondb::*;

const HEADER: &str = r#"{"type":"header","id":"sess-00000000000000aa","model":"m","cwd":"/tmp/p","created_at":1700000000}"#;

fn user(text: &str, ts: i64) -> String {
    serde_json::json!({"type":"user","content":[{"type":"text","text":text}],"timestamp":ts}).to_string()
}

/// Read `bytes` as thClaws through a `BufReader` of `capacity` bytes (so
/// lines cross the reader's chunks) with a line limit.
fn read(bytes: &[u8], capacity: usize, max_line_bytes: Option<u64>) -> (Vec<String>, ReadReport) {
    let mut sink = Collector::new(SourceFormat::Thclaws, None);
    let opts = ReadOptions { max_line_bytes, ..Default::default() };
    let rep = read_thclaws(BufReader::with_capacity(capacity, bytes), &opts, &mut sink).unwrap();
    let s = sink.finish("fallback").remove(0);
    let texts = s.turns.iter().flat_map(|t| &t.blocks).filter_map(|b| if let portable::Block::Text { text } = b { Some(text.clone()) } else { None }).collect();
    (texts, rep)
}

fn reasons(rep: &ReadReport) -> Vec<(u64, u64, SkipReason)> {
    rep.skipped.iter().map(|s| (s.line, s.offset, s.reason.clone())).collect()
}

#[test]
fn a_line_over_the_limit_is_skipped_and_reported_with_its_number() {
    let long = user(&"x".repeat(1000), 2);
    let bytes = format!("{HEADER}\n{}\n{long}\n{}\n", user("a", 1), user("b", 3));
    for capacity in [1, 7, 64, 1 << 16] {
        let (texts, rep) = read(bytes.as_bytes(), capacity, Some(200));
        assert_eq!(texts, ["a", "b"], "capacity {capacity}");
        let at = (HEADER.len() + 1 + user("a", 1).len() + 1) as u64;
        assert_eq!(reasons(&rep), vec![(3, at, SkipReason::TooLong)], "capacity {capacity}");
        assert_eq!((rep.lines, rep.bytes), (4, bytes.len() as u64));
        // Within the limit (exactly its length) it is read.
        let (texts, rep) = read(bytes.as_bytes(), capacity, Some(long.len() as u64));
        assert_eq!((texts.len(), rep.skipped.len()), (3, 0));
    }
    assert_eq!(portable::DEFAULT_MAX_LINE_BYTES, 64 * 1024 * 1024);
    assert_eq!(ReadOptions::default().max_line_bytes(), 64 * 1024 * 1024);
}

/// Lines whose first byte other than whitespace cannot start JSON are read
/// past, reported as a full parse would report them (the column where
/// serde_json fails, `invalid_utf8` for a line that is not UTF-8, a torn
/// tail at the end), whatever the chunk boundaries.
#[test]
fn a_line_that_cannot_start_json_is_reported_as_a_parse_would() {
    let lines: [&[u8]; 8] = [b"\0\0\0", b"  x{}", b"\x0cx", b"x\xff", "x€ and more".as_bytes(), b"\x0c", b"[1]", b"\t\x0b"];
    // What serde_json says of each line whole (the reference).
    for (l, column) in [(lines[0], 1), (lines[1], 3), (lines[2], 1), (lines[4], 1), (lines[7], 2)] {
        assert_eq!(serde_json::from_slice::<serde_json::Value>(l).unwrap_err().column(), column);
    }
    let mut bytes = format!("{HEADER}\n").into_bytes();
    let mut offsets = Vec::new();
    for l in lines {
        offsets.push(bytes.len() as u64);
        bytes.extend_from_slice(l);
        bytes.push(b'\n');
    }
    let torn = bytes.len() as u64;
    bytes.extend_from_slice(b"\0abc");
    for capacity in [1, 2, 3, 7, 1 << 16] {
        let (_, rep) = read(&bytes, capacity, None);
        assert_eq!(
            reasons(&rep),
            vec![
                (2, offsets[0], SkipReason::InvalidJson { column: 1 }),
                (3, offsets[1], SkipReason::InvalidJson { column: 3 }),
                (4, offsets[2], SkipReason::InvalidJson { column: 1 }),
                (5, offsets[3], SkipReason::InvalidUtf8),
                (6, offsets[4], SkipReason::InvalidJson { column: 1 }),
                (8, offsets[6], SkipReason::NotAnObject),
                (9, offsets[7], SkipReason::InvalidJson { column: 2 }),
                (10, torn, SkipReason::TornTail),
            ],
            "capacity {capacity}"
        );
        assert_eq!((rep.lines, rep.blank_lines, rep.bytes), (10, 1, torn));
    }
}

/// Peak resident memory of this process so far (`VmHWM`), in KiB.
#[cfg(target_os = "linux")]
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A 2 GiB sparse file of NULs (one line, no newline) and a file with a
/// 70 MB line import with exact reports and a peak RSS under 256 MiB (the
/// red-team pass saw 2 GiB and was killed, and a 580 MB peak for a 300 MB
/// line).
#[cfg(target_os = "linux")]
#[test]
fn importing_a_2gib_file_of_nuls_and_a_70mb_line_stays_within_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(d.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()))).unwrap();
    let nuls = d.path().join("nuls.jsonl");
    std::fs::File::create(&nuls).unwrap().set_len(2 << 30).unwrap();
    // Detected: nothing in it is a session line.
    let r = portable::import_file(&s, &nuls, None).unwrap();
    assert_eq!(r.status, portable::ImportStatus::Unrecognized);
    // Read as thClaws anyway: one torn line, nothing kept.
    let r = portable::import_file(&s, &nuls, Some(SourceFormat::Thclaws)).unwrap();
    let rep = r.read.unwrap();
    assert_eq!((rep.lines, reasons(&rep)), (1, vec![(1, 0, SkipReason::TornTail)]));

    let big = d.path().join("big.jsonl");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&big).unwrap());
        writeln!(f, "{HEADER}\n{}", user("before", 1)).unwrap();
        f.write_all(br#"{"type":"user","content":[{"type":"text","text":""#).unwrap();
        let chunk = vec![b'y'; 1 << 20];
        for _ in 0..70 {
            f.write_all(&chunk).unwrap();
        }
        writeln!(f, r#""}}],"timestamp":2}}"#).unwrap();
        writeln!(f, "{}", user("after", 3)).unwrap();
    }
    let r = portable::import_file(&s, &big, None).unwrap();
    assert_eq!(r.status, portable::ImportStatus::Imported);
    let rep = r.read.unwrap();
    assert_eq!(rep.lines, 4);
    assert_eq!(rep.skipped.iter().map(|l| (l.line, l.reason.clone())).collect::<Vec<_>>(), vec![(3, SkipReason::TooLong)]);
    let sid = &r.sessions[0].session_id;
    let texts: Vec<String> = s.get_transcript(sid, 1, 10).unwrap().into_iter().map(|e| e.content).collect();
    assert_eq!(texts, ["before", "after"]);
    let peak = peak_kib();
    eprintln!("peak RSS {} MiB", peak / 1024);
    assert!(peak < 256 * 1024, "peak RSS {peak} KiB");
}

/// A FIFO given to the importer or the reader is `InvalidInput` ("not a
/// regular file") at once, never opened (opening one blocks until a writer
/// comes; reading a device never ends); `import_paths` reports it as that
/// path's failure (it was walked as a directory: "Not a directory").
#[cfg(unix)]
#[test]
fn a_fifo_is_not_a_regular_file_for_the_importer_and_the_reader() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("pipe.jsonl");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let s = SessionStore::open(OpenOptions::at(d.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[1; 32]).unwrap()))).unwrap();
    let msg = "invalid input: not a regular file: a FIFO, socket or device cannot be read as a session file (copy it to a file first)";
    for e in [
        portable::import_file(&s, &fifo, None).unwrap_err(),
        portable::import_file(&s, std::path::Path::new("/dev/zero"), Some(SourceFormat::Thclaws)).unwrap_err(),
        portable::read_path(&fifo, Some(SourceFormat::Thclaws)).unwrap_err(),
        portable::find_jsonl_files(&fifo).unwrap_err(),
    ] {
        assert_eq!((e.kind(), e.to_string()), (ErrorKind::InvalidInput, msg.to_string()));
    }
    let r = portable::import_paths_report(&s, std::slice::from_ref(&fifo)).unwrap();
    assert_eq!(r[0].status, portable::ImportStatus::Failed(format!("`{}`: {msg}", fifo.display())));
}
