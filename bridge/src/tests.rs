//! The generator's unit tests: each host's output for small schemas, and
//! the schema errors it reports.

/// bridge/api.rs completed from the core's types, as the generator reads it.
pub(crate) fn expanded_api() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let api = read_api(root).unwrap();
    expand(&api, &Core::load(&root.join("../core/src")).unwrap()).unwrap()
}

use super::*;

/// Generated code without its whitespace, `///` lines as the `#[doc]`
/// attributes they are: compared by its tokens' text, however the
/// generator lays it out.
pub(crate) fn squash(code: &str) -> String {
    let doc = |l: &str| l.trim_start().strip_prefix("///").map_or_else(|| l.to_string(), |d| format!("#[doc = {d:?}]"));
    let code: String = code.lines().map(doc).collect::<String>().chars().filter(|c| !c.is_whitespace()).collect();
    // `quote!` writes a `///` line as a raw string.
    code.replace("#[doc=r\"", "#[doc=\"")
}

/// Whether generated `code` holds `part` (whitespace aside).
pub(crate) fn has(code: &impl ToString, part: &str) -> bool {
    squash(&code.to_string()).contains(&squash(part))
}

/// Whether generated `code` ends with `part` (whitespace aside).
pub(crate) fn ends(code: &impl ToString, part: &str) -> bool {
    squash(&code.to_string()).ends_with(&squash(part))
}

/// Generated code as the committed snapshots print it (prettyplease;
/// comments other than docs dropped).
pub(crate) fn pretty(code: &impl ToString) -> String {
    prettyplease::unparse(&syn::parse_file(&code.to_string()).expect("generated code parses"))
}

/// The Python stub of `src` from a hand-written part of the marks alone.
fn pyi(src: &str) -> Result<String, String> {
    generate_pyi(src, "# bridge: header\n# bridge: records\nclass SessionStore:\n    # bridge: methods\n# bridge: functions\n")
}

/// A generated stub from its `class SessionStore:` on (the methods and functions).
fn tail(stub: &str) -> &str {
    &stub[stub.find("class SessionStore:").expect("the stub has the store class")..]
}

const SCHEMA: &str = r#"
/// Who wrote it.
#[bridge(core = sessiondb::Role, pyi = "Literal")]
pub enum Role {
/// The person.
#[bridge(str = "user")]
User,
#[bridge(str = "tool")]
Tool,
}
/// An entry.
#[bridge(core = sessiondb::TranscriptEntry, output)]
pub struct TranscriptEntry {
/// Seq, from 1.
pub seq: u64,
pub role: Role,
#[bridge(default)]
pub tokens: Option<u64>,
#[bridge(skip(uniffi))]
pub keys: Vec<Role>,
#[bridge(skip(uniffi), python = "Vec<u64>")]
pub by_seq: BTreeMap<u64, u64>,
}
"#;

#[test]
fn python_keeps_core_types_and_names_enums_by_text() {
    let out = generate(Host::Python, SCHEMA).unwrap();
    assert!(has(&out, "crate::records::record! {\n    #[doc = \" An entry.\"]\n    TranscriptEntry = \"TranscriptEntry\" {\n        #[doc = \" Seq, from 1.\"]\n        seq: u64,\n        role: &'static str,\n        tokens: Option<u64>,\n        keys: Vec<&'static str>,\n        by_seq: Vec<u64>,\n    }\n}\n"), "{out}");
    assert!(has(&out, "impl From<sessiondb::TranscriptEntry> for TranscriptEntry {\n    fn from(c: sessiondb::TranscriptEntry) -> Self {\n        TranscriptEntry { seq: crate::records::Conv::conv(c.seq), role: crate::records::Conv::conv(c.role), tokens: crate::records::Conv::conv(c.tokens), keys: crate::records::Conv::conv(c.keys), by_seq: crate::records::Conv::conv(c.by_seq) }\n    }\n}\ncrate::records::conv_from!(sessiondb::TranscriptEntry => TranscriptEntry);\n"), "{out}");
    assert!(has(&out, "sessiondb::Role::User => \"user\","), "{out}");
}

#[test]
fn node_maps_counts_and_enums_and_lists_from_core() {
    let out = generate(Host::Node, SCHEMA).unwrap();
    assert!(has(&out, "#[napi_derive::napi(object, object_from_js = false)]\npub struct TranscriptEntry {\n    #[doc = \" Seq, from 1.\"]\n    pub seq: i64,\n    #[napi(ts_type = \"'user' | 'tool'\")]\n    pub role: String,\n    pub tokens: Option<i64>,\n    #[napi(ts_type = \"Array<'user' | 'tool'>\")]\n    pub keys: Vec<String>,\n    pub by_seq: BTreeMap<String, i64>,\n}\n"), "{out}");
    assert!(has(&out, "impl From<sessiondb::TranscriptEntry> for TranscriptEntry {\n"), "{out}");
    assert!(
        has(&out, "sessiondb::Role::Tool => \"tool\".to_owned(),"),
        "{out}"
    );
}

#[test]
fn uniffi_exposes_core_types_as_they_are() {
    let out = generate(Host::Uniffi, SCHEMA).unwrap();
    assert!(has(&out, "#[uniffi::remote(Enum)]\npub enum Role {\n    #[doc = \" The person.\"]\n    User,\n    Tool,\n}\n"), "{out}");
    assert!(has(&out, "#[uniffi::remote(Record)]\npub struct TranscriptEntry {\n    #[doc = \" Seq, from 1.\"]\n    pub seq: u64,\n    pub role: Role,\n    #[uniffi(default)]\n    pub tokens: Option<u64>,\n}\n"), "{out}");
}

#[test]
fn python_stub_signatures_give_caller_types_and_defaults() {
    let src = format!(
        "{SCHEMA}trait SessionStore {{\n    #[bridge(defaults(role = None, limit = 1000, dry = false))]\n    fn page(&self, path: &Path, role: Option<Role>, limit: u32, dry: bool, seqs: &[u64]) -> Vec<TranscriptEntry>;\n    fn drop_all(&self);\n}}\ntrait Functions {{\n    #[bridge(core = a::f, infallible)]\n    fn f(text: &str) -> Option<Role>;\n}}\n"
    );
    assert_eq!(
        tail(&pyi(&src).unwrap()),
        "class SessionStore:\n    def page(self, path: Union[str, \"os.PathLike[str]\"], role: Optional[Literal[\"user\", \"tool\"]] = None, limit: int = 1000, dry: bool = False, seqs: Sequence[int]) -> List[TranscriptEntry]: ...\n    def drop_all(self) -> None: ...\ndef f(text: str) -> Optional[Literal[\"user\", \"tool\"]]: ...\n"
    );
    let g = |ty: &str| pyi(&format!("{SCHEMA}trait Functions {{\n    #[bridge(core = a::g)]\n    fn g(x: {ty}) -> u64;\n}}\n"));
    assert!(g("(u8, u8)").unwrap().ends_with("def g(x: Tuple[int, int]) -> int: ...\n"));
    let e = g("Rc<u8>").unwrap_err();
    assert!(e.contains("method g: no Python stub type for `Rc<u8>`"), "{e}");
}

/// A `get` field comes from its expression of the core value, computed
/// before the other fields are moved out, and is not read back.
#[test]
fn get_fields_are_derived_from_the_core_value() {
    let src = "#[bridge(core = a::Plan)]\npub struct Plan {\n    pub runs: Vec<u64>,\n    #[bridge(get = \"c.seqs()\", skip(uniffi))]\n    pub seqs: Vec<u64>,\n}\n";
    let out = generate(Host::Python, src).unwrap();
    assert!(has(&out, "    fn from(c: a::Plan) -> Self {\n        let seqs = crate::records::Conv::conv(c.seqs());\n        Plan { runs: crate::records::Conv::conv(c.runs), seqs }\n    }\n"), "{out}");
    assert!(has(&out, "        Ok(a::Plan { runs: crate::records::Back::back(&self.runs, \"runs\")? })\n"), "{out}");
    // Kotlin/Swift expose the core type as it is: it has no such field.
    let e = generate(Host::Uniffi, &src.replace(", skip(uniffi)", "")).unwrap_err();
    assert!(e.starts_with("record Plan: field `seqs` has `get`"), "{e}");
    assert!(has(&generate(Host::Uniffi, src).unwrap(), "pub struct Plan {\n    pub runs: Vec<u64>,\n}\n"));
}

/// A `new` record: Python's constructor takes the defaults (enum
/// fields as text), Node's defaulted fields are optional and filled in
/// when the record is passed back.
#[test]
fn new_records_take_defaults_in_python_and_node() {
    let src = format!("{SCHEMA}#[bridge(core = a::Item, new)]\npub struct Item {{\n    pub role: Role,\n    #[bridge(redact)]\n    pub text: String,\n    #[bridge(host_default = \"\\\"text\\\"\")]\n    pub format: String,\n    #[bridge(default)]\n    pub pinned: bool,\n    #[bridge(default)]\n    pub ids: Vec<String>,\n    #[bridge(default)]\n    pub tokens: Option<u64>,\n}}\n");
    let py = generate(Host::Python, &src).unwrap();
    assert!(has(&py, "    Item = \"Item\" redact(text) {\n        role: String,\n        text: String,\n        format: String,\n        pinned: bool,\n        ids: Vec<String>,\n        tokens: Option<u64>,\n    }\n"), "{py}");
    assert!(has(&py, "    #[pyo3(signature = (role, text, format = \"text\", pinned = false, ids = None, tokens = None))]\n    #[allow(clippy::too_many_arguments)]\n    fn new(role: String, text: String, format: &str, pinned: bool, ids: Option<Vec<String>>, tokens: Option<u64>) -> Self {\n        Item { role, text, format: format.to_owned(), pinned, ids: ids.unwrap_or_default(), tokens }\n    }\n"), "{py}");
    let node = generate(Host::Node, &src).unwrap();
    assert!(has(&node, "    pub format: Option<String>,\n"), "{node}");
    assert!(has(&node, "format: crate::records::Back::back(self.format.unwrap_or_else(|| \"text\".to_owned()), \"format\")?, pinned: crate::records::Back::back(self.pinned.unwrap_or_default(), \"pinned\")?"), "{node}");
    assert!(has(&node, "pinned: Some(crate::records::Conv::conv(c.pinned))"), "{node}");
    let e = generate(Host::Python, &src.replace("    pub role: Role,\n", "").replace("    #[bridge(redact)]\n    pub text: String,\n", "    #[bridge(default)]\n    pub text: String,\n    pub late: u64,\n")).unwrap_err();
    assert_eq!(e, "record Item: field `late` without a default follows one with a default");
}

/// `getter`: a Python and Node property (its own name), a Kotlin/Swift
/// method; `keywords(p)` / `flatten(p)`: Python takes the record's fields
/// (keyword-only / positional, defaulted ones last) and builds the core
/// record; a JSON parameter is `<name>_json` text in Kotlin/Swift.
#[test]
fn getters_flattened_records_and_json_parameters() {
    let src = "#[bridge(core = a::Usage, new)]\npub struct Usage {\n    pub kind: String,\n    #[bridge(default)]\n    pub n: u64,\n    #[bridge(default)]\n    pub model: Option<String>,\n}\n\
               trait SessionStore {\n    #[bridge(sync, infallible, getter = \"closed\")]\n    fn is_closed(&self) -> bool;\n\
               #[bridge(keywords(usage))]\n    fn add(&self, id: &str, usage: Usage);\n\
               #[bridge(flatten(usage))]\n    fn put(&self, usage: &Usage);\n\
               #[bridge(defaults(payload = None))]\n    fn emit(&self, payload: Option<serde_json::Value>);\n}\n";
    let py = generate_methods(Host::Python, src).unwrap();
    assert!(has(&py, "    #[getter]\n    fn closed(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<bool> {\n        let s = &self.inner;\n        let _ = py;\n        Ok(crate::records::Conv::conv(s.is_closed()))\n"), "{py}");
    assert!(has(&py, "    #[pyo3(signature = (id, *, kind, n = 0, model = None))]\n    fn add(&self, py: pyo3::Python<'_>, id: &str, kind: String, n: u64, model: Option<String>) -> pyo3::PyResult<()> {\n        let usage = a::Usage { kind, n, model };\n        let s = &self.inner;\n        py.detach(|| s.add(id, usage))"), "{py}");
    assert!(has(&py, "    #[pyo3(signature = (kind, n = 0, model = None))]\n    fn put(&self, py: pyo3::Python<'_>, kind: String, n: u64, model: Option<String>)"), "{py}");
    assert!(has(&py, "py.detach(|| s.put(&usage))"), "{py}");
    assert!(has(&py, "let payload = payload.map(crate::json::from_py).transpose()?.unwrap_or(serde_json::Value::Null);"), "{py}");
    let pyi = pyi(src).unwrap();
    assert!(pyi.contains("    @property\n    def closed(self) -> bool: ...\n"), "{pyi}");
    assert!(pyi.contains("    def add(self, id: str, *, kind: str, n: int = 0, model: Optional[str] = None) -> None: ...\n"), "{pyi}");
    assert!(pyi.contains("    def emit(self, payload: Optional[Any] = None) -> None: ...\n"), "{pyi}");
    let node = generate_methods(Host::Node, src).unwrap();
    assert!(has(&node, "    #[napi(getter)]\n    pub fn closed(&self) -> napi::Result<bool> {\n"), "{node}");
    assert!(has(&node, "pub fn add(&self, id: String, usage: crate::records::Usage)"), "{node}");
    let ffi = generate_methods(Host::Uniffi, src).unwrap();
    assert!(has(&ffi, "    pub fn is_closed(&self) -> bool {\n"), "{ffi}");
    assert!(has(&ffi, "    #[uniffi::method(default(payload_json = None))]\n    pub fn emit(&self, payload_json: Option<String>) -> crate::error::Result<()> {\n        let payload = match payload_json { Some(t) => serde_json::from_str::<serde_json::Value>(&t).map_err(|_| sessiondb::Error::invalid(\"payloadJson is not valid JSON\"))?, None => serde_json::Value::Null };\n"), "{ffi}");
    let e = generate_methods(Host::Python, &src.replace("fn is_closed(&self)", "fn is_closed(&self, x: u64)")).unwrap_err();
    assert!(e.contains("a getter is a `sync` store method without parameters"), "{e}");
}

/// Kotlin/Swift `suspend`/`async` twins (uniffi async exports): a store
/// method on `AsyncSessionStore` runs the blocking method through
/// `offload` with the same docs, defaults and result; a `sync` one stays a
/// plain call; a `blocking` function is a method of `SessionDbAsync`, any
/// other function gets no twin.
#[test]
fn uniffi_async_twins() {
    let src = "trait SessionStore {\n    #[bridge(sync, infallible, getter = \"closed\")]\n    fn is_closed(&self) -> bool;\n\
               /// Rows.\n    #[bridge(defaults(limit = 10), errors(NotFound))]\n    fn rows(&self, session_id: &str, limit: u32) -> u64;\n}\n\
               trait Functions {\n    #[bridge(core = a::seal, blocking)]\n    fn seal(data: &[u8]) -> u64;\n    #[bridge(core = a::len)]\n    fn len(data: &[u8]) -> u64;\n}\n";
    let ffi = generate_methods(Host::Uniffi, src).unwrap();
    assert!(has(&ffi, "#[uniffi::export] impl AsyncSessionStore {\n    pub fn is_closed(&self) -> bool { self.store.is_closed() }\n"), "{ffi}");
    assert!(has(&ffi, "    #[doc = \" Rows.\"] #[doc = \"\"] #[doc = \" Errors: `NotFound`.\"]\n    #[uniffi::method(default(limit = 10))]\n    pub async fn rows(&self, session_id: String, limit: u32) -> crate::error::Result<u64> {\n        let s = std::sync::Arc::clone(&self.store);\n        crate::async_store::offload(move || s.rows(session_id, limit)).await\n    }\n}\n"), "{ffi}");
    assert!(has(&ffi, "#[uniffi::export] impl SessionDbAsync {\n    pub async fn seal(&self, data: Vec<u8>) -> crate::error::Result<u64> {\n        crate::async_store::offload(move || seal(data)).await\n    }\n}\n"), "{ffi}");
    assert_eq!(ffi.to_string().matches("fn len").count(), 1, "{ffi}");
    // Python and Node have no twins.
    assert!(!has(&generate_methods(Host::Node, src).unwrap(), "AsyncSessionStore"));
}

/// Node bytes: a synchronous call reads the Buffer in place; a Promise's
/// job gets its own copy.
#[test]
fn node_buffers_are_copied_only_for_promises() {
    let src = "trait Functions {\n    #[bridge(core = a::read)]\n    fn read(data: &[u8]) -> u64;\n    #[bridge(core = a::seal, blocking)]\n    fn seal(data: &[u8]) -> u64;\n}\n";
    let node = generate_methods(Host::Node, src).unwrap();
    assert!(has(&node, "pub fn read(data: napi::bindgen_prelude::Buffer) -> napi::Result<i64> {\n    a::read(&data).map(crate::records::Conv::conv).map_err(crate::errors::to_napi)\n"), "{node}");
    assert!(has(&node, "    let data = data.to_vec();\n    Ok(crate::job::job(move || a::seal(&data).map(crate::records::Conv::conv)))\n"), "{node}");
}

/// A JSON object field (`serde_json::Map`) is a dict in Python (parsed
/// in the constructor), a JS object (`null`: `{}`) in Node and object
/// text in Kotlin/Swift; a `tuple` record callers pass in is a tuple of
/// classes in Python, converted back into the core's tuple everywhere.
#[test]
fn json_objects_and_tuple_records_passed_in() {
    let src = "#[bridge(core = a::Entry, new)]\npub struct Entry {\n    pub text: String,\n}\n#[bridge(core = a::Meta, new, twin)]\npub struct Meta {\n    #[bridge(default = \"\\\"{}\\\"\", python = \"crate::json::Json\", node = \"serde_json::Value\")]\n    pub extra: serde_json::Map<String, serde_json::Value>,\n}\n#[bridge(tuple, skip(python))]\npub struct Row {\n    pub entry: Entry,\n    pub meta: Meta,\n}\n#[bridge(output, tuple, skip(python))]\npub struct Pair {\n    pub entry: Entry,\n    pub meta: Meta,\n}\ntrait SessionStore {\n    fn put(&self, rows: Vec<Row>) -> u64;\n}\n";
    let py = generate(Host::Python, src).unwrap();
    assert!(has(&py, "    #[pyo3(signature = (extra = None))]\n    #[allow(clippy::too_many_arguments)]\n    fn new(extra: Option<&pyo3::Bound<'_, pyo3::PyAny>>) -> pyo3::PyResult<Self> {\n        Ok(Meta { extra: crate::records::Conv::conv(match extra { Some(v) => crate::json::de::<serde_json :: Map < String , serde_json :: Value >>(v, \"extra\")?, None => Default::default() }) })\n"), "{py}");
    assert!(has(&py, "impl crate::records::Conv<(Entry, Meta,)> for (a::Entry, a::Meta,) {\n    fn conv(self) -> (Entry, Meta,) {\n        (crate::records::Conv::conv(self.0), crate::records::Conv::conv(self.1),)\n"), "{py}");
    let pm = generate_methods(Host::Python, src).unwrap();
    assert!(has(&pm, "rows: Vec<(pyo3::PyRef<'_, crate::records::Entry>, pyo3::PyRef<'_, crate::records::Meta>,)>) -> pyo3::PyResult<u64> {\n        let rows = rows.iter().map(|x| Ok((crate::records::Back::back(&*x.0, \"rows\")?, crate::records::Back::back(&*x.1, \"rows\")?,))).collect::<sessiondb::Result<Vec<(a::Entry, a::Meta,)>>>().map_err(crate::errors::py_err(py))?;\n"), "{pm}");
    let node = generate(Host::Node, src).unwrap();
    assert!(has(&node, "impl crate::records::Back<(a::Entry, a::Meta,)> for Row {\n    fn back(self, _: &str) -> sessiondb::Result<(a::Entry, a::Meta,)> {\n        Ok((crate::records::Back::back(self.entry, \"entry\")?, crate::records::Back::back(self.meta, \"meta\")?,))\n"), "{node}");
    assert!(has(&node, "impl Back<serde_json::Map<String, serde_json::Value>> for serde_json::Value {\n    fn back(self, what: &str) -> sessiondb::Result<serde_json::Map<String, serde_json::Value>> {\n        match self {\n            serde_json::Value::Object(m) => Ok(m),\n            serde_json::Value::Null => Ok(serde_json::Map::new()),\n"), "{node}");
    let ffi = generate(Host::Uniffi, src).unwrap();
    assert!(has(&ffi, "    #[uniffi(default = \"{}\")]\n    pub extra_json: String,\n"), "{ffi}");
    assert!(has(&ffi, "Ok(a::Meta { extra: match serde_json::from_str(&c.extra_json) { Ok(serde_json::Value::Object(m)) => m, Ok(_) => return Err(sessiondb::Error::invalid(\"extraJson must be a JSON object\")), Err(_) => return Err(sessiondb::Error::invalid(\"extraJson is not valid JSON\")) } })"), "{ffi}");
    assert!(has(&ffi, "impl TryFrom<Row> for (a::Entry, a::Meta,) {\n    type Error = sessiondb::Error;\n    fn try_from(c: Row) -> sessiondb::Result<Self> {\n        Ok((Back::back(c.entry), TryFrom::try_from(c.meta)?,))\n"), "{ffi}");
    let fm = generate_methods(Host::Uniffi, src).unwrap();
    assert!(has(&fm, "let rows: Vec<(a::Entry, a::Meta,)> = rows.into_iter().map(TryFrom::try_from).collect::<sessiondb::Result<_>>()?;"), "{fm}");
    // A field without a default after a defaulted JSON field: a schema error.
    let e = generate(Host::Python, &src.replace("pub extra: serde_json::Map<String, serde_json::Value>,\n", "pub extra: serde_json::Map<String, serde_json::Value>,\n    pub seq: u64,\n")).unwrap_err();
    assert_eq!(e, "record Meta: field `seq` without a default follows one with a default");
}

/// `keywords(p = "a, b")`: Python takes `a`, `b` first, then the other
/// fields keyword-only; Node takes `a`, `b` and an options object of the
/// rest (`<Method>Options`), converted back into the core record.
#[test]
fn leading_fields_and_node_options_objects() {
    let src = "#[bridge(core = a::New, new)]\npub struct New {\n    #[bridge(default)]\n    pub id: Option<String>,\n    #[bridge(default)]\n    pub name: Option<String>,\n    #[bridge(default)]\n    pub at: Option<u64>,\n}\ntrait SessionStore {\n    #[bridge(core = a::Store::make_with, keywords(new = \"name\"))]\n    fn make(&self, new: New) -> u64;\n}\n";
    let py = generate_methods(Host::Python, src).unwrap();
    assert!(has(&py, "    #[pyo3(signature = (name = None, *, id = None, at = None))]\n    fn make(&self, py: pyo3::Python<'_>, name: Option<String>, id: Option<String>, at: Option<u64>) -> pyo3::PyResult<u64> {\n        let new = a::New { id, name, at };\n        let s = &self.inner;\n        py.detach(|| a::Store::make_with(s, new))"), "{py}");
    let node = generate_methods(Host::Node, src).unwrap();
    assert!(has(&node, "    pub fn make(&self, name: Option<String>, options: Option<MakeOptions>) -> napi::Result<napi::bindgen_prelude::AsyncTask<crate::job::Job<i64>>> {\n        let new = { let o = options.unwrap_or_default(); (|| -> sessiondb::Result<a::New> { Ok(a::New { name, id: crate::records::Back::back(o.id, \"id\")?, at: crate::records::Back::back(o.at, \"at\")? }) })().map_err(crate::errors::to_napi)? };\n"), "{node}");
    assert!(has(&node, "}\n\n/// The fields of `New` a `make` call takes after its parameters, each optional.\n#[napi_derive::napi(object, object_to_js = false)]\n#[derive(Default)]\npub struct MakeOptions {\n    pub id: Option<String>,\n    pub at: Option<f64>,\n}\n"), "{node}");
    let e = generate_methods(Host::Node, &src.replace("keywords(new = \"name\")", "keywords(new = \"title\")")).unwrap_err();
    assert_eq!(e, "method make: `title` is not a field of New");
}

/// A JSON field of a Kotlin/Swift twin is its text, `<name>_json`.
#[test]
fn json_fields_are_text_in_kotlin_and_swift() {
    let src = "#[bridge(core = a::Event, output, twin)]\npub struct Event {\n    pub seq: u64,\n    pub payload: serde_json::Value,\n}\n";
    let ffi = generate(Host::Uniffi, src).unwrap();
    assert!(has(&ffi, "    pub seq: u64,\n    pub payload_json: String,\n}\n"), "{ffi}");
    assert!(has(&ffi, "Event { seq: crate::records::Conv::conv(c.seq), payload_json: crate::records::Conv::conv(c.payload) }"), "{ffi}");
    assert!(has(&ffi, "impl Conv<String> for serde_json::Value {\n    fn conv(self) -> String {\n        self.to_string()\n"), "{ffi}");
    // Passed in, the text is parsed: `TryFrom`, `InvalidInput` naming the field.
    let input = generate(Host::Uniffi, &src.replace("output, twin", "twin")).unwrap();
    assert!(has(&input, "impl TryFrom<Event> for a::Event {\n    type Error = sessiondb::Error;\n    fn try_from(c: Event) -> sessiondb::Result<Self> {\n        Ok(a::Event { seq: Back::back(c.seq), payload: serde_json::from_str(&c.payload_json).map_err(|_| sessiondb::Error::invalid(\"payloadJson is not valid JSON\"))? })\n"), "{input}");
    let m = generate_methods(Host::Uniffi, &format!("{}trait SessionStore {{\n    fn put(&self, event: Event);\n}}\n", src.replace("output, twin", "twin"))).unwrap();
    assert!(has(&m, "let event: a::Event = TryFrom::try_from(event)?;"), "{m}");
    let node = generate(Host::Node, src).unwrap();
    assert!(has(&node, "    pub payload: serde_json :: Value,\n"), "{node}");
}

#[test]
fn schema_errors_name_the_problem() {
    let e = generate(Host::Node, "#[bridge(core = a::B)] pub enum B { X }").unwrap_err();
    assert!(
        e.starts_with("a variant needs `#[bridge(str = \"...\")]`"),
        "{e}"
    );
    let e = generate(
        Host::Uniffi,
        "trait SessionStore { fn f(&self, x: &[String]); }",
    )
    .map(|_| ())
    .and_then(|_| {
        generate_methods(
            Host::Uniffi,
            "trait SessionStore { fn f(&self, x: &[String]); }",
        )
    })
    .unwrap_err();
    assert_eq!(
        e,
        "method f: parameter `x: &[String]` has no rule; declare the method by hand (skip)"
    );
    let e = generate(
        Host::Node,
        "#[bridge(colour = 1)] pub struct A { pub x: u64 }",
    )
    .unwrap_err();
    assert!(e.starts_with("unknown bridge attribute `colour`"), "{e}");
}

const DATA_ENUMS: &str = r#"
#[bridge(core = a::Encoding)]
pub enum Encoding {
#[bridge(str = "o200k_base")]
O200k,
}
/// How it was counted.
#[bridge(core = a::Method)]
pub enum Method {
/// With a tokenizer.
#[bridge(str = "exact")]
Exact {
    /// The encoding.
    encoding: Encoding,
},
#[bridge(str = "failed")]
Failed(String),
#[bridge(str = "host")]
Host,
}
#[bridge(core = a::Count, output)]
pub struct Count {
pub method: Method,
#[bridge(get = "c.method.encoding()", skip(uniffi))]
pub encoding: Option<Encoding>,
#[bridge(names = Method)]
pub also: Vec<String>,
}
"#;

/// An enum with fields: Kotlin/Swift get it as it is, fields and docs
/// included; Python and Node its `str` names (no `Back`: a name cannot
/// rebuild the fields), and a `names = Enum` text field their union.
#[test]
fn data_enums_cross_as_names_and_as_they_are_in_uniffi() {
    let u = generate(Host::Uniffi, DATA_ENUMS).unwrap();
    assert!(has(&u, "#[allow(unused_imports)]\nuse a::Method;\n#[doc = \" How it was counted.\"]\n#[uniffi::remote(Enum)]\npub enum Method {\n    #[doc = \" With a tokenizer.\"]\n    Exact {\n        #[doc = \" The encoding.\"]\n        encoding: Encoding,\n    },\n    Failed(String),\n    Host,\n}\n"), "{u}");
    assert!(has(&u, "#[uniffi::remote(Record)]\npub struct Count {\n    pub method: Method,\n    pub also: Vec<String>,\n}\n"), "{u}");
    let py = generate(Host::Python, DATA_ENUMS).unwrap();
    assert!(has(&py, "impl crate::records::Conv<&'static str> for a::Method {\n    fn conv(self) -> &'static str {\n        match self {\n            a::Method::Exact { .. } => \"exact\",\n            a::Method::Failed(..) => \"failed\",\n            a::Method::Host => \"host\",\n        }\n    }\n}\n"), "{py}");
    assert!(!has(&py, "Back<a::Method>"), "{py}");
    assert!(has(&py, "impl crate::records::Back<a::Encoding> for &'static str {"), "{py}");
    assert!(has(&py, "        method: &'static str,\n        encoding: Option<&'static str>,\n        also: Vec<String>,\n"), "{py}");
    assert!(has(&py, "Count { method: crate::records::Conv::conv(c.method), encoding, also: crate::records::Conv::conv(c.also) }"), "{py}");
    let node = generate(Host::Node, DATA_ENUMS).unwrap();
    assert!(has(&node, "    #[napi(ts_type = \"'exact' | 'failed' | 'host'\")]\n    pub method: String,\n    #[napi(ts_type = \"'o200k_base'\")]\n    pub encoding: Option<String>,\n    #[napi(ts_type = \"Array<'exact' | 'failed' | 'host'>\")]\n    pub also: Vec<String>,\n"), "{node}");
}

/// The unions Node showed from hand-written `ts = "..."` strings are now
/// derived from the enums' declarations: the same text, exactly.
#[test]
fn api_unions_are_derived_from_the_enums() {
    let src = read_api(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(!src.contains("ts = \"'"), "a literal union written by hand in api.rs");
    let api = expanded_api();
    let node = generate(Host::Node, &api).unwrap();
    for (record, field, union) in [
        ("TokenCount", "method", "'exact' | 'estimate' | 'host'"),
        ("SkippedLine", "reason", "'torn_tail' | 'invalid_utf8' | 'invalid_json' | 'not_an_object' | 'too_long'"),
        ("FileImport", "status", "'imported' | 'up_to_date' | 'source_changed' | 'unrecognized' | 'failed'"),
        ("DigestSkippedLine", "reason", "'torn_tail' | 'invalid_utf8' | 'invalid_json' | 'not_an_object' | 'too_long'"),
    ] {
        let node = squash(&node.to_string());
        let at = node.find(&format!("pubstruct{record}{{")).unwrap();
        let body = &node[at..at + node[at..].find('}').unwrap() + 1];
        assert!(has(&body, &format!("    #[napi(ts_type = {union:?})]\n    pub {field}: String,\n")), "{record}.{field}: {body}");
    }
    let u = generate(Host::Uniffi, &api).unwrap();
    assert!(has(&u, "pub enum ImportStatus {\n    #[doc = \" New lines were read (possibly zero turns, e.g. only bookkeeping lines).\"]\n    Imported,\n"), "{u}");
    assert!(has(&u, "    Failed(String),\n}\n"), "{u}");
    assert!(has(&u, "    InvalidJson {\n        #[doc = \" 1-based column where parsing failed.\"]\n        column: u64,\n    },\n"), "{u}");
    assert!(has(&u, "    Current(String),\n"), "{u}");
}

/// A path field: text in every host (lossy UTF-8), so Kotlin/Swift need
/// a twin; a twin callers pass in converts back by a generated `From`.
#[test]
fn twins_take_paths_as_text_and_convert_back() {
    let src = "#[bridge(core = a::Run)]\npub struct Run {\n    pub n: u64,\n}\n#[bridge(core = a::File, twin)]\npub struct File {\n    pub path: PathBuf,\n    #[bridge(uniffi = \"u32\")]\n    pub turns: usize,\n    pub seqs: BTreeSet<u64>,\n    pub runs: Vec<Run>,\n}\n";
    let u = generate(Host::Uniffi, src).unwrap();
    assert!(has(&u, "#[derive(Debug, Clone, PartialEq, uniffi::Record)]\npub struct File {\n    pub path: String,\n    pub turns: u32,\n    pub seqs: Vec<u64>,\n    pub runs: Vec<Run>,\n}\n"), "{u}");
    assert!(has(&u, "impl Conv<File> for a::File {\n    fn conv(self) -> File {\n        let c = self;\n        File { path: crate::records::Conv::conv(c.path), turns: crate::records::Conv::conv(c.turns), seqs: crate::records::Conv::conv(c.seqs), runs: crate::records::Conv::conv(c.runs) }\n    }\n}\n"), "{u}");
    assert!(has(&u, "impl From<File> for a::File {\n    fn from(c: File) -> Self {\n        a::File { path: Back::back(c.path), turns: Back::back(c.turns), seqs: Back::back(c.seqs), runs: Back::back(c.runs) }\n    }\n}\nimpl Back<a::File> for File {\n"), "{u}");
    assert!(has(&u, "impl crate::records::Conv<String> for std::path::PathBuf {\n    fn conv(self) -> String {\n        self.to_string_lossy().into_owned()\n    }\n}\n"), "{u}");
    assert!(has(&u, "impl Back<std::path::PathBuf> for String {"), "{u}");
    assert!(!has(&u, "impl From<Run>"), "a record exposed as it is needs no conversion: {u}");
    // An output twin is never passed in: no way back.
    assert!(!has(&generate(Host::Uniffi, &src.replace("twin)", "twin, output)")).unwrap(), "impl From<File>"));
    let node = generate(Host::Node, src).unwrap();
    assert!(has(&node, "    pub path: String,\n"), "{node}");
    let e = generate(Host::Uniffi, &src.replace(", twin", "")).unwrap_err();
    assert_eq!(e, "record File: field `path` is a path, which Kotlin/Swift take as text: make the record a `twin`");
}

/// `dict(...)` parameters: Python takes the class or the dict form
/// (a record Python lacks: the dict form alone), with the message's
/// name; a record defaulting to `None` is optional in every host.
#[test]
fn dict_params_take_records_or_dicts_in_python() {
    let src = "#[bridge(core = a::Item, new, dict = \"ItemDict\")]\npub struct Item {\n    pub seq: u64,\n}\n#[bridge(core = a::Opts, new, twin, skip(python), dict = \"OptsDict\")]\npub struct Opts {\n    #[bridge(default)]\n    pub turns: u64,\n}\ntrait Functions {\n    #[bridge(core = a::plan, defaults(opts = None), dict(items = \"items\", opts = \"options\"))]\n    fn plan(items: &[Item], opts: &Opts) -> u64;\n    #[bridge(core = a::one, infallible, dict(item = \"an item\"))]\n    fn one(item: &Item) -> u64;\n}\n";
    let py = generate_methods(Host::Python, src).unwrap();
    assert!(has(&py, "pub fn plan(py: pyo3::Python<'_>, items: &pyo3::Bound<'_, pyo3::PyAny>, opts: Option<&pyo3::Bound<'_, pyo3::PyAny>>) -> pyo3::PyResult<u64> {\n    let items: Vec<a::Item> = crate::dicts::records_or_dicts::<crate::records::Item, a::Item>(items, \"items\")?;\n    let opts: a::Opts = match opts { Some(opts) if !opts.is_none() => crate::json::de(opts, \"options\")?, _ => Default::default() };\n"), "{py}");
    assert!(has(&py, "    let item: a::Item = crate::dicts::record_or_dict::<crate::records::Item, a::Item>(item, \"an item\")?;\n"), "{py}");
    assert_eq!(
        tail(&pyi(src).unwrap()),
        "class SessionStore:\ndef plan(items: Sequence[Union[Item, ItemDict]], opts: Optional[OptsDict] = None) -> int: ...\ndef one(item: Union[Item, ItemDict]) -> int: ...\n"
    );
    let node = generate_methods(Host::Node, src).unwrap();
    assert!(has(&node, "pub fn plan(items: Vec<crate::records::Item>, opts: Option<crate::records::Opts>) -> napi::Result<i64> {\n    let items: Vec<a::Item> = crate::records::Back::back(items, \"items\").map_err(crate::errors::to_napi)?;\n    let opts: a::Opts = match opts { Some(opts) => crate::records::Back::back(opts, \"opts\").map_err(crate::errors::to_napi)?, _ => Default::default() };\n"), "{node}");
    let u = generate_methods(Host::Uniffi, src).unwrap();
    assert!(has(&u, "#[uniffi::export(default(opts = None))]\npub fn plan(items: Vec<a::Item>, opts: Option<crate::records::Opts>) -> crate::error::Result<u64> {\n    let opts: a::Opts = match opts { Some(opts) => opts.into(), _ => Default::default() };\n    Ok(crate::records::Conv::conv(a::plan(&items, &opts)?))\n"), "{u}");
    let e = pyi(&src.replace(", dict = \"ItemDict\"", "")).unwrap_err();
    assert_eq!(e, "method plan: `dict(items)`: record Item needs `dict = \"Type\"` (its dict form's stub type)");
    let e = generate_methods(Host::Python, &src.replace("dict(item = ", "dict(other = ")).unwrap_err();
    assert!(e.starts_with("dict for `other`, which is not a parameter"), "{e}");
}
/// A private helper (`_name`) keeps its `_` in Node; `ts(...)` and
/// `pyi(...)` type a parameter; a borrowed JSON value is lent; a list
/// of text and a defaulted `usize` cross; seconds come back as a tuple
/// in Python and as an object in Node.
#[test]
fn private_helpers_typed_parameters_json_lent_and_seconds() {
    let src = "#[bridge(output, tuple, skip(python, uniffi))]\npub struct Times {\n    pub append_s: f64,\n    pub read_s: f64,\n}\n\
               trait Functions {\n    #[bridge(core = a::write, detach, skip(uniffi), pyi(session = \"SessionDict\"), ts(session = \"{ id: string }\"))]\n    fn write(session: &serde_json::Value) -> String;\n\
               #[bridge(core = a::bench, defaults(batch = 1), blocking, skip(uniffi))]\n    fn _bench(items: Vec<String>, batch: usize) -> Times;\n}\n";
    let py = generate_methods(Host::Python, src).unwrap();
    assert!(has(&py, "#[pyo3::pyfunction]\npub fn write(py: pyo3::Python<'_>, session: &pyo3::Bound<'_, pyo3::PyAny>) -> pyo3::PyResult<String> {\n    let session = crate::json::from_py(session)?;\n    py.detach(|| a::write(&session)).map(crate::records::Conv::conv).map_err(crate::errors::py_err(py))\n}\n"), "{py}");
    assert!(has(&py, "#[pyo3::pyfunction]\n#[pyo3(signature = (items, batch = 1))]\npub fn _bench(py: pyo3::Python<'_>, items: Vec<String>, batch: usize) -> pyo3::PyResult<(f64, f64)> {\n    py.detach(|| a::bench(items, batch)).map(crate::records::Conv::conv).map_err(crate::errors::py_err(py))\n}\n"), "{py}");
    assert_eq!(
        tail(&pyi(src).unwrap()),
        "class SessionStore:\ndef write(session: SessionDict) -> str: ...\ndef _bench(items: List[str], batch: int = 1) -> Tuple[float, float]: ...\n"
    );
    let node = generate_methods(Host::Node, src).unwrap();
    assert!(has(&node, "#[napi_derive::napi]\npub fn write(#[napi(ts_arg_type = \"{ id: string }\")] session: serde_json::Value) -> napi::Result<String> {\n    a::write(&session).map(crate::records::Conv::conv).map_err(crate::errors::to_napi)\n}\n"), "{node}");
    assert!(has(&node, "#[napi_derive::napi(js_name = \"_bench\", ts_return_type = \"Promise<Times>\")]\npub fn _bench(items: Vec<String>, batch: Option<f64>) -> napi::Result<napi::bindgen_prelude::AsyncTask<crate::job::Job<crate::records::Times>>> {\n    let batch: usize = batch.map(|v| crate::records::int(v, \"batch\")).transpose().map_err(crate::errors::to_napi)?.unwrap_or(1);\n    Ok(crate::job::job(move || a::bench(items, batch).map(crate::records::Conv::conv)))\n}\n"), "{node}");
    let sync = generate_methods(Host::Node, &src.replace("fn write(", "fn _write_it(")).unwrap();
    assert!(has(&sync, "#[napi_derive::napi(js_name = \"_writeIt\")]\npub fn _write_it("), "{sync}");
    let records = generate(Host::Node, src).unwrap();
    assert!(has(&records, "impl crate::records::Conv<Times> for (f64, f64,) {\n    fn conv(self) -> Times {\n        Times { append_s: crate::records::Conv::conv(self.0), read_s: crate::records::Conv::conv(self.1) }\n"), "{records}");
    assert!(ends(&generate_methods(Host::Uniffi, src).unwrap(), "impl SessionStore {\n}\n\n"));
    let e = generate_methods(Host::Node, &src.replace("ts(session = ", "ts(other = ")).unwrap_err();
    assert!(e.starts_with("ts for `other`, which is not a parameter"), "{e}");
    let e = generate_methods(Host::Node, &src.replace("pyi(session = ", "pyi(other = ")).unwrap_err();
    assert!(e.starts_with("pyi for `other`, which is not a parameter"), "{e}");
}

/// Every rule reads a type through one classification of its syntax: the
/// wrapping of a parameter and its base (records and enums by name, JSON
/// by its path, integers by width).
#[test]
fn types_are_classified_by_their_syntax() {
    let s = parse(SCHEMA).unwrap();
    let shape = |t: &str| s.param_shape(&syn::parse_str(t).unwrap());
    assert!(matches!(shape("&str"), (Wrap::Ref, Base::Str)));
    assert!(matches!(shape("Option<&str>"), (Wrap::OptionRef, Base::Str)));
    assert!(matches!(shape("&[u8]"), (Wrap::Slice, Base::Int(Int::U8))));
    assert!(matches!(shape("Vec<TranscriptEntry>"), (Wrap::Vec, Base::Record(r)) if r.name == "TranscriptEntry"));
    assert!(matches!(shape("Option<Role>"), (Wrap::Option, Base::Enum(e)) if e.name == "Role"));
    assert!(matches!(shape("&serde_json::Value"), (Wrap::Ref, Base::Json)));
    assert!(matches!(shape("serde_json::Map<String, serde_json::Value>"), (Wrap::None, Base::JsonObject)));
    assert!(matches!(shape("&Vec<u64>"), (Wrap::Other, Base::Other)));
    assert!(matches!(shape("a::Role"), (Wrap::None, Base::Other)), "only a schema name is a record or enum");
    assert!(s.has_path(&syn::parse_str("Option<Vec<PathBuf>>").unwrap()));
    // The containers too: a seq-keyed map of sets is a JS object of lists.
    let ty: Type = syn::parse_str("BTreeMap<u64, BTreeSet<Role>>").unwrap();
    assert!(matches!(s.shape(&ty).kind, Kind::Map(..)));
    assert!(has(&s.host_ty(Host::Node, &ty), "BTreeMap<String, Vec<String>>"));
}

/// The Python stub is written whole: the hand-written part with `__all__`
/// (every top-level name, sorted), the enums' aliases, a class per record
/// (docstring `cleandoc`ed, as pyo3 and `inspect` give it, and escaped, `__new__` with the fields'
/// defaults, properties, `to_dict`) and the methods and functions with
/// their docstrings and error classes, each at its mark.
#[test]
fn the_python_stub_is_generated_whole() {
    let src = "#[bridge(core = a::Kind, pyi = \"Kind\")]\npub enum Kind {\n#[bridge(str = \"a\")]\nA,\n}\n\
               /// An item: `\\` and \"\"\" are escaped.\n///\n///   Indented.\n#[bridge(core = a::Item, new)]\npub struct Item {\n    /// Its kind.\n    pub kind: Kind,\n\
               #[bridge(default)]\n    pub n: u64,\n    #[bridge(default)]\n    pub ids: Vec<String>,\n    #[bridge(host_default = \"\\\"x\\\"\")]\n    pub text: String,\n    #[bridge(default)]\n    pub note: Option<String>,\n}\n\
               trait SessionStore {\n    /// Whether it is closed.\n    #[bridge(sync, infallible, getter = \"closed\")]\n    fn is_closed(&self) -> bool;\n\
               /// Put one item.\n    #[bridge(errors(NotFound, Busy))]\n    fn put(&self, item: &Item) -> Vec<Item>;\n}\n\
               trait Functions {\n    #[bridge(core = a::f, infallible)]\n    fn f(kind: Kind) -> u64;\n}\n";
    let hand = "\"\"\"Stubs.\"\"\"\n# bridge: header\n\n__version__: str\n\n# bridge: records\n\nclass SessionStore:\n    def close(self) -> None: ...\n    # bridge: methods\n\ndef hand_made() -> None: ...\n# bridge: functions\n";
    assert_eq!(
        generate_pyi(src, hand).unwrap(),
        r#""""Stubs."""
from sessiondb.types import Kind

__all__ = [
    "Item",
    "SessionStore",
    "__version__",
    "f",
    "hand_made",
]

__version__: str

@final
class Item:
    """An item: `\\` and \"\"\" are escaped.

    Indented.
    """
    def __new__(
        cls,
        kind: Kind,
        n: int = 0,
        ids: Optional[Sequence[str]] = None,
        text: str = "x",
        note: Optional[str] = None,
    ) -> "Item": ...
    @property
    def kind(self) -> Kind:
        """Its kind."""
    @property
    def n(self) -> int: ...
    @property
    def ids(self) -> List[str]: ...
    @property
    def text(self) -> str: ...
    @property
    def note(self) -> Optional[str]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The record as plain data: `{attribute: value}`, nested records as dicts."""

class SessionStore:
    def close(self) -> None: ...
    @property
    def closed(self) -> bool:
        """Whether it is closed."""
    def put(self, item: Item) -> List[Item]:
        """Put one item.

        Raises NotFoundError, BusyError.
        """

def hand_made() -> None: ...
def f(kind: Kind) -> int: ...
"#
    );
    let e = generate_pyi(src, &hand.replace("    # bridge: methods\n", "")).unwrap_err();
    assert_eq!(e, "the hand-written stub has `# bridge: methods` 0 times (once wanted)");
}
