//! `sessiondb key init [--file PATH]`: create a data key explicitly (issue
//! 27 item 1), in the OS credential store of `--app` or in a key file.
//! Nothing existing is ever overwritten (exit 4).

use std::path::Path;

use crate::output::{print_json, shown, shown_path};
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
