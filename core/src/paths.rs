//! The OS state directory, the default database path, and canonical
//! workspace paths.
//!
//! Source: seed 000, "Platform Paths" (`sessionsDbPath()`):
//!
//! | platform | path |
//! |---|---|
//! | Windows | `%LOCALAPPDATA%\<app>\sessions.db` (fallback `~\AppData\Local\<app>`) |
//! | macOS | `~/Library/Application Support/<app>/sessions.db` |
//! | Linux and other Unix | `$XDG_STATE_HOME/<app>/sessions.db` (fallback `~/.local/state/<app>`) |
//!
//! `<app>` defaults to [`DEFAULT_APP`]; a host such as thcode passes its own.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

use crate::error::{Error, Result};

/// The default app name: the state directory's last component and the
/// credential-store service name.
pub const DEFAULT_APP: &str = "sessiondb";
/// The database file name inside the state directory.
pub const DB_FILE_NAME: &str = "sessions.db";

/// The platform whose path rules apply (injectable so every platform's rules
/// are testable on any host).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// `%LOCALAPPDATA%`
    Windows,
    /// `~/Library/Application Support`
    MacOs,
    /// `$XDG_STATE_HOME`, falling back to `~/.local/state`
    Linux,
}

impl Platform {
    /// The platform this build runs on (every non-Windows, non-macOS OS uses the Linux rule).
    pub fn current() -> Self {
        if cfg!(windows) {
            Platform::Windows
        } else if cfg!(target_os = "macos") {
            Platform::MacOs
        } else {
            Platform::Linux
        }
    }

    fn sep(self) -> char {
        if self == Platform::Windows {
            '\\'
        } else {
            '/'
        }
    }
}

fn join(platform: Platform, base: &str, parts: &[&str]) -> String {
    let sep = platform.sep();
    let mut s = base.trim_end_matches(['/', '\\']).to_string();
    if s.is_empty() {
        s.push(sep);
    }
    for p in parts {
        if !s.ends_with(sep) {
            s.push(sep);
        }
        s.push_str(p);
    }
    s
}

/// The state directory for `app` under `platform`'s rules.
///
/// `env` looks up an environment variable (empty values count as unset, as
/// XDG requires), `home` is the user's home directory.
/// Errors: `InvalidInput` if `app` is empty or contains a path separator.
pub fn state_dir_for(
    platform: Platform,
    app: &str,
    env: &dyn Fn(&str) -> Option<OsString>,
    home: &Path,
) -> Result<PathBuf> {
    validate_app(app)?;
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(|v| v.to_string_lossy().into_owned());
    let home = home.to_string_lossy();
    let dir = match platform {
        Platform::Windows => match var("LOCALAPPDATA") {
            Some(base) => join(platform, &base, &[app]),
            None => join(platform, &home, &["AppData", "Local", app]),
        },
        Platform::MacOs => join(platform, &home, &["Library", "Application Support", app]),
        Platform::Linux => match var("XDG_STATE_HOME") {
            Some(base) => join(platform, &base, &[app]),
            None => join(platform, &home, &[".local", "state", app]),
        },
    };
    Ok(PathBuf::from(dir))
}

/// `state_dir_for(..)` + `sessions.db`, with the same rules and errors.
pub fn db_path_for(
    platform: Platform,
    app: &str,
    env: &dyn Fn(&str) -> Option<OsString>,
    home: &Path,
) -> Result<PathBuf> {
    let dir = state_dir_for(platform, app, env, home)?;
    Ok(PathBuf::from(join(platform, &dir.to_string_lossy(), &[DB_FILE_NAME])))
}

/// The default database path for `app` (seed 000 `sessionsDbPath()`):
/// `$XDG_STATE_HOME/<app>/sessions.db` on Linux (falling back to
/// `~/.local/state`), `~/Library/Application Support/<app>/sessions.db`
/// on macOS, `%LOCALAPPDATA%\<app>\sessions.db` on Windows.
/// `InvalidInput`: an app name that is not one path component; `Io`: no
/// home directory is known.
pub fn default_db_path(app: &str) -> Result<PathBuf> {
    let home = home_dir().ok_or_else(|| {
        Error::io(
            "finding the home directory",
            std::io::Error::new(std::io::ErrorKind::NotFound, "HOME (USERPROFILE on Windows) is not set"),
        )
    })?;
    db_path_for(Platform::current(), app, &|k| std::env::var_os(k), &home)
}

/// The directory of key files for `app` under `platform`'s rules: a
/// directory of its own under the user's config home, never the state
/// directory that holds the database (DESIGN.md "Keys", headless machines),
/// so copying the database's folder does not carry its key.
///
/// | platform | directory |
/// |---|---|
/// | Linux, macOS and other Unix | `$XDG_CONFIG_HOME/<app>/keys` (fallback `~/.config/<app>/keys`) |
/// | Windows | `%APPDATA%\<app>\keys` (fallback `~\AppData\Roaming\<app>\keys`) |
///
/// macOS uses `~/.config` too (as `gh` does): its state directory is
/// `~/Library/Application Support/<app>`, and the key must not sit there.
/// `env` and `home` as in [`state_dir_for`]. Errors: `InvalidInput` for a
/// bad app name.
pub fn key_dir_for(
    platform: Platform,
    app: &str,
    env: &dyn Fn(&str) -> Option<OsString>,
    home: &Path,
) -> Result<PathBuf> {
    validate_app(app)?;
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(|v| v.to_string_lossy().into_owned());
    let home = home.to_string_lossy();
    let dir = match platform {
        Platform::Windows => match var("APPDATA") {
            Some(base) => join(platform, &base, &[app, KEY_DIR_NAME]),
            None => join(platform, &home, &["AppData", "Roaming", app, KEY_DIR_NAME]),
        },
        Platform::MacOs | Platform::Linux => match var("XDG_CONFIG_HOME") {
            Some(base) => join(platform, &base, &[app, KEY_DIR_NAME]),
            None => join(platform, &home, &[".config", app, KEY_DIR_NAME]),
        },
    };
    Ok(PathBuf::from(dir))
}

/// The name of the key-file directory inside the app's config directory.
pub const KEY_DIR_NAME: &str = "keys";

/// [`key_dir_for`] on this machine. Errors: `InvalidInput` for a bad app
/// name, `Io` if no home directory is known.
pub fn default_key_dir(app: &str) -> Result<PathBuf> {
    let home = home_dir().ok_or_else(|| {
        Error::io(
            "finding the home directory",
            std::io::Error::new(std::io::ErrorKind::NotFound, "HOME (USERPROFILE on Windows) is not set"),
        )
    })?;
    key_dir_for(Platform::current(), app, &|k| std::env::var_os(k), &home)
}

fn home_dir() -> Option<PathBuf> {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from)
}

fn validate_app(app: &str) -> Result<()> {
    if app.is_empty() || app.contains(['/', '\\']) || app == "." || app == ".." || app.contains('\0') {
        return Err(Error::invalid("the app name must be a non-empty single path component"));
    }
    Ok(())
}

/// Canonical form of a workspace path (absolute, `.`/`..` resolved,
/// symlinks resolved for the longest existing prefix, NFC; DESIGN.md
/// "Workspace index"), a relative path taken against the current
/// directory. Reads the disk.
///
/// [`canonical_workspace`] of `path` against the process's current directory
/// (what the hosts call). Errors: `Io` when the current directory cannot be
/// read, else as [`canonical_workspace`].
pub fn canonical_workspace_in_cwd(path: &str) -> Result<String> {
    let cwd = std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))?;
    canonical_workspace(path, &cwd)
}

/// Canonical form of a workspace path, the input of the HMAC workspace index.
///
/// Rules (DESIGN.md "Workspace index"): made absolute against `cwd`; `.` and
/// `..` resolved; symlinks resolved for the longest prefix that exists;
/// separators normalised to the platform's and a trailing separator removed
/// (a root keeps its separator); Unicode NFC; case folded (lowercase) only on
/// case-insensitive platforms (macOS, Windows).
/// Errors: `InvalidInput` for an empty path or one with a NUL byte.
pub fn canonical_workspace(path: &str, cwd: &Path) -> Result<String> {
    if path.is_empty() || path.contains('\0') {
        return Err(Error::invalid("a workspace path must be non-empty and contain no NUL byte"));
    }
    if !cfg!(windows) {
        // A session recorded on Windows (imported here): the form a Windows
        // host computes for it (issue 28 item 5).
        if let Some(w) = canonical_windows_path(path) {
            return Ok(w);
        }
    }
    let p = Path::new(path);
    let abs = if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) };
    let lexical = normalize_lexically(&abs);
    let resolved = resolve_existing_prefix(&lexical);
    let mut s = resolved.to_string_lossy().into_owned();
    if cfg!(windows) {
        s = s.replace('/', "\\");
    }
    let sep = std::path::MAIN_SEPARATOR;
    while s.len() > 1 && s.ends_with(sep) && !is_root(&s) {
        s.pop();
    }
    let mut s: String = s.nfc().collect();
    if cfg!(any(windows, target_os = "macos")) {
        s = s.to_lowercase();
    }
    Ok(s)
}

/// Is `path` an absolute Windows path: a drive (`C:\…`, `C:/…`), a UNC
/// share (`\\server\share…`), or either in the verbatim form (`\\?\C:\…`,
/// `\\?\UNC\server\share…`)? On every platform (a session recorded on
/// Windows is read anywhere). `//server/share` is a Unix path, not UNC.
pub fn is_windows_absolute(path: &str) -> bool {
    windows_root(path).is_some()
}

/// Is `path` absolute on this platform, or as a Windows path
/// ([`is_windows_absolute`])?
pub fn is_absolute_anywhere(path: &str) -> bool {
    Path::new(path).is_absolute() || is_windows_absolute(path)
}

/// `(root, rest)` of an absolute Windows path: the root as Windows writes it
/// (`C:\`, `\\server\share\`; verbatim prefixes removed) and what follows.
fn windows_root(path: &str) -> Option<(String, &str)> {
    let b = path.as_bytes();
    let drive = |b: &[u8]| b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/');
    if let Some(rest) = path.strip_prefix(r"\\?\").or_else(|| path.strip_prefix(r"\\.\")) {
        if drive(rest.as_bytes()) {
            return Some((format!("{}\\", &rest[..2]), &rest[3..]));
        }
        let unc = rest.strip_prefix("UNC\\").or_else(|| rest.strip_prefix("unc\\"))?;
        return unc_root(unc);
    }
    if drive(b) {
        return Some((format!("{}\\", &path[..2]), &path[3..]));
    }
    unc_root(path.strip_prefix(r"\\")?)
}

/// `\\server\share\` and the rest, from the text after the leading `\\`.
fn unc_root(s: &str) -> Option<(String, &str)> {
    let mut parts = s.splitn(3, ['\\', '/']);
    let server = parts.next().filter(|p| !p.is_empty() && *p != "?" && *p != ".")?;
    let share = parts.next().filter(|p| !p.is_empty())?;
    Some((format!(r"\\{server}\{share}\"), parts.next().unwrap_or("")))
}

/// Canonical form of an absolute Windows path ([`is_windows_absolute`]),
/// computed lexically on any platform: what [`canonical_workspace`] gives on
/// Windows for a path with no symlink in it, so a session recorded on
/// Windows gets the same workspace index everywhere. Separators become `\`,
/// repeated ones collapse, `.` and `..` are resolved (never above the root),
/// verbatim prefixes go, a trailing separator goes (a root keeps its own:
/// `c:\`, `\\server\share\`), Unicode NFC, then lowercase (Windows paths
/// are case-insensitive; the Windows form of [`canonical_workspace`] folds
/// the same way). `None` when `path` is not an absolute Windows path.
pub fn canonical_windows_path(path: &str) -> Option<String> {
    let (root, rest) = windows_root(path)?;
    let mut parts: Vec<&str> = Vec::new();
    for c in rest.split(['\\', '/']) {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let s = format!("{root}{}", parts.join("\\"));
    Some(s.nfc().collect::<String>().to_lowercase())
}

fn is_root(s: &str) -> bool {
    Path::new(s).parent().is_none()
}

fn normalize_lexically(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                // `..` at the root stays at the root.
                if out.parent().is_some() {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn resolve_existing_prefix(p: &Path) -> PathBuf {
    let mut existing = p.to_path_buf();
    let mut rest: Vec<OsString> = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&existing) {
            let mut out = strip_verbatim(real);
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
}

fn strip_verbatim(p: PathBuf) -> PathBuf {
    // On Windows canonicalize returns `\\?\C:\...`; keep the familiar form.
    // A share comes back as `\\?\UNC\server\share\…`: `\\server\share\…`.
    let s = p.to_string_lossy();
    match (s.strip_prefix(r"\\?\UNC\"), s.strip_prefix(r"\\?\")) {
        (Some(share), _) if cfg!(windows) => PathBuf::from(format!(r"\\{share}")),
        (_, Some(rest)) if cfg!(windows) => PathBuf::from(rest),
        _ => p,
    }
}

/// Create `dir` (and parents) and, on Unix, set it to mode 0700.
/// Errors: `Io` with the OS error.
pub fn ensure_private_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("creating the state directory", e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error::io("setting the state directory to mode 0700", e))?;
    }
    Ok(())
}

/// On Unix, remove group and other permissions from `file` and its
/// `-wal`/`-shm` siblings (a new file ends up 0600).
pub fn restrict_db_files(file: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for suffix in ["", "-wal", "-shm"] {
            let mut name = file.as_os_str().to_os_string();
            name.push(suffix);
            let p = PathBuf::from(name);
            if let Ok(meta) = std::fs::metadata(&p) {
                // Drop group/other bits; never add a bit the owner took away (a read-only file stays read-only).
                let mode = meta.permissions().mode() & 0o777;
                if mode & 0o077 != 0 {
                    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode & 0o700))
                        .map_err(|e| Error::io("restricting the database file to its owner", e))?;
                }
            }
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

/// An exclusive advisory lock (`flock` on Unix, `LockFileEx` on Windows) on
/// a file that is created 0600 and never deleted, held until drop.
///
/// Used for the first-open critical section (DESIGN.md "Keys": creating the
/// key, the database and its key-check value happen under one lock across
/// processes). Separate open file descriptions conflict even within one
/// process, so threads opening their own stores are serialised too.
#[derive(Debug)]
pub struct FileLock {
    pub(crate) file: std::fs::File,
}

impl FileLock {
    /// Take the lock on `path` (creating the file), waiting at most
    /// `timeout_ms` milliseconds for another holder.
    /// Errors: `Io` (cannot create or lock the file), `Busy` (with the real
    /// wait) when another holder kept it past the timeout.
    pub fn acquire(path: &Path, timeout_ms: u64, step: &'static str) -> Result<FileLock> {
        let mut opts = std::fs::OpenOptions::new();
        opts.create(true).truncate(false).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let file = opts.open(path).map_err(|e| Error::io(step, e))?;
        let start = std::time::Instant::now();
        let mut pause = std::time::Duration::from_millis(1);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(FileLock { file }),
                Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(step, e)),
                Err(std::fs::TryLockError::WouldBlock) => {
                    let waited = start.elapsed().as_millis() as u64;
                    if waited >= timeout_ms {
                        return Err(Error::Busy { timeout_ms, waited_ms: waited });
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(std::time::Duration::from_millis(20));
                }
            }
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// True when the open `file` is still the file at `path` (same device and
/// inode): a lock taken on a file that was unlinked meanwhile protects nothing.
/// On platforms without inodes (Windows, where an open file cannot be
/// deleted) this is always true.
pub fn is_same_file(file: &std::fs::File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let m: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| m.get(k).map(OsString::from)
    }

    #[test]
    fn linux_uses_xdg_state_home() {
        let p = db_path_for(Platform::Linux, "thcode", &env_of(&[("XDG_STATE_HOME", "/x/state")]), Path::new("/home/u"))
            .unwrap();
        assert_eq!(p, PathBuf::from("/x/state/thcode/sessions.db"));
    }

    #[test]
    fn linux_falls_back_to_local_state_when_xdg_unset_or_empty() {
        for env in [env_of(&[]), env_of(&[("XDG_STATE_HOME", "")])] {
            let p = db_path_for(Platform::Linux, "sessiondb", &env, Path::new("/home/u")).unwrap();
            assert_eq!(p, PathBuf::from("/home/u/.local/state/sessiondb/sessions.db"));
        }
    }

    #[test]
    fn macos_uses_application_support() {
        let p = db_path_for(Platform::MacOs, "thcode", &env_of(&[("XDG_STATE_HOME", "/ignored")]), Path::new("/Users/u"))
            .unwrap();
        assert_eq!(p, PathBuf::from("/Users/u/Library/Application Support/thcode/sessions.db"));
    }

    #[test]
    fn windows_uses_localappdata_with_backslashes() {
        let p = db_path_for(
            Platform::Windows,
            "thcode",
            &env_of(&[("LOCALAPPDATA", r"C:\Users\u\AppData\Local")]),
            Path::new(r"C:\Users\u"),
        )
        .unwrap();
        assert_eq!(p.to_string_lossy(), r"C:\Users\u\AppData\Local\thcode\sessions.db");
    }

    #[test]
    fn windows_falls_back_to_home_appdata_local() {
        let p = db_path_for(Platform::Windows, "sessiondb", &env_of(&[]), Path::new(r"C:\Users\u")).unwrap();
        assert_eq!(p.to_string_lossy(), r"C:\Users\u\AppData\Local\sessiondb\sessions.db");
    }

    #[test]
    fn key_dir_is_under_the_config_home_never_the_state_dir() {
        let xdg = env_of(&[("XDG_CONFIG_HOME", "/x/config"), ("XDG_STATE_HOME", "/x/state")]);
        assert_eq!(key_dir_for(Platform::Linux, "thcode", &xdg, Path::new("/home/u")).unwrap(), PathBuf::from("/x/config/thcode/keys"));
        for env in [env_of(&[]), env_of(&[("XDG_CONFIG_HOME", "")])] {
            assert_eq!(key_dir_for(Platform::Linux, "sessiondb", &env, Path::new("/home/u")).unwrap(), PathBuf::from("/home/u/.config/sessiondb/keys"));
        }
        assert_eq!(key_dir_for(Platform::MacOs, "sessiondb", &env_of(&[]), Path::new("/Users/u")).unwrap(), PathBuf::from("/Users/u/.config/sessiondb/keys"));
        let w = key_dir_for(Platform::Windows, "thcode", &env_of(&[("APPDATA", r"C:\Users\u\AppData\Roaming")]), Path::new(r"C:\Users\u")).unwrap();
        assert_eq!(w.to_string_lossy(), r"C:\Users\u\AppData\Roaming\thcode\keys");
        let w = key_dir_for(Platform::Windows, "thcode", &env_of(&[]), Path::new(r"C:\Users\u")).unwrap();
        assert_eq!(w.to_string_lossy(), r"C:\Users\u\AppData\Roaming\thcode\keys");
        assert_eq!(key_dir_for(Platform::Linux, "a/b", &env_of(&[]), Path::new("/h")).unwrap_err().kind(), crate::ErrorKind::InvalidInput);
    }

    #[test]
    fn bad_app_names_are_invalid_input() {
        for app in ["", "a/b", r"a\b", "..", "."] {
            let e = state_dir_for(Platform::Linux, app, &env_of(&[]), Path::new("/h")).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidInput, "{app:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn canonical_workspace_rules() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        let proj = root.join("projA");
        std::fs::create_dir(&proj).unwrap();
        let p = proj.to_string_lossy().into_owned();
        let c = |s: &str| canonical_workspace(s, &root).unwrap();
        assert_eq!(c(&p), p);
        assert_eq!(c(&format!("{p}/")), p, "trailing slash");
        assert_eq!(c(&format!("{p}//")), p, "double trailing slash");
        assert_eq!(c(&format!("{p}/./sub/..")), p, ". and ..");
        assert_eq!(c("projA"), p, "relative to cwd");
        assert_eq!(c("/"), "/", "root keeps its separator");
        std::os::unix::fs::symlink(&proj, root.join("link")).unwrap();
        assert_eq!(c(&root.join("link").to_string_lossy()), p, "symlink resolved");
        assert_eq!(
            c(&root.join("link/not-yet").to_string_lossy()),
            format!("{p}/not-yet"),
            "missing tail kept under a resolved prefix"
        );
        assert_ne!(c(&format!("{p}B")), p, "prefix is not a match");
        // NFC: "é" decomposed equals composed
        assert_eq!(c(&format!("{}/cafe\u{301}", root.display())), format!("{}/caf\u{e9}", root.display()));
        assert!(canonical_workspace("", &root).is_err());
    }
}
