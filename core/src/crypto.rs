//! The `EncryptedField` envelope, AES-256-GCM with record-bound AAD, the
//! HMAC workspace index, and the zeroized [`DataKey`].
//!
//! Source: seed 000, "Encryption at Rest" / "The EncryptedField Envelope" /
//! "Workspace Binding Index", and DESIGN.md "On-disk contract".
//!
//! * Envelope: `{"n","c","t","v","alg"}`: base64 (standard, padded) 12-byte
//!   nonce, ciphertext, 16-byte tag; `v` the envelope version (1); `alg`
//!   always `"aes-256-gcm"`.
//! * AAD: `recordId + ":v" + v + ":" + alg`, e.g.
//!   `session:abc123:name:v1:aes-256-gcm`. A ciphertext moved to another
//!   record id fails authentication.
//! * A fresh random nonce (OS CSPRNG) for every write.
//! * Two forms of one envelope (DESIGN.md "On-disk contract"): the seed's
//!   JSON text (where the seed's DDL fixes a TEXT column: the journal, the
//!   key-check value) and the binary form stored as a BLOB in the tables we
//!   own: `v` (1 byte) ‖ nonce (12) ‖ ciphertext ‖ tag (16), `alg` implied.
//!   Same fields, same AAD: [`EncryptedField::to_binary`] and
//!   [`EncryptedField::from_binary`] convert without the key.
//! * `v` = 1: the plaintext as given; `v` = 2: the plaintext compressed with
//!   zstd before encryption ([`seal`] with `compress`, for plaintexts of
//!   [`COMPRESS_MIN_BYTES`] or more, and only when it comes out smaller).
//!   `v` is in the AAD, so a v2 ciphertext relabelled v1 fails authentication.

use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey, AES_256_GCM};
use hmac::{Hmac, KeyInit, Mac};
use rand::rngs::SysRng;
use rand::{Rng as _, TryRng as _};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use zeroize::{Zeroize, Zeroizing};

use crate::error::{Error, Result};

/// Standard padded base64 (RFC 4648 section 4), the text form of the
/// envelope's fields and of a stored key: `data-encoding`'s `BASE64`
/// (padding and canonical trailing bits required on decode, as before).
struct Base64;
const B64: Base64 = Base64;

impl Base64 {
    fn encode(&self, bytes: impl AsRef<[u8]>) -> String {
        data_encoding::BASE64.encode(bytes.as_ref())
    }

    fn encode_string(&self, bytes: impl AsRef<[u8]>, out: &mut String) {
        data_encoding::BASE64.encode_append(bytes.as_ref(), out);
    }

    fn decode(&self, text: impl AsRef<[u8]>) -> std::result::Result<Vec<u8>, data_encoding::DecodeError> {
        data_encoding::BASE64.decode(text.as_ref())
    }
}

/// 32 (or any number of) bytes from the OS CSPRNG; a failing OS source is a panic, as before.
pub(crate) fn os_random(buf: &mut [u8]) {
    SysRng.try_fill_bytes(buf).expect("the OS random number generator failed");
}

/// The only algorithm identifier of envelope version 1.
pub const ALG_AES_256_GCM: &str = "aes-256-gcm";
/// Envelope version 1: the plaintext as given (bound into the AAD).
pub const ENVELOPE_VERSION: u32 = 1;
/// Envelope version 2: the plaintext compressed with zstd (one frame, with
/// its content size) before encryption.
pub const ENVELOPE_VERSION_ZSTD: u32 = 2;
/// Plaintexts at least this long (bytes) are compressed by [`seal`] when
/// compression is on (DESIGN.md "On-disk contract": 512 by default).
pub const COMPRESS_MIN_BYTES: usize = 512;
/// The zstd level of version-2 envelopes (zstd's default level).
pub const ZSTD_LEVEL: i32 = 3;
/// Bytes the binary form adds to the ciphertext: `v` (1) + nonce (12) + tag (16).
pub const BINARY_OVERHEAD: usize = 1 + NONCE_LEN + TAG_LEN;
/// Largest plaintext a version-2 envelope may expand to (1 GiB), a bound on
/// the memory one decompression takes.
pub const MAX_DECOMPRESSED_BYTES: usize = 1 << 30;
/// Key length in bytes (AES-256).
pub const KEY_LEN: usize = 32;
/// Nonce length in bytes (96-bit GCM nonce).
pub const NONCE_LEN: usize = 12;
/// Tag length in bytes (128-bit GCM tag).
pub const TAG_LEN: usize = 16;

/// A 32-byte data-encryption key. Zeroized on drop; `Debug` never shows it.
/// The AES-256-GCM key schedule is made once, on first use, and kept with it
/// (ring's `LessSafeKey`, which is not zeroized: it is made from the bytes
/// at every use otherwise, leaving as many copies behind).
#[derive(Clone, Zeroize)]
#[zeroize(drop)]
pub struct DataKey([u8; KEY_LEN], #[zeroize(skip)] std::sync::OnceLock<LessSafeKey>);

impl DataKey {
    /// 32 fresh bytes from the OS CSPRNG (seed 000 `generateDataKey()`).
    pub fn generate() -> Self {
        let mut k = [0u8; KEY_LEN];
        os_random(&mut k);
        DataKey(k, std::sync::OnceLock::new())
    }

    /// Wrap exactly 32 bytes. Errors: `InvalidInput` for any other length.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let arr: [u8; KEY_LEN] = bytes
            .try_into()
            .map_err(|_| Error::invalid(format!("a data key is {KEY_LEN} bytes, got {}", bytes.len())))?;
        Ok(DataKey(arr, std::sync::OnceLock::new()))
    }

    /// Decode the base64 form kept in the credential store.
    /// Errors: `InvalidInput` if it is not base64 of 32 bytes.
    pub fn from_base64(s: &str) -> Result<Self> {
        let bytes = Zeroizing::new(
            B64.decode(s.trim())
                .map_err(|_| Error::invalid("the stored data key is not valid base64"))?,
        );
        Self::from_bytes(&bytes)
    }

    /// The base64 form stored in the credential store (zeroized on drop).
    pub fn to_base64(&self) -> Zeroizing<String> {
        Zeroizing::new(B64.encode(self.0))
    }

    /// The raw key bytes (for handing to a host key provider).
    pub fn expose_bytes(&self) -> &[u8; KEY_LEN] {
        &self.0
    }

    /// The AES-256-GCM key (ring's `AES_256_GCM`: 12-byte nonce, 16-byte tag).
    fn cipher(&self) -> &LessSafeKey {
        self.1.get_or_init(|| LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &self.0).expect("key is 32 bytes by construction")))
    }
}

impl std::fmt::Debug for DataKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DataKey(<redacted>)")
    }
}

/// One encrypted value as stored in SQLite (seed 000 `EncryptedField`).
///
/// Serialized as JSON with exactly the keys `n`, `c`, `t`, `v`, `alg`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EncryptedField {
    /// Base64 12-byte nonce, unique per write.
    pub n: String,
    /// Base64 ciphertext (same length as the plaintext).
    pub c: String,
    /// Base64 16-byte GCM tag.
    pub t: String,
    /// Envelope version, bound into the AAD.
    pub v: u32,
    /// Algorithm identifier: always `aes-256-gcm`.
    pub alg: String,
}

impl EncryptedField {
    /// The JSON text stored in a column: `{"n":..,"c":..,"t":..,"v":..,"alg":..}`.
    ///
    /// Written directly (base64 and the algorithm name never need JSON
    /// escaping; anything else goes through serde), which takes a serde
    /// escaping pass off every write.
    pub fn to_json(&self) -> String {
        let plain = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-'));
        if plain(&self.n) && plain(&self.c) && plain(&self.t) && plain(&self.alg) {
            let mut out = String::with_capacity(self.n.len() + self.c.len() + self.t.len() + 48);
            out.push_str("{\"n\":\"");
            out.push_str(&self.n);
            out.push_str("\",\"c\":\"");
            out.push_str(&self.c);
            out.push_str("\",\"t\":\"");
            out.push_str(&self.t);
            out.push_str("\",\"v\":");
            out.push_str(&self.v.to_string());
            out.push_str(",\"alg\":\"");
            out.push_str(&self.alg);
            out.push_str("\"}");
            out
        } else {
            serde_json::to_string(self).expect("EncryptedField always serializes")
        }
    }

    /// Parse a column value. Errors: `Corrupt` if it is not an envelope.
    pub fn from_json(s: &str) -> Result<Self> {
        serde_json::from_str(s).map_err(|e| Error::corrupt(format!("not an EncryptedField envelope: {e}")))
    }

    /// The binary form: `v` (1 byte) ‖ nonce (12) ‖ ciphertext ‖ tag (16).
    ///
    /// Errors: `Corrupt` for an algorithm other than `aes-256-gcm`, a
    /// version above 255, or fields that are not base64 of the right lengths.
    pub fn to_binary(&self) -> Result<Vec<u8>> {
        if self.alg != ALG_AES_256_GCM {
            return Err(Error::corrupt(format!("envelope algorithm `{}` has no binary form", self.alg)));
        }
        let v = u8::try_from(self.v).map_err(|_| Error::corrupt(format!("envelope version {} has no binary form", self.v)))?;
        let nonce = B64.decode(&self.n).ok().filter(|n| n.len() == NONCE_LEN);
        let tag = B64.decode(&self.t).ok().filter(|t| t.len() == TAG_LEN);
        let (Some(nonce), Some(tag), Ok(ct)) = (nonce, tag, B64.decode(&self.c)) else {
            return Err(Error::corrupt("envelope fields are not base64 of the expected lengths"));
        };
        let mut out = Vec::with_capacity(BINARY_OVERHEAD + ct.len());
        out.push(v);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&ct);
        out.extend_from_slice(&tag);
        Ok(out)
    }

    /// Parse the binary form (no key needed). Errors: `Corrupt` when it is
    /// shorter than [`BINARY_OVERHEAD`] or its version byte is 0.
    pub fn from_binary(bytes: &[u8]) -> Result<Self> {
        let (v, nonce, ct, tag) = split_binary(bytes)?;
        Ok(EncryptedField {
            n: B64.encode(nonce),
            c: B64.encode(ct),
            t: B64.encode(tag),
            v: u32::from(v),
            alg: ALG_AES_256_GCM.to_string(),
        })
    }
}

/// `(v, nonce, ciphertext, tag)` of a binary envelope.
fn split_binary(bytes: &[u8]) -> Result<(u8, &[u8; NONCE_LEN], &[u8], &[u8; TAG_LEN])> {
    if bytes.len() < BINARY_OVERHEAD || bytes[0] == 0 {
        return Err(Error::corrupt(format!("not a binary EncryptedField envelope ({} bytes)", bytes.len())));
    }
    let (head, tag) = bytes.split_at(bytes.len() - TAG_LEN);
    let nonce = head[1..1 + NONCE_LEN].try_into().expect("length checked");
    Ok((bytes[0], nonce, &head[1 + NONCE_LEN..], tag.try_into().expect("length checked")))
}

/// Seal `plaintext` for `record_id` in the binary form with a fresh random
/// nonce. With `compress`, a plaintext of [`COMPRESS_MIN_BYTES`] or more is
/// compressed with zstd (level [`ZSTD_LEVEL`]) and sealed as version 2 when
/// that is smaller; everything else is version 1.
///
/// Output length: `BINARY_OVERHEAD + min(len, compressed len)` bytes.
pub fn seal(key: &DataKey, record_id: &str, plaintext: &[u8], compress: bool) -> Vec<u8> {
    let mut compressed = if compress && plaintext.len() >= COMPRESS_MIN_BYTES {
        zstd_compress(plaintext).filter(|c| c.len() < plaintext.len()).map(Zeroizing::new)
    } else {
        None
    };
    let (v, body): (u32, &[u8]) = match &mut compressed {
        Some(c) => (ENVELOPE_VERSION_ZSTD, c.as_slice()),
        None => (ENVELOPE_VERSION, plaintext),
    };
    let mut nonce = [0u8; NONCE_LEN];
    rand::rng().fill_bytes(&mut nonce);
    let aad = AadBytes::new(record_id, v, ALG_AES_256_GCM);
    let mut out = Vec::with_capacity(BINARY_OVERHEAD + body.len());
    out.push(v as u8);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(body);
    let tag = key
        .cipher()
        .seal_in_place_separate_tag(Nonce::assume_unique_for_key(nonce), Aad::from(aad.as_bytes()), &mut out[1 + NONCE_LEN..])
        .expect("AES-GCM encryption cannot fail below 64 GiB");
    out.extend_from_slice(tag.as_ref());
    out
}

/// Open an envelope in either form (JSON text or binary, told apart by the
/// first byte: `{` starts the JSON form, a version byte the binary one) and
/// return the plaintext, decompressed for version 2.
///
/// Errors: `Corrupt` (naming `record_id`) for bytes that are no envelope,
/// an unknown version or algorithm, or a version-2 plaintext that is not a
/// zstd frame of at most [`MAX_DECOMPRESSED_BYTES`]; `AuthenticationFailed`
/// when the tag does not verify (altered, or another record's envelope).
pub fn open_any(key: &DataKey, record_id: &str, bytes: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    if bytes.first() == Some(&b'{') {
        let field: EncryptedField = serde_json::from_slice(bytes)
            .map_err(|_| Error::corrupt(format!("record `{record_id}` is not an EncryptedField envelope ({} bytes)", bytes.len())))?;
        return decrypt_field(key, record_id, &field);
    }
    let (v, nonce, ct, tag) = split_binary(bytes)
        .map_err(|_| Error::corrupt(format!("record `{record_id}` is not an EncryptedField envelope ({} bytes)", bytes.len())))?;
    let v = u32::from(v);
    if v != ENVELOPE_VERSION && v != ENVELOPE_VERSION_ZSTD {
        return Err(Error::corrupt(format!("unknown envelope version {v} for record `{record_id}`")));
    }
    let aad = AadBytes::new(record_id, v, ALG_AES_256_GCM);
    let plain = open_detached(key, nonce, aad.as_bytes(), ct, tag)
        .map_err(|_| Error::AuthenticationFailed { record: record_id.to_string() })?;
    finish_plaintext(v, plain, record_id)
}

/// Undo the compression of a version-2 plaintext.
fn finish_plaintext(v: u32, plain: Zeroizing<Vec<u8>>, record_id: &str) -> Result<Zeroizing<Vec<u8>>> {
    if v == ENVELOPE_VERSION {
        return Ok(plain);
    }
    let bad = || Error::corrupt(format!("record `{record_id}`: the compressed plaintext is not a zstd frame of at most {MAX_DECOMPRESSED_BYTES} bytes"));
    let size = match zstd::zstd_safe::get_frame_content_size(&plain) {
        Ok(Some(n)) if n <= MAX_DECOMPRESSED_BYTES as u64 => n as usize,
        _ => return Err(bad()),
    };
    let mut out = Zeroizing::new(Vec::with_capacity(size));
    ZSTD_DECOMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(zstd::bulk::Decompressor::new().map_err(|_| bad())?);
        }
        let d = slot.as_mut().expect("set above");
        match d.decompress_to_buffer(&plain[..], &mut *out) {
            Ok(_) => Ok(()),
            Err(_) => {
                // A failed frame may leave the context mid-frame: start the next one afresh.
                *slot = None;
                Err(bad())
            }
        }
    })?;
    if out.len() != size {
        return Err(bad());
    }
    Ok(out)
}

thread_local! {
    /// One zstd decompression context per thread, reused: creating a context
    /// costs more than decompressing a 1 KiB body (measured: 14.6 µs per
    /// call with a new context, 2.1 µs reused, for a 1,080-byte body).
    static ZSTD_DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { std::cell::RefCell::new(None) };
    /// One zstd compression context (level [`ZSTD_LEVEL`]) per thread, reused
    /// (measured: 18.4 µs per call with a new context, 5.3 µs reused).
    static ZSTD_COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> = const { std::cell::RefCell::new(None) };
}

/// `plaintext` compressed at [`ZSTD_LEVEL`] with this thread's context;
/// `None` if zstd fails (the caller then stores it uncompressed).
fn zstd_compress(plaintext: &[u8]) -> Option<Vec<u8>> {
    ZSTD_COMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(zstd::bulk::Compressor::new(ZSTD_LEVEL).ok()?);
        }
        match slot.as_mut().expect("set above").compress(plaintext) {
            Ok(c) => Some(c),
            Err(_) => {
                *slot = None;
                None
            }
        }
    })
}

/// The AAD bound to a record: `recordId + ":v" + version + ":" + alg`.
pub fn aad_for(record_id: &str, version: u32, alg: &str) -> String {
    // Not `format!`ed: the formatting machinery cost ~1,200 instructions a
    // call (issue 33 item 1's read of 10,000 entries). The seal and open
    // paths use `AadBytes` directly (no allocation).
    String::from_utf8(AadBytes::new(record_id, version, alg).as_bytes().to_vec()).expect("UTF-8 parts")
}

/// The bytes of [`aad_for`] without a heap allocation when they fit in
/// [`AadBytes::STACK`] bytes (record ids are short): what every seal and
/// open of a field builds, one per entry read or written.
pub(crate) struct AadBytes {
    stack: [u8; AadBytes::STACK],
    len: usize,
    /// The AAD when it does not fit on the stack (empty otherwise).
    heap: Vec<u8>,
}

impl AadBytes {
    /// Bytes held without an allocation.
    const STACK: usize = 160;

    /// The AAD of `record_id` (see [`aad_for`]).
    pub(crate) fn new(record_id: &str, version: u32, alg: &str) -> Self {
        let mut digits = [0u8; 20];
        let parts: [&[u8]; 5] = [record_id.as_bytes(), b":v", decimal(u64::from(version), &mut digits), b":", alg.as_bytes()];
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let mut out = AadBytes { stack: [0; Self::STACK], len, heap: Vec::new() };
        if len > Self::STACK {
            out.heap = parts.concat();
        } else {
            let mut at = 0;
            for p in parts {
                out.stack[at..at + p.len()].copy_from_slice(p);
                at += p.len();
            }
        }
        out
    }

    /// The AAD's bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        if self.len > Self::STACK {
            &self.heap
        } else {
            &self.stack[..self.len]
        }
    }
}

/// Append `n` in decimal to `out` (what `write!(out, "{n}")` writes).
pub fn push_decimal(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    out.push_str(std::str::from_utf8(decimal(n, &mut digits)).expect("ASCII digits"));
}

/// `n`'s decimal digits (what `Display` writes), written at the end of
/// `buf`; the returned slice is them.
pub fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// Encrypt `plaintext` for `record_id` with a fresh random nonce.
///
/// The nonce comes from `rand::rng()`, a ChaCha12 CSPRNG seeded from
/// the OS and reseeded periodically (rand 0.8 `ThreadRng`), which avoids a
/// system call per field. NIST SP 800-38D §8.3 bounds random 96-bit nonces
/// to 2^32 encryptions per key, far above what one user's store writes.
pub fn encrypt_field(key: &DataKey, record_id: &str, plaintext: &[u8]) -> EncryptedField {
    let mut nonce = [0u8; NONCE_LEN];
    rand::rng().fill_bytes(&mut nonce);
    encrypt_field_with_nonce(key, record_id, plaintext, &nonce)
}

/// Encrypt with a caller-chosen nonce. Only for test vectors and interop
/// tests: reusing a nonce under one key breaks GCM. Everything else calls
/// [`encrypt_field`].
pub fn encrypt_field_with_nonce(
    key: &DataKey,
    record_id: &str,
    plaintext: &[u8],
    nonce: &[u8; NONCE_LEN],
) -> EncryptedField {
    let aad = AadBytes::new(record_id, ENVELOPE_VERSION, ALG_AES_256_GCM);
    let (mut buf, tag) = seal_detached(key, nonce, aad.as_bytes(), plaintext);
    let out = EncryptedField {
        n: B64.encode(nonce),
        c: B64.encode(&buf),
        t: B64.encode(tag),
        v: ENVELOPE_VERSION,
        alg: ALG_AES_256_GCM.to_string(),
    };
    buf.zeroize();
    out
}

/// Decrypt an envelope written for `record_id` (version 2: decompressed).
///
/// Errors: `Corrupt` for an unknown version/algorithm or bad base64/lengths;
/// `AuthenticationFailed` when the tag does not verify (any flipped byte,
/// or a ciphertext moved to another record id).
pub fn decrypt_field(key: &DataKey, record_id: &str, field: &EncryptedField) -> Result<Zeroizing<Vec<u8>>> {
    if field.alg != ALG_AES_256_GCM {
        return Err(Error::corrupt(format!("unknown envelope algorithm for record `{record_id}`")));
    }
    if field.v != ENVELOPE_VERSION && field.v != ENVELOPE_VERSION_ZSTD {
        return Err(Error::corrupt(format!("unknown envelope version {} for record `{record_id}`", field.v)));
    }
    let bad = |what: &str| Error::corrupt(format!("bad envelope {what} for record `{record_id}`"));
    let nonce = B64.decode(&field.n).map_err(|_| bad("nonce"))?;
    let tag = B64.decode(&field.t).map_err(|_| bad("tag"))?;
    if nonce.len() != NONCE_LEN {
        return Err(bad("nonce length"));
    }
    if tag.len() != TAG_LEN {
        return Err(bad("tag length"));
    }
    let ct = B64.decode(&field.c).map_err(|_| bad("ciphertext"))?;
    let aad = AadBytes::new(record_id, field.v, &field.alg);
    let nonce: [u8; NONCE_LEN] = nonce.try_into().expect("length checked");
    let tag: [u8; TAG_LEN] = tag.try_into().expect("length checked");
    let plain = open_detached(key, &nonce, aad.as_bytes(), &ct, &tag)
        .map_err(|_| Error::AuthenticationFailed { record: record_id.to_string() })?;
    finish_plaintext(field.v, plain, record_id)
}

/// Raw AES-256-GCM encryption with a detached 16-byte tag: the primitive
/// under [`encrypt_field`], exposed for standard test vectors (Wycheproof).
pub fn seal_detached(key: &DataKey, nonce: &[u8; NONCE_LEN], aad: &[u8], plaintext: &[u8]) -> (Vec<u8>, [u8; TAG_LEN]) {
    let mut buf = plaintext.to_vec();
    let tag = key
        .cipher()
        .seal_in_place_separate_tag(Nonce::assume_unique_for_key(*nonce), Aad::from(aad), &mut buf)
        .expect("AES-GCM encryption cannot fail below 64 GiB");
    (buf, tag.as_ref().try_into().expect("a GCM tag is 16 bytes"))
}

/// Raw AES-256-GCM decryption with a detached tag: the primitive under
/// [`decrypt_field`]. Errors: `AuthenticationFailed` (record `<raw>`) when
/// the tag does not verify.
pub fn open_detached(
    key: &DataKey,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    ciphertext: &[u8],
    tag: &[u8; TAG_LEN],
) -> Result<Zeroizing<Vec<u8>>> {
    let mut buf = Zeroizing::new(ciphertext.to_vec());
    key.cipher()
        .open_in_place_separate_tag(Nonce::assume_unique_for_key(*nonce), Aad::from(aad), Tag::from(*tag), buf.as_mut_slice(), 0..)
        .map_err(|_| Error::AuthenticationFailed { record: "<raw>".to_string() })?;
    Ok(buf)
}

/// Encrypt a UTF-8 string and return the envelope's JSON text, exactly what
/// `encrypt_field(..).to_json()` gives, built in one buffer: the base64
/// fields are encoded straight into the output and never scanned for
/// characters that need JSON escaping (standard base64 has none).
pub fn seal_str(key: &DataKey, record_id: &str, plaintext: &str) -> String {
    let mut nonce = [0u8; NONCE_LEN];
    rand::rng().fill_bytes(&mut nonce);
    let aad = AadBytes::new(record_id, ENVELOPE_VERSION, ALG_AES_256_GCM);
    let (mut ct, tag) = seal_detached(key, &nonce, aad.as_bytes(), plaintext.as_bytes());
    let mut out = String::with_capacity(ct.len().div_ceil(3) * 4 + 96);
    out.push_str("{\"n\":\"");
    B64.encode_string(nonce, &mut out);
    out.push_str("\",\"c\":\"");
    B64.encode_string(&ct, &mut out);
    out.push_str("\",\"t\":\"");
    B64.encode_string(tag, &mut out);
    out.push_str("\",\"v\":");
    out.push_str(&ENVELOPE_VERSION.to_string());
    out.push_str(",\"alg\":\"");
    out.push_str(ALG_AES_256_GCM);
    out.push_str("\"}");
    ct.zeroize();
    out
}

/// Parse and decrypt an envelope's JSON text into a UTF-8 string.
/// Errors: as [`decrypt_field`], plus `Corrupt` (naming `record_id`) for
/// text that is no envelope and for non-UTF-8 plaintext.
pub fn open_str(key: &DataKey, record_id: &str, envelope_json: &str) -> Result<String> {
    open_bytes(key, record_id, envelope_json.as_bytes())
}

/// [`open_str`] over the raw bytes of a column, TEXT or BLOB alike, in
/// either envelope form ([`open_any`]): bytes that are no envelope (NUL
/// bytes, an empty string, a zeroed BLOB) are `Corrupt` naming `record_id`;
/// another record's envelope is `AuthenticationFailed` naming it.
pub fn open_bytes(key: &DataKey, record_id: &str, envelope: &[u8]) -> Result<String> {
    let mut bytes = open_any(key, record_id, envelope)?;
    // The plaintext moves into the String (no second copy of a 200 MB
    // entry); plaintext that is not UTF-8 is wiped before it is dropped.
    String::from_utf8(std::mem::take(&mut *bytes)).map_err(|e| {
        e.into_bytes().zeroize();
        Error::corrupt(format!("record `{record_id}` is not UTF-8"))
    })
}

/// [`open_bytes`] of an envelope the caller owns: a binary version-1
/// envelope is decrypted in place in its own buffer, which becomes the
/// `String` (no second buffer and copy per entry read); any other form goes
/// through [`open_bytes`]. Plaintext that fails (tag or UTF-8) is wiped.
/// Errors: those of [`open_bytes`].
pub fn open_owned(key: &DataKey, record_id: &str, mut envelope: Vec<u8>) -> Result<String> {
    let Ok((1, nonce, _, tag)) = split_binary(&envelope) else {
        return open_bytes(key, record_id, &envelope);
    };
    let (nonce, tag) = (*nonce, *tag);
    let aad = AadBytes::new(record_id, ENVELOPE_VERSION, ALG_AES_256_GCM);
    let end = envelope.len() - TAG_LEN;
    let opened = key
        .cipher()
        .open_in_place_separate_tag(Nonce::assume_unique_for_key(nonce), Aad::from(aad.as_bytes()), Tag::from(tag), &mut envelope[1 + NONCE_LEN..end], 0..)
        .is_ok();
    if !opened {
        envelope.zeroize();
        return Err(Error::AuthenticationFailed { record: record_id.to_string() });
    }
    envelope.truncate(end);
    envelope.drain(..1 + NONCE_LEN);
    String::from_utf8(envelope).map_err(|e| {
        e.into_bytes().zeroize();
        Error::corrupt(format!("record `{record_id}` is not UTF-8"))
    })
}

/// [`open_bytes`] appending the plaintext to `out` instead of returning it:
/// a binary version-1 envelope is decrypted in place at the end of `out`,
/// with no buffer of its own and no second copy (a page read of many
/// entries, `get_entry_items`); any other form goes through
/// [`open_bytes`]. The bytes appended are checked to be UTF-8. On an error
/// `out` is left as it was (the bytes written meanwhile wiped).
/// Errors: those of [`open_bytes`].
pub fn open_append(key: &DataKey, record_id: &str, envelope: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let Ok((1, nonce, ct, tag)) = split_binary(envelope) else {
        out.extend_from_slice(open_bytes(key, record_id, envelope)?.as_bytes());
        return Ok(());
    };
    let aad = AadBytes::new(record_id, ENVELOPE_VERSION, ALG_AES_256_GCM);
    let start = out.len();
    out.extend_from_slice(ct);
    let opened = key
        .cipher()
        .open_in_place_separate_tag(Nonce::assume_unique_for_key(*nonce), Aad::from(aad.as_bytes()), Tag::from(*tag), &mut out[start..], 0..)
        .is_ok();
    let failed = if !opened {
        Some(Error::AuthenticationFailed { record: record_id.to_string() })
    } else if std::str::from_utf8(&out[start..]).is_err() {
        Some(Error::corrupt(format!("record `{record_id}` is not UTF-8")))
    } else {
        None
    };
    if let Some(e) = failed {
        out[start..].zeroize();
        out.truncate(start);
        return Err(e);
    }
    Ok(())
}

/// Workspace binding index: lowercase hex HMAC-SHA-256(data key, canonical path).
///
/// Source: seed 000, "Workspace Binding Index". The caller passes the
/// canonical path ([`crate::paths::canonical_workspace`]).
pub fn workspace_index(key: &DataKey, canonical_path: &str) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key.0).expect("HMAC takes any key length");
    mac.update(canonical_path.as_bytes());
    hex(&mac.finalize().into_bytes())
}

/// Keyed hash for equality lookups of other values (import source files),
/// domain-separated from the workspace index by `domain`: lowercase hex of
/// [`keyed_digest`] (64 characters).
pub fn keyed_hash(key: &DataKey, domain: &str, value: &[u8]) -> String {
    hex(&keyed_digest(key, domain, value))
}

/// HMAC-SHA-256(data key, `domain` ‖ 0x00 ‖ `value`): 32 bytes. The binary
/// form of [`keyed_hash`]; the import's record identities keep its first 16
/// bytes (`import_records`, schema version 5).
pub fn keyed_digest(key: &DataKey, domain: &str, value: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key.0).expect("HMAC takes any key length");
    mac.update(domain.as_bytes());
    mac.update(&[0]);
    mac.update(value);
    mac.finalize().into_bytes().into()
}

/// [`keyed_digest`] of many values under one key and domain: the HMAC's
/// keyed state with `domain ‖ 0x00` absorbed is made once, and each
/// [`KeyedDigester::digest`] continues a copy of it (two SHA-256 blocks a
/// value less than [`keyed_digest`], the same 32 bytes). It holds a state
/// derived from the data key: keep it no longer than the work it serves
/// (the import keeps one per file).
#[derive(Clone)]
pub struct KeyedDigester {
    mac: Hmac<Sha256>,
}

impl KeyedDigester {
    /// The digester of `key` and `domain`. Pure; no error.
    pub fn new(key: &DataKey, domain: &str) -> Self {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key.0).expect("HMAC takes any key length");
        mac.update(domain.as_bytes());
        mac.update(&[0]);
        KeyedDigester { mac }
    }

    /// `keyed_digest(key, domain, parts[0] ‖ parts[1] ‖ ...)`: the value may
    /// come in pieces (no copy to join them).
    pub fn digest(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = self.mac.clone();
        for p in parts {
            mac.update(p);
        }
        mac.finalize().into_bytes().into()
    }
}

/// HKDF-SHA-256 (RFC 5869) of `key` with `salt` and the label `info`: a
/// 32-byte key for one purpose alone, never the input key itself. The
/// search index derives its key with [`SEARCH_INDEX_KEY_INFO`] from the data
/// key, and each index file's key from that with the file's random salt
/// (`crate::search`). Pure; no error.
pub fn derive_key(key: &DataKey, salt: &[u8], info: &str) -> DataKey {
    let hk = hkdf::Hkdf::<Sha256>::new(Some(salt), &key.0);
    let mut out = [0u8; KEY_LEN];
    hk.expand(info.as_bytes(), &mut out).expect("32 bytes is a valid HKDF-SHA-256 output length");
    let k = DataKey(out, std::sync::OnceLock::new());
    out.zeroize();
    k
}

/// HKDF info label of the search index key (derived from the data key).
pub const SEARCH_INDEX_KEY_INFO: &str = "sessiondb search index v1";

/// Fill `buf` from the OS CSPRNG.
pub fn random_bytes(buf: &mut [u8]) {
    os_random(buf);
}

/// Lowercase hex of `bytes`, two digits a byte.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        // Lowercase, two digits a byte (what `{:02x}` wrote, without the
        // formatter: ~40 instructions a byte less).
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

#[cfg(test)]
mod tests;
