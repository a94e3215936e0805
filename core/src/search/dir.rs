//! The encrypted tantivy [`Directory`]: every file of the search index is
//! sealed with AES-256-GCM, chunk by chunk, so a read decrypts only the
//! chunks it touches (DESIGN.md "Search"; the shape of Seshat's encrypted
//! directory, with our own format).
//!
//! File format (every file, including the small ones tantivy writes
//! atomically such as `meta.json`):
//!
//! ```text
//! magic "SDBSIX1\0" (8) ‖ salt (32 random bytes, new for every write)
//! ‖ chunk 0 ‖ chunk 1 ‖ ... ‖ chunk n-1          (n ≥ 1)
//! chunk i = AES-256-GCM(file key, nonce_i, aad_i, plaintext_i) ‖ tag (16)
//! ```
//!
//! * File key = HKDF-SHA-256(index key, salt, "sessiondb search file v1"),
//!   the index key = HKDF-SHA-256(data key, "", "sessiondb search index v1")
//!   ([`crate::crypto::derive_key`]). A fresh 256-bit salt per write gives
//!   every file version its own key, so the nonce (4 zero bytes ‖ chunk index,
//!   big-endian u64) is never reused under one key.
//! * Every chunk but the last holds exactly [`CHUNK`] plaintext bytes; the
//!   last 0..=[`CHUNK`] (0 only for an empty file). The plaintext length
//!   follows from the file size.
//! * aad_i = "sessiondb-search-v1" ‖ 0 ‖ file name ‖ 0 ‖ i (u64 BE) ‖ final
//!   flag (1 byte) ‖ (final chunk only) the plaintext length (u64 BE). A
//!   chunk moved to another file or position, a file renamed, truncated at
//!   a chunk boundary or extended fails authentication.
//! * Reads: `read_bytes(range)` decrypts the chunks the range covers; a
//!   bounded cache (see [`CACHE_BYTES`]) keeps recently decrypted chunks.
//!   An authentication failure is an `io::Error` of kind `InvalidData`
//!   whose message starts with [`AUTH_FAILED`]; the search layer treats any
//!   index error as damage and rebuilds.
//! * Locks are OS file locks (`flock`), released when a process dies, so a
//!   killed indexer never leaves the index locked.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{AntiCallToken, Directory, DirectoryLock, FileHandle, Lock, OwnedBytes, TerminatingWrite, WatchCallback, WatchHandle, WritePtr};
use tantivy::HasLen;

use crate::crypto::{self, DataKey, NONCE_LEN, TAG_LEN};

/// Plaintext bytes per chunk (32 KiB).
pub const CHUNK: usize = 32 * 1024;
/// File header: magic (8) + salt (32).
pub const HEADER: usize = 8 + 32;
/// Magic bytes at the start of every index file.
pub const MAGIC: &[u8; 8] = b"SDBSIX1\0";
/// Bytes of decrypted chunks kept in memory per directory (8 MiB).
pub const CACHE_BYTES: usize = 8 << 20;
/// A file of at most this many bytes that is read across several chunks
/// (a whole column, the field norms) is kept decrypted whole for its
/// handle's life (4 MiB), within [`WHOLE_BUDGET`].
pub const WHOLE_MAX: usize = 4 << 20;
/// Bytes of whole decrypted files kept per directory (32 MiB).
pub const WHOLE_BUDGET: usize = 32 << 20;
/// Prefix of the message of an authentication failure.
pub const AUTH_FAILED: &str = "search index authentication failed";
const FILE_KEY_INFO: &str = "sessiondb search file v1";
const AAD_PREFIX: &[u8] = b"sessiondb-search-v1\0";

fn nonce(i: u64) -> [u8; NONCE_LEN] {
    let mut n = [0u8; NONCE_LEN];
    n[4..].copy_from_slice(&i.to_be_bytes());
    n
}

fn aad(name: &str, i: u64, final_len: Option<u64>) -> Vec<u8> {
    let mut a = Vec::with_capacity(AAD_PREFIX.len() + name.len() + 18);
    a.extend_from_slice(AAD_PREFIX);
    a.extend_from_slice(name.as_bytes());
    a.push(0);
    a.extend_from_slice(&i.to_be_bytes());
    match final_len {
        Some(len) => {
            a.push(1);
            a.extend_from_slice(&len.to_be_bytes());
        }
        None => a.push(0),
    }
    a
}

fn auth_error(name: &str, what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{AUTH_FAILED}: file `{name}` ({what})"))
}

/// The name a file is sealed under: its path inside the index directory.
fn file_name(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// Plaintext length and chunk count of a sealed file of `file_len` bytes.
fn layout(name: &str, file_len: u64) -> io::Result<(u64, u64)> {
    let body = file_len.checked_sub(HEADER as u64).filter(|b| *b >= TAG_LEN as u64).ok_or_else(|| auth_error(name, "too short"))?;
    let full = (CHUNK + TAG_LEN) as u64;
    let n = body.div_ceil(full).max(1);
    let last = body - (n - 1) * full - TAG_LEN as u64;
    if last > CHUNK as u64 || (n > 1 && last == 0) {
        return Err(auth_error(name, "bad length"));
    }
    Ok(((n - 1) * CHUNK as u64 + last, n))
}

/// Seal `data` whole into the sealed-file format (used by `atomic_write`
/// and by tests).
pub fn seal_file(index_key: &DataKey, name: &str, data: &[u8]) -> Vec<u8> {
    let mut salt = [0u8; 32];
    crypto::random_bytes(&mut salt);
    let key = crypto::derive_key(index_key, &salt, FILE_KEY_INFO);
    let mut out = Vec::with_capacity(HEADER + data.len() + (data.len() / CHUNK + 1) * TAG_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&salt);
    let n = data.len().div_ceil(CHUNK).max(1);
    for i in 0..n {
        let part = &data[(i * CHUNK).min(data.len())..((i + 1) * CHUNK).min(data.len())];
        let fin = (i + 1 == n).then_some(data.len() as u64);
        let (ct, tag) = crypto::seal_detached(&key, &nonce(i as u64), &aad(name, i as u64, fin), part);
        out.extend_from_slice(&ct);
        out.extend_from_slice(&tag);
    }
    out
}

/// Decrypt a whole sealed file. Errors: `InvalidData` ([`AUTH_FAILED`]).
pub fn open_file(index_key: &DataKey, name: &str, bytes: &[u8]) -> io::Result<Vec<u8>> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(auth_error(name, "no header"));
    }
    let key = crypto::derive_key(index_key, &bytes[8..HEADER], FILE_KEY_INFO);
    let (len, n) = layout(name, bytes.len() as u64)?;
    let mut out = Vec::with_capacity(len as usize);
    for i in 0..n {
        let start = HEADER + i as usize * (CHUNK + TAG_LEN);
        let end = (start + CHUNK + TAG_LEN).min(bytes.len());
        out.extend_from_slice(&decrypt_chunk(&key, name, i, n, len, &bytes[start..end])?);
    }
    Ok(out)
}

fn decrypt_chunk(key: &DataKey, name: &str, i: u64, n: u64, len: u64, sealed: &[u8]) -> io::Result<zeroize::Zeroizing<Vec<u8>>> {
    if sealed.len() < TAG_LEN {
        return Err(auth_error(name, "short chunk"));
    }
    let (ct, tag) = sealed.split_at(sealed.len() - TAG_LEN);
    let tag: [u8; TAG_LEN] = tag.try_into().expect("16 bytes");
    let fin = (i + 1 == n).then_some(len);
    crypto::open_detached(key, &nonce(i), &aad(name, i, fin), ct, &tag).map_err(|_| auth_error(name, &format!("chunk {i}")))
}

/// Decrypted chunks shared by the handles of one directory, at most
/// [`CACHE_BYTES`], least recently used evicted first.
/// (file serial, chunk index) -> (plaintext, last use).
type ChunkMap = HashMap<(u64, u64), (Arc<[u8]>, u64)>;

#[derive(Default)]
struct ChunkCache {
    map: ChunkMap,
    bytes: usize,
    tick: u64,
}

impl ChunkCache {
    fn get(&mut self, k: (u64, u64)) -> Option<Arc<[u8]>> {
        self.tick += 1;
        let t = self.tick;
        self.map.get_mut(&k).map(|(v, at)| {
            *at = t;
            v.clone()
        })
    }
    fn put(&mut self, k: (u64, u64), v: Arc<[u8]>) {
        self.tick += 1;
        self.bytes += v.len();
        if let Some((old, _)) = self.map.insert(k, (v, self.tick)) {
            self.bytes -= old.len();
        }
        while self.bytes > CACHE_BYTES {
            let Some((&oldest, _)) = self.map.iter().min_by_key(|(_, (_, at))| *at) else { break };
            if let Some((v, _)) = self.map.remove(&oldest) {
                self.bytes -= v.len();
            }
        }
    }
}

/// The encrypted directory over a folder of sealed files.
#[derive(Clone)]
pub struct EncryptedDirectory {
    root: PathBuf,
    key: Arc<DataKey>,
    cache: Arc<Mutex<ChunkCache>>,
    serial: Arc<AtomicU64>,
    whole_budget: Arc<std::sync::atomic::AtomicUsize>,
}

impl std::fmt::Debug for EncryptedDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EncryptedDirectory").field("root", &self.root).finish_non_exhaustive()
    }
}

impl EncryptedDirectory {
    /// A directory over `root` (created 0700 if missing) sealed with `index_key`.
    pub fn open(root: &Path, index_key: DataKey) -> io::Result<Self> {
        crate::paths::ensure_private_dir(root).map_err(|e| io::Error::other(e.to_string()))?;
        // Leftovers of an atomic write cut short (sealed, but useless).
        if let Ok(rd) = std::fs::read_dir(root) {
            for e in rd.flatten() {
                if e.file_name().to_string_lossy().contains(".tmp-") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        Ok(EncryptedDirectory {
            root: root.to_path_buf(),
            key: Arc::new(index_key),
            cache: Default::default(),
            serial: Arc::new(AtomicU64::new(1)),
            whole_budget: Arc::new(std::sync::atomic::AtomicUsize::new(WHOLE_BUDGET)),
        })
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Decrypt a whole file (tests and tools: the canary scan of the
    /// plaintext after merge). Errors: `InvalidData` when it does not authenticate.
    pub fn read_plaintext(&self, name: &str) -> io::Result<Vec<u8>> {
        open_file(&self.key, name, &std::fs::read(self.root.join(name))?)
    }
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], off: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    f.read_exact_at(buf, off)
}

#[cfg(windows)]
fn read_at(f: &File, buf: &mut [u8], mut off: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        let n = f.seek_read(&mut buf[done..], off)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        done += n;
        off += n as u64;
    }
    Ok(())
}

/// An open sealed file: reads decrypt the chunks they cover.
struct EncryptedFile {
    file: File,
    name: String,
    key: DataKey,
    len: u64,
    chunks: u64,
    serial: u64,
    cache: Arc<Mutex<ChunkCache>>,
    whole: std::sync::OnceLock<OwnedBytes>,
    whole_budget: Arc<std::sync::atomic::AtomicUsize>,
}

impl Drop for EncryptedFile {
    fn drop(&mut self) {
        if let Some(w) = self.whole.get() {
            self.whole_budget.fetch_add(w.len(), Ordering::Relaxed);
        }
    }
}

impl std::fmt::Debug for EncryptedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EncryptedFile").field("name", &self.name).field("len", &self.len).finish_non_exhaustive()
    }
}

impl HasLen for EncryptedFile {
    fn len(&self) -> usize {
        self.len as usize
    }
}

impl EncryptedFile {
    fn chunk(&self, i: u64) -> io::Result<Arc<[u8]>> {
        if let Some(c) = crate::backend::lock(&self.cache).get((self.serial, i)) {
            return Ok(c);
        }
        let c: Arc<[u8]> = Arc::from(&self.decrypt(i)?[..]);
        crate::backend::lock(&self.cache).put((self.serial, i), c.clone());
        Ok(c)
    }

    fn decrypt(&self, i: u64) -> io::Result<zeroize::Zeroizing<Vec<u8>>> {
        let plain = if i + 1 == self.chunks { self.len - i * CHUNK as u64 } else { CHUNK as u64 };
        let mut buf = vec![0u8; plain as usize + TAG_LEN];
        read_at(&self.file, &mut buf, HEADER as u64 + i * (CHUNK + TAG_LEN) as u64)?;
        decrypt_chunk(&self.key, &self.name, i, self.chunks, self.len, &buf)
    }
}

impl FileHandle for EncryptedFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        if range.start > range.end || range.end as u64 > self.len {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("range {range:?} outside `{}` ({} bytes)", self.name, self.len)));
        }
        if range.is_empty() {
            return Ok(OwnedBytes::empty());
        }
        if let Some(w) = self.whole.get() {
            return Ok(w.slice(range));
        }
        let first = (range.start / CHUNK) as u64;
        let last = ((range.end - 1) / CHUNK) as u64;
        // A small file read across chunks (a column, the field norms) is read
        // again by every search: keep it decrypted whole, within the budget.
        if last > first && self.len as usize <= WHOLE_MAX {
            let n = self.len as usize;
            let reserved = self.whole_budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(n)).is_ok();
            if reserved {
                let mut all = Vec::with_capacity(n);
                for i in 0..self.chunks {
                    match self.decrypt(i) {
                        Ok(c) => all.extend_from_slice(&c),
                        Err(e) => {
                            self.whole_budget.fetch_add(n, Ordering::Relaxed);
                            return Err(e);
                        }
                    }
                }
                let bytes = OwnedBytes::new(all);
                if self.whole.set(bytes).is_err() {
                    self.whole_budget.fetch_add(n, Ordering::Relaxed);
                }
                return Ok(self.whole.get().expect("set above").slice(range));
            }
        }
        // Small reads (term dictionary blocks, postings) go through the
        // cache; a large one (a merge, a whole column) is decrypted into
        // the answer without evicting the cache.
        let cached = last - first < 4;
        if first == last && cached {
            let c = self.chunk(first)?;
            let off = first as usize * CHUNK;
            return Ok(OwnedBytes::new(c[range.start - off..range.end - off].to_vec()));
        }
        let mut out = Vec::with_capacity(range.len());
        for i in first..=last {
            let off = i as usize * CHUNK;
            let s = range.start.max(off) - off;
            if cached {
                let c = self.chunk(i)?;
                out.extend_from_slice(&c[s..(range.end - off).min(c.len())]);
            } else {
                let c = self.decrypt(i)?;
                out.extend_from_slice(&c[s..(range.end - off).min(c.len())]);
            }
        }
        Ok(OwnedBytes::new(out))
    }
}

/// A writer sealing full chunks as they fill; the last one at `terminate`.
struct EncryptedWriter {
    file: BufWriter<File>,
    name: String,
    key: DataKey,
    buf: Vec<u8>,
    index: u64,
    total: u64,
    done: bool,
}

impl EncryptedWriter {
    fn seal(&mut self, fin: bool) -> io::Result<()> {
        let part = std::mem::take(&mut self.buf);
        let fin_len = fin.then_some(self.total);
        let (mut ct, tag) = crypto::seal_detached(&self.key, &nonce(self.index), &aad(&self.name, self.index, fin_len), &part);
        {
            let mut part = part;
            zeroize::Zeroize::zeroize(&mut part);
            self.buf = part;
            self.buf.clear();
        }
        self.file.write_all(&ct)?;
        self.file.write_all(&tag)?;
        zeroize::Zeroize::zeroize(&mut ct);
        self.index += 1;
        Ok(())
    }
}

impl Write for EncryptedWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.done {
            return Err(io::Error::other("write after terminate"));
        }
        let mut rest = data;
        while !rest.is_empty() {
            // A full chunk is sealed only once more bytes come: the last
            // chunk must be sealed as the final one.
            if self.buf.len() == CHUNK {
                self.seal(false)?;
            }
            let take = (CHUNK - self.buf.len()).min(rest.len());
            self.buf.extend_from_slice(&rest[..take]);
            self.total += take as u64;
            rest = &rest[take..];
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        // Bytes stay buffered until their chunk is sealed.
        Ok(())
    }
}

impl TerminatingWrite for EncryptedWriter {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        if self.done {
            return Ok(());
        }
        self.seal(true)?;
        self.done = true;
        self.file.flush()?;
        self.file.get_ref().sync_data()
    }
}

impl Drop for EncryptedWriter {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.buf);
    }
}

/// Options creating a file readable by its owner only (0600 on Unix).
fn private() -> OpenOptions {
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o
}

fn sync_dir(root: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(root)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = root;
        Ok(())
    }
}

impl Directory for EncryptedDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let full = self.root.join(path);
        let name = file_name(path);
        let wrap = |e: io::Error| {
            if e.kind() == io::ErrorKind::NotFound {
                OpenReadError::FileDoesNotExist(path.to_path_buf())
            } else {
                OpenReadError::wrap_io_error(e, path.to_path_buf())
            }
        };
        let file = File::open(&full).map_err(wrap)?;
        let file_len = file.metadata().map_err(wrap)?.len();
        let mut head = [0u8; HEADER];
        if file_len < HEADER as u64 {
            return Err(wrap(auth_error(&name, "no header")));
        }
        read_at(&file, &mut head, 0).map_err(wrap)?;
        if &head[..8] != MAGIC {
            return Err(wrap(auth_error(&name, "bad magic")));
        }
        let (len, chunks) = layout(&name, file_len).map_err(wrap)?;
        let key = crypto::derive_key(&self.key, &head[8..], FILE_KEY_INFO);
        Ok(Arc::new(EncryptedFile {
            file,
            name,
            key,
            len,
            chunks,
            serial: self.serial.fetch_add(1, Ordering::Relaxed),
            cache: self.cache.clone(),
            whole: std::sync::OnceLock::new(),
            whole_budget: self.whole_budget.clone(),
        }))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        std::fs::remove_file(self.root.join(path)).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                DeleteError::FileDoesNotExist(path.to_path_buf())
            } else {
                DeleteError::IoError { io_error: Arc::new(e), filepath: path.to_path_buf() }
            }
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        Ok(self.root.join(path).exists())
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let full = self.root.join(path);
        let mut file = private().write(true).create_new(true).open(&full).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                OpenWriteError::FileAlreadyExists(path.to_path_buf())
            } else {
                OpenWriteError::wrap_io_error(e, path.to_path_buf())
            }
        })?;
        let mut salt = [0u8; 32];
        crypto::random_bytes(&mut salt);
        let head = [&MAGIC[..], &salt[..]].concat();
        file.write_all(&head).map_err(|e| OpenWriteError::wrap_io_error(e, path.to_path_buf()))?;
        let w = EncryptedWriter {
            file: BufWriter::with_capacity(CHUNK + TAG_LEN, file),
            name: file_name(path),
            key: crypto::derive_key(&self.key, &salt, FILE_KEY_INFO),
            buf: Vec::with_capacity(CHUNK),
            index: 0,
            total: 0,
            done: false,
        };
        Ok(BufWriter::new(Box::new(w)))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let bytes = std::fs::read(self.root.join(path)).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                OpenReadError::FileDoesNotExist(path.to_path_buf())
            } else {
                OpenReadError::wrap_io_error(e, path.to_path_buf())
            }
        })?;
        open_file(&self.key, &file_name(path), &bytes).map_err(|e| OpenReadError::wrap_io_error(e, path.to_path_buf()))
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let sealed = seal_file(&self.key, &file_name(path), data);
        let mut r = [0u8; 8];
        crypto::random_bytes(&mut r);
        let tmp = self.root.join(format!("{}.tmp-{}", file_name(path).replace('/', "_"), r.iter().map(|b| format!("{b:02x}")).collect::<String>()));
        let res = (|| {
            let mut f = private().write(true).create_new(true).open(&tmp)?;
            f.write_all(&sealed)?;
            f.sync_all()?;
            std::fs::rename(&tmp, self.root.join(path))?;
            sync_dir(&self.root)
        })();
        if res.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        res
    }

    fn sync_directory(&self) -> io::Result<()> {
        sync_dir(&self.root)
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        let f = private()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.root.join(&lock.filepath))
            .map_err(LockError::wrap_io_error)?;
        if lock.is_blocking {
            f.lock().map_err(LockError::wrap_io_error)?;
        } else {
            match f.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Err(LockError::LockBusy),
                Err(std::fs::TryLockError::Error(e)) => return Err(LockError::wrap_io_error(e)),
            }
        }
        Ok(DirectoryLock::from(Box::new(f)))
    }

    fn watch(&self, _cb: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> (tempfile::TempDir, EncryptedDirectory) {
        let t = tempfile::tempdir().unwrap();
        let d = EncryptedDirectory::open(&t.path().join("idx"), DataKey::from_bytes(&[9u8; 32]).unwrap()).unwrap();
        (t, d)
    }

    fn write(d: &EncryptedDirectory, name: &str, data: &[u8]) {
        let mut w = d.open_write(Path::new(name)).unwrap();
        // Odd-sized writes cross chunk boundaries.
        for part in data.chunks(7001) {
            w.write_all(part).unwrap();
        }
        w.terminate().unwrap();
    }

    #[test]
    fn round_trip_every_size_and_range() {
        let (_t, d) = dir();
        for (i, size) in [0usize, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK, 3 * CHUNK + 17].into_iter().enumerate() {
            let data: Vec<u8> = (0..size).map(|j| (j * 31 + i) as u8).collect();
            let name = format!("f{i}.idx");
            write(&d, &name, &data);
            let on_disk = std::fs::metadata(d.root().join(&name)).unwrap().len() as usize;
            assert_eq!(on_disk, HEADER + data.len() + data.len().div_ceil(CHUNK).max(1) * TAG_LEN);
            let h = d.get_file_handle(Path::new(&name)).unwrap();
            assert_eq!(h.len(), size);
            assert_eq!(&h.read_bytes(0..size).unwrap()[..], &data[..]);
            if size > 10 {
                let r = size / 3..size - 2;
                assert_eq!(&h.read_bytes(r.clone()).unwrap()[..], &data[r]);
            }
            assert_eq!(d.read_plaintext(&name).unwrap(), data);
        }
        d.atomic_write(Path::new("meta.json"), b"{\"x\":1}").unwrap();
        assert_eq!(d.atomic_read(Path::new("meta.json")).unwrap(), b"{\"x\":1}");
    }

    #[test]
    fn tampering_fails_authentication() {
        let (_t, d) = dir();
        let data: Vec<u8> = (0..3 * CHUNK + 5).map(|j| j as u8).collect();
        write(&d, "a.idx", &data);
        write(&d, "b.idx", &data);
        let path = d.root().join("a.idx");
        let orig = std::fs::read(&path).unwrap();
        let fails = |bytes: &[u8], what: &str| {
            std::fs::write(&path, bytes).unwrap();
            let r = d.get_file_handle(Path::new("a.idx")).and_then(|h| h.read_bytes(0..h.len()).map_err(|e| OpenReadError::wrap_io_error(e, path.clone())));
            let msg = format!("{:?}", r.err().unwrap_or_else(|| panic!("{what}: read back without error")));
            assert!(msg.contains(AUTH_FAILED), "{what}: {msg}");
        };
        // A flipped byte in a chunk, in the salt.
        let mut b = orig.clone();
        b[HEADER + CHUNK + 40] ^= 1;
        fails(&b, "flipped byte");
        let mut b = orig.clone();
        b[10] ^= 1;
        fails(&b, "flipped salt");
        // Truncated at a chunk boundary (the new last chunk was not sealed as final) and mid-chunk.
        fails(&orig[..HEADER + 2 * (CHUNK + TAG_LEN)], "truncated at a boundary");
        fails(&orig[..orig.len() - 3], "truncated");
        // Two chunks swapped.
        let mut b = orig[..HEADER].to_vec();
        let c = |i: usize| &orig[HEADER + i * (CHUNK + TAG_LEN)..HEADER + (i + 1) * (CHUNK + TAG_LEN)];
        b.extend_from_slice(c(1));
        b.extend_from_slice(c(0));
        b.extend_from_slice(&orig[HEADER + 2 * (CHUNK + TAG_LEN)..]);
        fails(&b, "reordered");
        // Another file's bytes under this name.
        fails(&std::fs::read(d.root().join("b.idx")).unwrap(), "swapped files");
        // The same plaintext twice gives different ciphertexts (fresh salt per write).
        assert_ne!(std::fs::read(d.root().join("b.idx")).unwrap(), orig);
    }
}
