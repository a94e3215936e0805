//! The viewer's JSON API (`GET /api/<endpoint>?<params>`), read by the
//! page's script. Every answer is one JSON object; an error is
//! `{"error": {"kind", "message"}}` with status 400 (`InvalidInput`), 404
//! (`NotFound`) or 500. Content comes back only as JSON strings.
//!
//! | endpoint | params | answer |
//! |---|---|---|
//! | `info` | | `{version, workspace, window}` |
//! | `sessions` | `scope` (`current`/`other`/`unbound`/`all`), `sort` (`activity`/`created`/`entries`), `offset`, `limit` (≤ [`MAX_SESSIONS_PAGE`]) | `{rows, total, next_offset}` |
//! | `search` | `q`, `scope`, `cursor`, `limit` | `{hits, total, next_cursor}`: best hit per session, highlights in UTF-16 units |
//! | `session` | `id` | `{session, tokens}` |
//! | `entries` | `id`, `from` or `before` (seq) or `tail=1`, `limit` (≤ [`MAX_ENTRIES_PAGE`]) | `{entries, runs, next_from, prev_before}` |
//! | `context` | `id`, `window`, `reserve`, `model` | `{meter, capacity, model, compacted_runs, excluded}` |
//! | `usage` | `scope` | `{rows: [{day, model, workspace, input, output, cached, calls}]}` |

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{Reply, State};
use crate::context::{context_status, recover_context_governance, TurnState};
use crate::error::{Error, ErrorKind, Result};
use crate::search::{OffsetUnit, SearchOptions};
use crate::store::{SessionRecord, SessionStore, WorkspaceFilter};

/// Most entries one `entries` answer holds.
pub const MAX_ENTRIES_PAGE: u32 = 500;
/// Entries per page when `limit` is not given.
pub const DEFAULT_ENTRIES_PAGE: u32 = 100;
/// Most session rows one `sessions` answer holds.
pub const MAX_SESSIONS_PAGE: usize = 500;
/// Rows per page when `limit` is not given.
pub const DEFAULT_SESSIONS_PAGE: usize = 100;

/// A request's query parameters, percent-decoded (`+` is a space).
#[derive(Debug, Default)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// Parse `a=1&b=x%20y`. Bytes that do not decode to UTF-8 are replaced (U+FFFD).
    pub fn parse(query: &str) -> Params {
        Params(
            query
                .split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    (decode(k), decode(v))
                })
                .collect(),
        )
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    fn need(&self, name: &str) -> Result<&str> {
        self.get(name).filter(|v| !v.is_empty()).ok_or_else(|| Error::invalid(format!("parameter `{name}` is required")))
    }

    fn number(&self, name: &str) -> Result<Option<u64>> {
        self.get(name).filter(|v| !v.is_empty()).map(|v| v.parse::<u64>().map_err(|_| Error::invalid(format!("parameter `{name}` must be a whole number")))).transpose()
    }
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit() => {
                let hex = |c: u8| (c as char).to_digit(16).expect("checked hex digit") as u8;
                out.push(hex(b[i + 1]) << 4 | hex(b[i + 2]));
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Answer `GET /api/<endpoint>`.
pub(crate) fn handle(state: &State, endpoint: &str, p: &Params) -> Reply {
    let s = &*state.store;
    let r = match endpoint {
        "info" => Ok(json!({ "version": env!("CARGO_PKG_VERSION"), "workspace": state.opts.workspace, "window": state.opts.window })),
        "sessions" => sessions(s, state, p),
        "search" => search(s, state, p),
        "session" => session(s, p),
        "entries" => entries(s, p),
        "context" => context(s, state, p),
        "usage" => usage(s, state, p),
        _ => return Reply::text(404, "not found"),
    };
    match r {
        Ok(v) => Reply::json(200, &v),
        Err(e) => {
            let status = match e.kind() {
                ErrorKind::InvalidInput => 400,
                ErrorKind::NotFound => 404,
                // The host closed the store under a running viewer: nothing
                // is wrong with the request, the service is gone.
                ErrorKind::Closed => 503,
                _ => 500,
            };
            Reply::json(status, &json!({ "error": { "kind": e.kind().name(), "message": e.to_string() } }))
        }
    }
}

fn filter(state: &State, p: &Params) -> Result<WorkspaceFilter> {
    let scope = p.get("scope").filter(|s| !s.is_empty()).unwrap_or("all");
    WorkspaceFilter::from_scope(scope, state.opts.workspace.clone())
}

/// A session's title: its name (one line), else its first prompt, else a
/// placeholder; and where it came from (`name`, `first_prompt`, `none`),
/// as `sessiondb list` shows it.
fn title(s: &SessionStore, r: &SessionRecord) -> Result<(String, &'static str)> {
    if let Some(n) = r.name.as_deref().map(|n| n.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|n| !n.is_empty()) {
        return Ok((n, "name"));
    }
    if r.unreadable.iter().any(|u| u.field == "name") {
        return Ok(("(unreadable title)".into(), "none"));
    }
    Ok(match s.first_prompt(&r.id)? {
        Some(p) => (p, "first_prompt"),
        None if r.entry_count == 0 => ("(empty session)".into(), "none"),
        None => ("(no prompt)".into(), "none"),
    })
}

/// The agent a session came from: the format of its `import_source`
/// record (`claude-code`, `codex`, `thclaws`...), else `sessiondb` (written
/// through the API).
fn agent(s: &SessionStore, id: &str) -> Result<String> {
    Ok(s.list_context_extensions(id)?
        .iter()
        .filter(|x| x.kind == "import_source")
        .find_map(|x| serde_json::from_str::<Value>(&x.body).ok()?.get("format")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "sessiondb".into()))
}

fn row(s: &SessionStore, r: &SessionRecord) -> Result<Value> {
    let (title, source) = title(s, r)?;
    Ok(json!({
        "id": r.id,
        "title": title,
        "title_source": source,
        "agent": agent(s, &r.id)?,
        "workspace": r.workspace_path,
        "model": r.model,
        "provider": r.provider,
        "entries": r.entry_count,
        "created_at_ms": r.created_at_ms,
        "updated_at_ms": r.updated_at_ms,
        "forked_from": r.forked_from,
        "unreadable": r.unreadable.iter().map(|u| u.field.as_str()).collect::<Vec<_>>(),
    }))
}

fn sessions(s: &SessionStore, state: &State, p: &Params) -> Result<Value> {
    let mut all = s.list_sessions_for_workspace(filter(state, p)?, None)?;
    match p.get("sort").unwrap_or("activity") {
        "activity" | "" => {} // the store's order: most recent activity first
        "created" => all.sort_by(|a, b| b.created_at_ms.cmp(&a.created_at_ms).then_with(|| a.id.cmp(&b.id))),
        "entries" => all.sort_by(|a, b| b.entry_count.cmp(&a.entry_count).then_with(|| a.id.cmp(&b.id))),
        _ => return Err(Error::invalid("sort must be one of activity, created, entries")),
    }
    let offset = p.number("offset")?.unwrap_or(0) as usize;
    let limit = (p.number("limit")?.unwrap_or(DEFAULT_SESSIONS_PAGE as u64) as usize).clamp(1, MAX_SESSIONS_PAGE);
    let total = all.len();
    let rows = all.iter().skip(offset).take(limit).map(|r| row(s, r)).collect::<Result<Vec<_>>>()?;
    let next = offset + rows.len();
    Ok(json!({ "rows": rows, "total": total, "next_offset": (next < total).then_some(next) }))
}

fn search(s: &SessionStore, state: &State, p: &Params) -> Result<Value> {
    let q = p.get("q").unwrap_or("").trim();
    if q.is_empty() {
        return Ok(json!({ "hits": [], "total": 0, "next_cursor": null }));
    }
    let scope = p.get("scope").filter(|x| !x.is_empty()).unwrap_or("all");
    if !matches!(scope, "current" | "other" | "unbound" | "all") {
        return Err(Error::invalid("scope must be one of current, other, unbound, all"));
    }
    let query = format!("{q} workspace:{scope}");
    let opts = SearchOptions {
        limit: Some(p.number("limit")?.unwrap_or(20).clamp(1, 100) as u32),
        cursor: p.get("cursor").filter(|c| !c.is_empty()).map(str::to_owned),
        sessions: true,
        workspace_path: state.opts.workspace.clone(),
        snippet_chars: None,
    };
    let r = s.search_in_units(&query, &opts, OffsetUnit::Utf16)?;
    let hits = r
        .hits
        .iter()
        .map(|h| {
            let rec = s.get_session(&h.session_id)?;
            Ok(json!({
                "session": row(s, &rec)?,
                "seq": h.seq,
                "role": h.role,
                "time_ms": h.time_ms,
                "field": h.field,
                "snippet": h.snippet,
                "highlights": h.highlights,
            }))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(json!({ "hits": hits, "total": r.total, "next_cursor": r.next_cursor }))
}

fn session(s: &SessionStore, p: &Params) -> Result<Value> {
    let rec = s.get_session(p.need("id")?)?;
    Ok(json!({ "session": row(s, &rec)?, "tokens": s.token_totals(&rec.id)?, "last_seq": s.last_seq(&rec.id)? }))
}

fn entries(s: &SessionStore, p: &Params) -> Result<Value> {
    let id = p.need("id")?;
    let limit = p.number("limit")?.unwrap_or(u64::from(DEFAULT_ENTRIES_PAGE)).clamp(1, u64::from(MAX_ENTRIES_PAGE)) as u32;
    let page = if p.get("tail").is_some_and(|t| t == "1") {
        s.get_transcript_tail(id, limit)?
    } else if let Some(before) = p.number("before")? {
        let from = before.saturating_sub(u64::from(limit)).max(1);
        s.get_transcript(id, from, limit)?.into_iter().filter(|e| e.seq < before).collect()
    } else {
        s.get_transcript(id, p.number("from")?.unwrap_or(1).max(1), limit)?
    };
    let gov = recover_context_governance(s, id)?;
    let (lo, hi) = (page.first().map_or(0, |e| e.seq), page.last().map_or(0, |e| e.seq));
    let runs: Vec<Value> = gov
        .compacted
        .iter()
        .filter(|r| r.last_seq >= lo && r.first_seq <= hi)
        .map(|r| {
            let t = &r.transformation;
            json!({ "first_seq": r.first_seq, "last_seq": r.last_seq, "summary": t.summary, "tokens_before": t.tokens_before, "tokens_after": t.tokens_after })
        })
        .collect();
    let last = s.last_seq(id)?;
    let out: Vec<Value> = page
        .iter()
        .map(|e| {
            let state = match gov.state_of(e.seq) {
                TurnState::Verbatim => "verbatim",
                TurnState::Compacted => "compacted",
                TurnState::Excluded => "excluded",
            };
            json!({
                "seq": e.seq,
                "role": e.role.as_str(),
                "format": e.format.as_str(),
                "content": e.content,
                "created_at_ms": e.created_at_ms,
                "tokens": e.tokens,
                "state": state,
                "pinned": gov.pinned.contains(&e.seq),
            })
        })
        .collect();
    Ok(json!({
        "entries": out,
        "runs": runs,
        "next_from": (hi > 0 && hi < last).then_some(hi + 1),
        "prev_before": (lo > 1).then_some(lo),
    }))
}

fn context(s: &SessionStore, state: &State, p: &Params) -> Result<Value> {
    let id = p.need("id")?;
    let window = p.number("window")?.unwrap_or(state.opts.window);
    let model = p.get("model").filter(|m| !m.is_empty()).map(str::to_owned);
    let st = context_status(s, id, window, p.number("reserve")?, model)?;
    let excluded = st.turns.iter().filter(|t| t.state == TurnState::Excluded).count();
    Ok(json!({
        "meter": st.meter,
        "capacity": st.capacity,
        "window": window,
        "model": st.model,
        "compacted_runs": st.compacted.len(),
        "excluded": excluded,
    }))
}

/// UTC calendar day `YYYY-MM-DD` of a time in ms since the epoch
/// (civil-from-days, H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
pub fn utc_day(ms: i64) -> String {
    let z = ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn usage(s: &SessionStore, state: &State, p: &Params) -> Result<Value> {
    // (day, model, workspace) -> (input, output, cached, calls)
    let mut sums: BTreeMap<(String, String, String), [u64; 4]> = BTreeMap::new();
    for rec in s.list_sessions_for_workspace(filter(state, p)?, None)? {
        let ws = rec.workspace_path.clone().unwrap_or_default();
        for (u, at) in s.token_ledger(&rec.id)? {
            let model = u.model.or_else(|| rec.model.clone()).unwrap_or_default();
            let e = sums.entry((utc_day(at), model, ws.clone())).or_default();
            e[0] = e[0].saturating_add(u.input);
            e[1] = e[1].saturating_add(u.output);
            e[2] = e[2].saturating_add(u.cached);
            e[3] += 1;
        }
    }
    let rows: Vec<Value> = sums
        .into_iter()
        .map(|((day, model, workspace), [input, output, cached, calls])| json!({ "day": day, "model": model, "workspace": workspace, "input": input, "output": output, "cached": cached, "calls": calls }))
        .collect();
    Ok(json!({ "rows": rows }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_percent_decoded() {
        let p = Params::parse("q=a%20b+c&id=x%2Fy&bad=%zz&end=%4");
        assert_eq!(p.get("q"), Some("a b c"));
        assert_eq!(p.get("id"), Some("x/y"));
        assert_eq!(p.get("bad"), Some("%zz"));
        assert_eq!(p.get("end"), Some("%4"));
        assert_eq!(p.get("none"), None);
    }

    #[test]
    fn utc_days() {
        assert_eq!(utc_day(0), "1970-01-01");
        assert_eq!(utc_day(1_764_806_400_000), "2025-12-04");
        assert_eq!(utc_day(951_782_400_000), "2000-02-29");
        assert_eq!(utc_day(-1), "1969-12-31");
    }
}
