//! The context utilization meter: `Ctx N%` and its severity band.
//!
//! Source: seed 000, "Context Utilization Meter" (ADR 0015). It measures
//! Active Context Utilization (what the next request would send) against the
//! Effective Context Capacity, never the cumulative token usage of a session.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Severity band of the meter: green 0–69 %, amber 70–84 %, orange 85–94 %,
/// red ≥ 95 % (seed 000, "Context Utilization Meter").
///
/// Severity band of the meter (seed 000, "Context Utilization Meter").
///
/// | percent N | band |
/// |---|---|
/// | 0–69 | `Green` |
/// | 70–84 | `Amber` |
/// | 85–94 | `Orange` |
/// | ≥ 95 (including above 100) | `Red` |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Band {
    /// 0–69 %.
    Green,
    /// 70–84 %.
    Amber,
    /// 85–94 %.
    Orange,
    /// 95 % and above.
    Red,
}

impl Band {
    /// The band of a utilization percentage (see the table on [`Band`]).
    pub fn of_percent(percent: u64) -> Band {
        match percent {
            0..=69 => Band::Green,
            70..=84 => Band::Amber,
            85..=94 => Band::Orange,
            _ => Band::Red,
        }
    }

    /// Lowercase name as used in conformance cases: `green`, `amber`, `orange`, `red`.
    pub fn name(self) -> &'static str {
        match self {
            Band::Green => "green",
            Band::Amber => "amber",
            Band::Orange => "orange",
            Band::Red => "red",
        }
    }
}

/// One reading of the context meter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextMeter {
    /// Active tokens measured (tokens).
    pub active_tokens: u64,
    /// Effective Context Capacity measured against (tokens).
    pub capacity: u64,
    /// `N = ⌊100 × active tokens / capacity⌋`; not capped (250 = 2.5× capacity).
    ///
    /// `N = ⌊100 × active_tokens / capacity⌋`; not capped, so 250 means 2.5× capacity.
    pub percent: u64,
    /// The status text, exactly `Ctx N%` (e.g. `Ctx 87%`).
    pub label: String,
    /// Severity band of `percent`.
    pub band: Band,
    /// Active tokens > capacity (exactly 100 % fits and is not overflow).
    ///
    /// `true` when the active context exceeds capacity (`active_tokens > capacity`,
    /// i.e. utilization strictly over 100%). Exactly 100% fits and is not
    /// overflow. Because `percent` is floored, a reading of `Ctx 100%` can
    /// carry `overflow = true` (e.g. 100,001 of 100,000 tokens).
    pub overflow: bool,
}

/// The meter for `active_tokens` against `capacity` (tokens): percent,
/// the `Ctx N%` label, band and overflow.
///
/// `N = ⌊100 × active_tokens / capacity⌋`, label `Ctx N%`, band per [`Band`],
/// overflow when `active_tokens > capacity`.
///
/// * `active_tokens`: tokens of the active model context (after compaction and
///   exclusions), not cumulative usage.
/// * `capacity`: Effective Context Capacity in tokens (see
///   [`effective_context_capacity`](super::effective_context_capacity)).
///
/// # Errors
/// [`Error::InvalidInput`] when `capacity` is 0.
pub fn meter(active_tokens: u64, capacity: u64) -> Result<ContextMeter> {
    if capacity == 0 {
        return Err(Error::invalid("capacity is 0 tokens; compute it with effective_context_capacity"));
    }
    let percent = u128::from(active_tokens) * 100 / u128::from(capacity);
    let percent = u64::try_from(percent).unwrap_or(u64::MAX);
    Ok(ContextMeter {
        active_tokens,
        capacity,
        percent,
        label: format!("Ctx {percent}%"),
        band: Band::of_percent(percent),
        overflow: active_tokens > capacity,
    })
}

/// True when the projected context exceeds the capacity (compact before
/// the provider call).
///
/// Seed 000, "Context Compaction": "if the projected Active Model Context would
/// exceed Effective Context Capacity": `projected_tokens > capacity`. Exactly
/// at capacity fits and does not compact.
pub fn should_compact(projected_tokens: u64, capacity: u64) -> bool {
    projected_tokens > capacity
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_boundaries_are_exact() {
        for (active, band) in [(69, Band::Green), (70, Band::Amber), (84, Band::Amber), (85, Band::Orange),
            (94, Band::Orange), (95, Band::Red), (100, Band::Red), (101, Band::Red)] {
            let m = meter(active, 100).unwrap();
            assert_eq!(m.band, band, "{active}");
            assert_eq!(m.label, format!("Ctx {active}%"));
            assert_eq!(m.overflow, active > 100);
        }
    }

    #[test]
    fn percent_is_floored_and_overflow_is_by_tokens() {
        let m = meter(100_001, 100_000).unwrap();
        assert_eq!((m.percent, m.overflow, m.label.as_str()), (100, true, "Ctx 100%"));
        assert_eq!(meter(80_639, 115_200).unwrap().percent, 69);
        assert_eq!(meter(80_640, 115_200).unwrap().percent, 70);
    }

    #[test]
    fn zero_capacity_is_invalid() {
        assert!(meter(1, 0).is_err());
    }

    #[test]
    fn should_compact_only_above_capacity() {
        assert!(!should_compact(115_199, 115_200));
        assert!(!should_compact(115_200, 115_200));
        assert!(should_compact(115_201, 115_200));
    }
}
