//! The generated records and enums of each host and their conversions.

use super::*;

/// The generated declarations of `host` for the schema text `src`.
/// Errors: the schema's parse or attribute error, as text.
pub fn generate(host: Host, src: &str) -> Result<TokenStream, String> {
    let s = super::parse_at(src)?;
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
pub(crate) fn python_record(s: &Schema, r: &Record, fields: &[&Field]) -> Result<TokenStream, String> {
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
pub(crate) fn node_record(s: &Schema, r: &Record, fields: &[&Field]) -> TokenStream {
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
pub(crate) fn uniffi_record(s: &Schema, r: &Record, fields: &[&Field]) -> Result<TokenStream, String> {
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
pub(crate) fn path_rule(s: &Schema, host: Host) -> TokenStream {
    let fields = s.records.iter().filter(|r| !skipped(&r.skip, host)).flat_map(|r| &r.fields);
    if !fields.filter(|f| !skipped(&f.skip, host)).any(|f| s.has_path(&f.ty)) {
        return quote!();
    }
    let back = match host {
        Host::Uniffi => quote!(impl Back<std::path::PathBuf> for String {
            fn back(self) -> std::path::PathBuf {
                self.into()
            }
        }),
        _ => {
            let recv = if host == Host::Python { quote!(&self) } else { quote!(self) };
            quote!(impl crate::records::Back<std::path::PathBuf> for String {
                fn back(#recv, _: &str) -> sessiondb::Result<std::path::PathBuf> {
                    Ok(self.into())
                }
            })
        }
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
pub(crate) fn python_module(s: &Schema) -> TokenStream {
    let host = Host::Python;
    let tuples = s.records.iter().filter(|r| r.tuple && r.output && skipped(&r.skip, host)).map(|r| {
        let tys: Vec<TokenStream> = r.fields.iter().map(|f| s.host_ty(host, &f.ty)).collect();
        let core = s.core_of(r).unwrap_or_default();
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
pub(crate) fn record_from(s: &Schema, host: Host, r: &Record, fields: &[&Field]) -> TokenStream {
    let name = toks(&r.name);
    let tuple = r.tuple.then(|| {
        // The core's tuple: a record or enum field by its core type.
        let types = fields.iter().map(|f| s.core_ty(&f.ty));
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
                let text = format_ident!("{}_json", f.name);
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
pub(crate) fn record_back(s: &Schema, host: Host, r: &Record, fields: &[&Field]) -> TokenStream {
    let read: Vec<&&Field> = fields.iter().filter(|f| f.get.is_none()).collect();
    let all = r.fields.iter().filter(|f| f.get.is_none()).count();
    let Some(core) = s.core_of(r).filter(|_| !r.output && read.len() == all) else { return quote!() };
    let name = toks(&r.name);
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
        // Python reads its frozen class by reference, Node takes the value.
        _ => {
            let recv = if host == Host::Python { quote!(&self) } else { quote!(self) };
            quote!(impl crate::records::Back<#core> for #name { fn back(#recv, _: &str) -> sessiondb::Result<#core> { Ok(#value) } })
        }
    }
}

/// One field of `record_back`: Python's and Node's `Back` naming the field;
/// Kotlin/Swift's `Back`, or in a fallible twin its JSON text parsed
/// (`InvalidInput` naming the field; a JSON object field must hold an
/// object) and a record field that can fail by its own `TryFrom`.
pub(crate) fn field_back(s: &Schema, host: Host, r: &Record, f: &Field) -> TokenStream {
    let (n, text) = (toks(&f.name), &f.name);
    let fallible = s.uniffi_fallible(r);
    let what = format!("{}Json", camel(&f.name));
    let (not_json, not_object) = (format!("{what} is not valid JSON"), format!("{what} must be a JSON object"));
    let json = format_ident!("{}_json", f.name);
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
pub(crate) fn node_back(r: &Record, f: &Field, src: TokenStream) -> TokenStream {
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
pub(crate) fn node_numbers_f64(ty: &mut Type) {
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
pub(crate) fn enum_text_owned(ty: &mut Type) {
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
pub(crate) fn node_optional(f: &Field) -> bool {
    (f.default.is_some() || f.host_default.is_some()) && !is_option(&f.ty)
}

/// The default a Python signature shows for a defaulted field of a type
/// without `host_default` (the type's own), if it has a literal.
pub(crate) fn python_zero(base: Base) -> Option<&'static str> {
    match base {
        Base::Bool => Some("false"),
        Base::Int(_) => Some("0"),
        _ => None,
    }
}

pub(crate) fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// Python: the constructor of a `new` record, `Name(required..., defaulted=...)`
/// (keyword or positional, in field order): a defaulted `Option` is `None`,
/// a `Vec` `None` (empty), a `String` its literal or `""`, anything else its
/// literal or the type's default; a JSON field any Python value of the core
/// type's serde shape (a dict for a JSON object), `InvalidInputError`
/// naming the field.
pub(crate) fn python_new(s: &Schema, r: &Record, fields: &[&Field]) -> Result<TokenStream, String> {
    let (mut sig, mut params, mut inits) = (vec![], vec![], vec![]);
    let (mut defaulted, mut fallible) = (false, false);
    let any = quote!(&pyo3::Bound<'_, pyo3::PyAny>);
    for f in fields {
        let ty = python_field_ty(s, r, f);
        let (n, lit, core, json) = (toks(&f.name), &f.name, &f.ty, s.is_json(&f.ty));
        let list = matches!(s.shape(&ty).kind, Kind::Vec(_));
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
pub(crate) fn python_field_ty(s: &Schema, r: &Record, f: &Field) -> Type {
    let mut ty = host_override(s, Host::Python, f);
    if r.new {
        enum_text_owned(&mut ty);
    }
    ty
}

/// A field's type in `host`: its override for that host (`python = "..."`),
/// else the rule.
pub(crate) fn host_override(s: &Schema, host: Host, f: &Field) -> Type {
    let ty = f.over.get(host.name()).map_or_else(|| s.host_ty(host, &f.ty), |t| toks(t));
    syn::parse2(ty).expect("a host type parses")
}

/// A record's fields in `host`: each with its docs, Node's `ts_type` or
/// Kotlin/Swift's `#[uniffi(default)]` where it has one, and its host type
/// (the field's override for that host, else the rule).
pub(crate) fn record_fields(s: &Schema, host: Host, r: &Record, fields: &[&Field], vis: TokenStream) -> TokenStream {
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
            let json = format_ident!("{}_json", f.name);
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
pub(crate) fn uniffi_enum(s: &Schema, e: &Enum) -> TokenStream {
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
pub(crate) fn gen_enum(s: &Schema, host: Host, e: &Enum) -> TokenStream {
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
