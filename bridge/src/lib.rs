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
//! variants, types, docs; a method or function without a doc takes its
//! core function's, and one declared `-> _` its parameters and `Ok` type), so below a record's fields are the core's plus
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
//!   names, for parameters), `pyi = "Alias"` (its Python stub type, an
//!   alias of `sessiondb.types`; `"Literal"`: the `Literal[...]` of its
//!   names; without: `str`); on a variant `str = "name"` (the string
//!   Python and Node see; without it, the core variant's serde name).
//!   A variant may have fields (`V(String)`, `V { column: u64 }`, the
//!   core's): Kotlin/Swift get them as they are, Python and Node only the
//!   name (such an enum goes back only through `parse`; a field's other
//!   parts reach them through `get` fields beside it).
//! - on a field: `omit` (a core field no host gets); `pyi = "Type"` (its
//!   Python stub type); `python = "Type"`, `node = "Type"`, `uniffi = "Type"`
//!   (another host type, converted by that host's `Conv`); `ts = "..."` (the
//!   TypeScript type); `default` or `default = "tokens"` (Kotlin/Swift
//!   `#[uniffi(default)]`; in a `new` record also Python's and Node's
//!   default, the type's own; implied in a `new` record for a core field
//!   that is an `Option` or `#[serde(default)]`); `host_default = "literal"` (Python's and
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
//! brings its own). [`generate_pyi`] writes the whole Python stub (`_native.pyi`) around its hand-written part. The `Conv` and `Back`
//! rules every conversion goes through are written here too, once for the
//! three hosts (`conv.rs`); Python declares its classes through its
//! `record!` macro.
//!
//! The error kinds are the schema's `#[bridge(error, ...)] enum`, from which
//! [`generate_errors`] writes every host's error mapping and its
//! `error_kinds()` module function (module `errors`).
//!
//! How the generator is laid out: `schema` parses `bridge/api.rs` once
//! (records, enums, methods and their `#[bridge(...)]` departures); `types`
//! classifies a schema type once (a `Shape` of containers over `Base`
//! leaves, and a parameter's `Wrap`: the one place a type's syntax is
//! read) and says what each host makes of it; `params` holds each host's rule for a parameter (a
//! `ParamPlan`: declared type, conversion, argument), `methods` the
//! methods and functions, `records` the records and enums, `errors` the
//! error mapping, `conv` the `Conv`/`Back` rules and `pyi` the whole Python
//! stub. Every piece of Rust is built with `quote!` and formatted by
//! `prettyplease` into the committed files (`snapshot`).

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::{Attribute, Expr, Fields, GenericArgument, Item, Lit, PathArguments, Type};

mod conv;
mod core_types;
mod errors;
mod methods;
mod params;
mod pyi;
mod records;
mod schema;
pub mod snapshot;
mod types;
pub use core_types::{expand, Core};
pub use errors::generate_errors;
pub use methods::generate_methods;
pub use pyi::generate_pyi;
pub use records::generate;
pub use snapshot::snapshots;

/// The one declaration's files, relative to the bridge crate, read as one
/// text in this order: enums and records, the store's methods (`trait
/// SessionStore`), module functions and error kinds.
pub const API_FILES: [&str; 3] = ["api.rs", "api/store.rs", "api/functions.rs"];

/// The one declaration ([`API_FILES`] under `bridge_dir`) as one text.
/// Errors: the first file that cannot be read, with its path.
pub fn read_api(bridge_dir: &std::path::Path) -> Result<String, String> {
    API_FILES.iter().try_fold(String::new(), |mut all, f| {
        let path = bridge_dir.join(f);
        all.push_str(&std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?);
        Ok(all)
    })
}
use params::*;
use records::*;
use schema::*;
use types::*;

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

#[cfg(test)]
mod tests;
