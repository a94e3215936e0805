//! Failure cases from real use (issue "Nothing lost under real use"):
//! ids that look alike, a full disk, damaged rows.

use std::path::{Path, PathBuf};
use std::process::Command;

use sessiondb::*;

fn key() -> KeySource {
    KeySource::Bytes(DataKey::from_bytes(&[3u8; 32]).unwrap())
}

fn open(path: &Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, key())).unwrap()
}

fn new_session(s: &SessionStore, id: &str) -> Result<SessionRecord> {
    s.create_session_with(NewSession { id: Some(id.to_string()), ..Default::default() })
}

#[test]
fn session_ids_that_look_like_other_ids_are_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    assert_eq!(new_session(&s, "caf\u{e9}").unwrap().id, "café");
    // Decomposed é: not NFC.
    for bad in [
        "cafe\u{301}",
        "a\u{200b}b",
        "a\u{200c}b",
        "a\u{200d}b",
        "a\u{200e}b",
        "a\u{200f}b",
        "a\u{202a}b",
        "a\u{202e}b",
        "a\u{2066}b",
        "a\u{2069}b",
        "\u{feff}ab",
        "a\u{2060}b",
        "a\u{61c}b",
    ] {
        let e = new_session(&s, bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{bad:?}: {e}");
    }
    assert_eq!(s.list_sessions(None).unwrap().len(), 1);
    // The same rule for a fork's parent and for operation ids.
    let e = s.dispatch_operation("café", "op\u{200b}1", serde_json::json!({})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            eprintln!("SKIP: cannot mount a small tmpfs here (needs root); the full-disk case is not run");
            return None;
        }
        Some(SmallDisk { dir })
    }
    fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_full_disk_is_io_saying_so_and_every_acknowledged_append_survives() {
    let Some(disk) = SmallDisk::mount("3m") else { return };
    let db = disk.path().join("sessions.db");
    let s = open(&db);
    let id = s.create_session(None, None).unwrap().id;
    // Leave little room: a filler file that is removed later.
    let filler = disk.path().join("filler");
    std::fs::write(&filler, vec![1u8; 1536 * 1024]).unwrap();
    let mut acked = Vec::new();
    let err = loop {
        let text = format!("{:04} {}", acked.len(), "x".repeat(4000));
        match s.append_transcript(&id, Role::User, text.clone()) {
            Ok(e) => acked.push((e.seq, text)),
            Err(e) => break e,
        }
        assert!(acked.len() < 10_000, "the disk never filled");
    };
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    assert!(err.to_string().contains("the disk is full"), "{err}");
    let Error::Io { source, .. } = &err else { unreachable!() };
    assert_eq!(source.kind(), std::io::ErrorKind::StorageFull);
    assert_eq!(source.raw_os_error(), Some(28));
    assert!(acked.len() > 10, "only {} appends fitted", acked.len());
    drop(s);
    std::fs::remove_file(&filler).unwrap();
    let s = open(&db);
    let got = s.get_transcript(&id, 1, 10_000).unwrap();
    assert_eq!(got.len(), acked.len());
    for (e, (seq, text)) in got.iter().zip(&acked) {
        assert_eq!((e.seq, &e.content), (*seq, text));
    }
    // And writing works again.
    assert_eq!(s.append_transcript(&id, Role::User, "after".into()).unwrap().seq, acked.len() as u64 + 1);
}
