//! The schema: `bridge/api.rs` parsed into records, enums, methods and
//! functions, with their `#[bridge(...)]` departures (see the crate docs).

use super::*;

/// A record's field: its name, docs and schema type, and its
/// `#[bridge(...)]` departures (read through `Deref`).
pub(crate) struct Field {
    pub(crate) name: String,
    pub(crate) docs: Vec<String>,
    pub(crate) ty: Type,
    pub(crate) attr: BridgeAttr,
}

/// A record: its name, docs and fields, and its `#[bridge(...)]`
/// departures (read through `Deref`).
pub(crate) struct Record {
    pub(crate) name: String,
    pub(crate) docs: Vec<String>,
    pub(crate) fields: Vec<Field>,
    pub(crate) attr: BridgeAttr,
}

pub(crate) struct Variant {
    pub(crate) name: String,
    pub(crate) docs: Vec<String>,
    pub(crate) text: String,
    /// The variant's fields: none (a unit variant), named (`name`, docs,
    /// type) or positional (names empty, no docs).
    pub(crate) fields: Vec<(String, Vec<String>, Type)>,
    /// Fields in braces (`V { a: T }`), else in parentheses (`V(T)`).
    pub(crate) named: bool,
}

pub(crate) struct Enum {
    pub(crate) name: String,
    pub(crate) docs: Vec<String>,
    pub(crate) core: String,
    /// The core's parser of the `str` names (method parameters), if any.
    pub(crate) parse: Option<String>,
    pub(crate) skip: Vec<String>,
    pub(crate) variants: Vec<Variant>,
    /// `pyi = "Alias"`: its Python stub type, an alias of `sessiondb.types`
    /// (`"Literal"`: the `Literal[...]` of its names); without it, `str`.
    pub(crate) pyi: Option<String>,
}

/// The values of the `#[bridge(...)]` attributes of an item (see the crate
/// docs): a record's, a field's, an enum's or variant's, a method's, or of
/// the error declaration.
#[derive(Default)]
pub(crate) struct BridgeAttr {
    /// A record's or enum's core type; a method's free core function
    /// (taking the store first), else the core method of its name.
    pub(crate) core: Option<String>,
    pub(crate) skip: Vec<String>,
    /// A result only (Node: `object_from_js = false`; no `Back`).
    pub(crate) output: bool,
    /// Kotlin/Swift get an FFI twin (`#[derive(uniffi::Record)]` with the
    /// host types, converted field by field) instead of the core type.
    pub(crate) twin: bool,
    /// A field's type in another host (`python = "..."`, ...).
    pub(crate) over: BTreeMap<String, String>,
    pub(crate) ts: Option<String>,
    /// A variant's `str` name.
    pub(crate) text: Option<String>,
    pub(crate) default: Option<Option<String>>,
    pub(crate) parse: Option<String>,
    pub(crate) defaults: Vec<(String, String)>,
    pub(crate) errors: Vec<String>,
    /// The core method returns its value, not a `Result`.
    pub(crate) infallible: bool,
    /// Cheap (no disk, no crypto): Node returns the value, not a Promise;
    /// Python keeps the GIL.
    pub(crate) sync: bool,
    /// The schema type the hosts return when it is not the core's `Ok`
    /// type (each host's `Conv` converts).
    pub(crate) returns: Option<Type>,
    /// A function that waits on disk or crypto: a Promise in Node and the
    /// GIL released in Python (functions are otherwise synchronous).
    pub(crate) blocking: bool,
    /// A function whose Python call releases the GIL (CPU-heavy, e.g. a
    /// tokenizer) while Node calls it synchronously.
    pub(crate) detach: bool,
    /// `ordered`: an append whose Node calls, issued without awaiting each
    /// other, land in call order: the call takes the store's next
    /// `AppendTurn` on the JS thread and runs the append under it on the
    /// libuv pool (it joins the commit queue in turn). On `close`: the
    /// appends issued before it are stored, those issued after it fail
    /// with `Closed`.
    pub(crate) ordered: bool,
    /// `hold_turn`: a write other than an append whose Node call lands in
    /// call order with the appends around it: it takes a turn as `ordered`
    /// does and, on the pool, holds it for the whole call
    /// (`SessionStore::hold_turn`: after the earlier appends' commit,
    /// before the later ones).
    pub(crate) hold_turn: bool,
    /// An expression of the core value `c` that gives the field (a core
    /// method, e.g. `c.compacted_seqs()`), instead of the core field of
    /// the same name: the field is derived, so `Back` does not read it.
    pub(crate) get: Option<String>,
    /// `host_default = "literal"`: the value Python and Node callers get when
    /// they leave the field out of a `new` record (Kotlin/Swift: `default`).
    pub(crate) host_default: Option<String>,
    /// `redact`: Python's `repr` shows `<N chars>`, not the text (user content).
    pub(crate) redact: bool,
    /// `new`: a record callers build (Python: a constructor with the
    /// fields' defaults, enum fields kept as the text given and parsed when
    /// passed in; Node: defaulted fields optional).
    pub(crate) new: bool,
    /// `tuple`: the core gives it as a tuple of its fields, in order (e.g.
    /// `(session_id, operation_id)`): each host converts the tuple.
    pub(crate) tuple: bool,
    pub(crate) getter: Option<Option<String>>,
    /// Record parameters Python takes as the record's fields instead
    /// (`flatten(p)`; `keywords(p)`: keyword-only), the flag true for
    /// keywords, and the fields that lead (`keywords(p = "a, b")`: Python
    /// takes them first, not keyword-only; Node takes them as parameters
    /// and the rest as an options object).
    pub(crate) flatten: Vec<(String, bool, Vec<String>)>,
    /// `names = Enum`: a text field holding one of that enum's `str` names
    /// (Node's `ts_type` is their union).
    pub(crate) names: Option<String>,
    /// `dict = "Type"`: the Python stub type of the record's dict form (the
    /// core's serde shape), for parameters declared `dict(...)`.
    pub(crate) dict: Option<String>,
    /// `pyi = "Type"`: an enum's or field's Python stub type, instead of
    /// the rule's.
    pub(crate) pyi: Option<String>,
    /// `dict(param = "what", ...)`: Python also takes these record
    /// parameters as dicts in the core's serde shape; `what` names a dict in
    /// the `InvalidInput` message.
    pub(crate) dicts: Vec<(String, String)>,
    /// `ts(param = "...")`: a parameter's TypeScript type (Node's `ts_arg_type`).
    pub(crate) param_ts: Vec<(String, String)>,
    /// `pyi(param = "...")`: a parameter's Python stub type.
    pub(crate) param_pyi: Vec<(String, String)>,
    /// The error declaration's keys (`errors.rs`).
    pub(crate) kind: Option<String>,
    pub(crate) class: Option<String>,
    pub(crate) pattern: Option<String>,
    pub(crate) python_class: Option<String>,
    pub(crate) node_object: Option<String>,
    pub(crate) fallback: bool,
}

/// Records, fields and methods read their `#[bridge(...)]` values as
/// their own (`f.skip`, `r.twin`, `m.defaults`).
macro_rules! attr_deref {
    ($($t:ty),*) => {$(
        impl std::ops::Deref for $t {
            type Target = BridgeAttr;
            fn deref(&self) -> &BridgeAttr {
                &self.attr
            }
        }
    )*};
}
attr_deref!(Field, Record, Method);

pub(crate) fn docs(attrs: &[Attribute]) -> Vec<String> {
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

pub(crate) fn bridge_attr(attrs: &[Attribute]) -> syn::Result<BridgeAttr> {
    let mut out = BridgeAttr::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("bridge")) {
        a.parse_nested_meta(|m| out.set(&m))?;
    }
    Ok(out)
}

pub(crate) type Meta<'a> = syn::meta::ParseNestedMeta<'a>;

/// The name a path is (`skip(python)`), empty when it is not an identifier.
pub(crate) fn ident(p: &syn::Path) -> String {
    p.get_ident().map(|i| i.to_string()).unwrap_or_default()
}

/// `key = "text"`.
pub(crate) fn lit(m: &Meta) -> syn::Result<String> {
    Ok(m.value()?.parse::<syn::LitStr>()?.value())
}

/// `key = "text"` or `key` alone.
pub(crate) fn opt_lit(m: &Meta) -> syn::Result<Option<String>> {
    if m.input.peek(syn::Token![=]) { lit(m).map(Some) } else { Ok(None) }
}

/// `key = "expr"`: the text of a Rust expression, on one line (as the
/// generated code has it; a declaration may span lines).
pub(crate) fn expr_lit(m: &Meta) -> syn::Result<String> {
    let v: syn::LitStr = m.value()?.parse()?;
    v.parse::<Expr>()?;
    Ok(v.value().lines().map(str::trim).collect::<Vec<_>>().join(" "))
}

/// `key = path`, as its text without spaces.
pub(crate) fn path_text(m: &Meta) -> syn::Result<String> {
    Ok(m.value()?.parse::<syn::Path>()?.to_token_stream().to_string().replace(' ', ""))
}

/// Each item of `key(item, ...)`, read by `one`, onto `into`.
pub(crate) fn list<T>(m: &Meta, into: &mut Vec<T>, one: impl Fn(&Meta) -> syn::Result<T>) -> syn::Result<()> {
    m.parse_nested_meta(|item| {
        into.push(one(&item)?);
        Ok(())
    })
}

impl BridgeAttr {
    /// One `key` or `key = value` of a `#[bridge(...)]` (see the crate docs).
    pub(crate) fn set(&mut self, m: &Meta) -> syn::Result<()> {
        let key = ident(&m.path);
        match key.as_str() {
            "core" => self.core = Some(path_text(m)?),
            "kind" => self.kind = Some(path_text(m)?),
            "error" => {}
            "fallback" => self.fallback = true,
            "class" => self.class = Some(lit(m)?),
            "node_object" => self.node_object = Some(lit(m)?),
            "python_class" => self.python_class = Some(expr_lit(m)?),
            "pattern" => {
                let v: syn::LitStr = m.value()?.parse()?;
                v.parse_with(syn::Pat::parse_single)?;
                self.pattern = Some(v.value());
            }
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
            "ordered" => self.ordered = true,
            "hold_turn" => self.hold_turn = true,
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
            // On an enum or a field: its Python stub type (on a method,
            // `pyi(param = "...")`).
            "pyi" if m.input.peek(syn::Token![=]) => self.pyi = Some(lit(m)?),
            "str" => self.text = Some(lit(m)?),
            "names" => self.names = Some(m.value()?.parse::<syn::Ident>()?.to_string()),
            _ => return self.set_list(&key, m),
        }
        Ok(())
    }

    /// One `key(...)` of a `#[bridge(...)]`: `skip(host, ...)`,
    /// `errors(Kind, ...)`, and a method's per-parameter lists.
    pub(crate) fn set_list(&mut self, key: &str, m: &Meta) -> syn::Result<()> {
        match key {
            "skip" => list(m, &mut self.skip, |h| match ident(&h.path) {
                host if ["python", "node", "uniffi"].contains(&host.as_str()) => Ok(host),
                host => Err(h.error(format!("unknown host `{host}`"))),
            }),
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

pub(crate) struct Schema {
    pub(crate) records: Vec<Record>,
    pub(crate) enums: Vec<Enum>,
    pub(crate) methods: Vec<Method>,
    /// The error kinds (`#[bridge(error)] enum`), if declared.
    pub(crate) errors: Option<errors::ErrorDecl>,
}

/// A `SessionStore` method of `trait SessionStore` in the schema: the core
/// method's own parameters (`&self` first) and its `Ok` type, and its
/// `#[bridge(...)]` departures (read through `Deref`).
pub(crate) struct Method {
    pub(crate) name: String,
    pub(crate) docs: Vec<String>,
    pub(crate) params: Vec<(String, Type)>,
    pub(crate) ret: Option<Type>,
    /// A module function (`trait Functions`), not a store method.
    pub(crate) function: bool,
    /// `sync`, or a function not `blocking`.
    pub(crate) sync: bool,
    /// A `sync` method Python and Node expose as a read-only property of
    /// this name (Kotlin/Swift keep the method).
    pub(crate) getter: Option<String>,
    pub(crate) attr: BridgeAttr,
}

/// [`parse`], its error as text with the line and column.
pub(crate) fn parse_at(src: &str) -> Result<Schema, String> {
    parse(src).map_err(|e| {
        let at = e.span().start();
        format!("{e} (line {}, column {})", at.line, at.column + 1)
    })
}

pub(crate) fn parse(src: &str) -> syn::Result<Schema> {
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
pub(crate) fn parse_record(st: &syn::ItemStruct) -> syn::Result<Record> {
    let b = bridge_attr(&st.attrs)?;
    let Fields::Named(named) = &st.fields else {
        return Err(syn::Error::new_spanned(&st.ident, "records have named fields"));
    };
    let fields = named.named.iter().map(|f| {
        let attr = bridge_attr(&f.attrs)?;
        Ok(Field { name: f.ident.as_ref().expect("named").to_string(), docs: docs(&f.attrs), ty: f.ty.clone(), attr })
    });
    Ok(Record { name: st.ident.to_string(), docs: docs(&st.attrs), fields: fields.collect::<syn::Result<_>>()?, attr: b })
}

/// An enum of the schema (a core enum; each variant with its `str` name).
pub(crate) fn parse_enum(en: &syn::ItemEnum) -> syn::Result<Enum> {
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
    Ok(Enum { name: en.ident.to_string(), docs: docs(&en.attrs), core, parse: b.parse, skip: b.skip, variants, pyi: b.pyi })
}

/// A store method (`function`: false) or module function of the schema.
pub(crate) fn parse_method(f: &syn::TraitItemFn, function: bool) -> syn::Result<Method> {
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
        function,
        sync: b.sync || (function && !b.blocking),
        getter: b.getter.clone().map(|g| g.unwrap_or_else(|| f.sig.ident.to_string())),
        attr: b,
    })
}

/// The last segment of a path (`sessiondb::context::Band` -> `Band`).
pub(crate) fn last(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}
