//! The names hosts show for the core's data-carrying enums (`name()`, used
//! by the records bridge/api.rs generates) are their serde names, and the
//! data accessors return the variant's data.

use sessiondb::context::{CountMethod, Encoding};
use sessiondb::portable::{ImportStatus, SkipReason};

fn tag(v: serde_json::Value, key: &str) -> String {
    v[key].as_str().unwrap().to_owned()
}

#[test]
fn count_methods_are_named_by_their_serde_tag() {
    for (m, name, enc) in [
        (CountMethod::Exact { encoding: Encoding::Cl100kBase }, "exact", Some(Encoding::Cl100kBase)),
        (CountMethod::Estimate, "estimate", None),
        (CountMethod::Host, "host", None),
    ] {
        assert_eq!(m.name(), name);
        assert_eq!(tag(serde_json::to_value(m).unwrap(), "method"), name);
        assert_eq!(m.encoding(), enc);
    }
}

#[test]
fn skip_reasons_are_named_by_their_serde_tag() {
    for (r, name, column) in [
        (SkipReason::TornTail, "torn_tail", None),
        (SkipReason::InvalidUtf8, "invalid_utf8", None),
        (SkipReason::InvalidJson { column: 17 }, "invalid_json", Some(17)),
        (SkipReason::NotAnObject, "not_an_object", None),
    ] {
        assert_eq!(r.name(), name);
        assert_eq!(tag(serde_json::to_value(&r).unwrap(), "reason"), name);
        assert_eq!(r.column(), column);
    }
}

#[test]
fn import_statuses_are_named_by_their_serde_name() {
    for (s, name) in [
        (ImportStatus::Imported, "imported"),
        (ImportStatus::UpToDate, "up_to_date"),
        (ImportStatus::SourceChanged, "source_changed"),
        (ImportStatus::Unrecognized, "unrecognized"),
    ] {
        assert_eq!(s.name(), name);
        assert_eq!(serde_json::to_value(&s).unwrap(), serde_json::json!(name));
        assert_eq!(s.error(), None);
    }
    let failed = ImportStatus::Failed("reading: permission denied".into());
    assert_eq!(failed.name(), "failed");
    assert_eq!(serde_json::to_value(&failed).unwrap(), serde_json::json!({"failed": "reading: permission denied"}));
    assert_eq!(failed.error().as_deref(), Some("reading: permission denied"));
}
