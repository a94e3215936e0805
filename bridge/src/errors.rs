//! The error kinds of `bridge/api.rs` and every host's error mapping
//! generated from them (issue 11 item 4: "each host record and method
//! declared once"; the errors were written by hand four times).
//!
//! The declaration is the schema's one `#[bridge(error, ...)] pub enum`
//! (the last section of `bridge/api.rs`): one variant per core error kind,
//! in `sessiondb::ErrorKind::ALL` order, each with the fields the hosts see and their types;
//! the docs Kotlin/Swift show are the core variant's and field's
//! (`core_types::expand`; a derived field's is written in the
//! declaration). `#[bridge(...)]` says where a host departs:
//!
//! - on the enum: `error` (this is the declaration), `core = path` (the core
//!   error, e.g. `sessiondb::Error`), `kind = path` (its kind enum),
//!   `uniffi = "Name"` (the Kotlin/Swift enum, e.g. `SessionDbError`).
//! - on a variant: `class = "Name"` (the Python and Node class when it is
//!   not the kind + `Error`, e.g. `AuthenticationError`); `pattern =
//!   "..."` (the core pattern, relative to the core enum, whose bindings the
//!   fields read, e.g. `Io { step, source }`; without it the variant's own
//!   fields by name, `Closed` for a variant without fields);
//!   `python_class = "expr"` (the Python class of one error of the kind,
//!   an expression of the pattern's bindings, e.g. `FileNotFoundIoError`
//!   for an `Io` whose OS kind is `NotFound`); `node_object = "name"` (Node
//!   nests the variant's fields in one object of that name, e.g.
//!   `breakdown`); `fallback` (a core kind added without a variant here
//!   reaches Kotlin/Swift as this variant, every field the core's message).
//! - on a field: `skip(python, node, uniffi)` (that host does not show it);
//!   `get = "expr"` (the value, an expression of the pattern's bindings;
//!   without it the binding of the field's name).
//!
//! What each host gets, in `bridge/generated/<host>/errors.rs` ([`generate_errors`]):
//!
//! - Kotlin/Swift: the `uniffi::Error` enum, each variant with its fields and
//!   `detail` (the core's message, also its `Display`), `From<core error>`,
//!   and `DECLARED_KINDS` (the declared kinds in order, which a test of the
//!   crate compares with `ErrorKind::ALL`).
//! - Python: `class_name(kind)` (the class in `sessiondb.errors`),
//!   `class_of(&error)` (with `python_class`) and `set_attrs` (one attribute
//!   per field, snake_case; an `Option` only when it holds a value).
//! - Node: `add_fields` (the fields into the wire JSON, camelCase, `null`
//!   for an empty `Option`, nested under `node_object`).
//! - Every host: the module function `error_kinds()`, every core error kind
//!   (`kind`'s `ALL`, in order): Python `(name, code, class)` tuples (the
//!   class of `class_name`), Node and Kotlin/Swift `ErrorKindInfo { name,
//!   code }` records (`ErrorKind::name()`, `ErrorKind::code()`).
//!
//! Patterns are matched by value for Kotlin/Swift (fields moved out) and by
//! reference for Python and Node, so a `get` expression must read either way
//! (`b.capacity`, `step.to_string()`).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::punctuated::Punctuated;
use syn::{Attribute, Fields, ItemEnum, Meta};

use super::{camel, doc_attrs, docs, is_option, skipped, toks, BridgeAttr, Field, Host, Schema};

/// The `#[bridge(error)]` enum of the schema.
pub(crate) struct ErrorDecl {
    /// The core error the variants are matched on (`sessiondb::Error`).
    core: String,
    /// The core's kind enum (`sessiondb::ErrorKind`).
    kind: String,
    /// The Kotlin/Swift enum's name (`SessionDbError`).
    uniffi: String,
    docs: Vec<String>,
    pub(crate) variants: Vec<ErrorVariant>,
}

/// One error kind: its fields (`get` and `skip` their only departures)
/// and its `#[bridge(...)]` (`class`, `pattern`, ..., read through `Deref`).
pub(crate) struct ErrorVariant {
    /// The kind's name (`ErrorKind::name()`), also the Kotlin/Swift variant.
    pub(crate) name: String,
    docs: Vec<String>,
    fields: Vec<Field>,
    attr: BridgeAttr,
}

impl std::ops::Deref for ErrorVariant {
    type Target = BridgeAttr;
    fn deref(&self) -> &BridgeAttr {
        &self.attr
    }
}

impl ErrorVariant {
    /// The Python and Node class of the kind: `class`, else the kind + `Error`.
    pub(crate) fn class(&self) -> String {
        self.class.clone().unwrap_or_else(|| format!("{}Error", self.name))
    }

    fn shown(&self, host: Host) -> Vec<&Field> {
        self.fields.iter().filter(|f| !skipped(&f.skip, host)).collect()
    }

    /// The core pattern (`sessiondb::Error::...`); `all`: every field bound
    /// (Kotlin/Swift, exhaustive), else those of `host` and `..`.
    fn pattern(&self, core: &str, host: Host, all: bool) -> TokenStream {
        let (core, name) = (toks(core), toks(&self.name));
        if let Some(p) = &self.pattern {
            let p = toks(p);
            return quote!(#core::#p);
        }
        if self.fields.is_empty() {
            return quote!(#core::#name);
        }
        let fields = if all { self.fields.iter().collect() } else { self.shown(host) };
        let names = fields.iter().map(|f| toks(&f.name));
        let rest = (!all).then(|| quote!(, ..));
        quote!(#core::#name { #(#names),* #rest })
    }
}

/// Whether `attrs` hold `#[bridge(error, ...)]`: the error declaration.
pub(crate) fn is_decl(attrs: &[Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("bridge")).any(|a| {
        a.parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
            .map(|ms| ms.iter().any(|m| m.path().is_ident("error")))
            .unwrap_or(false)
    })
}

/// The `#[bridge(...)]` of an item of the error declaration, its errors
/// naming the declaration.
fn attr(attrs: &[Attribute]) -> syn::Result<super::BridgeAttr> {
    super::bridge_attr(attrs).map_err(|e| syn::Error::new(e.span(), format!("{e} in the error declaration")))
}

/// Parse the error declaration (an enum for which [`is_decl`] holds).
pub(crate) fn parse_decl(en: &ItemEnum) -> syn::Result<ErrorDecl> {
    let mut a = attr(&en.attrs)?;
    let need = |v: Option<String>, what: &str| {
        v.ok_or_else(|| syn::Error::new_spanned(&en.ident, format!("the error declaration needs `{what}`")))
    };
    let mut variants = vec![];
    for v in &en.variants {
        let va = attr(&v.attrs)?;
        let mut fields = vec![];
        match &v.fields {
            Fields::Unit => {}
            Fields::Named(named) => {
                for f in &named.named {
                    let (name, attr) = (f.ident.as_ref().expect("named").to_string(), attr(&f.attrs)?);
                    fields.push(Field { name, docs: docs(&f.attrs), ty: f.ty.clone(), attr });
                }
            }
            Fields::Unnamed(_) => {
                return Err(syn::Error::new_spanned(&v.ident, "an error variant has named fields (the core's shape goes in `pattern`)"))
            }
        }
        if va.fallback && fields.iter().any(|f| f.ty.to_token_stream().to_string() != "String" || skipped(&f.skip, Host::Uniffi)) {
            return Err(syn::Error::new_spanned(&v.ident, "the `fallback` variant has only `String` fields, all shown in Kotlin/Swift"));
        }
        variants.push(ErrorVariant { name: v.ident.to_string(), docs: docs(&v.attrs), fields, attr: va });
    }
    if variants.iter().filter(|v| v.fallback).count() != 1 {
        return Err(syn::Error::new_spanned(&en.ident, "the error declaration marks exactly one variant `fallback`"));
    }
    Ok(ErrorDecl {
        core: need(a.core, "core = path")?,
        kind: need(a.kind, "kind = path")?,
        uniffi: need(a.over.remove("uniffi"), "uniffi = \"Name\"")?,
        docs: docs(&en.attrs),
        variants,
    })
}

/// The host's error mapping for the schema text `src` (see the module
/// docs), committed as `bridge/generated/<host>/errors.rs` ([`snapshots`](crate::snapshots)).
/// Errors: the schema's parse error; no error declaration; a method's
/// `errors(Kind)` naming a kind the declaration lacks.
pub fn generate_errors(host: Host, src: &str) -> Result<TokenStream, String> {
    let s = super::parse_at(src)?;
    let d = s.errors.as_ref().ok_or("bridge/api.rs declares no `#[bridge(error, ...)] enum`")?;
    for m in &s.methods {
        if let Some(k) = m.errors.iter().find(|k| !d.variants.iter().any(|v| &v.name == *k)) {
            return Err(format!("method {}: error kind `{k}` is not declared in `enum Error`", m.name));
        }
    }
    let body = match host {
        Host::Uniffi => uniffi(&s, d),
        Host::Python => python(d),
        Host::Node => node(d),
    };
    let kinds = kinds(host, d);
    Ok(quote!(#body #kinds))
}

/// The module function `error_kinds()` of `host` (see the module docs).
fn kinds(host: Host, d: &ErrorDecl) -> TokenStream {
    let kind = toks(&d.kind);
    let every = format!(" Every core error kind, in declaration order ({}).", d.variants.len());
    match host {
        Host::Python => quote! {
            /// `(name, code, python class name)` of every core error kind.
            #[pyo3::pyfunction]
            pub fn error_kinds() -> Vec<(&'static str, &'static str, &'static str)> {
                #kind::ALL.iter().map(|k| (k.name(), k.code(), class_name(*k))).collect()
            }
        },
        Host::Node => quote! {
            /// Name, code (`ERR_*`) of every core error kind, in declaration order.
            #[napi_derive::napi(object)]
            pub struct ErrorKindInfo {
                pub name: String,
                pub code: String,
            }
            #[doc = #every]
            #[napi_derive::napi]
            pub fn error_kinds() -> Vec<ErrorKindInfo> {
                #kind::ALL.iter().map(|k| ErrorKindInfo { name: k.name().into(), code: k.code().into() }).collect()
            }
        },
        Host::Uniffi => quote! {
            /// A core error kind: its conformance name and Node-style code.
            #[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
            pub struct ErrorKindInfo {
                /// The kind's name, e.g. `RecoveryLocked` (the Kotlin exception class, the Swift case in lowerCamelCase).
                pub name: String,
                /// The code, e.g. `ERR_RECOVERY_LOCKED`.
                pub code: String,
            }
            #[doc = #every]
            #[uniffi::export]
            pub fn error_kinds() -> Vec<ErrorKindInfo> {
                #kind::ALL.iter().map(|k| ErrorKindInfo { name: k.name().into(), code: k.code().into() }).collect()
            }
        },
    }
}

/// The value of field `f` of a matched pattern (`by_ref`: Python and Node,
/// whose bindings are references).
fn value(f: &Field, by_ref: bool) -> TokenStream {
    match (&f.get, by_ref) {
        (Some(g), true) => {
            let g = toks(g);
            quote!(&(#g))
        }
        (Some(g), false) => toks(g),
        (None, _) => toks(&f.name),
    }
}

/// Kotlin/Swift: the `uniffi::Error` enum, its `From<core error>` and
/// `DECLARED_KINDS`.
fn uniffi(s: &Schema, d: &ErrorDecl) -> TokenStream {
    let (core, name, kind, docs) = (toks(&d.core), toks(&d.uniffi), toks(&d.kind), doc_attrs(&d.docs));
    let variants = d.variants.iter().map(|v| {
        let (docs, var) = (doc_attrs(&v.docs), toks(&v.name));
        let fields = v.shown(Host::Uniffi).into_iter().map(|f| {
            let (docs, field, ty) = (doc_attrs(&f.docs), toks(&f.name), s.host_ty(Host::Uniffi, &f.ty));
            quote!(#docs #field: #ty,)
        });
        quote!(#docs #[error("{detail}")] #var { #(#fields)* #[doc = " The full message."] detail: String, },)
    });
    let arms = d.variants.iter().map(|v| {
        let (pat, var) = (v.pattern(&d.core, Host::Uniffi, true), toks(&v.name));
        let fields = v.shown(Host::Uniffi).into_iter().map(|f| {
            let field = toks(&f.name);
            match f.get {
                None => field,
                Some(_) => {
                    let value = value(f, false);
                    quote!(#field: #value)
                }
            }
        });
        quote!(#pat => #name::#var { #(#fields,)* detail },)
    });
    // The core error is non_exhaustive: a kind the core adds without a
    // variant in bridge/api.rs still reaches the host, as the fallback.
    let fallback = d.variants.iter().find(|v| v.fallback).expect("checked in parse_decl");
    let (fb, fb_fields) = (toks(&fallback.name), fallback.fields.iter().map(|f| toks(&f.name)));
    let declared = format!(" `{}::ALL`: names and order).", d.kind);
    let n = proc_macro2::Literal::usize_unsuffixed(d.variants.len());
    let kinds = d.variants.iter().map(|v| toks(&v.name));
    quote! {
        #docs
        #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, uniffi::Error)]
        #[non_exhaustive]
        pub enum #name { #(#variants)* }
        impl From<#core> for #name {
            fn from(e: #core) -> Self {
                let detail = e.to_string();
                match e {
                    #(#arms)*
                    other => #name::#fb { #(#fb_fields: other.to_string(),)* detail },
                }
            }
        }
        /// The kinds bridge/api.rs declares, in its order (a test compares it with
        #[doc = #declared]
        pub const DECLARED_KINDS: [#kind; #n] = [#(#kind::#kinds),*];
    }
}

/// Python: `class_name`, `class_of` and `set_attrs`.
fn python(d: &ErrorDecl) -> TokenStream {
    let (core, kind) = (toks(&d.core), toks(&d.kind));
    let classes = d.variants.iter().map(|v| {
        let (var, class) = (toks(&v.name), v.class());
        quote!(#kind::#var => #class,)
    });
    let picks = d.variants.iter().filter_map(|v| {
        let (pat, class) = (v.pattern(&d.core, Host::Python, false), toks(v.python_class.as_deref()?));
        Some(quote!(#pat => #class,))
    });
    let attrs = d.variants.iter().filter(|v| !v.shown(Host::Python).is_empty()).map(|v| {
        let pat = v.pattern(&d.core, Host::Python, false);
        let sets = v.shown(Host::Python).into_iter().map(|f| {
            let (val, name) = (value(f, true), &f.name);
            match is_option(&f.ty) {
                true => quote!(if let Some(v) = #val { inst.setattr(#name, v)?; }),
                false => quote!(inst.setattr(#name, #val)?;),
            }
        });
        quote!(#pat => { #(#sets)* })
    });
    quote! {
        /// The Python class (`sessiondb.errors.<name>`) of each error kind; a kind
        /// bridge/api.rs does not declare is the base `SessionDBError`.
        pub fn class_name(kind: #kind) -> &'static str {
            match kind {
                #(#classes)*
                _ => "SessionDBError",
            }
        }
        /// The Python class of `e`: its kind's, or the one the variant's
        /// `python_class` picks.
        #[allow(unused_variables)]
        fn class_of(e: &#core) -> &'static str {
            match e {
                #(#picks)*
                e => class_name(e.kind()),
            }
        }
        /// Set the attributes of `e`'s fields on the exception `inst` (an `Option`
        /// only when it holds a value).
        #[allow(unused_variables)]
        fn set_attrs(inst: &pyo3::Bound<'_, pyo3::PyAny>, e: &#core) -> pyo3::PyResult<()> {
            use pyo3::types::PyAnyMethods as _;
            match e {
                #(#attrs)*
                _ => {}
            }
            Ok(())
        }
    }
}

/// Node: `add_fields`, each field into the wire JSON by its camelCase name.
fn node(d: &ErrorDecl) -> TokenStream {
    let core = toks(&d.core);
    let arms = d.variants.iter().filter(|v| !v.shown(Host::Node).is_empty()).map(|var| {
        let pat = var.pattern(&d.core, Host::Node, false);
        let keys = var.shown(Host::Node).into_iter().map(|f| camel(&f.name));
        let values = var.shown(Host::Node).into_iter().map(|f| match &f.get {
            Some(g) => {
                let g = toks(g);
                quote!((#g))
            }
            None => toks(&f.name),
        });
        let sets = match &var.node_object {
            Some(obj) => quote!(v[#obj] = serde_json::json!({ #(#keys: #values,)* });),
            None => quote!(#(v[#keys] = serde_json::json!(#values);)*),
        };
        quote!(#pat => { #sets })
    });
    quote! {
        /// Add `e`'s fields to its wire JSON object `v` (camelCase; `null` for an
        /// empty `Option`).
        #[allow(unused_variables)]
        fn add_fields(v: &mut serde_json::Value, e: &#core) {
            match e {
                #(#arms)*
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Host;

    const SCHEMA: &str = r#"
trait SessionStore {
    /// Open it.
    #[bridge(errors(Locked, AuthenticationFailed))]
    fn open(&self);
}
/// Every failure.
#[bridge(error, core = c::Error, kind = c::ErrorKind, uniffi = "DbError")]
pub enum Error {
    /// Locked.
    Locked {
        /// The backend.
        backend: String,
        #[bridge(skip(python, node))]
        service: String,
    },
    #[bridge(class = "AuthenticationError")]
    AuthenticationFailed,
    #[bridge(pattern = "Io { source, .. }", python_class = "if source.is_fs() { \"FsError\" } else { \"IoError\" }")]
    Io {
        #[bridge(skip(uniffi), get = "source.raw()")]
        errno: Option<i32>,
        #[bridge(get = "source.to_string()")]
        os_kind: String,
    },
    #[bridge(pattern = "Over(b)", node_object = "breakdown", fallback)]
    Other {
        #[bridge(get = "b.reason")]
        reason: String,
    },
}
"#;

    #[test]
    fn declaration_errors_name_the_problem() {
        let e = generate_errors(Host::Node, &SCHEMA.replace("errors(Locked,", "errors(Busy,")).unwrap_err();
        assert_eq!(e, "method open: error kind `Busy` is not declared in `enum Error`");
        let e = generate_errors(Host::Node, &SCHEMA.replace("class = ", "colour = ")).unwrap_err();
        assert!(e.starts_with("unknown bridge attribute `colour` in the error declaration"), "{e}");
        let e = generate_errors(Host::Node, &SCHEMA.replace(", fallback", "")).unwrap_err();
        assert!(e.starts_with("the error declaration marks exactly one variant `fallback`"), "{e}");
        let e = generate_errors(Host::Node, &SCHEMA.replace("reason: String", "reason: u64")).unwrap_err();
        assert!(e.starts_with("the `fallback` variant has only `String` fields"), "{e}");
        let e = generate_errors(Host::Node, &SCHEMA.replace("skip(python, node)", "skip(ruby)")).unwrap_err();
        assert!(e.starts_with("unknown host `ruby`"), "{e}");
        let e = generate_errors(Host::Node, &SCHEMA.replace(", uniffi = \"DbError\"", "")).unwrap_err();
        assert!(e.starts_with("the error declaration needs `uniffi = \"Name\"`"), "{e}");
        let e = generate_errors(Host::Python, "pub struct A { pub x: u64 }").unwrap_err();
        assert_eq!(e, "bridge/api.rs declares no `#[bridge(error, ...)] enum`");
    }
}
