use std::path::PathBuf;
#[test]
#[ignore]
fn dump() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples");
    for f in sessiondb::portable::find_jsonl_files(&root).unwrap() {
        let o = sessiondb::portable::read_path(&f, None).unwrap();
        println!("== {}", f.display());
        println!("report {}", serde_json::to_string(&o.report).unwrap());
        for s in &o.sessions {
            let u = s.usage_total();
            println!("  id={} title={:?} model={:?} prov={:?} cwd={:?} created={:?} turns={} roles={:?} calls={} results={} usage_n={} in={} out={} cached={} plan_steps={} comps={} other={} extra_keys={:?}",
              s.id, s.title, s.model, s.provider, s.cwd, s.created_at_ms, s.turns.len(),
              ["user","assistant","system"].map(|r| s.turns.iter().filter(|t| t.role.as_str()==r).count()),
              s.tool_calls(), s.tool_results(), s.usage.len(), u.input, u.output, u.cached, s.plan_steps(), s.compactions.len(), s.other_lines.len(), s.source.extra.keys().collect::<Vec<_>>());
        }
    }
}
