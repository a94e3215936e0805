//! The host bridge generator: reads `bridge/api.rs`, the one declaration of
//! the records, enums, `SessionStore` methods and module functions the hosts
//! expose, and writes each host's Rust declarations of them
//! (issue 11 item 4, "one bridge definition that generates every host";
//! libsignal's bridge is the model). [`snapshots`] formats it into the
//! committed files of `bridge/generated/`, which the binding crates
//! `include!` (a test keeps them current; see [`snapshot`]).
//!
//! `bridge/api.rs` is Rust syntax, parsed here with `syn` and never compiled
//! itself; a record or enum naming its core type is first completed from
//! the core's own definition ([`expand`], module `core_types`: fields,
//! variants, types, docs), so below a record's fields are the core's plus
//! the departures `api.rs` lists: each `struct` is a record, each `enum` a unit enum of the core,
//! `trait SessionStore` the store's methods (`&self` first) and `trait
//! Functions` the module functions, all with the core's own types and the
//! docs every host shows. `#[bridge(...)]` says how a host departs from the
//! rule:
//!
//! - on a record: `core = path` (the core type it is converted from, and for
//!   Kotlin/Swift the type exposed as it is, `#[uniffi::remote(Record)]`;
//!   without it, a record every host builds itself); `twin` (Kotlin/Swift get
//!   an FFI copy with the host types, converted field by field);
//!   `skip(python, node, uniffi)` (that host declares it by hand: a record
//!   skipped everywhere is listed only so methods can take or return it);
//!   `output` (a result only: Node `object_from_js = false`, and no `Back`);
//!   `new` (a record callers build: Python gets a constructor with the
//!   fields' defaults and keeps enum fields as the text given, parsed when
//!   the record is passed in; Node makes defaulted fields optional);
//!   `tuple` (the core hands it over, or takes it, as a tuple of its
//!   fields, in order: each host converts the tuple, and back into it when
//!   the record is not `output`); `dict = "Type"` (the Python stub type
//!   of its dict form, for parameters declared `dict(...)`).
//! - on an enum: `core = path`, `parse = path` (the core's parser of the
//!   names, for parameters); on each variant `str = "name"` (the string
//!   Python and Node see, the core's serde name, as its `name()` gives it).
//!   A variant may have fields (`V(String)`, `V { column: u64 }`, the
//!   core's): Kotlin/Swift get them as they are, Python and Node only the
//!   name (such an enum goes back only through `parse`; a field's other
//!   parts reach them through `get` fields beside it).
//! - on a field: `omit` (a core field no host gets); `python = "Type"`, `node = "Type"`, `uniffi = "Type"`
//!   (another host type, converted by that host's `Conv`); `ts = "..."` (the
//!   TypeScript type); `default` or `default = "tokens"` (Kotlin/Swift
//!   `#[uniffi(default)]`; in a `new` record also Python's and Node's
//!   default, the type's own); `host_default = "literal"` (Python's and
//!   Node's default only); `get = "expr"` (the field is derived from the
//!   core value `c`, e.g. `c.compacted_seqs()`, instead of read from the
//!   core field of its name, and not read back); `redact` (Python's `repr`
//!   shows `<N chars>`: text that may be user content); `names = Enum` (a
//!   text field holding one of that enum's `str` names: Node's `ts_type` is
//!   their union).
//! - on a method or function: `core = path` (a free function of the core;
//!   a method's takes the store first; required for functions);
//!   `defaults(name = value, ...)` (Python's defaults; Node: optional;
//!   Kotlin/Swift: defaults); `errors(Kind, ...)` (the error kinds, written
//!   into each host's docs as its classes); `infallible` (the core returns
//!   the value, not a `Result`); `returns = "Type"` (the schema type the
//!   hosts return when it is not the core's); `sync` (a method that touches
//!   neither disk nor crypto: Node returns the value, Python keeps the GIL);
//!   on a function `blocking` (a Promise in Node, the GIL released in Python;
//!   functions are otherwise synchronous) or `detach` (the GIL released in
//!   Python only); `getter` or `getter = "name"` (a `sync` method without
//!   parameters that Python and Node expose as a read-only property, of
//!   that name; Kotlin/Swift keep the method); `flatten(p)` / `keywords(p)`
//!   (Python takes the fields of the record parameter `p` in its place,
//!   those without a default first, with the fields' defaults; `keywords`:
//!   keyword-only; Node and Kotlin/Swift take the record; `keywords(p =
//!   "a, b")`: Python takes the fields `a`, `b` first and the rest
//!   keyword-only, Node takes `a`, `b` as parameters and the rest in one
//!   options object, `<Method>Options`, every field optional);
//!   `dict(param = "what", ...)` (Python also takes these
//!   record parameters, or lists of them, as dicts in the core's serde
//!   shape, `python/src/dicts.rs`; `what` names a dict in the
//!   `InvalidInput` message, and a list's `what` without its plural `s`
//!   names one dict among class instances); `ts(param = "...")` (the
//!   TypeScript type of a parameter, Node's `ts_arg_type`, e.g. the object
//!   shape of a JSON parameter); `pyi(param = "Type")` (its Python stub
//!   type, e.g. a `TypedDict` of `sessiondb.inputs`).
//! - a function or method named with a leading `_` (a private helper, e.g.
//!   `_bench_core`) keeps the `_` in Node (`js_name = "_benchCore"`; napi's
//!   camelCase drops it); the surface checks (tests/api/surface.py) leave it out.
//!
//! Host types by rule: Python keeps the core types, enums become `&'static
//! str`; Node makes `u64`/`usize` JS numbers (`i64`, checked on the way in),
//! enums `String` with a literal-union `ts_type`, `u64` map keys strings;
//! Kotlin/Swift take the core types as they are (a `twin` record: an FFI
//! copy, converted by `Conv` and, when callers pass it in, back by a
//! generated `From` through the FFI `Back`). Sets cross every host as
//! lists, paths (`PathBuf`) as their text (lossy UTF-8; Kotlin/Swift: in a
//! twin). A single record parameter defaulting to `None` is optional in
//! every host (the core type's `Default` when left out). A `tuple` record
//! Python skips is a Python tuple of its fields (of their classes, when
//! passed in). `serde_json::Value` is any
//! JSON-serialisable Python value, any JS value, and JSON text in
//! Kotlin/Swift (the parameter `<name>_json`); as `Option<serde_json::Value>`
//! it may be left out (`null`); a `&serde_json::Value` parameter is taken
//! the same way and lent to the core. A JSON object field
//! (`serde_json::Map<String, serde_json::Value>`, with `python =
//! "crate::json::Json"` and `node = "serde_json::Value"`) is a dict in
//! Python (parsed by a `new` record's constructor, `InvalidInputError`
//! naming the field), a JS object in Node (`null` or left out: `{}`) and
//! `<name>_json` object text in Kotlin/Swift (`InvalidInput`: "<name>Json
//! must be a JSON object"); a record field whose conversion back can fail
//! makes its record's fail too (`TryFrom`). `Vec<String>` is a list of text
//! everywhere; a `usize` with a default is optional in Node like the other
//! counts; `f64` (seconds) crosses as it is. `&Path`, `PathBuf` and `&str` results are
//! strings. Parameters convert by the rules of `param_plan` (a parameter type
//! without a rule is a build error naming it); a record parameter (`&R`,
//! `R`, `&[R]`, `Vec<R>`) is the host's class or object, converted back to
//! the core type by the host's `Back` trait, whose impl the generator writes
//! for every record and enum not `output` (a record a host declares by hand
//! brings its own). [`generate_pyi`] writes the Python stub signatures. The `Conv` and `Back`
//! rules every conversion goes through are written here too, once for the
//! three hosts (`conv.rs`); Python declares its classes through its
//! `record!` macro.
//!
//! The error kinds are the schema's `#[bridge(error, ...)] enum`, from which
//! [`generate_errors`] writes every host's error mapping and its
//! `error_kinds()` module function (module `errors`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Attribute, Expr, Fields, GenericArgument, Item, Lit, PathArguments, Type};

mod conv;
mod core_types;
mod errors;
pub mod snapshot;
pub use core_types::{expand, Core};
pub use errors::generate_errors;
pub use snapshot::snapshots;

/// A binding crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// `python/` (pyo3).
    Python,
    /// `node/` (napi-rs).
    Node,
    /// `bindings/` (uniffi: Kotlin and Swift).
    Uniffi,
}

impl Host {
    fn name(self) -> &'static str {
        match self {
            Host::Python => "python",
            Host::Node => "node",
            Host::Uniffi => "uniffi",
        }
    }
}

struct Field {
    name: String,
    docs: Vec<String>,
    ty: Type,
    skip: Vec<String>,
    over: BTreeMap<String, String>,
    ts: Option<String>,
    default: Option<Option<String>>,
    /// An expression of the core value `c` that gives the field (a core
    /// method, e.g. `c.compacted_seqs()`), instead of the core field of
    /// the same name: the field is derived, so `Back` does not read it.
    get: Option<String>,
    /// `host_default = "literal"`: the value Python and Node callers get when
    /// they leave the field out of a `new` record (Kotlin/Swift: `default`).
    host_default: Option<String>,
    /// `redact`: Python's `repr` shows `<N chars>`, not the text (user content).
    redact: bool,
    /// `names = Enum`: a text field holding one of that enum's `str` names
    /// (Node's `ts_type` is their union).
    names: Option<String>,
}

struct Record {
    name: String,
    docs: Vec<String>,
    core: Option<String>,
    skip: Vec<String>,
    output: bool,
    /// Kotlin/Swift get an FFI twin (`#[derive(uniffi::Record)]` with the
    /// host types, converted field by field) instead of the core type.
    twin: bool,
    /// `new`: a record callers build (Python: a constructor with the
    /// fields' defaults, enum fields kept as the text given and parsed when
    /// passed in; Node: defaulted fields optional).
    new: bool,
    /// `tuple`: the core gives it as a tuple of its fields, in order (e.g.
    /// `(session_id, operation_id)`): each host converts the tuple.
    tuple: bool,
    /// `dict = "Type"`: the Python stub type of the record's dict form (the
    /// core's serde shape), for parameters declared `dict(...)`.
    dict: Option<String>,
    fields: Vec<Field>,
}

struct Variant {
    name: String,
    docs: Vec<String>,
    text: String,
    /// The variant's fields: none (a unit variant), named (`name`, docs,
    /// type) or positional (names empty, no docs).
    fields: Vec<(String, Vec<String>, Type)>,
    /// Fields in braces (`V { a: T }`), else in parentheses (`V(T)`).
    named: bool,
}

struct Enum {
    name: String,
    docs: Vec<String>,
    core: String,
    /// The core's parser of the `str` names (method parameters), if any.
    parse: Option<String>,
    skip: Vec<String>,
    variants: Vec<Variant>,
}

#[derive(Default)]
struct BridgeAttr {
    core: Option<String>,
    skip: Vec<String>,
    output: bool,
    twin: bool,
    over: BTreeMap<String, String>,
    ts: Option<String>,
    text: Option<String>,
    default: Option<Option<String>>,
    parse: Option<String>,
    defaults: Vec<(String, String)>,
    errors: Vec<String>,
    infallible: bool,
    sync: bool,
    returns: Option<Type>,
    blocking: bool,
    detach: bool,
    get: Option<String>,
    host_default: Option<String>,
    redact: bool,
    new: bool,
    tuple: bool,
    getter: Option<Option<String>>,
    flatten: Vec<(String, bool, Vec<String>)>,
    names: Option<String>,
    dict: Option<String>,
    dicts: Vec<(String, String)>,
    /// `ts(param = "...")`, `pyi(param = "...")` on a method.
    param_ts: Vec<(String, String)>,
    param_pyi: Vec<(String, String)>,
}

fn docs(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn bridge_attr(attrs: &[Attribute]) -> syn::Result<BridgeAttr> {
    let mut out = BridgeAttr::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("bridge")) {
        a.parse_nested_meta(|m| out.set(&m))?;
    }
    Ok(out)
}

type Meta<'a> = syn::meta::ParseNestedMeta<'a>;

/// The name a path is (`skip(python)`), empty when it is not an identifier.
fn ident(p: &syn::Path) -> String {
    p.get_ident().map(|i| i.to_string()).unwrap_or_default()
}

/// `key = "text"`.
fn lit(m: &Meta) -> syn::Result<String> {
    Ok(m.value()?.parse::<syn::LitStr>()?.value())
}

/// `key = "text"` or `key` alone.
fn opt_lit(m: &Meta) -> syn::Result<Option<String>> {
    if m.input.peek(syn::Token![=]) { lit(m).map(Some) } else { Ok(None) }
}

/// `key = "expr"`: the text of a Rust expression.
fn expr_lit(m: &Meta) -> syn::Result<String> {
    let v: syn::LitStr = m.value()?.parse()?;
    v.parse::<Expr>()?;
    Ok(v.value())
}

/// `key = path`, as its text without spaces.
fn path_text(m: &Meta) -> syn::Result<String> {
    Ok(m.value()?.parse::<syn::Path>()?.to_token_stream().to_string().replace(' ', ""))
}

/// Each item of `key(item, ...)`, read by `one`, onto `into`.
fn list<T>(m: &Meta, into: &mut Vec<T>, one: impl Fn(&Meta) -> syn::Result<T>) -> syn::Result<()> {
    m.parse_nested_meta(|item| {
        into.push(one(&item)?);
        Ok(())
    })
}

impl BridgeAttr {
    /// One `key` or `key = value` of a `#[bridge(...)]` (see the crate docs).
    fn set(&mut self, m: &Meta) -> syn::Result<()> {
        let key = ident(&m.path);
        match key.as_str() {
            "core" => self.core = Some(path_text(m)?),
            "parse" => self.parse = Some(path_text(m)?),
            // A core field no host gets: `core_types::expand` leaves it out.
            "omit" => {}
            "output" => self.output = true,
            "redact" => self.redact = true,
            "new" => self.new = true,
            "tuple" => self.tuple = true,
            "twin" => self.twin = true,
            "infallible" => self.infallible = true,
            "sync" => self.sync = true,
            "blocking" => self.blocking = true,
            "detach" => self.detach = true,
            "getter" => self.getter = Some(opt_lit(m)?),
            "default" => self.default = Some(opt_lit(m)?),
            "host_default" => self.host_default = Some(expr_lit(m)?),
            "get" => self.get = Some(expr_lit(m)?),
            "returns" => self.returns = Some(m.value()?.parse::<syn::LitStr>()?.parse::<Type>()?),
            "python" | "node" | "uniffi" => {
                self.over.insert(key, lit(m)?);
            }
            // On a field: its TypeScript type (on a method, `ts(param = "...")`).
            "ts" if m.input.peek(syn::Token![=]) => self.ts = Some(lit(m)?),
            // On a record: the Python stub type of its dict form (on a
            // method, `dict(param = "what")`).
            "dict" if m.input.peek(syn::Token![=]) => self.dict = Some(lit(m)?),
            "str" => self.text = Some(lit(m)?),
            "names" => self.names = Some(m.value()?.parse::<syn::Ident>()?.to_string()),
            _ => return self.set_list(&key, m),
        }
        Ok(())
    }

    /// One `key(...)` of a `#[bridge(...)]`: `skip(host, ...)`,
    /// `errors(Kind, ...)`, and a method's per-parameter lists.
    fn set_list(&mut self, key: &str, m: &Meta) -> syn::Result<()> {
        match key {
            "skip" => list(m, &mut self.skip, |h| Ok(ident(&h.path))),
            "errors" => list(m, &mut self.errors, |k| Ok(ident(&k.path))),
            "ts" => list(m, &mut self.param_ts, |d| Ok((ident(&d.path), lit(d)?))),
            "pyi" => list(m, &mut self.param_pyi, |d| Ok((ident(&d.path), lit(d)?))),
            "dict" => list(m, &mut self.dicts, |d| Ok((ident(&d.path), lit(d)?))),
            "defaults" => list(m, &mut self.defaults, |d| Ok((ident(&d.path), d.value()?.parse::<Expr>()?.to_token_stream().to_string()))),
            "flatten" | "keywords" => list(m, &mut self.flatten, |p| {
                let lead = opt_lit(p)?.map_or(vec![], |l| l.split(',').map(|f| f.trim().to_string()).collect());
                Ok((ident(&p.path), key == "keywords", lead))
            }),
            _ => Err(m.error(format!("unknown bridge attribute `{key}`"))),
        }
    }
}

struct Schema {
    records: Vec<Record>,
    enums: Vec<Enum>,
    methods: Vec<Method>,
    /// The error kinds (`#[bridge(error)] enum`), if declared.
    errors: Option<errors::ErrorDecl>,
}

/// A `SessionStore` method of `trait SessionStore` in the schema: the core
/// method's own parameters (`&self` first) and its `Ok` type.
struct Method {
    name: String,
    docs: Vec<String>,
    params: Vec<(String, Type)>,
    ret: Option<Type>,
    /// A free function of the core taking the store first, else a method.
    core: Option<String>,
    defaults: Vec<(String, String)>,
    errors: Vec<String>,
    skip: Vec<String>,
    /// The core method returns its value, not a `Result`.
    infallible: bool,
    /// Cheap (no disk, no crypto): Node returns the value, not a Promise;
    /// Python keeps the GIL.
    sync: bool,
    /// The schema type the hosts return when it is not the core's `Ok`
    /// type (each host's `Conv` converts).
    returns: Option<Type>,
    /// A module function (`trait Functions`), not a store method.
    function: bool,
    /// A function that waits on disk or crypto: a Promise in Node and the
    /// GIL released in Python (functions are otherwise synchronous).
    blocking: bool,
    /// A function whose Python call releases the GIL (CPU-heavy, e.g. a
    /// tokenizer) while Node calls it synchronously.
    detach: bool,
    /// A `sync` method Python and Node expose as a read-only property of
    /// this name (Kotlin/Swift keep the method).
    getter: Option<String>,
    /// Record parameters Python takes as the record's fields instead
    /// (`flatten(p)`; `keywords(p)`: keyword-only), the flag true for
    /// keywords, and the fields that lead (`keywords(p = "a, b")`: Python
    /// takes them first, not keyword-only; Node takes them as parameters
    /// and the rest as an options object).
    flatten: Vec<(String, bool, Vec<String>)>,
    /// `dict(param = "what", ...)`: Python also takes these record
    /// parameters as dicts in the core's serde shape; `what` names a dict in
    /// the `InvalidInput` message.
    dicts: Vec<(String, String)>,
    /// `ts(param = "...")`: a parameter's TypeScript type (Node's `ts_arg_type`).
    param_ts: Vec<(String, String)>,
    /// `pyi(param = "...")`: a parameter's Python stub type.
    param_pyi: Vec<(String, String)>,
}

fn parse(src: &str) -> syn::Result<Schema> {
    let file = syn::parse_file(src)?;
    let mut s = Schema { records: vec![], enums: vec![], methods: vec![], errors: None };
    for item in file.items {
        match item {
            Item::Enum(en) if errors::is_decl(&en.attrs) => s.errors = Some(errors::parse_decl(&en)?),
            Item::Struct(st) => s.records.push(parse_record(&st)?),
            Item::Enum(en) => s.enums.push(parse_enum(&en)?),
            Item::Trait(t) if t.ident == "SessionStore" || t.ident == "Functions" => {
                for it in &t.items {
                    let syn::TraitItem::Fn(f) = it else {
                        return Err(syn::Error::new_spanned(it, "trait SessionStore and trait Functions hold only fns"));
                    };
                    s.methods.push(parse_method(f, t.ident == "Functions")?);
                }
            }
            other => return Err(syn::Error::new_spanned(other, "bridge/api.rs holds only structs, enums and `trait SessionStore`")),
        }
    }
    Ok(s)
}

/// A record (`struct`) of the schema.
fn parse_record(st: &syn::ItemStruct) -> syn::Result<Record> {
    let b = bridge_attr(&st.attrs)?;
    let Fields::Named(named) = &st.fields else {
        return Err(syn::Error::new_spanned(&st.ident, "records have named fields"));
    };
    let mut fields = vec![];
    for f in &named.named {
        let fb = bridge_attr(&f.attrs)?;
        fields.push(Field {
            name: f.ident.as_ref().expect("named").to_string(),
            docs: docs(&f.attrs),
            ty: f.ty.clone(),
            skip: fb.skip,
            over: fb.over,
            ts: fb.ts,
            default: fb.default,
            get: fb.get,
            host_default: fb.host_default,
            redact: fb.redact,
            names: fb.names,
        });
    }
    Ok(Record {
        name: st.ident.to_string(),
        docs: docs(&st.attrs),
        core: b.core,
        skip: b.skip,
        output: b.output,
        twin: b.twin,
        new: b.new,
        tuple: b.tuple,
        dict: b.dict,
        fields,
    })
}

/// An enum of the schema (a core enum; each variant with its `str` name).
fn parse_enum(en: &syn::ItemEnum) -> syn::Result<Enum> {
    let b = bridge_attr(&en.attrs)?;
    let core = b.core.ok_or_else(|| syn::Error::new_spanned(&en.ident, "an enum needs `#[bridge(core = path)]`"))?;
    let mut variants = vec![];
    for v in &en.variants {
        let vb = bridge_attr(&v.attrs)?;
        let text = vb.text.ok_or_else(|| syn::Error::new_spanned(&v.ident, "a variant needs `#[bridge(str = \"...\")]`"))?;
        let fields = v.fields.iter().map(|f| (f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(), docs(&f.attrs), f.ty.clone()));
        variants.push(Variant {
            name: v.ident.to_string(),
            docs: docs(&v.attrs),
            text,
            fields: fields.collect(),
            named: matches!(v.fields, Fields::Named(_)),
        });
    }
    Ok(Enum { name: en.ident.to_string(), docs: docs(&en.attrs), core, parse: b.parse, skip: b.skip, variants })
}

/// A store method (`function`: false) or module function of the schema.
fn parse_method(f: &syn::TraitItemFn, function: bool) -> syn::Result<Method> {
    let b = bridge_attr(&f.attrs)?;
    let mut params = vec![];
    let mut receiver = false;
    for input in &f.sig.inputs {
        match input {
            syn::FnArg::Receiver(_) => receiver = true,
            syn::FnArg::Typed(pt) => {
                let syn::Pat::Ident(id) = &*pt.pat else {
                    return Err(syn::Error::new_spanned(pt, "parameters are plain names"));
                };
                params.push((id.ident.to_string(), (*pt.ty).clone()));
            }
        }
    }
    if !receiver && !function {
        return Err(syn::Error::new_spanned(&f.sig, "a store method takes &self"));
    }
    if function && (receiver || b.core.is_none()) {
        return Err(syn::Error::new_spanned(&f.sig, "a function takes no self and names its core function (`core = path`)"));
    }
    let ret = match &f.sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) => Some((**t).clone()),
    };
    let named = b.defaults.iter().map(|(d, _)| (d, "default")).chain(b.dicts.iter().map(|(d, _)| (d, "dict")));
    let mut named = named.chain(b.param_ts.iter().map(|(d, _)| (d, "ts")).chain(b.param_pyi.iter().map(|(d, _)| (d, "pyi"))));
    if let Some((d, what)) = named.find(|(d, _)| !params.iter().any(|(p, _)| p == *d)) {
        return Err(syn::Error::new_spanned(&f.sig, format!("{what} for `{d}`, which is not a parameter")));
    }
    if b.getter.is_some() && (function || !b.sync || !params.is_empty()) {
        return Err(syn::Error::new_spanned(&f.sig, "a getter is a `sync` store method without parameters"));
    }
    Ok(Method {
        name: f.sig.ident.to_string(),
        docs: docs(&f.attrs),
        params,
        ret,
        core: b.core,
        defaults: b.defaults,
        errors: b.errors,
        skip: b.skip,
        infallible: b.infallible,
        sync: b.sync || (function && !b.blocking),
        returns: b.returns,
        function,
        blocking: b.blocking,
        detach: b.detach,
        getter: b.getter.map(|g| g.unwrap_or_else(|| f.sig.ident.to_string())),
        flatten: b.flatten,
        dicts: b.dicts,
        param_ts: b.param_ts,
        param_pyi: b.param_pyi,
    })
}

/// The last segment of a path (`sessiondb::context::Band` -> `Band`).
fn last(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

impl Schema {
    fn record(&self, name: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.name == name)
    }

    /// The core type a record converts from and back into: `core = path`,
    /// or for a `tuple` record the tuple of its fields' core types.
    fn core_of(&self, r: &Record) -> Option<String> {
        if r.tuple {
            let types: Vec<String> = r.fields.iter().map(|f| self.core_ty(&f.ty)).collect();
            return Some(format!("({},)", types.join(", ")));
        }
        r.core.clone()
    }

    /// A field's core type: a record's or enum's core path, else the type as written.
    fn core_ty(&self, ty: &Type) -> String {
        let core = match self.base(ty) {
            Base::Record(r) => self.core_of(r),
            Base::Enum(e) => Some(e.core.clone()),
            _ => None,
        };
        core.unwrap_or_else(|| ty.to_token_stream().to_string())
    }

    /// The record `ty` names, if it names one.
    fn record_of(&self, ty: &Type) -> Option<&Record> {
        match self.base(ty) {
            Base::Record(r) => Some(r),
            _ => None,
        }
    }

    /// A JSON value or object (`serde_json::Value`, `serde_json::Map<String,
    /// serde_json::Value>`): Kotlin/Swift get its text.
    fn is_json(&self, ty: &Type) -> bool {
        matches!(self.base(ty), Base::Json | Base::JsonObject)
    }

    /// Whether `ty` holds a path (`PathBuf`, also inside `Option`, `Vec`, ...).
    fn has_path(&self, ty: &Type) -> bool {
        match ty {
            Type::Path(p) => matches!(self.base(ty), Base::PathBuf) || p.path.segments.last().is_some_and(|s| type_args(s).iter().any(|t| self.has_path(t))),
            Type::Reference(r) => self.has_path(&r.elem),
            Type::Slice(sl) => self.has_path(&sl.elem),
            Type::Tuple(t) => t.elems.iter().any(|e| self.has_path(e)),
            _ => false,
        }
    }

    /// Kotlin/Swift: a record whose conversion back can fail (JSON text,
    /// also in a record field), so a parameter of it is `TryFrom`.
    fn uniffi_fallible(&self, r: &Record) -> bool {
        r.fields.iter().any(|f| self.is_json(&f.ty) || self.record_of(&f.ty).is_some_and(|x| self.uniffi_fallible(x)))
    }
    fn enumeration(&self, name: &str) -> Option<&Enum> {
        self.enums.iter().find(|e| e.name == name)
    }

    /// The host's type for a schema type (see the crate docs for the rules).
    fn host_ty(&self, host: Host, ty: &Type) -> TokenStream {
        self.host_ty_q(host, ty, false)
    }

    /// [`Schema::host_ty`]; `qualify`: records and enums by full path (for
    /// code outside the records module).
    fn host_ty_q(&self, host: Host, ty: &Type, qualify: bool) -> TokenStream {
        let map = |t: &Type| self.host_ty_q(host, t, qualify);
        let p = match ty {
            Type::Path(p) if p.qself.is_none() => p,
            Type::Tuple(t) => {
                let elems = t.elems.iter().map(map);
                return quote!((#(#elems),*));
            }
            other => return other.to_token_stream(),
        };
        let seg = p.path.segments.last().expect("a path has a segment");
        let (id, args) = (&seg.ident, type_args(seg));
        match (self.base(ty), args.as_slice()) {
            // Bytes: Python `bytes` (pyo3 converts `Vec<u8>`), a Node Buffer.
            (_, [t]) if id == "Vec" && matches!(self.base(t), Base::Int(Int::U8)) => match host {
                Host::Node => quote!(napi::bindgen_prelude::Buffer),
                _ => quote!(Vec<u8>),
            },
            (_, [k, ..]) => {
                let mut mapped: Vec<TokenStream> = args.iter().map(|t| map(t)).collect();
                // Node: seq-keyed maps with string keys (JS object keys).
                if id == "BTreeMap" && host == Host::Node && matches!(self.base(k), Base::Int(Int::U64 | Int::I64) | Base::Usize) {
                    mapped[0] = quote!(String);
                }
                // Sets cross every host as lists (ascending).
                let id = if id == "BTreeSet" { quote!(Vec) } else { quote!(#id) };
                quote!(#id<#(#mapped),*>)
            }
            (Base::Record(r), _) => self.record_host_ty(host, r, qualify),
            (Base::Enum(e), _) => match host {
                Host::Python => quote!(&'static str),
                Host::Node => quote!(String),
                Host::Uniffi if qualify => toks(&e.core),
                Host::Uniffi => toks(last(&e.core)),
            },
            // A path crosses every host as its text (lossy UTF-8).
            (Base::PathBuf, _) => quote!(String),
            (Base::Int(Int::U64) | Base::Usize, _) if host == Host::Node => quote!(i64),
            (Base::Int(Int::U8), _) if host == Host::Node => quote!(u32),
            _ => ty.to_token_stream(),
        }
    }

    /// A record's type in `host`: Python keeps a `tuple` record it skips as
    /// the tuple; a host that declares it by hand has its own name in scope;
    /// Kotlin/Swift the core type as it is (unless a twin).
    fn record_host_ty(&self, host: Host, r: &Record, qualify: bool) -> TokenStream {
        let id = toks(&r.name);
        match (host, &r.core) {
            (Host::Python, _) if r.tuple && skipped(&r.skip, host) => {
                let fields = r.fields.iter().map(|f| self.host_ty_q(host, &f.ty, qualify));
                quote!((#(#fields),*))
            }
            _ if skipped(&r.skip, host) => id,
            (Host::Uniffi, Some(core)) if !r.twin && qualify => toks(core),
            (Host::Uniffi, Some(core)) if !r.twin => toks(last(core)),
            _ if qualify => quote!(crate::records::#id),
            _ => id,
        }
    }

    /// The union of enum `names`' `str` names for a text field of type `ty`
    /// (`String`, `Option<String>`, `Vec<String>`): `names = Enum`.
    fn names_union(&self, ty: &Type, names: &str) -> Option<String> {
        let e = self.enumeration(names)?;
        self.union_of(ty, Some(e))
    }

    /// A literal-union TypeScript type for a field holding an enum (through
    /// `Option`/`Vec`), else None.
    fn ts_union(&self, ty: &Type) -> Option<String> {
        self.union_of(ty, None)
    }

    /// [`Schema::ts_union`], text (`String`) read as the enum `text` when given.
    fn union_of(&self, ty: &Type, text: Option<&Enum>) -> Option<String> {
        let Type::Path(p) = ty else { return None };
        let seg = p.path.segments.last()?;
        if let Some(inner) = type_args(seg).first() {
            let u = self.union_of(inner, text)?;
            return match seg.ident.to_string().as_str() {
                "Option" => Some(u),
                "Vec" => Some(format!("Array<{u}>")),
                _ => None,
            };
        }
        let e = match (self.base(ty), text) {
            (Base::Text, Some(e)) => e,
            (Base::Enum(e), _) => e,
            _ => return None,
        };
        Some(e.variants.iter().map(|v| format!("'{}'", v.text)).collect::<Vec<_>>().join(" | "))
    }
}

/// `foo_bar` -> `fooBar` (Node and Kotlin/Swift names).
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in name.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The host class of a core error kind as Python and Node name them: the
/// error declaration's (`class`, else kind + `Error`, e.g.
/// `AuthenticationError`); kind + `Error` for a kind a schema without the
/// declaration names (`generate_errors` rejects a kind it does not declare).
fn error_class(s: &Schema, kind: &str) -> String {
    let declared = s.errors.as_ref().and_then(|d| d.variants.iter().find(|v| v.name == kind));
    declared.map_or_else(|| format!("{kind}Error"), |v| v.class())
}

/// How a core parameter type crosses a host: the host's declared type, the
/// statement converting it (if any) and the argument expression of the call.
struct ParamPlan {
    /// The host's parameter name when it is not the schema's (Kotlin/Swift
    /// `payload_json` for a JSON `payload`).
    rename: Option<String>,
    decl: TokenStream,
    ts: Option<String>,
    prelude: Option<TokenStream>,
    arg: TokenStream,
}

impl ParamPlan {
    /// Declared as `decl`, passed as `arg`, no conversion.
    fn plain(decl: TokenStream, arg: TokenStream) -> Self {
        ParamPlan { rename: None, decl, ts: None, prelude: None, arg }
    }

    /// Declared as `decl`, converted by `prelude`, passed as `arg`.
    fn conv(decl: TokenStream, prelude: TokenStream, arg: TokenStream) -> Self {
        ParamPlan { rename: None, decl, ts: None, prelude: Some(prelude), arg }
    }
}

/// How a parameter wraps its base type (`&T`, `Option<T>`, `&[T]`, ...).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wrap {
    None,
    Ref,
    Option,
    OptionRef,
    Slice,
    Vec,
    /// A shape no rule takes.
    Other,
}

/// The integers a rule names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Int {
    U8,
    U32,
    U64,
    I64,
}

/// What a type is to the conversion rules: the one place a schema type is
/// recognised, by its syntax (`serde_json::Value`, a record's name, ...).
#[derive(Clone, Copy)]
enum Base<'s> {
    Str,
    Text,
    Bool,
    F64,
    Int(Int),
    Usize,
    Path,
    PathBuf,
    Json,
    JsonObject,
    Store,
    Record(&'s Record),
    Enum(&'s Enum),
    Other,
}

/// The type arguments of a path segment (`T` of `Option<T>`).
fn type_args(seg: &syn::PathSegment) -> Vec<&Type> {
    match &seg.arguments {
        PathArguments::AngleBracketed(a) => a.args.iter().filter_map(|g| if let GenericArgument::Type(t) = g { Some(t) } else { None }).collect(),
        _ => vec![],
    }
}

impl Schema {
    /// A parameter type as its wrapping and its base.
    fn param_shape(&self, ty: &Type) -> (Wrap, Base<'_>) {
        let one = |p: &syn::TypePath, id: &str| -> Option<Type> {
            let seg = p.path.segments.last().filter(|s| s.ident == id && p.path.segments.len() == 1)?;
            match type_args(seg).as_slice() {
                [t] => Some((*t).clone()),
                _ => None,
            }
        };
        match ty {
            Type::Reference(r) => match &*r.elem {
                Type::Slice(sl) => (Wrap::Slice, self.base(&sl.elem)),
                Type::Path(p) if one(p, "Vec").is_some() => (Wrap::Other, Base::Other),
                elem => (Wrap::Ref, self.base(elem)),
            },
            Type::Path(p) => match (one(p, "Option"), one(p, "Vec")) {
                (Some(Type::Reference(r)), _) => (Wrap::OptionRef, self.base(&r.elem)),
                (Some(t), _) => (Wrap::Option, self.base(&t)),
                (_, Some(t)) => (Wrap::Vec, self.base(&t)),
                _ => (Wrap::None, self.base(ty)),
            },
            _ => (Wrap::Other, Base::Other),
        }
    }

    /// A type's base (see [`Base`]).
    fn base(&self, ty: &Type) -> Base<'_> {
        let Type::Path(p) = ty else { return Base::Other };
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some(seg) = p.path.segments.last() else { return Base::Other };
        let args = type_args(seg);
        match (segs.iter().map(String::as_str).collect::<Vec<_>>().as_slice(), args.as_slice()) {
            (["serde_json", "Value"], []) => Base::Json,
            (["serde_json", "Map"], [k, v]) if matches!(self.base(k), Base::Text) && matches!(self.base(v), Base::Json) => Base::JsonObject,
            (_, [_, ..]) => Base::Other,
            (["str"], _) => Base::Str,
            (["String"], _) => Base::Text,
            (["bool"], _) => Base::Bool,
            (["f64"], _) => Base::F64,
            (["u8"], _) => Base::Int(Int::U8),
            (["u32"], _) => Base::Int(Int::U32),
            (["u64"], _) => Base::Int(Int::U64),
            (["i64"], _) => Base::Int(Int::I64),
            (["usize"], _) => Base::Usize,
            (["Path"], _) => Base::Path,
            (["PathBuf"], _) => Base::PathBuf,
            (["SessionStore"], _) => Base::Store,
            ([id], _) => self.record(id).map(Base::Record).or_else(|| self.enumeration(id).map(Base::Enum)).unwrap_or(Base::Other),
            _ => Base::Other,
        }
    }

    fn param_plan(&self, host: Host, m: &Method, name: &str, ty: &Type) -> Result<ParamPlan, String> {
        let (wrap, base) = self.param_shape(ty);
        let err_map = match host {
            Host::Python => quote!(.map_err(crate::errors::py_err(py))?),
            Host::Node => quote!(.map_err(crate::errors::to_napi)?),
            Host::Uniffi => quote!(?),
        };
        // A JSON value the core borrows: taken as a `serde_json::Value`, lent.
        if let (Wrap::Ref, Base::Json) = (wrap, base) {
            let mut plan = self.param_plan(host, m, name, &syn::parse_quote!(serde_json::Value))?;
            let arg = plan.arg;
            plan.arg = quote!(&#arg);
            return Ok(plan);
        }
        if let (Wrap::None | Wrap::Option, Base::Enum(e)) = (wrap, base) {
            return self.enum_param(host, m, name, ty, e, err_map);
        }
        if let Some(plan) = self.record_param(host, m, name, ty, &err_map) {
            return Ok(plan);
        }
        let default = m.defaults.iter().find(|(d, _)| d == name).map(|(_, v)| toks(v));
        let p = Param { n: toks(name), js: camel(name), ty, wrap, base, default, err_map, sync: m.sync };
        let plan = match host {
            Host::Python => p.python(),
            Host::Node => p.node(),
            Host::Uniffi => p.uniffi(),
        };
        let t = ty.to_token_stream().to_string().replace(' ', "");
        plan.ok_or_else(|| format!("method {}: parameter `{name}: {t}` has no rule; declare the method by hand (skip)", m.name))
    }

    /// An enum (or an optional one): the core type in Kotlin/Swift, its
    /// `str` name in Python and Node, parsed by the core's parser.
    fn enum_param(&self, host: Host, m: &Method, name: &str, ty: &Type, e: &Enum, err_map: TokenStream) -> Result<ParamPlan, String> {
        let (n, core, optional) = (toks(name), toks(&e.core), is_option(ty));
        if host == Host::Uniffi {
            return Ok(ParamPlan::plain(if optional { quote!(Option<#core>) } else { core }, n));
        }
        let parse = e.parse.as_deref().ok_or_else(|| format!("method {}: enum {} needs `parse = path` to be a parameter", m.name, e.name))?;
        let parse = toks(parse);
        let text = if host == Host::Python { quote!(&str) } else { quote!(String) };
        let union = self.ts_union(ty);
        Ok(match optional {
            true => ParamPlan {
                ts: union.map(|u| format!("{u} | undefined | null")),
                ..ParamPlan::conv(quote!(Option<#text>), quote!(let #n = #n.map(|v| #parse(&v)).transpose() #err_map;), n)
            },
            false => ParamPlan { ts: union, ..ParamPlan::conv(text, quote!(let #n = #parse(&#n) #err_map;), n) },
        })
    }

    /// A record, or a list of records, the caller passes in (`&R`, `R`,
    /// `&[R]`, `Vec<R>` for a record `R` declared here, even one a host
    /// declares by hand): Python takes the class (`PyRef`) and Node the
    /// object, each converted by the host's `Back`; Kotlin/Swift take the
    /// core type as it is, or an FFI twin converted by `From`. A parameter
    /// in the method's `dict(...)`: Python also takes the dict form (any
    /// object for a record Python lacks), converted by the core's serde
    /// (`crate::dicts`). A single record defaulting to `None`: optional in
    /// every host, the core type's `Default` when left out. None when `ty`
    /// is not one.
    fn record_param(&self, host: Host, m: &Method, name: &str, ty: &Type, err_map: &TokenStream) -> Option<ParamPlan> {
        let (by_ref, list, r) = match self.param_shape(ty) {
            (Wrap::None, Base::Record(r)) => (false, false, r),
            (Wrap::Ref, Base::Record(r)) => (true, false, r),
            (Wrap::Slice, Base::Record(r)) => (true, true, r),
            (Wrap::Vec, Base::Record(r)) => (false, true, r),
            _ => return None,
        };
        let (n, core, rec) = (toks(name), toks(&self.core_of(r)?), toks(&r.name));
        let arg = if by_ref { quote!(&#n) } else { n.clone() };
        let what = if host == Host::Node { camel(name) } else { name.to_string() };
        let dict = m.dicts.iter().find(|(d, _)| d == name).map(|(_, w)| w.as_str()).filter(|_| host == Host::Python);
        let optional = !list && m.defaults.iter().any(|(d, v)| d == name && v == "None");
        let any = quote!(&pyo3::Bound<'_, pyo3::PyAny>);
        let twin = r.twin || r.tuple;
        if host == Host::Python && list && dict.is_none() && r.tuple && skipped(&r.skip, host) {
            if let Some(plan) = self.python_tuple_param(r, name, &what, err_map, arg.clone()) {
                return Some(plan);
            }
        }
        // The declared type of one value, the type the conversion gives (if
        // it is written) and the conversion of `name`.
        let (decl, let_ty, conv) = match (host, list, dict) {
            (Host::Python, true, Some(w)) => (any, quote!(: Vec<#core>), quote!(crate::dicts::records_or_dicts::<crate::records::#rec, #core>(#n, #w)?)),
            (Host::Python, false, Some(w)) if skipped(&r.skip, host) => (any, quote!(: #core), quote!(crate::json::de(#n, #w)?)),
            (Host::Python, false, Some(w)) => (any, quote!(: #core), quote!(crate::dicts::record_or_dict::<crate::records::#rec, #core>(#n, #w)?)),
            (Host::Python, false, None) => (quote!(pyo3::PyRef<'_, crate::records::#rec>), quote!(: #core), quote!(crate::records::Back::back(&*#n, #what) #err_map)),
            (Host::Python, true, None) => (
                quote!(Vec<pyo3::PyRef<'_, crate::records::#rec>>),
                quote!(),
                quote!(#n.iter().map(|x| crate::records::Back::back(&**x, #what)).collect::<sessiondb::Result<Vec<#core>>>() #err_map),
            ),
            (Host::Node, false, _) => (quote!(crate::records::#rec), quote!(: #core), quote!(crate::records::Back::back(#n, #what) #err_map)),
            (Host::Node, true, _) => (quote!(Vec<crate::records::#rec>), quote!(: Vec<#core>), quote!(crate::records::Back::back(#n, #what) #err_map)),
            (Host::Uniffi, false, _) if twin && self.uniffi_fallible(r) => (quote!(crate::records::#rec), quote!(: #core), quote!(TryFrom::try_from(#n)?)),
            (Host::Uniffi, false, _) if twin => (quote!(crate::records::#rec), quote!(: #core), quote!(#n.into())),
            (Host::Uniffi, true, _) if twin && self.uniffi_fallible(r) => (
                quote!(Vec<crate::records::#rec>),
                quote!(: Vec<#core>),
                quote!(#n.into_iter().map(TryFrom::try_from).collect::<sessiondb::Result<_>>()?),
            ),
            (Host::Uniffi, true, _) if twin => (quote!(Vec<crate::records::#rec>), quote!(: Vec<#core>), quote!(#n.into_iter().map(Into::into).collect())),
            (Host::Uniffi, false, _) if optional => (core.clone(), quote!(: #core), n.clone()),
            (Host::Uniffi, false, _) => return Some(ParamPlan::plain(core, arg)),
            (Host::Uniffi, true, _) => return Some(ParamPlan::plain(quote!(Vec<#core>), arg)),
        };
        if optional {
            // Python's `None` reaches a `PyAny` parameter as `Some(None)`.
            let guard = dict.map(|_| quote!(if !#n.is_none()));
            let prelude = quote!(let #n: #core = match #n { Some(#n) #guard => #conv, _ => Default::default() };);
            return Some(ParamPlan::conv(quote!(Option<#decl>), prelude, arg));
        }
        Some(ParamPlan::conv(decl, quote!(let #n #let_ty = #conv;), arg))
    }

    /// Python: a list of a `tuple` record it skips, as tuples of the fields'
    /// classes (None when a field is not a record, which has no class).
    fn python_tuple_param(&self, r: &Record, name: &str, what: &str, err_map: &TokenStream, arg: TokenStream) -> Option<ParamPlan> {
        let classes = r.fields.iter().map(|f| match self.base(&f.ty) {
            Base::Record(x) => Some(toks(&x.name)),
            _ => None,
        });
        let classes: Vec<TokenStream> = classes.collect::<Option<_>>()?;
        let (n, core, idx) = (toks(name), toks(&self.core_of(r)?), (0..classes.len()).map(syn::Index::from));
        let decl = quote!(Vec<(#(pyo3::PyRef<'_, crate::records::#classes>,)*)>);
        let prelude = quote! {
            let #n = #n.iter().map(|x| Ok((#(crate::records::Back::back(&*x.#idx, #what)?,)*))).collect::<sessiondb::Result<Vec<#core>>>() #err_map;
        };
        Some(ParamPlan::conv(decl, prelude, arg))
    }

    /// The TypeScript type of a returned core type.
    fn ts_ty(&self, ty: &Type) -> String {
        let p = match ty {
            Type::Tuple(t) if t.elems.is_empty() => return "void".into(),
            Type::Path(p) => p,
            _ => return "unknown".into(),
        };
        let Some(seg) = p.path.segments.last() else { return "unknown".into() };
        if let Some(u) = self.ts_union(ty).filter(|_| seg.ident != "Option") {
            return u;
        }
        if let Some(inner) = type_args(seg).first() {
            let i = self.ts_ty(inner);
            return match seg.ident.to_string().as_str() {
                "Vec" if matches!(self.base(inner), Base::Int(Int::U8)) => "Buffer".into(),
                "Option" => format!("{i} | null"),
                "Vec" if i.contains(' ') => format!("Array<{i}>"),
                "Vec" => format!("{i}[]"),
                _ => "unknown".into(),
            };
        }
        match self.base(ty) {
            Base::Text => "string".into(),
            Base::Int(_) | Base::F64 | Base::Usize => "number".into(),
            Base::Bool => "boolean".into(),
            _ => seg.ident.to_string(),
        }
    }
}

/// A parameter that is neither an enum nor a record, for the rules of
/// each host ([`Schema::param_plan`]).
struct Param<'a> {
    n: TokenStream,
    /// Its camelCase name (Node's, and the name errors give).
    js: String,
    ty: &'a Type,
    wrap: Wrap,
    base: Base<'a>,
    default: Option<TokenStream>,
    err_map: TokenStream,
    /// The method is synchronous (Node reads a Buffer in place).
    sync: bool,
}

impl Param<'_> {
    /// The types every host takes as they are.
    fn as_is(&self) -> Option<ParamPlan> {
        let (n, ty) = (&self.n, self.ty);
        match (self.wrap, self.base) {
            (Wrap::None | Wrap::Option | Wrap::Vec, Base::Text)
            | (Wrap::None | Wrap::Option, Base::Int(Int::U64 | Int::U32 | Int::I64))
            | (Wrap::None, Base::Bool | Base::F64)
            | (Wrap::Option, Base::Int(Int::U8)) => Some(ParamPlan::plain(quote!(#ty), n.clone())),
            _ => None,
        }
    }

    /// Python: text and paths borrowed, JSON any JSON-serialisable value,
    /// bytes `bytes`.
    fn python(&self) -> Option<ParamPlan> {
        let n = &self.n;
        let any = quote!(&pyo3::Bound<'_, pyo3::PyAny>);
        Some(match (self.wrap, self.base) {
            (Wrap::Ref, Base::Str) => ParamPlan::plain(quote!(&str), n.clone()),
            (Wrap::OptionRef, Base::Str) => ParamPlan::plain(quote!(Option<&str>), n.clone()),
            (Wrap::Ref, Base::Store) => ParamPlan::plain(quote!(&SessionStore), quote!(&#n.inner)),
            (Wrap::None, Base::Json) => ParamPlan::conv(any, quote!(let #n = crate::json::from_py(#n)?;), n.clone()),
            // Left out (`Option`, no default but None), it is `null`.
            (Wrap::Option, Base::Json) => ParamPlan::conv(
                quote!(Option<#any>),
                quote!(let #n = #n.map(crate::json::from_py).transpose()?.unwrap_or(serde_json::Value::Null);),
                n.clone(),
            ),
            (Wrap::None, Base::Usize) => ParamPlan::plain(quote!(usize), n.clone()),
            (Wrap::Ref, Base::Path) => ParamPlan::plain(quote!(std::path::PathBuf), quote!(&#n)),
            (Wrap::Slice, Base::Int(Int::U64)) => ParamPlan::plain(quote!(Vec<u64>), quote!(&#n)),
            (Wrap::Slice, Base::PathBuf) => ParamPlan::plain(quote!(Vec<std::path::PathBuf>), quote!(&#n)),
            (Wrap::Slice, Base::Int(Int::U8)) => ParamPlan::plain(quote!(&[u8]), n.clone()),
            _ => return self.as_is(),
        })
    }

    /// Node: numbers arrive as f64 and are checked into the integer
    /// (napi's own integer conversion truncates 1.5 to 1, turns NaN into 0
    /// and wraps a u32 modulo 2^32); a defaulted parameter is optional; a
    /// Buffer is copied for a Promise's job, read in place by a synchronous call.
    fn node(&self) -> Option<ParamPlan> {
        let (n, js, err_map, default) = (&self.n, &self.js, &self.err_map, &self.default);
        let int = |ty: TokenStream| match default {
            Some(d) => ParamPlan::conv(quote!(Option<f64>), quote!(let #n #ty = #n.map(|v| crate::records::int(v, #js)).transpose() #err_map.unwrap_or(#d);), n.clone()),
            None => ParamPlan::conv(quote!(f64), quote!(let #n #ty = crate::records::int(#n, #js) #err_map;), n.clone()),
        };
        let buffer = quote!(napi::bindgen_prelude::Buffer);
        Some(match (self.wrap, self.base, default) {
            (Wrap::Ref, Base::Str, Some(d)) => ParamPlan::conv(quote!(Option<String>), quote!(let #n = #n.unwrap_or_else(|| #d.to_string());), quote!(&#n)),
            (Wrap::Ref, Base::Str, None) => ParamPlan::plain(quote!(String), quote!(&#n)),
            (Wrap::OptionRef, Base::Str, _) => ParamPlan::plain(quote!(Option<String>), quote!(#n.as_deref())),
            (Wrap::Ref, Base::Store, _) => ParamPlan::conv(quote!(&SessionStore), quote!(let #n = #n.inner.clone();), quote!(&#n)),
            (Wrap::Option, Base::Int(_), _) => ParamPlan::conv(
                quote!(Option<f64>),
                quote!(let #n = #n.map(|v| crate::records::int(v, #js)).transpose() #err_map;),
                n.clone(),
            ),
            (Wrap::None, Base::Int(_), _) => int(quote!()),
            (Wrap::None, Base::Usize, _) => int(quote!(: usize)),
            (Wrap::None, Base::Json, _) => ParamPlan::plain(quote!(serde_json::Value), n.clone()),
            (Wrap::Option, Base::Json, _) => ParamPlan::conv(quote!(Option<serde_json::Value>), quote!(let #n = #n.unwrap_or(serde_json::Value::Null);), n.clone()),
            (Wrap::Ref, Base::Path, _) => ParamPlan::plain(quote!(String), quote!(std::path::Path::new(&#n))),
            (Wrap::Slice, Base::Int(Int::U64), _) => {
                let one = js.trim_end_matches('s');
                let prelude = quote!(let #n = #n.into_iter().map(|v| crate::records::int(v, #one)).collect::<sessiondb::Result<Vec<u64>>>() #err_map;);
                ParamPlan::conv(quote!(Vec<f64>), prelude, quote!(&#n))
            }
            (Wrap::Slice, Base::PathBuf, _) => paths(n),
            (Wrap::Slice, Base::Int(Int::U8), _) if self.sync => ParamPlan::plain(buffer, quote!(&#n)),
            (Wrap::Slice, Base::Int(Int::U8), _) => ParamPlan::conv(buffer, quote!(let #n = #n.to_vec();), quote!(&#n)),
            (Wrap::None, Base::Bool | Base::F64 | Base::Text, Some(d)) => {
                let ty = self.ty;
                ParamPlan::conv(quote!(Option<#ty>), quote!(let #n = #n.unwrap_or(#d);), n.clone())
            }
            _ => return self.as_is(),
        })
    }

    /// Kotlin/Swift: text owned, JSON as its text (`<name>_json`), counts
    /// `u32`, bytes `ByteArray`/`Data`.
    fn uniffi(&self) -> Option<ParamPlan> {
        let n = &self.n;
        let json = |optional: bool| {
            let text = toks(&format!("{}_json", self.n));
            let bad = format!("{}Json is not valid JSON", self.js);
            let parse = quote!(serde_json::from_str::<serde_json::Value>(&t).map_err(|_| sessiondb::Error::invalid(#bad))?);
            let plan = match optional {
                true => ParamPlan::conv(quote!(Option<String>), quote!(let #n = match #text { Some(t) => #parse, None => serde_json::Value::Null };), n.clone()),
                false => ParamPlan::conv(quote!(String), quote!(let #n = { let t = #text; #parse };), n.clone()),
            };
            ParamPlan { rename: Some(text.to_string()), ..plan }
        };
        Some(match (self.wrap, self.base) {
            (Wrap::Ref, Base::Str) => ParamPlan::plain(quote!(String), quote!(&#n)),
            (Wrap::OptionRef, Base::Str) => ParamPlan::plain(quote!(Option<String>), quote!(#n.as_deref())),
            (Wrap::Ref, Base::Store) => ParamPlan::plain(quote!(std::sync::Arc<SessionStore>), quote!(&#n.inner)),
            (Wrap::None, Base::Json) => json(false),
            (Wrap::Option, Base::Json) => json(true),
            (Wrap::None, Base::Usize) => ParamPlan::plain(quote!(u32), quote!(#n as usize)),
            (Wrap::Ref, Base::Path) => ParamPlan::plain(quote!(String), quote!(std::path::Path::new(&#n))),
            (Wrap::Slice, Base::Int(Int::U64)) => ParamPlan::plain(quote!(Vec<u64>), quote!(&#n)),
            (Wrap::Slice, Base::PathBuf) => paths(n),
            (Wrap::Slice, Base::Int(Int::U8)) => ParamPlan::plain(quote!(Vec<u8>), quote!(&#n)),
            _ => return self.as_is(),
        })
    }
}

/// Node and Kotlin/Swift: a list of paths as their texts.
fn paths(n: &TokenStream) -> ParamPlan {
    ParamPlan::conv(quote!(Vec<String>), quote!(let #n: Vec<std::path::PathBuf> = #n.into_iter().map(Into::into).collect();), quote!(&#n))
}

/// A method's parameters as Python takes them: each `flatten`/`keywords`
/// record parameter replaced by the record's fields (those without a default
/// first, in record order), with the fields' defaults.
struct PyParams {
    params: Vec<(String, Type)>,
    defaults: Vec<(String, String)>,
    /// The first keyword-only parameter (`*` goes before it).
    keyword_from: Option<String>,
    /// Statements building each flattened record from its fields.
    builds: Vec<TokenStream>,
    /// The call's argument for a flattened parameter.
    args: BTreeMap<String, TokenStream>,
}

impl Schema {
    /// A flattened record's fields: those named in `lead` (in that order)
    /// and the rest (in field order), `get` fields left out. Errors: a name
    /// that is not a field.
    fn lead_fields<'r>(&self, m: &Method, r: &'r Record, lead: &[String]) -> Result<(Vec<&'r Field>, Vec<&'r Field>), String> {
        let fields: Vec<&Field> = r.fields.iter().filter(|f| f.get.is_none()).collect();
        let first = lead
            .iter()
            .map(|n| fields.iter().copied().find(|f| &f.name == n).ok_or_else(|| format!("method {}: `{n}` is not a field of {}", m.name, r.name)))
            .collect::<Result<Vec<_>, String>>()?;
        Ok((first, fields.into_iter().filter(|f| !lead.contains(&f.name)).collect()))
    }

    fn python_params(&self, m: &Method) -> Result<PyParams, String> {
        let mut out = PyParams { params: vec![], defaults: m.defaults.clone(), keyword_from: None, builds: vec![], args: BTreeMap::new() };
        for (name, ty) in &m.params {
            let Some((_, keywords, lead)) = m.flatten.iter().find(|(p, _, _)| p == name) else {
                out.params.push((name.clone(), ty.clone()));
                continue;
            };
            let (by_ref, inner) = match ty {
                Type::Reference(r) => (true, &*r.elem),
                other => (false, other),
            };
            let id = inner.to_token_stream().to_string();
            let r = self.record_of(inner).ok_or_else(|| format!("method {}: flatten({name}): `{id}` is not a record", m.name))?;
            let core = r.core.as_ref().ok_or_else(|| format!("method {}: flatten({name}): record {id} has no core type", m.name))?;
            let fields: Vec<&Field> = r.fields.iter().filter(|f| f.get.is_none()).collect();
            let has_default = |f: &Field| f.default.is_some() || f.host_default.is_some();
            // The leading fields first, then the rest: those without a default first.
            let (lead, rest) = self.lead_fields(m, r, lead)?;
            let n_lead = lead.len();
            let ordered: Vec<&Field> = lead.into_iter().chain(rest.iter().copied().filter(|f| !has_default(f))).chain(rest.iter().copied().filter(|f| has_default(f))).collect();
            for (k, f) in ordered.iter().enumerate() {
                if *keywords && out.keyword_from.is_none() && k >= n_lead {
                    out.keyword_from = Some(f.name.clone());
                }
                if has_default(f) {
                    let lit = match (&f.host_default, python_zero(self.base(&f.ty))) {
                        (Some(l), _) => l.clone(),
                        (None, _) if is_option(&f.ty) => "None".into(),
                        (None, Some(zero)) => zero.into(),
                        (None, None) => {
                            let t = f.ty.to_token_stream().to_string().replace(' ', "");
                            return Err(format!("record {id}: field `{}: {t}` needs `host_default` to be flattened", f.name));
                        }
                    };
                    out.defaults.push((f.name.clone(), lit));
                }
                out.params.push((f.name.clone(), f.ty.clone()));
            }
            let (n, core, names) = (toks(name), toks(core), fields.iter().map(|f| toks(&f.name)));
            out.builds.push(quote!(let #n = #core { #(#names),* };));
            out.args.insert(name.clone(), if by_ref { quote!(&#n) } else { n });
        }
        Ok(out)
    }
}

/// Node's form of a record parameter flattened with leading fields
/// (`keywords(p = "a, b")`): those fields as parameters, the rest in one
/// options object (`<Method>Options`, every field optional).
struct NodeOptions {
    /// The flattened parameter and its record's core type.
    param: TokenStream,
    core: TokenStream,
    /// The call's argument (`p` or `&p`).
    arg: TokenStream,
    /// The options object's name, e.g. `CreateSessionOptions`.
    name: TokenStream,
    /// The method's parameters with the leading fields in place of `param`.
    params: Vec<(String, Type)>,
    lead: Vec<String>,
    /// The other fields' conversions from `o`, the options object.
    inits: Vec<TokenStream>,
    /// The options object's declaration.
    decl: TokenStream,
}

impl Schema {
    fn node_options(&self, m: &Method) -> Result<Option<NodeOptions>, String> {
        let Some((param, _, lead)) = m.flatten.iter().find(|(_, _, lead)| !lead.is_empty()) else { return Ok(None) };
        let (pos, ty) = m.params.iter().enumerate().find(|(_, (n, _))| n == param).map(|(k, (_, t))| (k, t)).ok_or_else(|| format!("method {}: no parameter `{param}`", m.name))?;
        let (by_ref, inner) = match ty {
            Type::Reference(r) => (true, &*r.elem),
            other => (false, other),
        };
        let id = inner.to_token_stream().to_string();
        let r = self.record_of(inner).ok_or_else(|| format!("method {}: keywords({param}): `{id}` is not a record", m.name))?;
        let core = r.core.clone().ok_or_else(|| format!("method {}: keywords({param}): record {id} has no core type", m.name))?;
        let (first, rest) = self.lead_fields(m, r, lead)?;
        if let Some(f) = rest.iter().find(|f| f.default.is_none() && f.host_default.is_none() && !is_option(&f.ty)) {
            return Err(format!("method {}: field `{}` of the options object needs a default", m.name, f.name));
        }
        let host_name = m.getter.as_deref().unwrap_or(&m.name);
        let pascal: String = camel(host_name).chars().enumerate().map(|(k, c)| if k == 0 { c.to_ascii_uppercase() } else { c }).collect();
        let name = toks(&format!("{pascal}Options"));
        let mut params: Vec<(String, Type)> = m.params.clone();
        params.splice(pos..=pos, first.iter().map(|f| (f.name.clone(), f.ty.clone())));
        let doc = format!(" The fields of `{}` a `{}` call takes after its parameters, each optional.", r.name, camel(host_name));
        let fields = record_fields(self, Host::Node, r, &rest, quote!(pub));
        let decl = quote!(#[doc = #doc] #[napi_derive::napi(object, object_to_js = false)] #[derive(Default)] pub struct #name { #fields });
        let n = toks(param);
        let inits = rest.iter().map(|f| {
            let (field, back) = (toks(&f.name), node_back(r, f, quote!(o.)));
            quote!(#field: #back)
        });
        Ok(Some(NodeOptions {
            arg: if by_ref { quote!(&#n) } else { n.clone() },
            param: n,
            core: toks(&core),
            name,
            params,
            lead: first.iter().map(|f| f.name.clone()).collect(),
            inits: inits.collect(),
            decl,
        }))
    }
}

/// The generated `SessionStore` methods and module functions of `host` for
/// the schema text `src`: Python `#[pymethods]`/`#[pyfunction]` (GIL
/// released around a core call that waits on disk or crypto) with
/// `register_functions(module)`, Node `#[napi]` (a Promise via `AsyncTask`
/// for those calls), Kotlin/Swift `#[uniffi::export]`. Each converts its
/// arguments, calls the core method (or the free function `core = path`,
/// with the store first for a method) and converts the result by the host's
/// `Conv`. Errors: a parameter type without a rule.
pub fn generate_methods(host: Host, src: &str) -> Result<TokenStream, String> {
    let s = parse(src).map_err(|e| e.to_string())?;
    let live: Vec<&Method> = s.methods.iter().filter(|m| !skipped(&m.skip, host)).collect();
    let (mut methods, mut after, mut functions) = (vec![], vec![], vec![]);
    for m in live.iter().filter(|m| !m.function) {
        let e = Emit::new(&s, host, m)?;
        methods.push(e.item());
        // Declarations a method brings (Node's options objects), after the impl.
        after.extend(e.options.as_ref().map(|n| n.decl.clone()));
    }
    for m in live.iter().filter(|m| m.function) {
        functions.push(Emit::new(&s, host, m)?.item());
    }
    let attr = match host {
        Host::Python => quote!(#[pyo3::pymethods]),
        Host::Node => quote!(#[napi_derive::napi]),
        Host::Uniffi => quote!(#[uniffi::export]),
    };
    let register = (host == Host::Python).then(|| {
        let names = live.iter().filter(|m| m.function).map(|m| toks(&m.name));
        quote! {
            /// Add the module functions of bridge/api.rs to the module.
            pub(crate) fn register_functions(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
                use pyo3::types::PyModuleMethods;
                #(m.add_function(pyo3::wrap_pyfunction!(#names, m)?)?;)*
                Ok(())
            }
        }
    });
    Ok(quote!(#attr impl SessionStore { #(#methods)* } #(#after)* #(#functions)* #register))
}

/// The Python stub signatures (`_native.pyi`) of the generated methods and
/// functions: a `class SessionStore:` block of `def name(self, ...) -> T: ...`
/// lines, then the module functions, with the types a Python caller passes
/// and gets (enums as `Literal[...]` of their names, paths as `str` or
/// `os.PathLike[str]`, records by their class names). The Python module
/// carries it as `_native._bridge_stubs`; `python/scripts/stubdoc.py`
/// writes these signatures into the stub. Errors: a type without a rule.
pub fn generate_pyi(src: &str) -> Result<String, String> {
    let s = parse(src).map_err(|e| e.to_string())?;
    let live: Vec<&Method> = s.methods.iter().filter(|m| !skipped(&m.skip, Host::Python)).collect();
    let mut out = String::from("class SessionStore:\n");
    for function in [false, true] {
        for m in live.iter().filter(|m| m.function == function) {
            let mut params: Vec<String> = if function { vec![] } else { vec!["self".into()] };
            let py = s.python_params(m)?;
            for (name, ty) in &py.params {
                let t = match (m.param_pyi.iter().find(|(d, _)| d == name), m.dicts.iter().any(|(d, _)| d == name)) {
                    (Some((_, t)), _) => Ok(t.clone()),
                    (None, true) => s.py_dict_ty(m, name, ty),
                    (None, false) => s.py_ty(ty, true),
                };
                let t = t.map_err(|e| format!("method {}: {e}", m.name))?;
                if py.keyword_from.as_ref() == Some(name) {
                    params.push("*".into());
                }
                match py.defaults.iter().find(|(d, _)| d == name) {
                    // A record parameter defaulting to `None` (optional in every
                    // host): `Optional[...]`, as PEP 484 wants it spelled.
                    Some((_, d)) if d == "None" && !t.starts_with("Optional[") => params.push(format!("{name}: Optional[{t}] = None")),
                    Some((_, d)) => params.push(format!("{name}: {t} = {}", py_literal(d))),
                    None => params.push(format!("{name}: {t}")),
                }
            }
            let ret = match m.returns.as_ref().or(m.ret.as_ref()) {
                Some(t) => s.py_ty(t, false).map_err(|e| format!("method {}: {e}", m.name))?,
                None => "None".into(),
            };
            let indent = if function { "" } else { "    " };
            if m.getter.is_some() {
                let _ = writeln!(out, "{indent}@property");
            }
            let name = m.getter.as_deref().unwrap_or(&m.name);
            let _ = writeln!(out, "{indent}def {name}({}) -> {ret}: ...", params.join(", "));
        }
    }
    Ok(out)
}

/// A `defaults(...)` value as Python source.
fn py_literal(v: &str) -> String {
    match v {
        "None" => "None".into(),
        "true" => "True".into(),
        "false" => "False".into(),
        other => other.into(),
    }
}

impl Schema {
    /// The Python stub type of a `dict(...)` parameter: the record's class
    /// or its dict form (`dict = "Type"` on the record; the dict form
    /// alone when Python has no class), in a `Sequence` for a list, in an
    /// `Optional` when it defaults to `None`.
    fn py_dict_ty(&self, m: &Method, name: &str, ty: &Type) -> Result<String, String> {
        let (list, r) = match self.param_shape(ty) {
            (Wrap::None | Wrap::Ref, Base::Record(r)) => (false, r),
            (Wrap::Slice, Base::Record(r)) => (true, r),
            _ => {
                let t = ty.to_token_stream().to_string().replace(' ', "");
                return Err(format!("`dict({name})`: `{t}` is not a record or a list of records"));
            }
        };
        let dict = r.dict.as_ref().ok_or_else(|| format!("`dict({name})`: record {} needs `dict = \"Type\"` (its dict form's stub type)", r.name))?;
        let one = if skipped(&r.skip, Host::Python) { dict.clone() } else { format!("Union[{}, {dict}]", r.name) };
        let optional = m.defaults.iter().any(|(d, v)| d == name && v == "None");
        Ok(match (list, optional) {
            (true, _) => format!("Sequence[{one}]"),
            (false, true) => format!("Optional[{one}]"),
            (false, false) => one,
        })
    }

    /// The Python stub type of a schema type (`param`: what a caller may pass).
    fn py_ty(&self, ty: &Type, param: bool) -> Result<String, String> {
        let none = || format!("no Python stub type for `{}`", ty.to_token_stream().to_string().replace(' ', ""));
        let p = match ty {
            Type::Reference(r) => return self.py_ty(&r.elem, param),
            Type::Slice(sl) if matches!(self.base(&sl.elem), Base::Int(Int::U8)) => return Ok("bytes".into()),
            Type::Slice(sl) => return Ok(format!("Sequence[{}]", self.py_ty(&sl.elem, param)?)),
            Type::Tuple(t) if t.elems.is_empty() => return Ok("None".into()),
            Type::Path(p) => p,
            _ => return Err(none()),
        };
        let seg = p.path.segments.last().ok_or_else(none)?;
        let id = seg.ident.to_string();
        if let PathArguments::AngleBracketed(_) = &seg.arguments {
            return match (id.as_str(), type_args(seg).as_slice()) {
                ("Option", [i]) => Ok(format!("Optional[{}]", self.py_ty(i, param)?)),
                ("Vec", [i]) if matches!(self.base(i), Base::Int(Int::U8)) => Ok("bytes".into()),
                ("Vec", [i]) => Ok(format!("List[{}]", self.py_ty(i, param)?)),
                _ => Err(none()),
            };
        }
        Ok(match self.base(ty) {
            Base::Record(r) if r.tuple && skipped(&r.skip, Host::Python) => {
                let fields = r.fields.iter().map(|f| self.py_ty(&f.ty, param)).collect::<Result<Vec<_>, _>>()?;
                format!("Tuple[{}]", fields.join(", "))
            }
            Base::Enum(e) => format!("Literal[{}]", e.variants.iter().map(|v| format!("{:?}", v.text)).collect::<Vec<_>>().join(", ")),
            Base::Str | Base::Text => "str".into(),
            Base::Int(_) | Base::Usize => "int".into(),
            Base::F64 => "float".into(),
            Base::Bool => "bool".into(),
            // `serde_json::Value`: any JSON-serialisable value.
            Base::Json => "Any".into(),
            Base::Path | Base::PathBuf if param => "Union[str, \"os.PathLike[str]\"]".into(),
            // A record: declared here or by hand in the host (its class name).
            _ if id.starts_with(char::is_uppercase) => id,
            _ => return Err(none()),
        })
    }
}

/// One method or module function as `host` declares it: its parameters'
/// conversions (`ParamPlan`), the core call and what it returns.
struct Emit<'a> {
    s: &'a Schema,
    host: Host,
    m: &'a Method,
    /// Python's parameters (`flatten` records as their fields).
    py: Option<PyParams>,
    /// Node's options object (`keywords(p = "a, b")`).
    options: Option<NodeOptions>,
    plans: Vec<(String, ParamPlan)>,
    /// The returned schema type and the host's type of it.
    ret: Type,
    host_ret: TokenStream,
}

impl<'a> Emit<'a> {
    fn new(s: &'a Schema, host: Host, m: &'a Method) -> Result<Self, String> {
        let py = if host == Host::Python { Some(s.python_params(m)?) } else { None };
        let options = if host == Host::Node { s.node_options(m)? } else { None };
        let ret = m.returns.clone().or_else(|| m.ret.clone()).unwrap_or(syn::parse_quote!(()));
        let host_ret = s.host_ty_q(host, &ret, true);
        let mut e = Emit { s, host, m, py, options, plans: vec![], ret, host_ret };
        let params = e.py.as_ref().map(|p| p.params.clone()).or(e.options.as_ref().map(|n| n.params.clone())).unwrap_or(m.params.clone());
        for (name, ty) in &params {
            let mut plan = s.param_plan(host, m, name, ty)?;
            if let Some((_, ts)) = m.param_ts.iter().find(|(p, _)| p == name) {
                plan.ts = Some(ts.clone());
            }
            e.plans.push((name.clone(), plan));
        }
        if let Some(plan) = e.options_plan() {
            e.plans.push(("options".into(), plan));
        }
        Ok(e)
    }

    /// Node's options object: its fields back into the core record with
    /// the leading parameters (converted above).
    fn options_plan(&self) -> Option<ParamPlan> {
        let n = self.options.as_ref()?;
        let lead = n.lead.iter().map(|f| {
            let field = toks(f);
            match self.plans.iter().find(|(p, _)| p == f).map(|(_, p)| &p.arg) {
                Some(a) if a.to_string() != *f => quote!(#field: #a),
                _ => field,
            }
        });
        let inits = lead.chain(n.inits.iter().cloned());
        let (param, core, name) = (&n.param, &n.core, &n.name);
        let prelude = quote! {
            let #param = { let o = options.unwrap_or_default(); (|| -> sessiondb::Result<#core> { Ok(#core { #(#inits),* }) })().map_err(crate::errors::to_napi)? };
        };
        Some(ParamPlan::conv(quote!(Option<#name>), prelude, n.arg.clone()))
    }

    /// The core call: the method on the store `s`, or the free function
    /// (with the store first for a method).
    fn call(&self) -> TokenStream {
        let (m, py, options) = (self.m, self.py.as_ref(), self.options.as_ref());
        let args = m.params.iter().map(|(n, _)| match py.and_then(|p| p.args.get(n)) {
            Some(a) => a.clone(),
            None if options.is_some_and(|o| o.param.to_string() == *n) => options.map_or_else(TokenStream::new, |o| o.arg.clone()),
            None => self.plans.iter().find(|(p, _)| p == n).map_or_else(TokenStream::new, |(_, p)| p.arg.clone()),
        });
        match (&m.core, m.function) {
            (Some(f), true) => {
                let f = toks(f);
                quote!(#f(#(#args),*))
            }
            (Some(f), false) => {
                let (f, store) = (toks(f), if self.host == Host::Node { quote!(&s) } else { quote!(s) });
                quote!(#f(#store #(, #args)*))
            }
            (None, _) => {
                let name = toks(&m.name);
                quote!(s.#name(#(#args),*))
            }
        }
    }

    /// The docs, with the error classes (Kotlin/Swift: kinds) it raises.
    fn docs(&self) -> TokenStream {
        let (s, m) = (self.s, self.m);
        let mut docs = m.docs.clone();
        if !m.errors.is_empty() {
            let classes = m.errors.iter().map(|k| error_class(s, k)).collect::<Vec<_>>().join(", ");
            docs.push(String::new());
            docs.push(match self.host {
                Host::Python => format!(" Raises {classes}."),
                Host::Node if !m.sync => format!(" Rejects with {classes}."),
                Host::Node => format!(" Throws {classes}."),
                Host::Uniffi => format!(" Errors: {}.", m.errors.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
            });
        }
        doc_attrs(&docs)
    }

    /// A body's first lines: the argument conversions, then, for a method,
    /// the store bound to `s` (`store`: a reference, or an `Arc` clone
    /// moved into a Node task).
    fn open_body(&self, store: TokenStream) -> TokenStream {
        let preludes = self.plans.iter().filter_map(|(_, p)| p.prelude.clone());
        let preludes = preludes.chain(self.py.iter().flat_map(|p| p.builds.iter().cloned()));
        let bind = (!self.m.function).then(|| quote!(let s = #store;));
        quote!(#(#preludes)* #bind)
    }

    /// Each parameter as the host declares it (`name: Type`), after the
    /// receiver (`&self`) of a method and Python's `py`.
    fn params(&self) -> Vec<TokenStream> {
        let recv = (!self.m.function).then(|| quote!(&self));
        let py = (self.host == Host::Python).then(|| quote!(py: pyo3::Python<'_>));
        let decls = self.plans.iter().map(|(n, p)| {
            let (name, ty) = (toks(p.rename.as_deref().filter(|_| self.host == Host::Uniffi).unwrap_or(n.as_str())), &p.decl);
            let ts = p.ts.as_ref().filter(|_| self.host == Host::Node).map(|ts| quote!(#[napi(ts_arg_type = #ts)]));
            quote!(#ts #name: #ty)
        });
        recv.into_iter().chain(py).chain(decls).collect()
    }

    fn item(&self) -> TokenStream {
        match self.host {
            Host::Python => self.python(),
            Host::Node => self.node(),
            Host::Uniffi => self.uniffi(),
        }
    }

    /// Python: `#[pyfunction]` or a method (`#[getter]`), the GIL released
    /// around a core call that waits on disk or crypto.
    fn python(&self) -> TokenStream {
        let (m, py) = (self.m, self.py.as_ref().expect("Python parameters"));
        let function = m.function.then(|| quote!(#[pyo3::pyfunction]));
        let getter = m.getter.is_some().then(|| quote!(#[getter]));
        let signature = (!py.defaults.is_empty() || py.keyword_from.is_some()).then(|| {
            let sig = py.params.iter().flat_map(|(n, _)| {
                let star = (py.keyword_from.as_ref() == Some(n)).then(|| quote!(*));
                let name = toks(n);
                let p = match py.defaults.iter().find(|(d, _)| d == n) {
                    Some((_, v)) => {
                        let v = toks(v);
                        quote!(#name = #v)
                    }
                    None => name,
                };
                star.into_iter().chain([p])
            });
            quote!(#[pyo3(signature = (#(#sig),*))])
        });
        let (vis, name, params, host_ret) = (m.function.then(|| quote!(pub)), toks(m.getter.as_deref().unwrap_or(&m.name)), self.params(), &self.host_ret);
        let (docs, open, call) = (self.docs(), self.open_body(quote!(&self.inner)), self.call());
        let detach = if m.function { m.blocking || m.detach } else { !m.sync };
        let keep = (!detach).then(|| quote!(let _ = py;));
        let value = if detach { quote!(py.detach(|| #call)) } else { call };
        let conv = quote!(crate::records::Conv::conv);
        let value = match m.infallible {
            true => quote!(Ok(#conv(#value))),
            false => quote!(#value.map(#conv).map_err(crate::errors::py_err(py))),
        };
        quote! {
            #docs #function #getter #signature
            #vis fn #name(#(#params),*) -> pyo3::PyResult<#host_ret> { #open #keep #value }
        }
    }

    /// Node: `#[napi]`, a Promise (`AsyncTask`) for a call that waits on
    /// disk or crypto.
    fn node(&self) -> TokenStream {
        let m = self.m;
        let promise = !m.sync;
        let attr = if m.function { quote!(napi_derive::napi) } else { quote!(napi) };
        // A leading `_` (a private helper) stays in the JS name, which
        // napi's camelCase would drop.
        let js_name = m.name.strip_prefix('_').map(|n| {
            let n = format!("_{}", camel(n));
            quote!(js_name = #n)
        });
        let args: Vec<TokenStream> = match promise {
            true => {
                let ts = format!("Promise<{}>", self.s.ts_ty(&self.ret));
                js_name.into_iter().chain([quote!(ts_return_type = #ts)]).collect()
            }
            false => m.getter.as_ref().map(|_| quote!(getter)).into_iter().chain(js_name).collect(),
        };
        let attr = if args.is_empty() { quote!(#[#attr]) } else { quote!(#[#attr(#(#args),*)]) };
        let (host_ret, params, docs, call) = (&self.host_ret, self.params(), self.docs(), self.call());
        let (name, ret) = match promise {
            true => (toks(&m.name), quote!(napi::Result<napi::bindgen_prelude::AsyncTask<crate::job::Job<#host_ret>>>)),
            false => (toks(m.getter.as_deref().unwrap_or(&m.name)), quote!(napi::Result<#host_ret>)),
        };
        let open = self.open_body(if promise { quote!(self.inner.clone()) } else { quote!(&self.inner) });
        let conv = quote!(crate::records::Conv::conv);
        let value = match (m.infallible, promise) {
            (true, true) => quote!(Ok(crate::job::job(move || Ok(#conv(#call))))),
            (false, true) => quote!(Ok(crate::job::job(move || #call.map(#conv)))),
            (true, false) => quote!(Ok(#conv(#call))),
            (false, false) => quote!(#call.map(#conv).map_err(crate::errors::to_napi)),
        };
        quote!(#docs #attr pub fn #name(#(#params),*) -> #ret { #open #value })
    }

    /// Kotlin/Swift: `#[uniffi::export]` (defaults named by the host's
    /// parameter names).
    fn uniffi(&self) -> TokenStream {
        let m = self.m;
        let defaults = m.defaults.iter().map(|(n, v)| {
            let host = self.plans.iter().find(|(p, _)| p == n).and_then(|(_, p)| p.rename.clone()).unwrap_or_else(|| n.to_string());
            let (host, v) = (toks(&host), toks(v));
            quote!(#host = #v)
        });
        let attr = match (m.function, m.defaults.is_empty()) {
            (true, true) => quote!(#[uniffi::export]),
            (true, false) => quote!(#[uniffi::export(default(#(#defaults),*))]),
            (false, false) => quote!(#[uniffi::method(default(#(#defaults),*))]),
            (false, true) => quote!(),
        };
        let (host_ret, name, params, docs, call) = (&self.host_ret, toks(&m.name), self.params(), self.docs(), self.call());
        let ret = if m.infallible { quote!(#host_ret) } else { quote!(crate::error::Result<#host_ret>) };
        let open = self.open_body(quote!(&self.inner));
        let conv = quote!(crate::records::Conv::conv);
        let value = if m.infallible { quote!(#conv(#call)) } else { quote!(Ok(#conv(#call?))) };
        quote!(#docs #attr pub fn #name(#(#params),*) -> #ret { #open #value })
    }
}

/// A type's tokens spaced as its compact text (`Option<&'static str>`)
/// lexes: a punctuation mark followed by another is joint, except a comma.
/// Python's fields are the body of a macro (`record!`), whose spacing
/// prettyplease keeps.
fn compact(ty: TokenStream) -> TokenStream {
    use proc_macro2::{Group, Punct, Spacing, TokenTree};
    let tokens: Vec<TokenTree> = ty.into_iter().collect();
    let joint: Vec<bool> = (0..tokens.len()).map(|k| matches!(tokens.get(k + 1), Some(TokenTree::Punct(_)))).collect();
    let respace = |(t, joint): (TokenTree, bool)| match t {
        TokenTree::Punct(p) => {
            let joint = p.as_char() == '\'' || (joint && p.as_char() != ',');
            let mut q = Punct::new(p.as_char(), if joint { Spacing::Joint } else { Spacing::Alone });
            q.set_span(p.span());
            TokenTree::Punct(q)
        }
        TokenTree::Group(g) => {
            let mut h = Group::new(g.delimiter(), compact(g.stream()));
            h.set_span(g.span());
            TokenTree::Group(h)
        }
        other => other,
    };
    tokens.into_iter().zip(joint).map(respace).collect()
}

/// `#[doc = ...]` for each line of `docs`.
fn doc_attrs(docs: &[String]) -> TokenStream {
    quote!(#(#[doc = #docs])*)
}

/// Rust tokens from text the schema holds (a path, type, pattern or
/// expression its parser has checked) or a rule writes.
fn toks(code: &str) -> TokenStream {
    code.parse().unwrap_or_else(|e| panic!("`{code}` is not Rust tokens: {e}"))
}

fn skipped(skip: &[String], host: Host) -> bool {
    skip.iter().any(|s| s == host.name())
}

/// The generated declarations of `host` for the schema text `src`.
/// Errors: the schema's parse or attribute error, as text.
pub fn generate(host: Host, src: &str) -> Result<TokenStream, String> {
    let s = parse(src).map_err(|e| {
        let at = e.span().start();
        format!("{e} (line {}, column {})", at.line, at.column + 1)
    })?;
    let mut items: Vec<TokenStream> = s.enums.iter().filter(|e| !skipped(&e.skip, host)).map(|e| gen_enum(&s, host, e)).collect();
    for r in s.records.iter().filter(|r| !skipped(&r.skip, host)) {
        let fields: Vec<&Field> = r.fields.iter().filter(|f| !skipped(&f.skip, host)).collect();
        items.push(match host {
            Host::Python => python_record(&s, r, &fields)?,
            Host::Node => node_record(&s, r, &fields),
            Host::Uniffi => uniffi_record(&s, r, &fields)?,
        });
    }
    items.push(path_rule(&s, host));
    if host == Host::Python {
        items.push(python_module(&s));
    }
    // The conversion rules (bridge/src/conv.rs); Kotlin/Swift take the core
    // types they expose as they are (the identity on them).
    let same: Vec<String> = match host {
        Host::Uniffi => s
            .enums
            .iter()
            .filter(|e| !skipped(&e.skip, host))
            .map(|e| e.core.clone())
            .chain(s.records.iter().filter(|r| !skipped(&r.skip, host) && !r.twin).filter_map(|r| r.core.clone()))
            .collect(),
        _ => vec![],
    };
    items.push(conv::conversions(host, &same));
    Ok(quote!(#(#items)*))
}

/// Python: a record class (`record!`), its constructor when it is `new`,
/// and its conversions.
fn python_record(s: &Schema, r: &Record, fields: &[&Field]) -> Result<TokenStream, String> {
    let (docs, name, text) = (doc_attrs(&r.docs), toks(&r.name), &r.name);
    let redact: Vec<TokenStream> = fields.iter().filter(|f| f.redact).map(|f| toks(&f.name)).collect();
    let redact = (!redact.is_empty()).then(|| quote!(redact(#(#redact),*)));
    let decl = record_fields(s, Host::Python, r, fields, quote!());
    let new = if r.new { Some(python_new(s, r, fields)?) } else { None };
    let (from, back) = (record_from(s, Host::Python, r, fields), record_back(s, Host::Python, r, fields));
    Ok(quote! {
        crate::records::record! { #docs #name = #text #redact { #decl } }
        #new #from #back
    })
}

/// Node: a record object (`#[napi(object)]`) and its conversions.
fn node_record(s: &Schema, r: &Record, fields: &[&Field]) -> TokenStream {
    let (docs, name) = (doc_attrs(&r.docs), toks(&r.name));
    let from_js = r.output.then(|| quote!(, object_from_js = false));
    let decl = record_fields(s, Host::Node, r, fields, quote!(pub));
    let (from, back) = (record_from(s, Host::Node, r, fields), record_back(s, Host::Node, r, fields));
    quote! {
        #docs
        #[napi_derive::napi(object #from_js)]
        pub struct #name { #decl }
        #from #back
    }
}

/// Kotlin/Swift: the core type as it is (remote), an FFI twin of it
/// (with its conversions), or a record the host builds itself (no core type).
fn uniffi_record(s: &Schema, r: &Record, fields: &[&Field]) -> Result<TokenStream, String> {
    let remote = r.core.as_ref().filter(|_| !r.twin);
    if r.twin && r.core.is_none() {
        return Err(format!("record {}: a twin needs `core = path`", r.name));
    }
    if let Some(f) = fields.iter().find(|f| remote.is_some() && f.get.is_some()) {
        return Err(format!("record {}: field `{}` has `get`, which the core type as it is (not a twin) cannot have in Kotlin/Swift: skip(uniffi) it", r.name, f.name));
    }
    if let Some(f) = fields.iter().find(|f| remote.is_some() && s.has_path(&f.ty)) {
        return Err(format!("record {}: field `{}` is a path, which Kotlin/Swift take as text: make the record a `twin`", r.name, f.name));
    }
    let (docs, decl) = (doc_attrs(&r.docs), record_fields(s, Host::Uniffi, r, fields, quote!(pub)));
    let head = match remote {
        Some(core) => {
            let (core, name) = (toks(core), toks(last(core)));
            quote!(#[allow(unused_imports)] use #core; #docs #[uniffi::remote(Record)] pub struct #name)
        }
        None => {
            let name = toks(&r.name);
            quote!(#docs #[derive(Debug, Clone, PartialEq, uniffi::Record)] pub struct #name)
        }
    };
    let convs = (r.twin || r.tuple).then(|| {
        let (from, back) = (record_from(s, Host::Uniffi, r, fields), record_back(s, Host::Uniffi, r, fields));
        quote!(#from #back)
    });
    Ok(quote!(#head { #decl } #convs))
}

/// The path field rule, when a record of `host` has a path: a `PathBuf`
/// crosses as its text (lossy UTF-8).
fn path_rule(s: &Schema, host: Host) -> TokenStream {
    let fields = s.records.iter().filter(|r| !skipped(&r.skip, host)).flat_map(|r| &r.fields);
    if !fields.filter(|f| !skipped(&f.skip, host)).any(|f| s.has_path(&f.ty)) {
        return quote!();
    }
    let back = match host {
        Host::Python => quote!(impl crate::records::Back<std::path::PathBuf> for String {
            fn back(&self, _: &str) -> sessiondb::Result<std::path::PathBuf> {
                Ok(self.into())
            }
        }),
        Host::Node => quote!(impl crate::records::Back<std::path::PathBuf> for String {
            fn back(self, _: &str) -> sessiondb::Result<std::path::PathBuf> {
                Ok(self.into())
            }
        }),
        Host::Uniffi => quote!(impl Back<std::path::PathBuf> for String {
            fn back(self) -> std::path::PathBuf {
                self.into()
            }
        }),
    };
    quote! {
        /// A path as its text (lossy UTF-8).
        impl crate::records::Conv<String> for std::path::PathBuf {
            fn conv(self) -> String {
                self.to_string_lossy().into_owned()
            }
        }
        #back
    }
}

/// Python: the `Conv` of each `tuple` result it skips (the tuple of its
/// fields' classes) and `register_records(module)`.
fn python_module(s: &Schema) -> TokenStream {
    let host = Host::Python;
    let tuples = s.records.iter().filter(|r| r.tuple && r.output && skipped(&r.skip, host)).map(|r| {
        let tys: Vec<TokenStream> = r.fields.iter().map(|f| s.host_ty(host, &f.ty)).collect();
        let core = toks(&s.core_of(r).unwrap_or_default());
        let idx = (0..r.fields.len()).map(syn::Index::from);
        quote! {
            impl crate::records::Conv<(#(#tys,)*)> for #core {
                fn conv(self) -> (#(#tys,)*) {
                    (#(crate::records::Conv::conv(self.#idx),)*)
                }
            }
        }
    });
    let classes = s.records.iter().filter(|r| !skipped(&r.skip, host)).map(|r| toks(&r.name));
    quote! {
        #(#tuples)*
        /// Add the record classes of bridge/api.rs to the module.
        pub(crate) fn register_records(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
            use pyo3::types::PyModuleMethods;
            #(m.add_class::<#classes>()?;)*
            Ok(())
        }
    }
}

/// The conversion of a record with a core type from it, field by field by
/// the host's `Conv` (a `get` field from its expression of `c`, evaluated
/// before the fields are moved out): Python and Node `From<core>` and
/// `Conv` (`conv_from!`), Kotlin/Swift twins `Conv`; for a `tuple` record
/// also from the core's tuple.
fn record_from(s: &Schema, host: Host, r: &Record, fields: &[&Field]) -> TokenStream {
    let name = toks(&r.name);
    let tuple = r.tuple.then(|| {
        // The core's tuple: a record or enum field by its core type.
        let types = fields.iter().map(|f| toks(&s.core_ty(&f.ty)));
        let (names, idx) = (fields.iter().map(|f| toks(&f.name)), (0..fields.len()).map(syn::Index::from));
        quote! {
            impl crate::records::Conv<#name> for (#(#types,)*) {
                fn conv(self) -> #name {
                    #name { #(#names: crate::records::Conv::conv(self.#idx)),* }
                }
            }
        }
    });
    let Some(core) = &r.core else { return quote!(#tuple) };
    let core = toks(core);
    let (mut lets, mut inits) = (vec![], vec![]);
    for f in fields {
        let n = toks(&f.name);
        match &f.get {
            Some(expr) => {
                let expr = toks(expr);
                lets.push(quote!(let #n = crate::records::Conv::conv(#expr);));
                inits.push(n);
            }
            None if host == Host::Node && r.new && node_optional(f) => inits.push(quote!(#n: Some(crate::records::Conv::conv(c.#n)))),
            None if host == Host::Uniffi && s.is_json(&f.ty) => {
                let text = toks(&format!("{}_json", f.name));
                inits.push(quote!(#text: crate::records::Conv::conv(c.#n)))
            }
            None => inits.push(quote!(#n: crate::records::Conv::conv(c.#n))),
        }
    }
    let body = quote!(#(#lets)* #name { #(#inits),* });
    match host {
        Host::Uniffi => quote!(#tuple impl Conv<#name> for #core { fn conv(self) -> #name { let c = self; #body } }),
        _ => quote! {
            #tuple
            impl From<#core> for #name { fn from(c: #core) -> Self { #body } }
            crate::records::conv_from!(#core => #name);
        },
    }
}

/// `impl Back<core> for Record` (Python and Node: field by field, each by
/// the host's `Back`; Kotlin/Swift twins: `From`, or `TryFrom` when a field
/// can fail), so a caller can pass the record back in as a parameter; only
/// for records taken as input (not `output`) whose every field the host has.
fn record_back(s: &Schema, host: Host, r: &Record, fields: &[&Field]) -> TokenStream {
    let read: Vec<&&Field> = fields.iter().filter(|f| f.get.is_none()).collect();
    let all = r.fields.iter().filter(|f| f.get.is_none()).count();
    let Some(core) = s.core_of(r).filter(|_| !r.output && read.len() == all) else { return quote!() };
    let (core, name) = (toks(&core), toks(&r.name));
    // The core value from each read field's conversion, in `read` order: a
    // struct, or for a `tuple` record the tuple of the conversions.
    let build = |exprs: Vec<TokenStream>| match r.tuple {
        true => quote!((#(#exprs,)*)),
        false => {
            let names = read.iter().map(|f| toks(&f.name));
            quote!(#core { #(#names: #exprs),* })
        }
    };
    let value = build(read.iter().map(|f| field_back(s, host, r, f)).collect());
    match host {
        // JSON text back into a value can fail: `TryFrom<twin>` (a
        // parameter's `try_from(..)?`).
        Host::Uniffi if s.uniffi_fallible(r) => quote! {
            impl TryFrom<#name> for #core {
                type Error = sessiondb::Error;
                fn try_from(c: #name) -> sessiondb::Result<Self> { Ok(#value) }
            }
        },
        // Kotlin/Swift twins: `From<twin>` for the core type (a parameter's
        // `.into()`), each field by the infallible `Back` of the FFI types.
        Host::Uniffi => quote! {
            impl From<#name> for #core { fn from(c: #name) -> Self { #value } }
            impl Back<#core> for #name { fn back(self) -> #core { self.into() } }
        },
        Host::Python => quote! {
            impl crate::records::Back<#core> for #name {
                fn back(&self, _: &str) -> sessiondb::Result<#core> { Ok(#value) }
            }
        },
        Host::Node => quote! {
            impl crate::records::Back<#core> for #name {
                fn back(self, _: &str) -> sessiondb::Result<#core> { Ok(#value) }
            }
        },
    }
}

/// One field of `record_back`: Python's and Node's `Back` naming the field;
/// Kotlin/Swift's `Back`, or in a fallible twin its JSON text parsed
/// (`InvalidInput` naming the field; a JSON object field must hold an
/// object) and a record field that can fail by its own `TryFrom`.
fn field_back(s: &Schema, host: Host, r: &Record, f: &Field) -> TokenStream {
    let (n, text) = (toks(&f.name), &f.name);
    let fallible = s.uniffi_fallible(r);
    let what = format!("{}Json", camel(&f.name));
    let (not_json, not_object) = (format!("{what} is not valid JSON"), format!("{what} must be a JSON object"));
    let json = toks(&format!("{}_json", f.name));
    match host {
        Host::Python => quote!(crate::records::Back::back(&self.#n, #text)?),
        Host::Node => node_back(r, f, quote!(self.)),
        Host::Uniffi if fallible && matches!(s.base(&f.ty), Base::JsonObject) => quote! {
            match serde_json::from_str(&c.#json) {
                Ok(serde_json::Value::Object(m)) => m,
                Ok(_) => return Err(sessiondb::Error::invalid(#not_object)),
                Err(_) => return Err(sessiondb::Error::invalid(#not_json))
            }
        },
        Host::Uniffi if fallible && s.is_json(&f.ty) => quote!(serde_json::from_str(&c.#json).map_err(|_| sessiondb::Error::invalid(#not_json))?),
        Host::Uniffi if fallible && s.record_of(&f.ty).is_some_and(|x| s.uniffi_fallible(x)) => {
            quote!(TryFrom::try_from(c.#n)?)
        }
        Host::Uniffi => quote!(Back::back(c.#n)),
    }
}

/// Node: a record field back into the core's (`src`: where the host value
/// is, e.g. `self.`), by `Back`, naming the field in camelCase; a defaulted
/// field a `new` record lets the caller leave out takes its default.
fn node_back(r: &Record, f: &Field, src: TokenStream) -> TokenStream {
    let (n, what) = (toks(&f.name), camel(&f.name));
    let or = match &f.host_default {
        _ if !(r.new && node_optional(f)) => quote!(),
        Some(v) if v.starts_with('"') => {
            let v = toks(v);
            quote!(.unwrap_or_else(|| #v.to_owned()))
        }
        // A number: the field is a JS number (f64) here.
        Some(v) if v.parse::<i64>().is_ok() => {
            let v = toks(v);
            quote!(.unwrap_or(#v as _))
        }
        Some(v) => {
            let v = toks(v);
            quote!(.unwrap_or(#v))
        }
        None => quote!(.unwrap_or_default()),
    };
    quote!(crate::records::Back::back(#src #n #or, #what)?)
}

/// Node: the integer types of a host type (`i64`, `u32`, also inside
/// `Option`, `Vec` and map values) as `f64`.
fn node_numbers_f64(ty: &mut Type) {
    struct F64;
    impl syn::visit_mut::VisitMut for F64 {
        fn visit_type_path_mut(&mut self, p: &mut syn::TypePath) {
            if p.path.is_ident("i64") || p.path.is_ident("u32") {
                *p = syn::parse_quote!(f64);
            }
            syn::visit_mut::visit_type_path_mut(self, p);
        }
    }
    syn::visit_mut::VisitMut::visit_type_mut(&mut F64, ty);
}

/// Python: an enum's name (`&'static str`, also inside `Option` and `Vec`)
/// as the text a `new` record keeps (`String`).
fn enum_text_owned(ty: &mut Type) {
    struct Owned;
    impl syn::visit_mut::VisitMut for Owned {
        fn visit_type_mut(&mut self, ty: &mut Type) {
            let names = |r: &syn::TypeReference| r.lifetime.as_ref().is_some_and(|l| l.ident == "static") && matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str"));
            match ty {
                Type::Reference(r) if names(r) => *ty = syn::parse_quote!(String),
                _ => syn::visit_mut::visit_type_mut(self, ty),
            }
        }
    }
    syn::visit_mut::VisitMut::visit_type_mut(&mut Owned, ty);
}

/// Node: a field of a `new` record the caller may leave out (it has a
/// default and is not already an `Option`).
fn node_optional(f: &Field) -> bool {
    (f.default.is_some() || f.host_default.is_some()) && !is_option(&f.ty)
}

/// The default a Python signature shows for a defaulted field of a type
/// without `host_default` (the type's own), if it has a literal.
fn python_zero(base: Base) -> Option<&'static str> {
    match base {
        Base::Bool => Some("false"),
        Base::Int(_) => Some("0"),
        _ => None,
    }
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// Python: the constructor of a `new` record, `Name(required..., defaulted=...)`
/// (keyword or positional, in field order): a defaulted `Option` is `None`,
/// a `Vec` `None` (empty), a `String` its literal or `""`, anything else its
/// literal or the type's default; a JSON field any Python value of the core
/// type's serde shape (a dict for a JSON object), `InvalidInputError`
/// naming the field.
fn python_new(s: &Schema, r: &Record, fields: &[&Field]) -> Result<TokenStream, String> {
    let (mut sig, mut params, mut inits) = (vec![], vec![], vec![]);
    let (mut defaulted, mut fallible) = (false, false);
    let any = quote!(&pyo3::Bound<'_, pyo3::PyAny>);
    for f in fields {
        let ty = python_field_ty(s, r, f);
        let (n, lit, core, json) = (toks(&f.name), &f.name, &f.ty, s.is_json(&f.ty));
        let list = matches!(&ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"));
        let has_default = f.default.is_some() || f.host_default.is_some();
        if !has_default && defaulted {
            return Err(format!("record {}: field `{lit}` without a default follows one with a default", r.name));
        }
        defaulted |= has_default;
        let value = f.host_default.as_deref().map(toks);
        let (s_, p_, init) = match () {
            _ if json && has_default => {
                fallible = true;
                (quote!(#n = None), quote!(#n: Option<#any>), quote!(#n: crate::records::Conv::conv(match #n { Some(v) => crate::json::de::<#core>(v, #lit)?, None => Default::default() })))
            }
            _ if json => {
                fallible = true;
                (quote!(#n), quote!(#n: #any), quote!(#n: crate::records::Conv::conv(crate::json::de::<#core>(#n, #lit)?)))
            }
            _ if !has_default => (quote!(#n), quote!(#n: #ty), quote!(#n)),
            _ if is_option(&f.ty) => (quote!(#n = None), quote!(#n: #ty), quote!(#n)),
            _ if list => (quote!(#n = None), quote!(#n: Option<#ty>), quote!(#n: #n.unwrap_or_default())),
            _ if matches!(s.base(&ty), Base::Text) => {
                let value = value.unwrap_or_else(|| quote!(""));
                (quote!(#n = #value), quote!(#n: &str), quote!(#n: #n.to_owned()))
            }
            // A literal, so Python's signature shows the value.
            _ => {
                let zero = python_zero(s.base(&ty)).ok_or_else(|| format!("record {}: field `{lit}: {}` needs `host_default = \"literal\"`", r.name, ty.to_token_stream()))?;
                let value = value.unwrap_or_else(|| toks(zero));
                (quote!(#n = #value), quote!(#n: #ty), quote!(#n))
            }
        };
        sig.push(s_);
        params.push(p_);
        inits.push(init);
    }
    let name = toks(&r.name);
    let (ret, value) = match fallible {
        true => (quote!(pyo3::PyResult<Self>), quote!(Ok(#name { #(#inits),* }))),
        false => (quote!(Self), quote!(#name { #(#inits),* })),
    };
    Ok(quote! {
        #[pyo3::pymethods]
        impl #name {
            #[new]
            #[pyo3(signature = (#(#sig),*))]
            #[allow(clippy::too_many_arguments)]
            fn new(#(#params),*) -> #ret { #value }
        }
    })
}

/// Python's type of a record field: the rule, except that a `new` record
/// keeps an enum field as the text the caller gave (`String`, parsed when
/// the record is passed in).
fn python_field_ty(s: &Schema, r: &Record, f: &Field) -> Type {
    let mut ty = host_override(s, Host::Python, f);
    if r.new {
        enum_text_owned(&mut ty);
    }
    ty
}

/// A field's type in `host`: its override for that host (`python = "..."`),
/// else the rule.
fn host_override(s: &Schema, host: Host, f: &Field) -> Type {
    let ty = f.over.get(host.name()).map_or_else(|| s.host_ty(host, &f.ty), |t| toks(t));
    syn::parse2(ty).expect("a host type parses")
}

/// A record's fields in `host`: each with its docs, Node's `ts_type` or
/// Kotlin/Swift's `#[uniffi(default)]` where it has one, and its host type
/// (the field's override for that host, else the rule).
fn record_fields(s: &Schema, host: Host, r: &Record, fields: &[&Field], vis: TokenStream) -> TokenStream {
    let (new, input) = (r.new, !r.output);
    let fields = fields.iter().map(|f| {
        let (docs, n) = (doc_attrs(&f.docs), toks(&f.name));
        let attr = match (host, &f.default) {
            (Host::Node, _) => {
                let names = f.names.as_ref().and_then(|e| s.names_union(&f.ty, e));
                f.ts.clone().or(names).or_else(|| s.ts_union(&f.ty)).map(|ts| quote!(#[napi(ts_type = #ts)]))
            }
            (Host::Uniffi, Some(None)) => Some(quote!(#[uniffi(default)])),
            (Host::Uniffi, Some(Some(v))) => {
                let v = toks(v);
                Some(quote!(#[uniffi(default = #v)]))
            }
            _ => None,
        };
        if host == Host::Uniffi && s.is_json(&f.ty) {
            // JSON crosses Kotlin/Swift as its text, `<name>_json`.
            let json = toks(&format!("{}_json", f.name));
            return quote!(#docs #attr #vis #json: String,);
        }
        let mut ty = match host {
            Host::Python => python_field_ty(s, r, f),
            _ => host_override(s, host, f),
        };
        // Node: a record callers pass in takes its numbers as JS numbers
        // (f64), checked into the integer by `Back` (napi's own i64
        // conversion turns NaN into 0 and truncates 1.5 to 1).
        if host == Host::Node && input && !f.over.contains_key("node") {
            node_numbers_f64(&mut ty);
        }
        let ty = match host {
            Host::Node if new && node_optional(f) => quote!(Option<#ty>),
            Host::Python => compact(quote!(#ty)),
            _ => quote!(#ty),
        };
        quote!(#docs #attr #vis #n: #ty,)
    });
    quote!(#(#fields)*)
}

/// Kotlin/Swift: the core enum as it is (remote), fields and docs included.
fn uniffi_enum(s: &Schema, e: &Enum) -> TokenStream {
    let core = toks(&e.core);
    let (name, docs) = (toks(last(&e.core)), doc_attrs(&e.docs));
    let variants = e.variants.iter().map(|v| {
        let (docs, var) = (doc_attrs(&v.docs), toks(&v.name));
        let tys = v.fields.iter().map(|(_, _, t)| s.host_ty(Host::Uniffi, t));
        let fields = v.fields.iter().zip(tys.clone()).map(|((n, d, _), t)| {
            let (d, n) = (doc_attrs(d), toks(n));
            quote!(#d #n: #t,)
        });
        match (v.fields.is_empty(), v.named) {
            (true, _) => quote!(#docs #var,),
            (false, true) => quote!(#docs #var { #(#fields)* },),
            (false, false) => quote!(#docs #var(#(#tys),*),),
        }
    });
    quote! {
        #[allow(unused_imports)]
        use #core;
        #docs
        #[uniffi::remote(Enum)]
        pub enum #name { #(#variants)* }
    }
}

/// An enum in `host`: Kotlin/Swift the core enum as it is (remote, fields
/// and docs included); Python and Node its `str` names (`Conv`), and back
/// through the core's parser or the names (`Back`).
fn gen_enum(s: &Schema, host: Host, e: &Enum) -> TokenStream {
    if host == Host::Uniffi {
        return uniffi_enum(s, e);
    }
    let core = toks(&e.core);
    let python = host == Host::Python;
    let (ty, owned) = if python { (quote!(&'static str), quote!()) } else { (quote!(String), quote!(.to_owned())) };
    let names = e.variants.iter().map(|v| {
        let (var, text) = (toks(&v.name), &v.text);
        // A variant with fields is named by its `str` name alone.
        let rest = match (v.fields.is_empty(), v.named) {
            (true, _) => quote!(),
            (false, true) => quote!({ .. }),
            (false, false) => quote!((..)),
        };
        quote!(#core::#var #rest => #text #owned,)
    });
    // The text field of a `new` record.
    let text = python.then(|| {
        quote! {
            impl crate::records::Conv<String> for #core {
                fn conv(self) -> String {
                    crate::records::Conv::<&'static str>::conv(self).to_owned()
                }
            }
        }
    });
    // And back: the name a caller passes, parsed (`InvalidInput`: the core
    // parser's message, else one naming the field). A name alone cannot
    // rebuild a variant with fields: such an enum goes back only through
    // the core's parser.
    let impls = match python {
        true => vec![(quote!(&'static str), quote!(&self), quote!(*self)), (quote!(String), quote!(&self), quote!(self.as_str()))],
        false => vec![(quote!(String), quote!(self), quote!(self.as_str()))],
    };
    let backs = impls.into_iter().filter(|_| e.parse.is_some() || e.variants.iter().all(|v| v.fields.is_empty())).map(|(ty, recv, scrut)| {
        let body = match &e.parse {
            Some(parse) => {
                let parse = toks(parse);
                quote!(let _ = what; #parse(#scrut))
            }
            None => {
                let arms = e.variants.iter().map(|v| {
                    let (text, var) = (&v.text, toks(&v.name));
                    quote!(#text => Ok(#core::#var),)
                });
                quote!(match #scrut { #(#arms)* other => Err(sessiondb::Error::invalid(format!("{what} is not one of its known values ({other:?})"))), })
            }
        };
        quote!(impl crate::records::Back<#core> for #ty { fn back(#recv, what: &str) -> sessiondb::Result<#core> { #body } })
    });
    quote! {
        impl crate::records::Conv<#ty> for #core {
            fn conv(self) -> #ty {
                match self { #(#names)* }
            }
        }
        #text
        #(#backs)*
    }
}

#[cfg(test)]
mod tests {
    /// bridge/api.rs completed from the core's types, as the generator reads it.
    pub(crate) fn expanded_api() -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let api = std::fs::read_to_string(root.join("api.rs")).unwrap();
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

    const SCHEMA: &str = r#"
/// Who wrote it.
#[bridge(core = sessiondb::Role)]
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
            generate_pyi(&src).unwrap(),
            "class SessionStore:\n    def page(self, path: Union[str, \"os.PathLike[str]\"], role: Optional[Literal[\"user\", \"tool\"]] = None, limit: int = 1000, dry: bool = False, seqs: Sequence[int]) -> List[TranscriptEntry]: ...\n    def drop_all(self) -> None: ...\ndef f(text: str) -> Optional[Literal[\"user\", \"tool\"]]: ...\n"
        );
        let e = generate_pyi(&format!("{SCHEMA}trait Functions {{\n    #[bridge(core = a::g)]\n    fn g(x: (u8, u8)) -> u64;\n}}\n")).unwrap_err();
        assert!(e.contains("method g: no Python stub type for `(u8,u8)`"), "{e}");
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
        let pyi = generate_pyi(src).unwrap();
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
        let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/api.rs")).unwrap();
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
            generate_pyi(src).unwrap(),
            "class SessionStore:\ndef plan(items: Sequence[Union[Item, ItemDict]], opts: Optional[OptsDict] = None) -> int: ...\ndef one(item: Union[Item, ItemDict]) -> int: ...\n"
        );
        let node = generate_methods(Host::Node, src).unwrap();
        assert!(has(&node, "pub fn plan(items: Vec<crate::records::Item>, opts: Option<crate::records::Opts>) -> napi::Result<i64> {\n    let items: Vec<a::Item> = crate::records::Back::back(items, \"items\").map_err(crate::errors::to_napi)?;\n    let opts: a::Opts = match opts { Some(opts) => crate::records::Back::back(opts, \"opts\").map_err(crate::errors::to_napi)?, _ => Default::default() };\n"), "{node}");
        let u = generate_methods(Host::Uniffi, src).unwrap();
        assert!(has(&u, "#[uniffi::export(default(opts = None))]\npub fn plan(items: Vec<a::Item>, opts: Option<crate::records::Opts>) -> crate::error::Result<u64> {\n    let opts: a::Opts = match opts { Some(opts) => opts.into(), _ => Default::default() };\n    Ok(crate::records::Conv::conv(a::plan(&items, &opts)?))\n"), "{u}");
        let e = generate_pyi(&src.replace(", dict = \"ItemDict\"", "")).unwrap_err();
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
            generate_pyi(src).unwrap(),
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
}
