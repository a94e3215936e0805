//! The names hosts show for the core's data-carrying enums (`name()`, used
//! by the records the bridge generates) are their serde names, and the
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
        (SkipReason::TooLong, "too_long", None),
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

/// `(variant, str name)` of enum `name` in bridge/generated/api.rs (the
/// declaration completed from the core, checked by the bridge's snapshot
/// test), in order.
fn declared(api: &str, name: &str) -> Vec<(String, String)> {
    let start = api.find(&format!("pub enum {name} {{")).unwrap_or_else(|| panic!("enum {name} in bridge/generated/api.rs"));
    let body = &api[start..start + api[start..].find("\n}\n").unwrap()];
    let mut out = vec![];
    let mut lines = body.lines();
    while let Some(l) = lines.next() {
        if let Some(rest) = l.trim().strip_prefix("#[bridge(str = \"") {
            let (text, after) = rest.split_once('"').unwrap();
            let text = text.to_owned();
            // The variant follows on the same line (`#[bridge(str = "x")] X,`)
            // or on the next line that is not a doc comment.
            let same_line = after.trim_start_matches(")]").trim();
            let v = if same_line.is_empty() { lines.by_ref().map(str::trim).find(|l| !l.starts_with("///")).unwrap() } else { same_line };
            let ident: String = v.chars().take_while(|c| c.is_alphanumeric()).collect();
            out.push((ident, text));
        }
    }
    out
}

/// The `str` names the bridge declares for these enums (what Python and
/// Node see, and Node's TypeScript unions) are the ones `name()` gives.
#[test]
fn bridge_declares_the_names_the_core_gives() {
    let api = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../bridge/generated/api.rs")).unwrap();
    let named = |v: &[(&str, &'static str)]| v.iter().map(|(i, n)| (i.to_string(), n.to_string())).collect::<Vec<_>>();
    let exact = CountMethod::Exact { encoding: Encoding::O200kBase };
    assert_eq!(declared(&api, "CountMethod"), named(&[("Exact", exact.name()), ("Estimate", CountMethod::Estimate.name()), ("Host", CountMethod::Host.name())]));
    assert_eq!(
        declared(&api, "SkipReason"),
        named(&[
            ("TornTail", SkipReason::TornTail.name()),
            ("InvalidUtf8", SkipReason::InvalidUtf8.name()),
            ("InvalidJson", SkipReason::InvalidJson { column: 1 }.name()),
            ("NotAnObject", SkipReason::NotAnObject.name()),
            ("TooLong", SkipReason::TooLong.name()),
        ])
    );
    assert_eq!(
        declared(&api, "ImportStatus"),
        named(&[
            ("Imported", ImportStatus::Imported.name()),
            ("UpToDate", ImportStatus::UpToDate.name()),
            ("SourceChanged", ImportStatus::SourceChanged.name()),
            ("Unrecognized", ImportStatus::Unrecognized.name()),
            ("Failed", ImportStatus::Failed(String::new()).name()),
        ])
    );
    // WorkspaceFilter's names are the scopes `from_scope` takes.
    let scopes = declared(&api, "WorkspaceFilter");
    assert_eq!(scopes.iter().map(|(i, _)| i.as_str()).collect::<Vec<_>>(), ["Current", "Other", "Unbound", "All"]);
    for (ident, scope) in scopes {
        let f = sessiondb::WorkspaceFilter::from_scope(&scope, Some("/w".into())).unwrap();
        assert!(format!("{f:?}").starts_with(&ident), "{scope} -> {f:?}");
    }
}

/// A host's open settings: left out keeps each default; the key source is
/// the key, else the provider, else the OS keyring; both is `InvalidInput`
/// naming the host's parameters.
#[test]
fn host_open_settings_keep_the_defaults_they_leave_out() {
    use sessiondb::{ErrorKind, KeySource, OpenOptions};
    let d = OpenOptions::for_host(None, None, KeySource::OsKeyring, None, None);
    assert_eq!((d.path, d.app.as_str(), d.busy_timeout_ms, d.recover, d.compress, d.lease_ms), (None, "sessiondb", 10_000, true, None, 30_000));
    let o = OpenOptions::for_host(Some("/x/s.db".into()), Some("app".into()), KeySource::OsKeyring, Some(5), Some(false));
    assert_eq!((o.path.unwrap().to_str(), o.app.as_str(), o.busy_timeout_ms, o.recover), (Some("/x/s.db"), "app", 5, false));

    use sessiondb::keys::KeyInput;
    let key = [7u8; 32];
    assert_eq!(format!("{:?}", KeySource::for_host(Some(KeyInput::Bytes(&key)), None, ("key", "keyProvider")).unwrap()), "Bytes(<redacted>)");
    assert_eq!(format!("{:?}", KeySource::for_host(None, None, ("key", "keyProvider")).unwrap()), "OsKeyring");
    let short = KeySource::for_host(Some(KeyInput::Bytes(&key[..31])), None, ("key", "keyProvider")).unwrap_err();
    assert_eq!(short.kind(), ErrorKind::InvalidInput);
    struct P;
    impl sessiondb::KeyProvider for P {
        fn get_key(&self) -> sessiondb::Result<Option<Vec<u8>>> {
            Ok(None)
        }
        fn set_key(&self, _: &[u8]) -> sessiondb::Result<()> {
            Ok(())
        }
        fn backend_name(&self) -> String {
            "test provider".into()
        }
    }
    let p = || Some(std::sync::Arc::new(P) as std::sync::Arc<dyn sessiondb::KeyProvider>);
    assert_eq!(format!("{:?}", KeySource::for_host(None, p(), ("key", "keyProvider")).unwrap()), "Provider(test provider)");
    let both = KeySource::for_host(Some(KeyInput::Bytes(&key)), p(), ("key", "key_provider")).unwrap_err();
    assert_eq!((both.kind(), both.to_string()), (ErrorKind::InvalidInput, "invalid input: pass either key or key_provider, not both".to_string()));
}

/// A host's key: the 32 bytes, or the base64 text of a key file (as text or
/// as its bytes, with the file's trailing newline); anything else is
/// `InvalidInput` naming the parameter and what is wrong, never the key.
#[test]
fn a_host_key_is_bytes_or_the_base64_text_of_a_key_file() {
    use sessiondb::keys::KeyInput;
    use sessiondb::{DataKey, ErrorKind};
    let raw = [7u8; 32];
    let b64 = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";
    assert_eq!(DataKey::from_bytes(&raw).unwrap().to_base64().as_str(), b64);
    let ok = |k: KeyInput<'_>| k.decode("key").unwrap().expose_bytes().to_vec();
    assert_eq!(ok(KeyInput::Bytes(&raw)), raw.to_vec());
    assert_eq!(ok(KeyInput::Text(b64)), raw.to_vec());
    assert_eq!(ok(KeyInput::Text(&format!("{b64}\n"))), raw.to_vec(), "a key file's trailing newline");
    assert_eq!(ok(KeyInput::Text(&format!("  {b64}\r\n"))), raw.to_vec());
    assert_eq!(ok(KeyInput::Bytes(format!("{b64}\n").as_bytes())), raw.to_vec(), "a key file read as bytes");
    let err = |k: KeyInput<'_>| {
        let e = k.decode("key").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        e.to_string()
    };
    assert_eq!(err(KeyInput::Bytes(&raw[..31])), "invalid input: key: 31 bytes, neither the 32-byte data key nor its base64 text (a key file's content)");
    assert_eq!(err(KeyInput::Bytes(&[0xff; 33])), "invalid input: key: 33 bytes, neither the 32-byte data key nor its base64 text (a key file's content)");
    assert_eq!(
        err(KeyInput::Text("not a key!")),
        "invalid input: key: not the base64 text of a data key (10 characters; a key file holds 44 characters of base64 and a newline) and not 32 bytes"
    );
    assert_eq!(err(KeyInput::Text("BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH")), "invalid input: key: base64 of 30 bytes, a data key is 32 bytes (44 characters of base64)");
    assert_eq!(err(KeyInput::Text("")), "invalid input: key: base64 of 0 bytes, a data key is 32 bytes (44 characters of base64)");
    let inner = format!("{}\n{}", &b64[..20], &b64[20..]);
    assert!(err(KeyInput::Text(&inner)).starts_with("invalid input: key: not the base64 text"), "whitespace inside is refused");
    assert_eq!(format!("{:?}", KeyInput::Text(b64)), "Text(<44 characters redacted>)");
}
