//! What an entry's text is to search ([`entry_texts`]) and how a hit shows
//! it ([`snippet`], [`convert_offset`]) (moved out of `search/mod.rs` as is).

use super::tokenize::any_token;
use super::OffsetUnit;

/// The text fields of one entry, in [`FIELDS`](super::query::FIELDS) order.
pub(super) type Texts = [String; 5];

/// Split an entry's content into text, tool calls, tool outputs and
/// thinking (title empty). `blocks` content is a JSON array of blocks
/// (`text`, `thinking`, `tool_use` with `name` and `input`, `tool_result`
/// with `content`); anything else is text (role `tool`: output).
pub fn entry_texts(role: &str, format: &str, content: &str) -> [String; 5] {
    let mut t: Texts = Default::default();
    let main = if role == "tool" { 2 } else { 0 };
    let push = |t: &mut Texts, i: usize, s: &str| {
        if !s.is_empty() {
            if !t[i].is_empty() {
                t[i].push('\n');
            }
            t[i].push_str(s);
        }
    };
    fn leaves(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::String(s) => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(s);
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
            serde_json::Value::Object(o) => {
                // A content block (`{"type":"text","text":..}`) gives its
                // strings; an argument object `key: value` lines.
                let block = o.contains_key("type");
                for (k, x) in o {
                    if matches!(k.as_str(), "type" | "id" | "tool_use_id" | "signature" | "cache_control") {
                        continue;
                    }
                    match x {
                        serde_json::Value::String(s) if !block => {
                            if !out.is_empty() {
                                out.push('\n');
                            }
                            out.push_str(k);
                            out.push_str(": ");
                            out.push_str(s);
                        }
                        _ => leaves(x, out),
                    }
                }
            }
            serde_json::Value::Number(n) => {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(&n.to_string());
            }
            _ => {}
        }
    }
    let blocks = (format == "blocks").then(|| serde_json::from_str::<Vec<serde_json::Value>>(content).ok()).flatten();
    let Some(blocks) = blocks else {
        push(&mut t, main, content);
        return t;
    };
    for b in &blocks {
        let kind = b.get("type").and_then(|v| v.as_str()).unwrap_or("");
        match (kind, b) {
            ("text", _) => push(&mut t, main, b.get("text").and_then(|v| v.as_str()).unwrap_or("")),
            ("thinking", _) => push(&mut t, 3, b.get("thinking").and_then(|v| v.as_str()).unwrap_or("")),
            ("redacted_thinking", _) => {}
            ("tool_use", _) => {
                let mut s = b.get("name").and_then(|v| v.as_str()).unwrap_or("").to_string();
                if let Some(input) = b.get("input") {
                    let mut args = String::new();
                    leaves(input, &mut args);
                    if !args.is_empty() {
                        s.push('\n');
                        s.push_str(&args);
                    }
                }
                push(&mut t, 1, &s);
            }
            ("tool_result", _) => {
                let mut s = String::new();
                if let Some(c) = b.get("content") {
                    leaves(c, &mut s);
                }
                push(&mut t, 2, &s);
            }
            (_, serde_json::Value::String(s)) => push(&mut t, main, s),
            _ => {
                let mut s = String::new();
                leaves(b, &mut s);
                push(&mut t, main, &s);
            }
        }
    }
    t
}

/// Cut a snippet of about `chars` characters around the best window of
/// matches; returns the snippet and its highlight byte ranges.
pub fn snippet(text: &str, is_match: &dyn Fn(&str) -> bool, chars: usize) -> (String, Vec<(usize, usize)>) {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    any_token(text, |t, from, to| {
        if is_match(t) {
            ranges.push((from, to));
        }
        false
    });
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for r in ranges {
        match merged.last_mut() {
            Some(l) if r.0 <= l.1 => l.1 = l.1.max(r.1),
            _ => merged.push(r),
        }
    }
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect();
    let nchars = bounds.len() - 1;
    let char_at = |byte: usize| bounds.partition_point(|&b| b < byte);
    // Window start: the match that has the most matches within `chars` after it.
    let mut best = (0usize, 0usize);
    for (i, m) in merged.iter().enumerate() {
        let c0 = char_at(m.0);
        let n = merged[i..].iter().take_while(|x| char_at(x.1) <= c0 + chars).count();
        if n > best.1 {
            best = (c0, n);
        }
    }
    let mut start = if merged.is_empty() { 0 } else { best.0.saturating_sub(chars / 4) };
    // Back up to a word start (at most 10 characters).
    let cs: Vec<char> = text.chars().collect();
    let mut back = 0;
    while start > 0 && back < 10 && !cs[start - 1].is_whitespace() {
        start -= 1;
        back += 1;
    }
    let end = (start + chars).min(nchars);
    let (b0, b1) = (bounds[start], bounds[end]);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let shift = out.len() as isize - b0 as isize;
    out.extend(text[b0..b1].chars().map(|c| if c.is_control() { ' ' } else { c }));
    if end < nchars {
        out.push('…');
    }
    let hl = merged
        .into_iter()
        .filter(|r| r.0 >= b0 && r.1 <= b1)
        .map(|r| ((r.0 as isize + shift) as usize, (r.1 as isize + shift) as usize))
        .collect();
    (out, hl)
}

/// Convert a UTF-8 byte offset of `s` to `unit`.
pub fn convert_offset(s: &str, byte: usize, unit: OffsetUnit) -> u32 {
    let pre = &s[..byte];
    (match unit {
        OffsetUnit::Utf8 => byte,
        OffsetUnit::CodePoint => pre.chars().count(),
        OffsetUnit::Utf16 => pre.encode_utf16().count(),
    }) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_texts_split_blocks() {
        let c = r#"[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"bash","input":{"command":"ls -la"}},{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"out"}]}]"#;
        let t = entry_texts("assistant", "blocks", c);
        assert_eq!(t, ["hi".to_string(), "bash\ncommand: ls -la".into(), "out".into(), "hmm".into(), String::new()]);
        assert_eq!(entry_texts("tool", "text", "x"), [String::new(), String::new(), "x".into(), String::new(), String::new()]);
    }

    #[test]
    fn snippet_windows_and_offsets() {
        let text = "alpha beta gamma delta";
        let (s, h) = snippet(text, &|t| t == "gamma", 160);
        assert_eq!((s.as_str(), h), ("alpha beta gamma delta", vec![(11, 16)]));
        let long = format!("{} needle {}", "x ".repeat(100), "y ".repeat(100));
        let (s, h) = snippet(&long, &|t| t == "needle", 40);
        assert_eq!(&s[h[0].0..h[0].1], "needle");
        assert!(s.starts_with('…') && s.ends_with('…'));
        let e = "😀 数据 x";
        assert_eq!(convert_offset(e, e.find('x').unwrap(), OffsetUnit::Utf16), 6);
        assert_eq!(convert_offset(e, e.find('x').unwrap(), OffsetUnit::CodePoint), 5);
        assert_eq!(convert_offset(e, e.find('x').unwrap(), OffsetUnit::Utf8), 12);
    }
}
