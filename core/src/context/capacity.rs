//! Effective Context Capacity: how many tokens of input a model may be sent.
//!
//! Source: seed 000, "Context Utilization Meter":
//!
//! ```text
//! Effective Context Capacity = raw context limit
//!   − max(configured output reserve, 8% of raw limit)
//!   − max(2,048 tokens, 2% of raw limit)
//! ```
//!
//! All math is integer; the percentages are rounded **up**
//! (`⌈8% raw⌉ = (raw·8 + 99) / 100`), so the capacity is never overstated.
//! For a 128,000-token window with no configured reserve:
//! `128,000 − 10,240 − 2,560 = 115,200`.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Minimum safety margin of the formula (tokens): `max(2,048, ⌈2% raw⌉)`.
pub const MIN_SAFETY_MARGIN_TOKENS: u64 = 2048;
/// Output-reserve floor, percent of the raw window: `max(reserve, ⌈8% raw⌉)`.
pub const OUTPUT_RESERVE_FLOOR_PERCENT: u64 = 8;
/// Safety-margin floor, percent of the raw window: `max(2,048, ⌈2% raw⌉)`.
pub const SAFETY_MARGIN_PERCENT: u64 = 2;

/// Every term of the Effective Context Capacity formula, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapacityBreakdown {
    /// Raw context window of the model (tokens).
    pub raw: u64,
    /// Tokens kept free for the answer: `max(min(reserve, model max output), ⌈8% raw⌉)`.
    pub output_reserve: u64,
    /// Safety margin: `max(2,048, ⌈2% raw⌉)`.
    pub safety_margin: u64,
    /// `raw − output reserve − safety margin`, always ≥ 1.
    ///
    /// `raw − output_reserve − safety_margin`, always ≥ 1.
    pub capacity: u64,
}

/// `⌈raw × percent / 100⌉` without overflow.
fn ceil_percent(raw: u64, percent: u64) -> u64 {
    let v = (u128::from(raw) * u128::from(percent)).div_ceil(100);
    // percent ≤ 100, so v ≤ raw and fits in u64.
    u64::try_from(v).expect("ceil(raw * p / 100) with p <= 100 fits in u64")
}

/// Every term of the Effective Context Capacity (tokens).
///
/// See [`effective_context_capacity`] for arguments, rules and errors.
pub fn capacity_breakdown(
    raw: u64,
    output_reserve: Option<u64>,
    model_max_output: Option<u64>,
) -> Result<CapacityBreakdown> {
    if raw == 0 {
        return Err(Error::invalid(
            "raw context window is 0 tokens; pass the model's real context window (no default is guessed)",
        ));
    }
    if model_max_output == Some(0) {
        return Err(Error::invalid("model maximum output is 0 tokens; pass None when it is unknown"));
    }
    let configured = match (output_reserve, model_max_output) {
        (Some(r), Some(max_out)) => r.min(max_out),
        (Some(r), None) => r,
        (None, _) => 0,
    };
    let output_reserve = configured.max(ceil_percent(raw, OUTPUT_RESERVE_FLOOR_PERCENT));
    let safety_margin = MIN_SAFETY_MARGIN_TOKENS.max(ceil_percent(raw, SAFETY_MARGIN_PERCENT));
    let taken = u128::from(output_reserve) + u128::from(safety_margin);
    if u128::from(raw) <= taken {
        return Err(Error::invalid(format!(
            "effective context capacity would be {} tokens (raw {raw} - output reserve {output_reserve} - safety margin {safety_margin}); use a larger window or a smaller output reserve",
            i128::from(raw) - taken as i128
        )));
    }
    Ok(CapacityBreakdown { raw, output_reserve, safety_margin, capacity: raw - output_reserve - safety_margin })
}

/// Effective Context Capacity in tokens (seed 000 "Context Utilization
/// Meter"): `raw − max(min(output_reserve, model_max_output), ⌈8% raw⌉) −
/// max(2048, ⌈2% raw⌉)`; 128,000 → 115,200. `output_reserve` and
/// `model_max_output`: none when not configured or unknown. Never
/// guesses a window.
///
/// `capacity = raw − max(reserve', ⌈8% raw⌉) − max(2,048, ⌈2% raw⌉)` where
/// `reserve' = min(output_reserve, model_max_output)` when both are known,
/// `output_reserve` when only it is known, and `0` when no reserve is
/// configured (the 8% floor then applies). The model maximum output caps only
/// the configured reserve, never the 8% floor.
///
/// * `raw`: the model's raw context window (tokens); there is no default.
/// * `output_reserve`: tokens the host wants free for the answer, if configured.
/// * `model_max_output`: the model's maximum output tokens, if known.
///
/// Examples: `(128000, None, None)` → `115200`;
/// `(128000, Some(50000), Some(16384))` → `128000 − 16384 − 2560 = 109056`.
///
/// # Errors
/// [`Error::InvalidInput`] when `raw` is 0, `model_max_output` is `Some(0)`,
/// or the result would be ≤ 0 tokens. The function never guesses a window.
pub fn effective_context_capacity(
    raw: u64,
    output_reserve: Option<u64>,
    model_max_output: Option<u64>,
) -> Result<u64> {
    capacity_breakdown(raw, output_reserve, model_max_output).map(|b| b.capacity)
}

/// Published limits of a model (tokens).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelLimits {
    /// Raw context window (input + output), tokens.
    pub context_window: u64,
    /// Maximum output tokens per response.
    pub max_output: u64,
}

/// Small table of published model limits, matched by name prefix in order
/// (the first matching prefix wins, so longer prefixes come first).
///
/// These are the providers' published figures at the time of writing; a host
/// that knows better passes `raw` and `model_max_output` itself.
const KNOWN_MODELS: &[(&str, ModelLimits)] = &[
    ("gpt-4o-mini", ModelLimits { context_window: 128_000, max_output: 16_384 }),
    ("gpt-4o", ModelLimits { context_window: 128_000, max_output: 16_384 }),
    ("gpt-4.1", ModelLimits { context_window: 1_047_576, max_output: 32_768 }),
    ("gpt-4-turbo", ModelLimits { context_window: 128_000, max_output: 4_096 }),
    ("gpt-5", ModelLimits { context_window: 400_000, max_output: 128_000 }),
    ("o3", ModelLimits { context_window: 200_000, max_output: 100_000 }),
    ("o4-mini", ModelLimits { context_window: 200_000, max_output: 100_000 }),
    ("claude-opus-4", ModelLimits { context_window: 200_000, max_output: 32_000 }),
    ("claude-sonnet-4", ModelLimits { context_window: 200_000, max_output: 64_000 }),
    ("claude-3-5-sonnet", ModelLimits { context_window: 200_000, max_output: 8_192 }),
    ("claude-3-5-haiku", ModelLimits { context_window: 200_000, max_output: 8_192 }),
];

/// Published limits of a known model (case-insensitive prefix match), or
/// none: the caller must then pass the window itself.
///
/// The prefix match runs on the table above, after stripping a leading
/// `openai/` or `anthropic/`.
pub fn known_model_limits(model: &str) -> Option<ModelLimits> {
    let m = model.trim().to_ascii_lowercase();
    let m = m.strip_prefix("openai/").or_else(|| m.strip_prefix("anthropic/")).unwrap_or(&m);
    KNOWN_MODELS.iter().find(|(prefix, _)| m.starts_with(prefix)).map(|(_, l)| *l)
}

/// Effective Context Capacity for a known model name (its window and
/// maximum output), in tokens.
///
/// See [`known_model_limits`]: the optional configured output reserve is capped
/// by the model's maximum output.
///
/// # Errors
/// [`Error::InvalidInput`] when the model is not in the table (an unknown
/// model is never given a guessed window: pass `raw` to
/// [`effective_context_capacity`] instead).
pub fn effective_context_capacity_for_model(model: &str, output_reserve: Option<u64>) -> Result<u64> {
    let limits = known_model_limits(model).ok_or_else(|| {
        Error::invalid("unknown model: its context window is not known; pass the raw context window explicitly")
    })?;
    effective_context_capacity(limits.context_window, output_reserve, Some(limits.max_output))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn window_128000_without_reserve_is_115200() {
        assert_eq!(effective_context_capacity(128_000, None, None).unwrap(), 115_200);
    }

    #[test]
    fn reserve_above_model_max_output_is_capped() {
        assert_eq!(effective_context_capacity(128_000, Some(50_000), Some(16_384)).unwrap(), 109_056);
        assert_eq!(effective_context_capacity(128_000, Some(50_000), None).unwrap(), 75_440);
    }

    #[test]
    fn small_window_uses_2048_margin_and_rounds_percent_up() {
        // ⌈8% of 10001⌉ = ⌈800.08⌉ = 801; margin = max(2048, 201) = 2048.
        let b = capacity_breakdown(10_001, None, None).unwrap();
        assert_eq!((b.output_reserve, b.safety_margin, b.capacity), (801, 2048, 7152));
    }

    #[test]
    fn zero_or_negative_capacity_is_invalid_input() {
        assert_eq!(effective_context_capacity(0, None, None).unwrap_err().kind(), ErrorKind::InvalidInput);
        assert_eq!(effective_context_capacity(10_000, Some(7_951), None).unwrap(), 1);
        assert_eq!(effective_context_capacity(10_000, Some(7_952), None).unwrap_err().kind(), ErrorKind::InvalidInput);
        assert_eq!(effective_context_capacity(2_000, None, None).unwrap_err().kind(), ErrorKind::InvalidInput);
    }

    #[test]
    fn huge_window_does_not_overflow() {
        let b = capacity_breakdown(u64::MAX, None, None).unwrap();
        assert_eq!(b.raw, b.output_reserve + b.safety_margin + b.capacity);
    }

    #[test]
    fn unknown_model_is_an_explicit_error() {
        assert_eq!(effective_context_capacity_for_model("gpt-4o-2024-08-06", None).unwrap(), 115_200);
        assert_eq!(
            effective_context_capacity_for_model("my-local-llm", None).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }
}
