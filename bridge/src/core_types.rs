//! Records and enums read from the core's own definitions (issue 31 item
//! 1): `bridge/api.rs` names each record or enum the hosts get and its core
//! type (`#[bridge(core = path)]`), and lists only the fields or variants
//! where a host departs; [`expand`] fills in the rest from the core's
//! source (`core/src/**`, parsed with `syn`), so each field's type and doc
//! is written once, on the core item.
//!
//! - A record's fields are the core struct's `pub` fields, in its order,
//!   with their types (a core record or enum named by the core's name is
//!   the schema's record or enum of that core type, e.g. `SessionRecord` ->
//!   `Session`). A field listed in `api.rs` keeps its `#[bridge(...)]`
//!   attributes; its type `_` is the core's, any other type replaces it
//!   (e.g. `Arc<Transformation>` crosses as `Transformation`); `#[bridge(omit)]`
//!   leaves a core field out of every host. A listed field the core lacks is
//!   derived (`get = "expr"`): it keeps its `api.rs` type and doc and its
//!   place after the listed field before it. In a `new` record a field
//!   defaults (`default`) where the core's does: an `Option`, or
//!   `#[serde(default)]` on the field or the struct, unless `api.rs` gives
//!   it `default = value` or `host_default`.
//! - An enum's variants are the core enum's, in its order, with their fields;
//!   each one's `str` name is its serde name (the variant's `rename`, else
//!   the enum's `rename_all`), and `api.rs` lists only a variant whose host
//!   name is not (`#[bridge(str = "...")]`).
//! - Docs: the first paragraph (up to the first empty line) of the core
//!   item's doc is what every host shows; later paragraphs are for Rust
//!   readers (internals, links to core items). A record or field that takes
//!   its doc from the core has none in `api.rs`.
//!
//! - A method or function of `trait SessionStore` / `trait Functions`
//!   without a doc in `api.rs` takes the first paragraph of its core
//!   function's doc (`core = path`, else `SessionStore::<name>`, found in
//!   any `impl SessionStore`); a doc written there is a host's departure.
//!   Declared `fn name(&self) -> _` (a function: `fn name() -> _`), it takes
//!   the core function's parameters (names and types; a free function of a
//!   store method without the store it takes first) and its `Ok` type (its
//!   return type when `infallible`), core records and enums by their schema
//!   names; a signature written out is a host's departure (a parameter's
//!   name, a type the core does not take).
//!
//! Records without `core` (`tuple` records the core hands over as tuples,
//! records a host builds itself) stay declared in full in `api.rs`.

use std::collections::BTreeMap;
use std::path::Path;

use syn::visit_mut::VisitMut;
use syn::{Attribute, Fields, Item, Type, UseTree, Visibility};

/// The core crate's sources, one parsed file per module (`[]` is `lib.rs`,
/// `["store", "types"]` is `store/types.rs`).
pub struct Core {
    modules: BTreeMap<Vec<String>, syn::File>,
}

/// A struct, enum or free function of the core.
enum CoreItem<'a> {
    Struct(&'a syn::ItemStruct),
    Enum(&'a syn::ItemEnum),
    Fn(&'a syn::ItemFn),
}

impl Core {
    /// Parse every `.rs` file under `src` (the core's `src/`). Errors: an
    /// unreadable or unparsable file, named.
    pub fn load(src: &Path) -> Result<Core, String> {
        let mut modules = BTreeMap::new();
        let mut dirs = vec![src.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for entry in entries {
                let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let rel = path.strip_prefix(src).expect("under src");
                let mut module: Vec<String> = rel.iter().map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
                if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                    module.pop();
                }
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
                modules.insert(module, file);
            }
        }
        Ok(Core { modules })
    }

    /// The struct or enum a public path of the core (`sessiondb::a::T`)
    /// names, following `pub use` re-exports.
    fn resolve(&self, path: &str) -> Option<CoreItem<'_>> {
        let segments: Vec<String> = path.split("::").skip(1).map(str::to_string).collect();
        let (name, path) = segments.split_last()?;
        let mut module: Vec<String> = vec![];
        for seg in path {
            module = self.submodule(&module, seg)?;
        }
        self.find(&module, name, 0)
    }

    /// The attributes and signature of the function a core path names: a
    /// free function (`sessiondb::a::f`, through re-exports) or a `pub`
    /// method of a type (`sessiondb::SessionStore::f`, in any of its `impl`
    /// blocks).
    fn core_fn(&self, path: &str) -> Option<(&[Attribute], &syn::Signature)> {
        if let Some(CoreItem::Fn(f)) = self.resolve(path) {
            return Some((&f.attrs, &f.sig));
        }
        let (ty, name) = path.rsplit_once("::")?;
        let of_ty = |t: &Type| matches!(t, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == crate::last(ty)));
        let impls = self.modules.values().flat_map(|m| &m.items).filter_map(|item| match item {
            Item::Impl(i) if i.trait_.is_none() && of_ty(&i.self_ty) => Some(&i.items),
            _ => None,
        });
        impls.flatten().find_map(|it| match it {
            syn::ImplItem::Fn(f) if f.sig.ident == name && is_pub(&f.vis) => Some((f.attrs.as_slice(), &f.sig)),
            _ => None,
        })
    }

    /// The module a `use` path's prefix names, seen from `module`, each
    /// named step a module of the core or one it re-exports.
    fn module_of(&self, module: &[String], prefix: &[String]) -> Option<Vec<String>> {
        walk(module, prefix, |m, seg| self.submodule(&m, seg))
    }

    /// The module `seg` of `module`: its own child, or one it re-exports
    /// (`pub use store::journal;`).
    fn submodule(&self, module: &[String], seg: &str) -> Option<Vec<String>> {
        let child: Vec<String> = module.iter().cloned().chain([seg.to_string()]).collect();
        if self.modules.contains_key(&child) {
            return Some(child);
        }
        for item in &self.modules.get(module)?.items {
            let Item::Use(u) = item else { continue };
            let mut leaves = vec![];
            flatten(&u.tree, vec![], &mut leaves);
            for (prefix, leaf) in leaves {
                if let Leaf::Name(orig, alias) = leaf {
                    let mut target = walk(module, &prefix, |m, seg| Some([m, vec![seg.into()]].concat())).expect("a plain step is taken");
                    target.push(orig);
                    if alias == seg && self.modules.contains_key(&target) {
                        return Some(target);
                    }
                }
            }
        }
        None
    }

    fn find(&self, module: &[String], name: &str, depth: usize) -> Option<CoreItem<'_>> {
        let file = self.modules.get(module).filter(|_| depth < 8)?;
        for item in &file.items {
            match item {
                Item::Struct(s) if s.ident == name && is_pub(&s.vis) => return Some(CoreItem::Struct(s)),
                Item::Enum(e) if e.ident == name && is_pub(&e.vis) => return Some(CoreItem::Enum(e)),
                Item::Fn(f) if f.sig.ident == name && is_pub(&f.vis) => return Some(CoreItem::Fn(f)),
                _ => {}
            }
        }
        let uses = file.items.iter().filter_map(|i| match i {
            Item::Use(u) if is_pub(&u.vis) => Some(&u.tree),
            _ => None,
        });
        for tree in uses {
            let mut leaves = vec![];
            flatten(tree, vec![], &mut leaves);
            for (prefix, leaf) in leaves {
                let Some(target) = self.module_of(module, &prefix) else { continue };
                let found = match leaf {
                    Leaf::Name(orig, alias) if alias == name => self.find(&target, &orig, depth + 1),
                    Leaf::Glob => self.find(&target, name, depth + 1),
                    Leaf::Name(..) => None,
                };
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }
}

fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

/// The end of one path of a `use` tree: a name (and what it is imported
/// as) or `*`.
enum Leaf {
    Name(String, String),
    Glob,
}

fn flatten(tree: &UseTree, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Leaf)>) {
    match tree {
        UseTree::Path(p) => {
            let mut next = prefix;
            next.push(p.ident.to_string());
            flatten(&p.tree, next, out);
        }
        UseTree::Name(n) => out.push((prefix, Leaf::Name(n.ident.to_string(), n.ident.to_string()))),
        UseTree::Rename(r) => out.push((prefix, Leaf::Name(r.ident.to_string(), r.rename.to_string()))),
        UseTree::Glob(_) => out.push((prefix, Leaf::Glob)),
        UseTree::Group(g) => g.items.iter().for_each(|t| flatten(t, prefix.clone(), out)),
    }
}

/// The module a `use` path's prefix names, seen from `module`: `crate`,
/// `self` and `super` as Rust reads them, each other step by `child`.
fn walk(module: &[String], prefix: &[String], child: impl Fn(Vec<String>, &str) -> Option<Vec<String>>) -> Option<Vec<String>> {
    let mut out = module.to_vec();
    for (i, seg) in prefix.iter().enumerate() {
        match seg.as_str() {
            "crate" if i == 0 => out.clear(),
            "self" => {}
            "super" => {
                out.pop();
            }
            _ => out = child(out, seg)?,
        }
    }
    Some(out)
}

/// The doc attributes of `attrs` up to the first empty doc line: the
/// summary every host shows.
fn summary(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .take_while(|a| crate::docs(std::slice::from_ref(a)).iter().all(|d| !d.trim().is_empty()))
        .cloned()
        .collect()
}

/// The `#[bridge(...)]` (and other non-doc) attributes of an `api.rs`
/// item, refusing docs where the core item has the doc.
fn departures(attrs: &[Attribute], what: &str) -> Result<Vec<Attribute>, String> {
    if attrs.iter().any(|a| a.path().is_ident("doc")) {
        return Err(format!("{what}: its doc belongs on the core item, not in bridge/api.rs"));
    }
    Ok(attrs.to_vec())
}

/// Renames core record and enum types to the schema's names (`SessionRecord`
/// -> `Session`, `super::TurnState` -> `TurnState`).
struct Rename<'a>(&'a BTreeMap<String, String>);

impl VisitMut for Rename<'_> {
    fn visit_type_path_mut(&mut self, tp: &mut syn::TypePath) {
        let last = tp.path.segments.last().expect("a path has a segment");
        if tp.qself.is_none() && last.arguments.is_none() {
            if let Some(api) = self.0.get(&last.ident.to_string()) {
                *tp = syn::parse_str(api).expect("an identifier is a type");
                return;
            }
        }
        syn::visit_mut::visit_type_path_mut(self, tp);
    }
}

fn is_infer(ty: &Type) -> bool {
    matches!(ty, Type::Infer(_))
}

/// `bridge/api.rs` (`api`) with every record and enum that names a core
/// type completed from the core (see the module docs), as schema text for
/// the generator. Errors: a core path that names no struct or enum, a
/// field or variant `api.rs` lists that the core lacks (and that is not
/// derived), a variant `api.rs` does not list, a doc written twice.
pub fn expand(api: &str, core: &Core) -> Result<String, String> {
    let mut file = syn::parse_file(api).map_err(|e| e.to_string())?;
    let mut names = BTreeMap::new();
    for item in &file.items {
        let (attrs, ident) = match item {
            Item::Struct(s) => (&s.attrs, &s.ident),
            Item::Enum(e) if !crate::errors::is_decl(&e.attrs) => (&e.attrs, &e.ident),
            _ => continue,
        };
        let b = crate::bridge_attr(attrs).map_err(|e| e.to_string())?;
        if let Some(core) = b.core.filter(|_| !b.tuple) {
            names.insert(crate::last(&core).to_string(), ident.to_string());
        }
    }
    for item in &mut file.items {
        match item {
            Item::Trait(t) => expand_fns(t, core, &names)?,
            Item::Struct(s) => expand_struct(s, core, &names)?,
            Item::Enum(e) if crate::errors::is_decl(&e.attrs) => expand_errors(e, core)?,
            Item::Enum(e) => expand_enum(e, core, &names)?,
            _ => {}
        }
    }
    Ok(quote::ToTokens::to_token_stream(&file).to_string())
}

fn expand_struct(s: &mut syn::ItemStruct, core: &Core, names: &BTreeMap<String, String>) -> Result<(), String> {
    let b = crate::bridge_attr(&s.attrs).map_err(|e| e.to_string())?;
    let Some(path) = b.core.filter(|_| !b.tuple) else { return Ok(()) };
    let what = format!("record {}", s.ident);
    let Some(CoreItem::Struct(c)) = core.resolve(&path) else {
        return Err(format!("{what}: `{path}` is no struct of the core"));
    };
    let mut listed: Vec<syn::Field> = match &s.fields {
        Fields::Named(n) => n.named.iter().cloned().collect(),
        Fields::Unit => vec![],
        Fields::Unnamed(_) => return Err(format!("{what}: records have named fields")),
    };
    let mut fields: Vec<syn::Field> = vec![];
    // Derived fields (not in the core) go after the listed field before them.
    let mut derived_after: Vec<(Option<String>, syn::Field)> = vec![];
    let core_names: Vec<String> = c.fields.iter().filter(|f| is_pub(&f.vis)).filter_map(|f| f.ident.as_ref().map(|i| i.to_string())).collect();
    let mut prev = None;
    for f in &listed {
        let name = f.ident.as_ref().expect("named").to_string();
        if !core_names.contains(&name) {
            let fb = crate::bridge_attr(&f.attrs).map_err(|e| e.to_string())?;
            if fb.get.is_none() {
                return Err(format!("{what}: field `{name}` is not a field of `{path}` (a derived field has `get`)"));
            }
            // A derived field named after a private core field takes its type and doc.
            let mut f = f.clone();
            if let Some(private) = c.fields.iter().find(|p| is_infer(&f.ty) && p.ident.as_ref().is_some_and(|i| *i == name)) {
                f.ty = private.ty.clone();
                Rename(names).visit_type_mut(&mut f.ty);
                f.attrs = summary(&private.attrs).into_iter().chain(departures(&f.attrs, &format!("{what}, field `{name}`"))?).collect();
            }
            derived_after.push((prev.clone(), f));
        }
        prev = Some(name);
    }
    emit_derived(&derived_after, None, &mut fields);
    for cf in c.fields.iter().filter(|f| is_pub(&f.vis)) {
        let name = cf.ident.as_ref().expect("named").to_string();
        let mut field = cf.clone();
        field.attrs = summary(&cf.attrs);
        Rename(names).visit_type_mut(&mut field.ty);
        if let Some(pos) = listed.iter().position(|f| f.ident.as_ref().is_some_and(|i| *i == name)) {
            let api = listed.remove(pos);
            let attrs = departures(&api.attrs, &format!("{what}, field `{name}`"))?;
            if attrs.iter().any(is_omit) {
                continue;
            }
            field.attrs.extend(attrs);
            if !is_infer(&api.ty) {
                field.ty = api.ty;
            }
        }
        // A `new` record's field defaults where the core's does.
        let fb = crate::bridge_attr(&field.attrs).map_err(|e| e.to_string())?;
        let core_default = crate::is_option(&cf.ty) || serde_key(&cf.attrs, "default").is_some() || serde_key(&c.attrs, "default").is_some();
        if b.new && core_default && fb.default.is_none() && fb.host_default.is_none() {
            field.attrs.push(syn::parse_quote!(#[bridge(default)]));
        }
        fields.push(field);
        emit_derived(&derived_after, Some(&name), &mut fields);
    }
    s.attrs = summary(&c.attrs).into_iter().chain(departures(&s.attrs, &what)?).collect();
    s.fields = Fields::Named(syn::FieldsNamed { brace_token: Default::default(), named: fields.into_iter().collect() });
    s.semi_token = None;
    Ok(())
}

/// Complete each method or function of `t` (`trait SessionStore`, `trait
/// Functions`) from its core function (`core = path`, else the store's
/// method of its name): without a doc in `api.rs`, the summary of the core
/// function's doc; declared `-> _`, the core's parameters and `Ok` type.
fn expand_fns(t: &mut syn::ItemTrait, core: &Core, names: &BTreeMap<String, String>) -> Result<(), String> {
    let store = t.ident == "SessionStore";
    for item in &mut t.items {
        let syn::TraitItem::Fn(f) = item else { continue };
        let b = crate::bridge_attr(&f.attrs).map_err(|e| e.to_string())?;
        let path = b.core.unwrap_or_else(|| format!("sessiondb::SessionStore::{}", f.sig.ident));
        let (attrs, sig) = core.core_fn(&path).ok_or_else(|| format!("fn {}: `{path}` is no function of the core", f.sig.ident))?;
        if matches!(&f.sig.output, syn::ReturnType::Type(_, t) if is_infer(t)) {
            core_signature(&mut f.sig, sig, store, b.infallible, names)?;
        }
        if !f.attrs.iter().any(|a| a.path().is_ident("doc")) {
            f.attrs = summary(attrs).into_iter().chain(f.attrs.drain(..)).collect();
        }
    }
    Ok(())
}

/// `sig` (`fn name(&self) -> _` or `fn name() -> _`) given the core
/// function's parameters (a store method's `&self` first; a free function
/// of a store method takes the store first, which `&self` replaces) and its
/// `Ok` type (its return type as it is when `infallible`; none for `()`),
/// core record and enum types by their schema names. Errors: parameters
/// written besides `&self`.
fn core_signature(sig: &mut syn::Signature, core: &syn::Signature, store: bool, infallible: bool, names: &BTreeMap<String, String>) -> Result<(), String> {
    if sig.inputs.iter().any(|a| matches!(a, syn::FnArg::Typed(_))) {
        return Err(format!("fn {}: `-> _` takes the core's parameters: write none", sig.ident));
    }
    let free = !core.inputs.iter().any(|a| matches!(a, syn::FnArg::Receiver(_)));
    let params = core.inputs.iter().filter_map(|a| match a {
        syn::FnArg::Typed(pt) => Some(pt),
        syn::FnArg::Receiver(_) => None,
    });
    for pt in params.skip(usize::from(store && free)) {
        let syn::Pat::Ident(id) = &*pt.pat else {
            return Err(format!("fn {}: a core parameter is not a plain name", sig.ident));
        };
        let (name, mut ty) = (&id.ident, (*pt.ty).clone());
        Rename(names).visit_type_mut(&mut ty);
        sig.inputs.push(syn::parse_quote!(#name: #ty));
    }
    let mut ret = match &core.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) if infallible => Some((**t).clone()),
        syn::ReturnType::Type(_, t) => Some(ok_type(t).ok_or_else(|| format!("fn {}: the core function returns no `Result`", sig.ident))?),
    };
    ret.iter_mut().for_each(|t| Rename(names).visit_type_mut(t));
    sig.output = match ret {
        Some(syn::Type::Tuple(t)) if t.elems.is_empty() => syn::ReturnType::Default,
        Some(t) => syn::parse_quote!(-> #t),
        None => syn::ReturnType::Default,
    };
    Ok(())
}

/// `T` of `Result<T>` (or `Result<T, E>`).
fn ok_type(ty: &Type) -> Option<Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last().filter(|s| s.ident == "Result")?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    }
}

/// Push the derived fields placed after the field `after` (`None`: first),
/// each followed by those placed after it.
fn emit_derived(derived: &[(Option<String>, syn::Field)], after: Option<&str>, fields: &mut Vec<syn::Field>) {
    for (_, f) in derived.iter().filter(|(p, _)| p.as_deref() == after) {
        fields.push(f.clone());
        emit_derived(derived, f.ident.as_ref().map(|i| i.to_string()).as_deref(), fields);
    }
}

fn is_omit(a: &Attribute) -> bool {
    a.path().is_ident("bridge") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "omit")
}

fn expand_enum(e: &mut syn::ItemEnum, core: &Core, names: &BTreeMap<String, String>) -> Result<(), String> {
    let b = crate::bridge_attr(&e.attrs).map_err(|e| e.to_string())?;
    let Some(path) = b.core else { return Ok(()) };
    let what = format!("enum {}", e.ident);
    let Some(CoreItem::Enum(c)) = core.resolve(&path) else {
        return Err(format!("{what}: `{path}` is no enum of the core"));
    };
    let mut variants = syn::punctuated::Punctuated::new();
    for cv in &c.variants {
        let listed = match e.variants.iter().find(|v| v.ident == cv.ident) {
            Some(api) => departures(&api.attrs, &format!("{what}::{}", cv.ident))?,
            None => vec![serde_str(c, cv).ok_or_else(|| {
                format!("{what}: variant `{}` of `{path}` has no serde name (`rename`, `rename_all`): list it with its `str` name", cv.ident)
            })?],
        };
        let mut v = cv.clone();
        v.attrs = summary(&cv.attrs).into_iter().chain(listed).collect();
        v.discriminant = None;
        for f in v.fields.iter_mut() {
            f.attrs = summary(&f.attrs);
            Rename(names).visit_type_mut(&mut f.ty);
        }
        variants.push(v);
    }
    if let Some(v) = e.variants.iter().find(|v| !c.variants.iter().any(|cv| cv.ident == v.ident)) {
        return Err(format!("{what}: variant `{}` is not a variant of `{path}`", v.ident));
    }
    e.attrs = summary(&c.attrs).into_iter().chain(departures(&e.attrs, &what)?).collect();
    e.variants = variants;
    Ok(())
}

/// The error declaration's docs from the core's error enum (`core =
/// path`): each variant's is the summary of the core variant's, each
/// field's that of the core field of its name (a field of the variant, or
/// of the record a one-field variant holds, e.g. `ContextOverflow(Box<
/// ContextOverflowBreakdown>)`). A field the core lacks (derived, `get`)
/// keeps the doc written in `api.rs`; one written where the core has one
/// is refused.
fn expand_errors(e: &mut syn::ItemEnum, core: &Core) -> Result<(), String> {
    let path = crate::bridge_attr(&e.attrs).map_err(|e| e.to_string())?.core.ok_or("the error declaration needs `core = path`")?;
    let Some(CoreItem::Enum(c)) = core.resolve(&path) else {
        return Err(format!("error declaration: `{path}` is no enum of the core"));
    };
    for v in &mut e.variants {
        let what = format!("error {}", v.ident);
        let cv = c.variants.iter().find(|cv| cv.ident == v.ident).ok_or_else(|| format!("{what}: not a variant of `{path}`"))?;
        v.attrs = summary(&cv.attrs).into_iter().chain(departures(&v.attrs, &what)?).collect();
        // The record a one-field variant holds (`Box<Breakdown>`), by its name at the crate root.
        let held = match cv.fields.iter().map(|f| quote::ToTokens::to_token_stream(&f.ty).to_string()).collect::<Vec<_>>().as_slice() {
            [ty] => match core.resolve(&format!("sessiondb::{}", ty.trim_start_matches("Box <").trim_end_matches('>').trim())) {
                Some(CoreItem::Struct(s)) => s.fields.iter().collect(),
                _ => vec![],
            },
            _ => vec![],
        };
        for f in v.fields.iter_mut() {
            let name = f.ident.as_ref().expect("named");
            let Some(cf) = cv.fields.iter().chain(held.iter().copied()).find(|cf| cf.ident.as_ref() == Some(name)) else { continue };
            f.attrs = summary(&cf.attrs).into_iter().chain(departures(&f.attrs, &format!("{what}, field `{name}`"))?).collect();
        }
    }
    Ok(())
}

/// `#[bridge(str = "name")]` with a core variant's serde name: its
/// `#[serde(rename = "...")]`, else its enum's `rename_all` (`lowercase`,
/// `snake_case`, `kebab-case`) applied to its name; `None` without either.
fn serde_str(e: &syn::ItemEnum, v: &syn::Variant) -> Option<Attribute> {
    let name = serde_key(&v.attrs, "rename").flatten().or_else(|| {
        let ident = v.ident.to_string();
        let words = |sep: char| ident.chars().enumerate().fold(String::new(), |mut out, (i, c)| {
            if c.is_uppercase() && i > 0 {
                out.push(sep);
            }
            out.extend(c.to_lowercase());
            out
        });
        match serde_key(&e.attrs, "rename_all").flatten()?.as_str() {
            "lowercase" => Some(ident.to_lowercase()),
            "snake_case" => Some(words('_')),
            "kebab-case" => Some(words('-')),
            _ => None,
        }
    })?;
    Some(syn::parse_quote!(#[bridge(str = #name)]))
}

/// `key` in `#[serde(...)]` attributes: `Some(None)` alone (`default`),
/// `Some(Some(text))` as `key = "text"`.
fn serde_key(attrs: &[Attribute], key: &str) -> Option<Option<String>> {
    let mut out = None;
    for a in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = a.parse_nested_meta(|m| {
            let value = match m.input.peek(syn::Token![=]) {
                true => Some(m.value()?.parse::<syn::Expr>()?),
                false => None,
            };
            if m.path.is_ident(key) {
                out = Some(value.and_then(|v| match v {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(t), .. }) => Some(t.value()),
                    _ => None,
                }));
            }
            Ok(())
        });
    }
    out
}
