//! `--window`, `--reserve` and `--model`: the context window that `context`
//! and `compact` measure against (seed 000, Effective Context Capacity).

use clap::Args;
use sessiondb::SessionRecord;

use crate::Failure;

/// Default `--window`: 128,000 tokens (gpt-4o's window).
pub(crate) const DEFAULT_WINDOW: u64 = 128_000;

/// The model's window for `context` and `compact`.
#[derive(Args)]
pub(crate) struct WindowArgs {
    /// The model's raw context window in tokens (input + output); pass your model's.
    #[arg(long, value_name = "TOKENS", default_value_t = DEFAULT_WINDOW)]
    pub(crate) window: u64,
    /// Tokens kept free for the model's answer; the larger of this and 8% of the window
    /// is reserved [default: 8% of the window].
    #[arg(long, value_name = "TOKENS")]
    pub(crate) reserve: Option<u64>,
    /// Model name: picks the tokenizer and caps --reserve at the model's known maximum
    /// output [default: the session's model].
    #[arg(long)]
    pub(crate) model: Option<String>,
}

impl WindowArgs {
    /// The model to count with (`--model` or the session's) after checking
    /// that the window leaves room for context; the message says how large
    /// the window must be.
    pub(crate) fn check(&self, session: &SessionRecord) -> Result<Option<String>, Failure> {
        use sessiondb::context::{capacity_breakdown, known_model_limits};
        let model = self.model.clone().or_else(|| session.model.clone());
        let max_output = model.as_deref().and_then(known_model_limits).map(|l| l.max_output);
        let fits = |w: u64| capacity_breakdown(w, self.reserve, max_output).is_ok();
        if fits(self.window) {
            return Ok(model);
        }
        let reserve = match self.reserve.map(|r| max_output.map_or(r, |m| r.min(m))) {
            None => "8% of the window".to_string(),
            Some(r) => format!("the larger of {r} tokens and 8% of the window"),
        };
        if !fits(u64::MAX) {
            return Err(sessiondb::Error::invalid(format!("--reserve {} leaves no room for context in any window", self.reserve.unwrap_or_default())).into());
        }
        // The windows that leave room form a range up from the smallest one
        // (the capacity never falls while it is small), so bisect for it.
        let (mut lo, mut hi) = (self.window, u64::MAX);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Err(sessiondb::Error::invalid(format!(
            "--window must be at least {hi} tokens (got {}): smaller windows leave no room for context after the output reserve ({reserve}) and the safety margin (the larger of 2048 tokens and 2% of the window); it is the model's raw context window, default {DEFAULT_WINDOW}",
            self.window
        ))
        .into())
    }
}
