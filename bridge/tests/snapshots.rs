//! The committed generated code (`bridge/generated/` and the Python stub
//! `python/python/sessiondb/_native.pyi`) is what the generator writes from
//! `bridge/api.rs` (and the stub's hand-written part) today. When it is not: review the change and
//! rewrite the files with
//! `SESSIONDB_BLESS=1 cargo test -p sessiondb-bridge --test snapshots`.

use std::path::Path;

/// Where `old` and `new` first differ: the line number and three lines of each.
fn first_difference(old: &str, new: &str) -> String {
    let (o, n): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let at = o.iter().zip(&n).position(|(a, b)| a != b).unwrap_or(o.len().min(n.len()));
    let show = |v: &[&str]| v.iter().skip(at).take(3).map(|l| format!("    {l}\n")).collect::<String>();
    format!("first difference at line {}\n  committed:\n{}  generated:\n{}", at + 1, show(&o), show(&n))
}

#[test]
fn generated_code_matches_the_committed_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let api = sessiondb_bridge::read_api(root).expect("bridge/api.rs and bridge/api/");
    let bless = std::env::var("SESSIONDB_BLESS").is_ok_and(|v| v == "1");
    let mut stale = vec![];
    let core = sessiondb_bridge::Core::load(&root.join("../core/src")).expect("the core's sources parse");
    let hand = std::fs::read_to_string(root.join("..").join(sessiondb_bridge::snapshot::PYI_HAND)).expect("the stub's hand-written part");
    for (path, text) in sessiondb_bridge::snapshots(&api, &core, &hand).expect("the generator runs") {
        let dest = root.join("..").join(&path);
        let old = std::fs::read_to_string(&dest).unwrap_or_default();
        if old == text {
            continue;
        }
        if bless {
            std::fs::create_dir_all(dest.parent().expect("a file has a parent")).expect("create the file's directory");
            std::fs::write(&dest, &text).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
        } else {
            stale.push(format!("{path}: {}", first_difference(&old, &text)));
        }
    }
    assert!(
        stale.is_empty(),
        "the generated code differs from the committed snapshot:\n{}\nreview the change, then rewrite them: \
         SESSIONDB_BLESS=1 cargo test -p sessiondb-bridge --test snapshots",
        stale.join("\n")
    );
}
