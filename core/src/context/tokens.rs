//! Token counts: a real tokenizer where the model family publishes one, a
//! documented estimate elsewhere, and a host-supplied count always wins.
//!
//! Source: DESIGN.md, "Context governance" (token counts).
//!
//! Model name → encoding (case-insensitive, after stripping a leading
//! `openai/` and a fine-tune `ft:` prefix; see [`encoding_for_model`]):
//!
//! | model name | encoding |
//! |---|---|
//! | `gpt-4o…`, `chatgpt-4o…`, `gpt-4.1…`, `gpt-4.5…`, `gpt-5…`, `o1`, `o3`, `o4…` (alone or followed by `-`), `codex-mini…` | `o200k_base` |
//! | any other `gpt-4…`, `gpt-3.5…`, `gpt-35…`, `text-embedding-3…`, `text-embedding-ada-002` | `cl100k_base` |
//! | everything else (Claude, Gemini, Llama, local models, `""`) | estimate |
//!
//! Estimate: `⌈UTF-8 bytes / 3⌉` tokens. It is deliberately conservative
//! (over-counts English prose, which averages about 4 bytes per token, by
//! ~25%, and counts CJK at one token per character and a 4-byte emoji as 2),
//! so an estimated context compacts early rather than overflowing the
//! provider.

use serde::{Deserialize, Serialize};

/// Bytes per token of the estimate: `tokens = ⌈utf8_bytes / ESTIMATE_BYTES_PER_TOKEN⌉`.
pub const ESTIMATE_BYTES_PER_TOKEN: u64 = 3;

/// A tiktoken encoding shipped with tiktoken-rs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series).
    O200kBase,
    /// `cl100k_base` (GPT-4, GPT-3.5, text-embedding-3).
    Cl100kBase,
}

impl Encoding {
    /// The encoding's name: `o200k_base` or `cl100k_base`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }
}

/// How a [`TokenCount`] was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum CountMethod {
    /// Counted with the model's own tokenizer (ordinary encoding: special-token
    /// text such as `<|endoftext|>` is counted as plain text).
    Exact {
        /// The encoding used.
        encoding: Encoding,
    },
    /// `⌈UTF-8 bytes / 3⌉` (see the module docs).
    Estimate,
    /// The host supplied the count (e.g. the provider's own `usage` numbers).
    Host,
}

/// A token count and how it was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCount {
    /// Number of tokens.
    pub tokens: u64,
    /// How `tokens` was obtained.
    #[serde(flatten)]
    pub method: CountMethod,
}

/// The tiktoken encoding of a model name, per the table in the module docs;
/// `None` when the family publishes no tokenizer shipped with tiktoken-rs.
pub fn encoding_for_model(model: &str) -> Option<Encoding> {
    let lower = model.trim().to_ascii_lowercase();
    let mut m = lower.as_str();
    m = m.strip_prefix("openai/").unwrap_or(m);
    m = m.strip_prefix("ft:").unwrap_or(m);
    let o_series = |p: &str| m.strip_prefix(p).is_some_and(|rest| rest.is_empty() || rest.starts_with('-'));
    const O200K_PREFIXES: [&str; 6] = ["gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "codex-mini"];
    const CL100K_PREFIXES: [&str; 5] = ["gpt-4", "gpt-3.5", "gpt-35", "text-embedding-3", "text-embedding-ada-002"];
    if O200K_PREFIXES.iter().any(|p| m.starts_with(p)) || ["o1", "o3", "o4", "o4-mini"].iter().any(|p| o_series(p)) {
        Some(Encoding::O200kBase)
    } else if CL100K_PREFIXES.iter().any(|p| m.starts_with(p)) {
        Some(Encoding::Cl100kBase)
    } else {
        None
    }
}

/// The documented estimate: `⌈UTF-8 bytes / 3⌉` tokens (0 for empty text).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(ESTIMATE_BYTES_PER_TOKEN)
}

/// Count `text` with a resolved encoding (`None`: the estimate), without a host count.
pub(crate) fn count_with(encoding: Option<Encoding>, text: &str) -> u64 {
    match encoding {
        Some(Encoding::O200kBase) => tiktoken_rs::o200k_base_singleton().count_ordinary(text) as u64,
        Some(Encoding::Cl100kBase) => tiktoken_rs::cl100k_base_singleton().count_ordinary(text) as u64,
        None => estimate_tokens(text),
    }
}

/// Count the tokens of `text` for `model`.
///
/// * `host_count`: a count the host already has (e.g. from the provider's
///   response); when `Some`, it is returned as is with [`CountMethod::Host`].
/// * otherwise the model's encoding (module docs) counts exactly
///   ([`CountMethod::Exact`]), or the estimate `⌈UTF-8 bytes / 3⌉` applies
///   ([`CountMethod::Estimate`]).
///
/// Never fails; the tokenizer tables ship inside tiktoken-rs (no network).
pub fn count_tokens(model: &str, text: &str, host_count: Option<u64>) -> TokenCount {
    if let Some(tokens) = host_count {
        return TokenCount { tokens, method: CountMethod::Host };
    }
    let encoding = encoding_for_model(model);
    let tokens = count_with(encoding, text);
    match encoding {
        Some(encoding) => TokenCount { tokens, method: CountMethod::Exact { encoding } },
        None => TokenCount { tokens, method: CountMethod::Estimate },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_map_to_documented_encodings() {
        for m in ["gpt-4o", "gpt-4o-mini", "GPT-4.1-nano", "gpt-5", "o1", "o3-mini", "o4-mini", "openai/gpt-4o", "ft:gpt-4o-2024-08-06:org::x"] {
            assert_eq!(encoding_for_model(m), Some(Encoding::O200kBase), "{m}");
        }
        for m in ["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo", "text-embedding-3-small"] {
            assert_eq!(encoding_for_model(m), Some(Encoding::Cl100kBase), "{m}");
        }
        for m in ["claude-sonnet-4", "o10", "gemini-2.5-pro", ""] {
            assert_eq!(encoding_for_model(m), None, "{m}");
        }
    }

    #[test]
    fn host_count_always_wins() {
        assert_eq!(count_tokens("gpt-4o", "hello world", Some(7)), TokenCount { tokens: 7, method: CountMethod::Host });
    }

    #[test]
    fn exact_counts_use_tiktoken() {
        assert_eq!(
            count_tokens("gpt-4o", "hello world", None),
            TokenCount { tokens: 2, method: CountMethod::Exact { encoding: Encoding::O200kBase } }
        );
        assert_eq!(
            count_tokens("gpt-4", "hello world", None),
            TokenCount { tokens: 2, method: CountMethod::Exact { encoding: Encoding::Cl100kBase } }
        );
    }

    #[test]
    fn estimate_is_ceil_bytes_over_three() {
        assert_eq!(count_tokens("claude-sonnet-4", "", None).tokens, 0);
        assert_eq!(count_tokens("claude-sonnet-4", "abcd", None).tokens, 2);
        assert_eq!(count_tokens("claude-sonnet-4", "日本語", None).tokens, 3);
        assert_eq!(count_tokens("claude-sonnet-4", "😀", None).tokens, 2);
    }
}
