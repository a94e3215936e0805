//! The generator's unit tests: the schema errors it reports for a bad
//! declaration, which the committed snapshots (`bridge/tests/snapshots.rs`)
//! cannot show. What the generator writes for `bridge/api.rs` is pinned by
//! those snapshots, not repeated here.

use super::*;

/// The first error of generating every host's records, methods and stub
/// from `src`.
fn error(src: &str) -> String {
    let hosts = [Host::Python, Host::Node, Host::Uniffi];
    let generated = hosts.into_iter().try_for_each(|h| generate(h, src).and_then(|_| generate_methods(h, src)).map(|_| ()));
    generated.and_then(|()| generate_pyi(src, MARKS)).expect_err("the schema is refused")
}

/// A hand-written stub part of the marks alone.
const MARKS: &str = "# bridge: header\n# bridge: records\nclass SessionStore:\n    # bridge: methods\n# bridge: functions\n";

#[test]
fn a_record_field_the_host_cannot_take_is_refused() {
    // Kotlin/Swift expose the core type as it is: it has no derived field.
    let derived = "#[bridge(core = a::Plan)]\npub struct Plan {\n    pub runs: Vec<u64>,\n    #[bridge(get = \"c.seqs()\")]\n    pub seqs: Vec<u64>,\n}\n";
    assert!(error(derived).starts_with("record Plan: field `seqs` has `get`"), "{}", error(derived));
    let late = "#[bridge(core = a::Item, new)]\npub struct Item {\n    #[bridge(default)]\n    pub text: String,\n    pub late: u64,\n}\n";
    assert_eq!(error(late), "record Item: field `late` without a default follows one with a default");
    let path = "#[bridge(core = a::File)]\npub struct File {\n    pub path: PathBuf,\n}\n";
    assert_eq!(error(path), "record File: field `path` is a path, which Kotlin/Swift take as text: make the record a `twin`");
}

#[test]
fn schema_errors_name_the_problem() {
    let e = error("#[bridge(core = a::B)] pub enum B { X }");
    assert!(e.starts_with("a variant needs `#[bridge(str = \"...\")]`"), "{e}");
    let e = error("trait SessionStore { fn f(&self, x: &[String]); }");
    assert_eq!(e, "method f: parameter `x: &[String]` has no rule; declare the method by hand (skip)");
    let e = error("#[bridge(colour = 1)] pub struct A { pub x: u64 }");
    assert!(e.starts_with("unknown bridge attribute `colour`"), "{e}");
    let e = generate_pyi("trait Functions {\n    #[bridge(core = a::g)]\n    fn g() -> Rc<u8>;\n}\n", MARKS).unwrap_err();
    assert!(e.contains("method g: no Python stub type for `Rc<u8>`"), "{e}");
}

#[test]
fn method_departures_must_name_what_exists() {
    let getter = "trait SessionStore {\n    #[bridge(sync, infallible, getter = \"closed\")]\n    fn is_closed(&self, x: u64) -> bool;\n}\n";
    assert!(error(getter).contains("a getter is a `sync` store method without parameters"), "{}", error(getter));
    let new = "#[bridge(core = a::New, new)]\npub struct New {\n    #[bridge(default)]\n    pub name: Option<String>,\n}\ntrait SessionStore {\n    #[bridge(core = a::Store::make_with, keywords(new = \"title\"))]\n    fn make(&self, new: New) -> u64;\n}\n";
    assert_eq!(error(new), "method make: `title` is not a field of New");
    let item = "#[bridge(core = a::Item, new)]\npub struct Item {\n    pub seq: u64,\n}\n";
    let dict = format!("{item}trait Functions {{\n    #[bridge(core = a::plan, dict(items = \"items\"))]\n    fn plan(items: &[Item]) -> u64;\n}}\n");
    assert_eq!(error(&dict), "method plan: `dict(items)`: record Item needs `dict = \"Type\"` (its dict form's stub type)");
    for (attr, what) in [("dict(other = \"x\")", "dict"), ("ts(other = \"x\")", "ts"), ("pyi(other = \"X\")", "pyi")] {
        let src = format!("trait Functions {{\n    #[bridge(core = a::f, {attr})]\n    fn f(n: u64) -> u64;\n}}\n");
        assert!(error(&src).starts_with(&format!("{what} for `other`, which is not a parameter")), "{}", error(&src));
    }
}

#[test]
fn the_stub_needs_each_mark_once() {
    let e = generate_pyi("", &MARKS.replace("    # bridge: methods\n", "")).unwrap_err();
    assert_eq!(e, "the hand-written stub has `# bridge: methods` 0 times (once wanted)");
}

/// Node's literal unions come from the enums' declarations, never from a
/// hand-written `ts = "'a' | 'b'"` in the declaration.
#[test]
fn api_writes_no_literal_union_by_hand() {
    let src = read_api(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(!src.contains("ts = \"'"), "a literal union written by hand in api.rs");
}

/// An enum's host names are the core's serde names (`rename`, else
/// `rename_all`); a variant with neither must be listed with its `str`.
#[test]
fn enum_names_come_from_the_cores_serde_names() {
    let dir = std::env::temp_dir().join(format!("sessiondb-bridge-core-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let core = "#[serde(tag = \"method\", rename_all = \"snake_case\")]\npub enum Method { ToolCall, #[serde(rename = \"o200k\")] O200kBase }\n\
                pub enum Outcome { Succeeded, UnknownOutcome }\n";
    std::fs::write(dir.join("lib.rs"), core).unwrap();
    let core = Core::load(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let out = expand("#[bridge(core = sessiondb::Method)]\npub enum Method {}\n", &core).unwrap();
    assert!(squash(&out).contains(r#"#[bridge(str="tool_call")]ToolCall,#[bridge(str="o200k")]O200kBase"#), "{out}");
    let e = expand("#[bridge(core = sessiondb::Outcome)]\npub enum Outcome { #[bridge(str = \"succeeded\")] Succeeded }\n", &core).unwrap_err();
    assert_eq!(e, "enum Outcome: variant `UnknownOutcome` of `sessiondb::Outcome` has no serde name (`rename`, `rename_all`): list it with its `str` name");
}

fn squash(code: &str) -> String {
    code.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A method or function declared `-> _` takes the core function's
/// parameters and `Ok` type (a free function of a store method without
/// its store; core records by their schema names); one that writes
/// parameters as well is refused.
#[test]
fn signatures_declared_underscore_come_from_the_core() {
    let dir = std::env::temp_dir().join(format!("sessiondb-bridge-sig-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let core = "pub struct SessionRecord { pub id: String }\npub struct SessionStore;\n\
                impl SessionStore {\n    /// One session.\n    pub fn get(&self, id: &str) -> Result<SessionRecord> { Err(Error::Closed) }\n    \
                /// Forget it.\n    pub fn forget(&self, id: &str) -> Result<()> { Err(Error::Closed) }\n}\n\
                /// Prune.\npub fn prune(store: &SessionStore, max: Option<u32>) -> Result<Vec<SessionRecord>> { Err(Error::Closed) }\n\
                /// Count.\npub fn count(text: &str) -> u64 { 0 }\n";
    std::fs::write(dir.join("lib.rs"), core).unwrap();
    let core = Core::load(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let api = "#[bridge(core = sessiondb::SessionRecord)]\npub struct Session;\n\
               trait SessionStore {\n    fn get(&self) -> _;\n    fn forget(&self) -> _;\n    #[bridge(core = sessiondb::prune)]\n    fn prune(&self) -> _;\n}\n\
               trait Functions {\n    #[bridge(core = sessiondb::count, infallible)]\n    fn count() -> _;\n}\n";
    let out = squash(&expand(api, &core).unwrap());
    assert!(out.contains("fnget(&self,id:&str)->Session;"), "{out}");
    assert!(out.contains("fnforget(&self,id:&str);"), "{out}");
    assert!(out.contains("fnprune(&self,max:Option<u32>)->Vec<Session>;"), "{out}");
    assert!(out.contains("fncount(text:&str)->u64;"), "{out}");
    let e = expand("trait SessionStore {\n    fn get(&self, id: &str) -> _;\n}\n", &core).unwrap_err();
    assert_eq!(e, "fn get: `-> _` takes the core's parameters: write none");
}

/// The error declaration's variant and field docs are the core error's
/// (a field of a variant, or of the record a one-field variant holds); a
/// derived field keeps its own, and a doc written where the core has one
/// is refused.
#[test]
fn error_docs_come_from_the_core_error() {
    let dir = std::env::temp_dir().join(format!("sessiondb-bridge-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let core = "pub struct Breakdown {\n    /// Capacity (tokens).\n    pub capacity: u64,\n}\n\
                pub enum Error {\n    /// Busy.\n    ///\n    /// Internals.\n    Busy {\n        /// Waited (ms).\n        waited_ms: u64,\n    },\n    \
                /// Overflow.\n    Overflow(Box<Breakdown>),\n}\n";
    std::fs::write(dir.join("lib.rs"), core).unwrap();
    let core = Core::load(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let api = "#[bridge(error, core = sessiondb::Error)]\npub enum Error {\n    Busy { waited_ms: u64, /// Derived.\n #[bridge(get = \"1\")] extra: u64 },\n    \
               #[bridge(pattern = \"Overflow(b)\")]\n    Overflow { #[bridge(get = \"b.capacity\")] capacity: u64 },\n}\n";
    let out = squash(&expand(api, &core).unwrap());
    assert!(out.contains(r#"#[doc="Busy."]Busy{#[doc="Waited(ms)."]waited_ms:u64,#[doc="Derived."]"#), "{out}");
    assert!(out.contains(r#"#[doc="Overflow."]#[bridge(pattern="Overflow(b)")]Overflow{#[doc="Capacity(tokens)."]"#), "{out}");
    let twice = "#[bridge(error, core = sessiondb::Error)]\npub enum Error {\n    /// Busy again.\n    Busy { waited_ms: u64 },\n}\n";
    assert_eq!(expand(twice, &core).unwrap_err(), "error Busy: its doc belongs on the core item, not in bridge/api.rs");
}
