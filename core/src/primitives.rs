//! The envelope and key primitives as a host calls them: key bytes, JSON
//! envelope text and plaintext bytes in, text and bytes out. Every host
//! exposes these functions (declared once in `bridge/api.rs`) so the crypto
//! conformance cases (`tests/conformance/crypto/`) run unchanged in each;
//! the store itself uses [`crate::crypto`] and [`crate::keys`] directly.
//!
//! Formats: the envelope v1 of DESIGN.md "Encryption" (JSON form of
//! [`EncryptedField`]); the recovery key of DESIGN.md "Recovery keys".

use crate::crypto::{self, EncryptedField};
use crate::error::Result;
use crate::crypto::DataKey;
use crate::keys;

/// The AAD of an envelope v1 for `record_id`: `record_id:v1:aes-256-gcm`.
pub fn envelope_aad(record_id: &str) -> String {
    crypto::aad_for(record_id, crypto::ENVELOPE_VERSION, crypto::ALG_AES_256_GCM)
}

/// Encrypt `plaintext` for `record_id` under the 32-byte `key` with a
/// fresh random nonce; returns the envelope's JSON text.
///
/// The nonce is 96 random bits.
///
/// # Errors
/// `InvalidInput` unless `key` is 32 bytes.
pub fn encrypt_field(key: &[u8], record_id: &str, plaintext: &[u8]) -> Result<String> {
    Ok(crypto::encrypt_field(&DataKey::from_bytes(key)?, record_id, plaintext).to_json())
}

/// Decrypt an envelope (JSON text) written for `record_id`; returns the
/// plaintext bytes.
///
/// # Errors
/// `InvalidInput` (key not 32 bytes), `Corrupt` (not an envelope),
/// `AuthenticationFailed` (wrong key, altered or moved envelope).
pub fn decrypt_field(key: &[u8], record_id: &str, envelope_json: &str) -> Result<Vec<u8>> {
    let key = DataKey::from_bytes(key)?;
    let field = EncryptedField::from_json(envelope_json)?;
    Ok(crypto::decrypt_field(&key, record_id, &field)?.to_vec())
}

/// The workspace index of an already canonical path: lowercase hex of
/// HMAC-SHA-256 under the index subkey of the 32-byte `key`.
///
/// See [`crypto::workspace_index`].
///
/// # Errors
/// `InvalidInput` unless `key` is 32 bytes.
pub fn workspace_index(key: &[u8], canonical_path: &str) -> Result<String> {
    Ok(crypto::workspace_index(&DataKey::from_bytes(key)?, canonical_path))
}

/// The recovery key text of a 32-byte data key: base32 (RFC 4648) of the
/// key and a 3-byte checksum, 56 characters in 14 groups of 4 joined by `-`.
///
/// See [`keys::recovery_key_text`].
///
/// # Errors
/// `InvalidInput` unless `key` is 32 bytes.
pub fn recovery_key_text(key: &[u8]) -> Result<String> {
    Ok(keys::recovery_key_text(&DataKey::from_bytes(key)?))
}

/// The 32-byte data key of a recovery key (any case; whitespace and `-`
/// ignored); "recovery key checksum mismatch" for a mistyped key.
///
/// # Errors
/// `InvalidInput`: "recovery key checksum mismatch" for a mistyped key, or
/// the wrong length or character.
pub fn parse_recovery_key(text: &str) -> Result<Vec<u8>> {
    Ok(keys::parse_recovery_key(text)?.expose_bytes().to_vec())
}
