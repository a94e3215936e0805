//! `sessiondb key init [--file PATH]`: create a data key explicitly (issue
//! 27 item 1), in the OS credential store of `--app` or in a key file.
//! Nothing existing is ever overwritten (exit 4). Also where every command
//! gets its key: `--key-file` read with a bound, else the OS keyring.

use std::io::Read;
use std::path::Path;

use sessiondb::KeySource;

use crate::output::{print_json, shown, shown_path, warn};
use crate::{Failure, Global};
use std::io::Write;

/// Create the data key: in the key file `file` (base64 and a newline, mode
/// 0600, its directory created 0700 when missing; the format `--key-file`
/// reads), or without `file` in the OS credential store under service
/// `--app`, account `session-data-key` (the key every new database of that
/// app then uses). Errors: `Conflict` (the file or the entry exists: nothing
/// is overwritten), `KeyStoreUnavailable` (no keyring: use `--file`), `Io`.
pub(crate) fn init(g: &Global, file: Option<&Path>) -> Result<(), Failure> {
    match file {
        Some(path) => {
            sessiondb::keys::create_key_file(path)?;
            if g.json {
                print_json(&serde_json::json!({ "created": true, "key_backend": sessiondb::keys::KEY_FILE_BACKEND, "key_file": path }));
            } else {
                outln!(
                    "created a data key in the key file {} (mode 0600); open with --key-file {} (or SESSIONDB_KEY_FILE); keep a copy: without it the sessions are lost",
                    shown_path(path),
                    shown_path(path)
                );
            }
        }
        None => {
            let backend = sessiondb::keys::create_os_keyring_key(&g.app)?;
            if g.json {
                print_json(&serde_json::json!({ "created": true, "key_backend": backend, "app": g.app }));
            } else {
                outln!(
                    "created the data key of `{}` in {backend} (service `{}`, account `{}`); new databases of --app {} use it",
                    shown(&g.app),
                    shown(&g.app),
                    sessiondb::keys::KEY_ACCOUNT,
                    shown(&g.app)
                );
            }
        }
    }
    Ok(())
}

/// Longest `--key-file` (and recovery key on stdin) read, in bytes: a key
/// is 44 characters of base64, a recovery key about 70; reading stops after
/// this many (`--key-file /dev/zero` fails at once, issue 30 item 5).
pub(crate) const MAX_KEY_FILE_BYTES: u64 = 4096;

/// The bytes of `source` (an open result), read up to `max` bytes; `None`
/// when it holds more. Errors: `Io` (`what` names the read).
pub(crate) fn read_bounded(source: std::io::Result<impl Read>, max: u64, what: &'static str) -> Result<Option<Vec<u8>>, sessiondb::Error> {
    let mut bytes = Vec::new();
    source.and_then(|r| r.take(max + 1).read_to_end(&mut bytes)).map_err(|e| sessiondb::Error::io(what, e))?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

pub(crate) fn key_source(g: &Global) -> Result<KeySource, sessiondb::Error> {
    match &g.key_file {
        None => Ok(KeySource::OsKeyring),
        Some(f) => {
            // Bounded: `--key-file /dev/zero` is refused, not read until memory runs out.
            let bytes = sessiondb::keys::read_key_file_bytes(f).map_err(|e| sessiondb::Error::io("reading the key file", e))?;
            if bytes.len() as u64 > MAX_KEY_FILE_BYTES {
                return Err(sessiondb::Error::invalid(format!("the --key-file is larger than {MAX_KEY_FILE_BYTES} bytes: not a key file (it holds the 32-byte data key as base64, 44 characters)")));
            }
            warn_if_key_file_readable_by_others(g, f);
            let bad = || sessiondb::Error::invalid("the --key-file must hold the 32-byte data key as base64 (`sessiondb key init --file FILE` makes one)");
            // The file's text (base64 and a newline), never raw bytes.
            let text = std::str::from_utf8(&bytes).map_err(|_| bad())?;
            Ok(KeySource::Bytes(sessiondb::keys::KeyInput::Text(text).decode("--key-file").map_err(|_| bad())?))
        }
    }
}

/// A key file that group or others may read is still used (refusing it would
/// lock the user out of their sessions), with a warning naming the fix.
#[cfg(unix)]
fn warn_if_key_file_readable_by_others(g: &Global, f: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::metadata(f) else { return };
    if !meta.is_file() {
        // A device or a pipe (`--key-file <(pass show key)`): its mode says
        // nothing about who can read the key.
        return;
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o044 != 0 {
        let who = match (mode & 0o040 != 0, mode & 0o004 != 0) {
            (true, true) => "group and others",
            (true, false) => "its group",
            _ => "others",
        };
        warn(
            g.json,
            "KeyFilePermissions",
            &format!(
                "the key file {} is readable by {who} (mode {mode:04o}); anyone who can read it can decrypt every session: `chmod 600 {}`",
                shown_path(f),
                shown_path(f)
            ),
        );
    }
}

#[cfg(not(unix))]
fn warn_if_key_file_readable_by_others(_g: &Global, _f: &Path) {}
