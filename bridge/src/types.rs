//! Types: what a schema type is ([`Shape`] over [`Base`] leaves, and a
//! parameter's [`Wrap`]: the one place a type's syntax is read) and what
//! each host makes of it (`host_ty`, the TypeScript and union types).

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
        fn path(s: &Shape) -> bool {
            matches!(s.base(), Base::PathBuf) || s.children().into_iter().any(path)
        }
        path(&self.shape(ty))
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
        self.shape(ty).host_ty(self, host, qualify)
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
        let e = match self.shape(ty).kind {
            Kind::Option(i) => return self.union_of(i.ty, text),
            Kind::Vec(i) => return Some(format!("Array<{}>", self.union_of(i.ty, text)?)),
            Kind::Leaf(Base::Text) => text?,
            Kind::Leaf(Base::Enum(e)) => e,
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

/// A schema type as the rules read it: its containers and, at the leaves,
/// its [`Base`], built once from the type's syntax ([`Schema::shape`]).
pub(crate) struct Shape<'s, 't> {
    /// The type as written (what a rule without a case of its own keeps).
    pub(crate) ty: &'t Type,
    pub(crate) kind: Kind<'s, 't>,
}

/// What a [`Shape`] is.
pub(crate) enum Kind<'s, 't> {
    /// `()`.
    Unit,
    /// A type without type arguments, or the JSON object: see [`Base`].
    Leaf(Base<'s>),
    Ref(Box<Shape<'s, 't>>),
    Slice(Box<Shape<'s, 't>>),
    Tuple(Vec<Shape<'s, 't>>),
    Option(Box<Shape<'s, 't>>),
    Vec(Box<Shape<'s, 't>>),
    /// `BTreeSet<T>`.
    Set(Box<Shape<'s, 't>>),
    /// `BTreeMap<K, V>`.
    Map(Box<Shape<'s, 't>>, Box<Shape<'s, 't>>),
    /// Another generic type, by its name.
    Generic(&'t syn::Ident, Vec<Shape<'s, 't>>),
    /// A type no rule reads (a qualified path, `fn()`, ...).
    Other,
}

impl<'s> Shape<'s, '_> {
    /// A leaf's base, else `Base::Other`.
    pub(crate) fn base(&self) -> Base<'s> {
        match self.kind {
            Kind::Leaf(base) => base,
            _ => Base::Other,
        }
    }

    /// The shapes inside (referent, elements, type arguments).
    pub(crate) fn children(&self) -> Vec<&Self> {
        match &self.kind {
            Kind::Ref(i) | Kind::Slice(i) | Kind::Option(i) | Kind::Vec(i) | Kind::Set(i) => vec![i],
            Kind::Map(k, v) => vec![k, v],
            Kind::Tuple(all) | Kind::Generic(_, all) => all.iter().collect(),
            Kind::Unit | Kind::Leaf(_) | Kind::Other => vec![],
        }
    }

    /// The last name of a path type (`Value` of `serde_json::Value`).
    pub(crate) fn name(&self) -> String {
        match self.ty {
            Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// The host's type (see the crate docs for the rules); `qualify`:
    /// records and enums by full path.
    pub(crate) fn host_ty(&self, s: &Schema, host: Host, qualify: bool) -> TokenStream {
        let map = |x: &Self| x.host_ty(s, host, qualify);
        let node = host == Host::Node;
        match &self.kind {
            Kind::Tuple(all) => {
                let all = all.iter().map(map);
                quote!((#(#all),*))
            }
            // Bytes: Python `bytes` (pyo3 converts `Vec<u8>`), a Node Buffer.
            Kind::Vec(i) if matches!(i.base(), Base::Int(Int::U8)) => if node { quote!(napi::bindgen_prelude::Buffer) } else { quote!(Vec<u8>) },
            // Sets cross every host as lists (ascending).
            Kind::Vec(i) | Kind::Set(i) => {
                let i = map(i);
                quote!(Vec<#i>)
            }
            Kind::Option(i) => {
                let i = map(i);
                quote!(Option<#i>)
            }
            // Node: seq-keyed maps with string keys (JS object keys).
            Kind::Map(k, v) => {
                let k = if node && matches!(k.base(), Base::Int(Int::U64 | Int::I64) | Base::Usize) { quote!(String) } else { map(k) };
                let v = map(v);
                quote!(BTreeMap<#k, #v>)
            }
            Kind::Generic(id, args) => {
                let args = args.iter().map(map);
                quote!(#id<#(#args),*>)
            }
            Kind::Leaf(Base::Record(r)) => s.record_host_ty(host, r, qualify),
            Kind::Leaf(Base::Enum(e)) => match host {
                Host::Python => quote!(&'static str),
                Host::Node => quote!(String),
                Host::Uniffi if qualify => toks(&e.core),
                Host::Uniffi => toks(last(&e.core)),
            },
            // A path crosses every host as its text (lossy UTF-8).
            Kind::Leaf(Base::PathBuf) => quote!(String),
            Kind::Leaf(Base::Int(Int::U64) | Base::Usize) if node => quote!(i64),
            Kind::Leaf(Base::Int(Int::U8)) if node => quote!(u32),
            _ => self.ty.to_token_stream(),
        }
    }
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
        let shape = self.shape(ty);
        match shape.kind {
            Kind::Ref(r) => match r.kind {
                Kind::Slice(e) => (Wrap::Slice, e.base()),
                Kind::Vec(_) => (Wrap::Other, Base::Other),
                _ => (Wrap::Ref, r.base()),
            },
            Kind::Option(o) => match o.kind {
                Kind::Ref(r) => (Wrap::OptionRef, r.base()),
                _ => (Wrap::Option, o.base()),
            },
            Kind::Vec(v) => (Wrap::Vec, v.base()),
            Kind::Leaf(base) => (Wrap::None, base),
            Kind::Set(_) | Kind::Map(..) | Kind::Generic(..) => (Wrap::None, Base::Other),
            Kind::Unit | Kind::Tuple(_) | Kind::Slice(_) | Kind::Other => (Wrap::Other, Base::Other),
        }
    }

    /// A type's [`Shape`]: the one place its syntax is read.
    pub(crate) fn shape<'t>(&self, ty: &'t Type) -> Shape<'_, 't> {
        let boxed = |t: &'t Type| Box::new(self.shape(t));
        let kind = match ty {
            Type::Tuple(t) if t.elems.is_empty() => Kind::Unit,
            Type::Tuple(t) => Kind::Tuple(t.elems.iter().map(|e| self.shape(e)).collect()),
            Type::Reference(r) => Kind::Ref(boxed(&r.elem)),
            Type::Slice(sl) => Kind::Slice(boxed(&sl.elem)),
            Type::Path(p) if p.qself.is_none() => {
                let seg = p.path.segments.last().expect("a path has a segment");
                match (self.base(ty), seg.ident.to_string().as_str(), type_args(seg).as_slice()) {
                    (Base::Other, "Option", [t]) => Kind::Option(boxed(t)),
                    (Base::Other, "Vec", [t]) => Kind::Vec(boxed(t)),
                    (Base::Other, "BTreeSet", [t]) => Kind::Set(boxed(t)),
                    (Base::Other, "BTreeMap", [k, v]) => Kind::Map(boxed(k), boxed(v)),
                    (Base::Other, _, args @ [_, ..]) => Kind::Generic(&seg.ident, args.iter().map(|t| self.shape(t)).collect()),
                    (base, _, _) => Kind::Leaf(base),
                }
            }
            _ => Kind::Other,
        };
        Shape { ty, kind }
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
        let shape = self.shape(ty);
        if let Some(u) = self.ts_union(ty).filter(|_| !matches!(shape.kind, Kind::Option(_))) {
            return u;
        }
        match &shape.kind {
            Kind::Unit => "void".into(),
            Kind::Vec(i) if matches!(i.base(), Base::Int(Int::U8)) => "Buffer".into(),
            Kind::Option(i) => format!("{} | null", self.ts_ty(i.ty)),
            Kind::Vec(i) => match self.ts_ty(i.ty) {
                i if i.contains(' ') => format!("Array<{i}>"),
                i => format!("{i}[]"),
            },
            Kind::Leaf(Base::Text) => "string".into(),
            Kind::Leaf(Base::Int(_) | Base::F64 | Base::Usize) => "number".into(),
            Kind::Leaf(Base::Bool) => "boolean".into(),
            Kind::Leaf(Base::JsonObject) => "unknown".into(),
            Kind::Leaf(_) => shape.name(),
            _ => "unknown".into(),
        }
    }
}
