//! The host bridge generator: reads `bridge/records.rs`, the one declaration
//! of the records and enums every host exposes, and writes each host's Rust
//! declarations of them at build time (issue 11 item 4, "one bridge
//! definition that generates every host"; libsignal's bridge is the model).
//!
//! `bridge/records.rs` is Rust syntax, parsed here with `syn` and never
//! compiled itself: each `struct` is a record, each `enum` a unit enum of the
//! core, written with the core's field types and the docs every host shows.
//! `#[bridge(...)]` says how a host departs from the rule:
//!
//! - on a record: `core = path` (the core type it is converted from, and for
//!   Kotlin/Swift the type exposed as it is, `#[uniffi::remote(Record)]`);
//!   `skip(python, node, uniffi)` (that host declares it by hand); `output`
//!   (Node: a result only, `object_from_js = false`).
//! - on an enum: `core = path`; on each variant `str = "name"` (the string
//!   Python and Node see, the core's serde name).
//! - on a field: `python = "Type"`, `node = "Type"` (another host type,
//!   converted by that host's `Conv`); `ts = "..."` (the TypeScript type);
//!   `default` or `default = "tokens"` (Kotlin/Swift `#[uniffi(default)]`).
//!
//! Host types by rule: Python keeps the core types, enums become `&'static
//! str`; Node makes `u64`/`usize` JS numbers (`i64`), enums `String` with a
//! literal-union `ts_type`, `u64` map keys strings; Kotlin/Swift take the
//! core types as they are. Each host converts with its own `Conv` trait and
//! `record!`/`from_core!` macros; this crate only writes declarations.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, Expr, Fields, GenericArgument, Item, Lit, PathArguments, Type};

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

/// For a binding crate's `build.rs`: generate `$OUT_DIR/bridge_records.rs`
/// from `../bridge/records.rs` (relative to the crate) and ask cargo to rerun
/// when it changes. Panics with the schema error (a build failure).
pub fn build(host: Host) {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let schema = manifest.join("../bridge/records.rs");
    println!("cargo:rerun-if-changed={}", schema.display());
    let src = std::fs::read_to_string(&schema).unwrap_or_else(|e| panic!("{}: {e}", schema.display()));
    let out = generate(host, &src).unwrap_or_else(|e| panic!("{}: {e}", schema.display()));
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("bridge_records.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

struct Field {
    name: String,
    docs: Vec<String>,
    ty: Type,
    skip: Vec<String>,
    over: BTreeMap<String, String>,
    ts: Option<String>,
    default: Option<Option<String>>,
}

struct Record {
    name: String,
    docs: Vec<String>,
    core: Option<String>,
    skip: Vec<String>,
    output: bool,
    fields: Vec<Field>,
}

struct Variant {
    name: String,
    docs: Vec<String>,
    text: String,
}

struct Enum {
    name: String,
    docs: Vec<String>,
    core: String,
    skip: Vec<String>,
    variants: Vec<Variant>,
}

#[derive(Default)]
struct BridgeAttr {
    core: Option<String>,
    skip: Vec<String>,
    output: bool,
    over: BTreeMap<String, String>,
    ts: Option<String>,
    text: Option<String>,
    default: Option<Option<String>>,
}

fn docs(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn bridge_attr(attrs: &[Attribute]) -> syn::Result<BridgeAttr> {
    let mut out = BridgeAttr::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("bridge")) {
        a.parse_nested_meta(|m| {
            let key = m.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            match key.as_str() {
                "core" => out.core = Some(m.value()?.parse::<syn::Path>()?.to_token_stream().to_string().replace(' ', "")),
                "output" => out.output = true,
                "skip" => m.parse_nested_meta(|h| {
                    out.skip.push(h.path.get_ident().map(|i| i.to_string()).unwrap_or_default());
                    Ok(())
                })?,
                "python" | "node" | "uniffi" => {
                    let v: syn::LitStr = m.value()?.parse()?;
                    out.over.insert(key, v.value());
                }
                "ts" => out.ts = Some(m.value()?.parse::<syn::LitStr>()?.value()),
                "str" => out.text = Some(m.value()?.parse::<syn::LitStr>()?.value()),
                "default" => {
                    out.default = Some(if m.input.peek(syn::Token![=]) {
                        Some(m.value()?.parse::<syn::LitStr>()?.value())
                    } else {
                        None
                    })
                }
                _ => return Err(m.error(format!("unknown bridge attribute `{key}`"))),
            }
            Ok(())
        })?;
    }
    Ok(out)
}

struct Schema {
    records: Vec<Record>,
    enums: Vec<Enum>,
}

fn parse(src: &str) -> syn::Result<Schema> {
    let file = syn::parse_file(src)?;
    let mut s = Schema { records: vec![], enums: vec![] };
    for item in file.items {
        match item {
            Item::Struct(st) => {
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
                    });
                }
                s.records.push(Record { name: st.ident.to_string(), docs: docs(&st.attrs), core: b.core, skip: b.skip, output: b.output, fields });
            }
            Item::Enum(en) => {
                let b = bridge_attr(&en.attrs)?;
                let core = b.core.ok_or_else(|| syn::Error::new_spanned(&en.ident, "an enum needs `#[bridge(core = path)]`"))?;
                let mut variants = vec![];
                for v in &en.variants {
                    let vb = bridge_attr(&v.attrs)?;
                    let text = vb.text.ok_or_else(|| syn::Error::new_spanned(&v.ident, "a variant needs `#[bridge(str = \"...\")]`"))?;
                    variants.push(Variant { name: v.ident.to_string(), docs: docs(&v.attrs), text });
                }
                s.enums.push(Enum { name: en.ident.to_string(), docs: docs(&en.attrs), core, skip: b.skip, variants });
            }
            other => return Err(syn::Error::new_spanned(other, "bridge/records.rs holds only structs and enums")),
        }
    }
    Ok(s)
}

/// The last segment of a path (`sessiondb::context::Band` -> `Band`).
fn last(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

impl Schema {
    fn record(&self, name: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.name == name)
    }
    fn enumeration(&self, name: &str) -> Option<&Enum> {
        self.enums.iter().find(|e| e.name == name)
    }

    /// The host's type for a schema type (see the crate docs for the rules).
    fn host_ty(&self, host: Host, ty: &Type) -> String {
        match ty {
            Type::Path(p) if p.qself.is_none() => {
                let seg = p.path.segments.last().expect("a path has a segment");
                let id = seg.ident.to_string();
                let args: Vec<&Type> = match &seg.arguments {
                    PathArguments::AngleBracketed(a) => a
                        .args
                        .iter()
                        .filter_map(|g| if let GenericArgument::Type(t) = g { Some(t) } else { None })
                        .collect(),
                    _ => vec![],
                };
                if !args.is_empty() {
                    let mut mapped: Vec<String> = args.iter().map(|t| self.host_ty(host, t)).collect();
                    if id == "BTreeMap" && host == Host::Node && mapped[0] == "i64" {
                        mapped[0] = "String".into();
                    }
                    return format!("{id}<{}>", mapped.join(", "));
                }
                if let Some(r) = self.record(&id) {
                    return match (host, &r.core) {
                        (Host::Uniffi, Some(core)) if !r.skip.iter().any(|s| s == "uniffi") => last(core).to_string(),
                        _ => id,
                    };
                }
                if let Some(e) = self.enumeration(&id) {
                    return match host {
                        Host::Python => "&'static str".into(),
                        Host::Node => "String".into(),
                        Host::Uniffi => last(&e.core).to_string(),
                    };
                }
                match (host, id.as_str()) {
                    (Host::Node, "u64" | "usize") => "i64".into(),
                    _ => ty.to_token_stream().to_string(),
                }
            }
            Type::Tuple(t) => format!("({})", t.elems.iter().map(|e| self.host_ty(host, e)).collect::<Vec<_>>().join(", ")),
            other => other.to_token_stream().to_string(),
        }
    }

    /// A literal-union TypeScript type for a field holding an enum (through
    /// `Option`/`Vec`), else None.
    fn ts_union(&self, ty: &Type) -> Option<String> {
        let Type::Path(p) = ty else { return None };
        let seg = p.path.segments.last()?;
        let id = seg.ident.to_string();
        if let PathArguments::AngleBracketed(a) = &seg.arguments {
            let inner = a.args.iter().find_map(|g| if let GenericArgument::Type(t) = g { Some(t) } else { None })?;
            let u = self.ts_union(inner)?;
            return match id.as_str() {
                "Option" => Some(u),
                "Vec" => Some(format!("Array<{u}>")),
                _ => None,
            };
        }
        let e = self.enumeration(&id)?;
        Some(e.variants.iter().map(|v| format!("'{}'", v.text)).collect::<Vec<_>>().join(" | "))
    }
}

fn write_docs(out: &mut String, indent: &str, docs: &[String]) {
    for d in docs {
        let _ = writeln!(out, "{indent}#[doc = {d:?}]");
    }
}

fn skipped(skip: &[String], host: Host) -> bool {
    skip.iter().any(|s| s == host.name())
}

/// The generated declarations of `host` for the schema text `src`.
/// Errors: the schema's parse or attribute error, as text.
pub fn generate(host: Host, src: &str) -> Result<String, String> {
    let s = parse(src).map_err(|e| { let at = e.span().start(); format!("{e} (line {}, column {})", at.line, at.column + 1) })?;
    let mut out = String::from("// @generated by sessiondb-bridge from bridge/records.rs: edit that file, not this one.\n\n");
    for e in s.enums.iter().filter(|e| !skipped(&e.skip, host)) {
        gen_enum(&mut out, host, e);
    }
    let mut from_core = String::new();
    for r in s.records.iter().filter(|r| !skipped(&r.skip, host)) {
        let fields: Vec<&Field> = r.fields.iter().filter(|f| !skipped(&f.skip, host)).collect();
        match host {
            Host::Python => {
                out.push_str("crate::records::record! {\n");
                write_docs(&mut out, "    ", &r.docs);
                match &r.core {
                    Some(core) => { let _ = writeln!(out, "    {} = {:?} from {core} {{", r.name, r.name); }
                    None => { let _ = writeln!(out, "    {} = {:?} {{", r.name, r.name); }
                }
                for f in fields {
                    write_docs(&mut out, "        ", &f.docs);
                    let ty = f.over.get("python").cloned().unwrap_or_else(|| s.host_ty(host, &f.ty));
                    let _ = writeln!(out, "        {}: {ty},", f.name);
                }
                out.push_str("    }\n}\n\n");
            }
            Host::Node => {
                write_docs(&mut out, "", &r.docs);
                let _ = writeln!(out, "#[napi_derive::napi(object{})]", if r.output { ", object_from_js = false" } else { "" });
                let _ = writeln!(out, "pub struct {} {{", r.name);
                for f in &fields {
                    write_docs(&mut out, "    ", &f.docs);
                    if let Some(ts) = f.ts.clone().or_else(|| s.ts_union(&f.ty)) {
                        let _ = writeln!(out, "    #[napi(ts_type = {ts:?})]");
                    }
                    let ty = f.over.get("node").cloned().unwrap_or_else(|| s.host_ty(host, &f.ty));
                    let _ = writeln!(out, "    pub {}: {ty},", f.name);
                }
                out.push_str("}\n\n");
                if let Some(core) = &r.core {
                    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                    let _ = writeln!(from_core, "    {} <= {core} {{ {} }}", r.name, names.join(", "));
                }
            }
            Host::Uniffi => {
                let Some(core) = &r.core else {
                    return Err(format!("record {}: Kotlin/Swift expose core types (`core = path`) or skip(uniffi)", r.name));
                };
                let _ = writeln!(out, "#[allow(unused_imports)]\nuse {core};");
                write_docs(&mut out, "", &r.docs);
                let _ = writeln!(out, "#[uniffi::remote(Record)]\npub struct {} {{", last(core));
                for f in &fields {
                    write_docs(&mut out, "    ", &f.docs);
                    match &f.default {
                        Some(None) => out.push_str("    #[uniffi(default)]\n"),
                        Some(Some(v)) => { let _ = writeln!(out, "    #[uniffi(default = {v})]"); }
                        None => {}
                    }
                    let ty = f.over.get("uniffi").cloned().unwrap_or_else(|| s.host_ty(host, &f.ty));
                    let _ = writeln!(out, "    pub {}: {ty},", f.name);
                }
                out.push_str("}\n\n");
            }
        }
    }
    if !from_core.is_empty() {
        let _ = writeln!(out, "crate::records::from_core! {{\n{from_core}}}");
    }
    Ok(out)
}

fn gen_enum(out: &mut String, host: Host, e: &Enum) {
    match host {
        Host::Python | Host::Node => {
            let (ty, conv) = if host == Host::Python { ("&'static str", "") } else { ("String", ".to_owned()") };
            let _ = writeln!(out, "impl crate::records::Conv<{ty}> for {} {{\n    fn conv(self) -> {ty} {{\n        match self {{", e.core);
            for v in &e.variants {
                let _ = writeln!(out, "            {}::{} => {:?}{conv},", e.core, v.name, v.text);
            }
            out.push_str("        }\n    }\n}\n\n");
        }
        Host::Uniffi => {
            let _ = writeln!(out, "#[allow(unused_imports)]\nuse {};", e.core);
            write_docs(out, "", &e.docs);
            let _ = writeln!(out, "#[uniffi::remote(Enum)]\npub enum {} {{", last(&e.core));
            for v in &e.variants {
                write_docs(out, "    ", &v.docs);
                let _ = writeln!(out, "    {},", v.name);
            }
            out.push_str("}\n\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(out.contains("crate::records::record! {\n    #[doc = \" An entry.\"]\n    TranscriptEntry = \"TranscriptEntry\" from sessiondb::TranscriptEntry {\n        #[doc = \" Seq, from 1.\"]\n        seq: u64,\n        role: &'static str,\n        tokens: Option<u64>,\n        keys: Vec<&'static str>,\n        by_seq: Vec<u64>,\n    }\n}\n"), "{out}");
        assert!(out.contains("sessiondb::Role::User => \"user\","), "{out}");
    }

    #[test]
    fn node_maps_counts_and_enums_and_lists_from_core() {
        let out = generate(Host::Node, SCHEMA).unwrap();
        assert!(out.contains("#[napi_derive::napi(object, object_from_js = false)]\npub struct TranscriptEntry {\n    #[doc = \" Seq, from 1.\"]\n    pub seq: i64,\n    #[napi(ts_type = \"'user' | 'tool'\")]\n    pub role: String,\n    pub tokens: Option<i64>,\n    #[napi(ts_type = \"Array<'user' | 'tool'>\")]\n    pub keys: Vec<String>,\n    pub by_seq: BTreeMap<String, i64>,\n}\n"), "{out}");
        assert!(out.contains("    TranscriptEntry <= sessiondb::TranscriptEntry { seq, role, tokens, keys, by_seq }\n"), "{out}");
        assert!(out.contains("sessiondb::Role::Tool => \"tool\".to_owned(),"), "{out}");
    }

    #[test]
    fn uniffi_exposes_core_types_as_they_are() {
        let out = generate(Host::Uniffi, SCHEMA).unwrap();
        assert!(out.contains("#[uniffi::remote(Enum)]\npub enum Role {\n    #[doc = \" The person.\"]\n    User,\n    Tool,\n}\n"), "{out}");
        assert!(out.contains("#[uniffi::remote(Record)]\npub struct TranscriptEntry {\n    #[doc = \" Seq, from 1.\"]\n    pub seq: u64,\n    pub role: Role,\n    #[uniffi(default)]\n    pub tokens: Option<u64>,\n}\n"), "{out}");
    }

    #[test]
    fn schema_errors_name_the_problem() {
        let e = generate(Host::Node, "#[bridge(core = a::B)] pub enum B { X }").unwrap_err();
        assert!(e.starts_with("a variant needs `#[bridge(str = \"...\")]`"), "{e}");
        let e = generate(Host::Uniffi, "pub struct A { pub x: u64 }").unwrap_err();
        assert_eq!(e, "record A: Kotlin/Swift expose core types (`core = path`) or skip(uniffi)");
        let e = generate(Host::Node, "#[bridge(colour = 1)] pub struct A { pub x: u64 }").unwrap_err();
        assert!(e.starts_with("unknown bridge attribute `colour`"), "{e}");
    }
}
