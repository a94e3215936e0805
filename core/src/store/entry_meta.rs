//! The sealed form of an entry's metadata (`EntryMeta::extra` and
//! `EntryMeta::item`, record `transcript:<sid>:<seq>:meta`): what
//! [`encode_meta`] seals and [`split_meta`] / [`decode_meta`] read back, in
//! every form a schema has written (docs/format.md; schema 3, schema 8).

use super::EntryMeta;
use crate::error::{Error, Result};

/// Record id (AAD) of an entry's encrypted source metadata (`EntryMeta::extra`).
pub(crate) fn meta_record(sid: &str, seq: u64) -> String {
    let mut rec = String::new();
    write_meta_record(&mut rec, sid, seq);
    rec
}

/// [`meta_record`] written into `out` (a read of a page reuses one buffer).
pub(crate) fn write_meta_record(out: &mut String, sid: &str, seq: u64) {
    out.push_str("transcript:");
    out.push_str(sid);
    out.push(':');
    crate::crypto::push_decimal(out, seq);
    out.push_str(":meta");
}

/// The first character of the metadata form that holds the item as written
/// (schema version 8): U+0001, which no JSON text starts with.
const ITEM_FORM: char = '\u{1}';

/// The sealed plaintext of an entry's metadata (see [`EntryMeta`]): `None`
/// when there is nothing to seal (empty `extra`, no `item`), the JSON object
/// `extra` without an item (the schema v3 form), else (schema v8) U+0001,
/// the JSON object `extra`, a line feed and the item's JSON text as written:
/// compact JSON never holds a raw line feed, so the first one ends `extra`,
/// and the item is neither escaped on write nor unescaped on read.
pub(crate) fn encode_meta(m: &EntryMeta) -> Option<String> {
    match &m.item {
        None if m.extra.is_empty() => None,
        None => Some(serde_json::to_string(&m.extra).expect("a JSON map serializes")),
        Some(item) => {
            let extra = serde_json::to_string(&m.extra).expect("a JSON map serializes");
            let mut out = String::with_capacity(extra.len() + item.len() + 2);
            out.push(ITEM_FORM);
            out.push_str(&extra);
            out.push('\n');
            out.push_str(item);
            Some(out)
        }
    }
}

/// What a sealed metadata plaintext holds, borrowed from it where it can
/// be: the JSON text of `extra` (to parse when wanted) and the item's JSON text.
pub(crate) struct MetaParts<'a> {
    extra: Extra<'a>,
    /// The structured item's JSON text, as appended.
    pub item: Option<std::borrow::Cow<'a, str>>,
}

/// `extra` as its JSON text, or already parsed (the older array form).
enum Extra<'a> {
    Text(&'a str),
    Parsed(serde_json::Map<String, serde_json::Value>),
}

impl MetaParts<'_> {
    /// `extra` parsed. Errors: `Corrupt` (record `rec`).
    pub(crate) fn extra(self, rec: &str) -> Result<serde_json::Map<String, serde_json::Value>> {
        match self.extra {
            Extra::Text(t) => serde_json::from_str(t).map_err(|_| bad_meta(rec)),
            Extra::Parsed(m) => Ok(m),
        }
    }
}

fn bad_meta(rec: &str) -> Error {
    Error::corrupt(format!("record `{rec}`: transcript entry metadata is none of the forms encode_meta writes"))
}

/// Where the item starts in a plaintext of the U+0001 form (schema 8):
/// `Ok(Some(offset))` after `extra` and its line feed; `Ok(None)` for the
/// other forms (read them with [`split_meta`]). Errors: `Corrupt` (record
/// `rec`) for the U+0001 form without its line feed.
pub(crate) fn item_offset(text: &[u8], rec: &str) -> Result<Option<usize>> {
    if text.first() != Some(&(ITEM_FORM as u8)) {
        return Ok(None);
    }
    text.iter().position(|&b| b == b'\n').map(|nl| Some(nl + 1)).ok_or_else(|| bad_meta(rec))
}

/// Split what [`encode_meta`] sealed (any of its forms: `extra` alone,
/// the older `[extra, item]` array with the item as a JSON string, or the
/// U+0001 form) into its parts; only the older array form is parsed here.
/// Errors: `Corrupt` (record `rec`) for anything else.
pub(crate) fn split_meta<'a>(text: &'a str, rec: &str) -> Result<MetaParts<'a>> {
    use std::borrow::Cow;
    if let Some(rest) = text.strip_prefix(ITEM_FORM) {
        let (extra, item) = rest.split_once('\n').ok_or_else(|| bad_meta(rec))?;
        Ok(MetaParts { extra: Extra::Text(extra), item: Some(Cow::Borrowed(item)) })
    } else if text.starts_with('[') {
        let (extra, item): (serde_json::Map<String, serde_json::Value>, String) = serde_json::from_str(text).map_err(|_| bad_meta(rec))?;
        Ok(MetaParts { extra: Extra::Parsed(extra), item: Some(Cow::Owned(item)) })
    } else {
        Ok(MetaParts { extra: Extra::Text(text), item: None })
    }
}

/// Read back what [`encode_meta`] sealed: `(extra, item)`.
/// Errors: `Corrupt` (record `rec`) for anything else.
pub(crate) fn decode_meta(text: &str, rec: &str) -> Result<(serde_json::Map<String, serde_json::Value>, Option<String>)> {
    let mut parts = split_meta(text, rec)?;
    let item = parts.item.take().map(|i| i.into_owned());
    Ok((parts.extra(rec)?, item))
}
