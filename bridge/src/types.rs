//! Types: what a schema type is ([`Base`], [`Wrap`]: the one place a
//! type is recognised) and what each host makes of it (`host_ty`, the
//! TypeScript and union types).

use super::*;

impl Schema {
    pub(crate) fn record(&self, name: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.name == name)
    }

    /// The core type a record converts from and back into: `core = path`,
    /// or for a `tuple` record the tuple of its fields' core types.
    pub(crate) fn core_of(&self, r: &Record) -> Option<TokenStream> {
        if r.tuple {
            let types = r.fields.iter().map(|f| self.core_ty(&f.ty));
            return Some(quote!((#(#types,)*)));
        }
        r.core.as_deref().map(toks)
    }

    /// A field's core type: a record's or enum's core path, else the type as written.
    pub(crate) fn core_ty(&self, ty: &Type) -> TokenStream {
        let core = match self.base(ty) {
            Base::Record(r) => self.core_of(r),
            Base::Enum(e) => Some(toks(&e.core)),
            _ => None,
        };
        core.unwrap_or_else(|| ty.to_token_stream())
    }

    /// The record `ty` names, if it names one.
    pub(crate) fn record_of(&self, ty: &Type) -> Option<&Record> {
        match self.base(ty) {
            Base::Record(r) => Some(r),
            _ => None,
        }
    }

    /// A JSON value or object (`serde_json::Value`, `serde_json::Map<String,
    /// serde_json::Value>`): Kotlin/Swift get its text.
    pub(crate) fn is_json(&self, ty: &Type) -> bool {
        matches!(self.base(ty), Base::Json | Base::JsonObject)
    }

    /// Whether `ty` holds a path (`PathBuf`, also inside `Option`, `Vec`, ...).
    pub(crate) fn has_path(&self, ty: &Type) -> bool {
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
    pub(crate) fn uniffi_fallible(&self, r: &Record) -> bool {
        r.fields.iter().any(|f| self.is_json(&f.ty) || self.record_of(&f.ty).is_some_and(|x| self.uniffi_fallible(x)))
    }
    pub(crate) fn enumeration(&self, name: &str) -> Option<&Enum> {
        self.enums.iter().find(|e| e.name == name)
    }

    /// The host's type for a schema type (see the crate docs for the rules).
    pub(crate) fn host_ty(&self, host: Host, ty: &Type) -> TokenStream {
        self.host_ty_q(host, ty, false)
    }

    /// [`Schema::host_ty`]; `qualify`: records and enums by full path (for
    /// code outside the records module).
    pub(crate) fn host_ty_q(&self, host: Host, ty: &Type, qualify: bool) -> TokenStream {
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
    pub(crate) fn record_host_ty(&self, host: Host, r: &Record, qualify: bool) -> TokenStream {
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
    pub(crate) fn names_union(&self, ty: &Type, names: &str) -> Option<String> {
        let e = self.enumeration(names)?;
        self.union_of(ty, Some(e))
    }

    /// A literal-union TypeScript type for a field holding an enum (through
    /// `Option`/`Vec`), else None.
    pub(crate) fn ts_union(&self, ty: &Type) -> Option<String> {
        self.union_of(ty, None)
    }

    /// [`Schema::ts_union`], text (`String`) read as the enum `text` when given.
    pub(crate) fn union_of(&self, ty: &Type, text: Option<&Enum>) -> Option<String> {
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

/// How a parameter wraps its base type (`&T`, `Option<T>`, `&[T]`, ...).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wrap {
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
pub(crate) enum Int {
    U8,
    U32,
    U64,
    I64,
}

/// What a type is to the conversion rules: the one place a schema type is
/// recognised, by its syntax (`serde_json::Value`, a record's name, ...).
#[derive(Clone, Copy)]
pub(crate) enum Base<'s> {
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
pub(crate) fn type_args(seg: &syn::PathSegment) -> Vec<&Type> {
    match &seg.arguments {
        PathArguments::AngleBracketed(a) => a.args.iter().filter_map(|g| if let GenericArgument::Type(t) = g { Some(t) } else { None }).collect(),
        _ => vec![],
    }
}

impl Schema {
    /// A parameter type as its wrapping and its base.
    pub(crate) fn param_shape(&self, ty: &Type) -> (Wrap, Base<'_>) {
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
    pub(crate) fn base(&self, ty: &Type) -> Base<'_> {
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

    /// The TypeScript type of a returned core type.
    pub(crate) fn ts_ty(&self, ty: &Type) -> String {
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
