//! Parameters: how each core parameter type crosses each host
//! ([`ParamPlan`]: declared type, conversion, argument), Python's flattened
//! records and Node's options objects.

use super::*;

/// How a core parameter type crosses a host: the host's declared type, the
/// statement converting it (if any) and the argument expression of the call.
pub(crate) struct ParamPlan {
    /// The host's parameter name when it is not the schema's (Kotlin/Swift
    /// `payload_json` for a JSON `payload`).
    pub(crate) rename: Option<String>,
    pub(crate) decl: TokenStream,
    pub(crate) ts: Option<String>,
    pub(crate) prelude: Option<TokenStream>,
    pub(crate) arg: TokenStream,
}

impl ParamPlan {
    /// Declared as `decl`, passed as `arg`, no conversion.
    pub(crate) fn plain(decl: TokenStream, arg: TokenStream) -> Self {
        ParamPlan { rename: None, decl, ts: None, prelude: None, arg }
    }

    /// Declared as `decl`, converted by `prelude`, passed as `arg`.
    pub(crate) fn conv(decl: TokenStream, prelude: TokenStream, arg: TokenStream) -> Self {
        ParamPlan { rename: None, decl, ts: None, prelude: Some(prelude), arg }
    }
}

impl Schema {
    pub(crate) fn param_plan(&self, host: Host, m: &Method, name: &str, ty: &Type) -> Result<ParamPlan, String> {
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
    pub(crate) fn enum_param(&self, host: Host, m: &Method, name: &str, ty: &Type, e: &Enum, err_map: TokenStream) -> Result<ParamPlan, String> {
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
    pub(crate) fn record_param(&self, host: Host, m: &Method, name: &str, ty: &Type, err_map: &TokenStream) -> Option<ParamPlan> {
        let (by_ref, list, r) = match self.param_shape(ty) {
            (Wrap::None, Base::Record(r)) => (false, false, r),
            (Wrap::Ref, Base::Record(r)) => (true, false, r),
            (Wrap::Slice, Base::Record(r)) => (true, true, r),
            (Wrap::Vec, Base::Record(r)) => (false, true, r),
            _ => return None,
        };
        let (n, core, rec) = (toks(name), self.core_of(r)?, toks(&r.name));
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
    pub(crate) fn python_tuple_param(&self, r: &Record, name: &str, what: &str, err_map: &TokenStream, arg: TokenStream) -> Option<ParamPlan> {
        let classes = r.fields.iter().map(|f| match self.base(&f.ty) {
            Base::Record(x) => Some(toks(&x.name)),
            _ => None,
        });
        let classes: Vec<TokenStream> = classes.collect::<Option<_>>()?;
        let (n, core, idx) = (toks(name), self.core_of(r)?, (0..classes.len()).map(syn::Index::from));
        let decl = quote!(Vec<(#(pyo3::PyRef<'_, crate::records::#classes>,)*)>);
        let prelude = quote! {
            let #n = #n.iter().map(|x| Ok((#(crate::records::Back::back(&*x.#idx, #what)?,)*))).collect::<sessiondb::Result<Vec<#core>>>() #err_map;
        };
        Some(ParamPlan::conv(decl, prelude, arg))
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
            let text = format_ident!("{}_json", self.n.to_string());
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
pub(crate) struct PyParams {
    pub(crate) params: Vec<(String, Type)>,
    pub(crate) defaults: Vec<(String, String)>,
    /// The first keyword-only parameter (`*` goes before it).
    pub(crate) keyword_from: Option<String>,
    /// Statements building each flattened record from its fields.
    pub(crate) builds: Vec<TokenStream>,
    /// The call's argument for a flattened parameter.
    pub(crate) args: BTreeMap<String, TokenStream>,
}

impl Schema {
    /// A flattened record's fields: those named in `lead` (in that order)
    /// and the rest (in field order), `get` fields left out. Errors: a name
    /// that is not a field.
    pub(crate) fn lead_fields<'r>(&self, m: &Method, r: &'r Record, lead: &[String]) -> Result<(Vec<&'r Field>, Vec<&'r Field>), String> {
        let fields: Vec<&Field> = r.fields.iter().filter(|f| f.get.is_none()).collect();
        let first = lead
            .iter()
            .map(|n| fields.iter().copied().find(|f| &f.name == n).ok_or_else(|| format!("method {}: `{n}` is not a field of {}", m.name, r.name)))
            .collect::<Result<Vec<_>, String>>()?;
        Ok((first, fields.into_iter().filter(|f| !lead.contains(&f.name)).collect()))
    }

    /// The record a flattened parameter `name: ty` (`R` or `&R`) takes,
    /// whether it is borrowed, and its core type. Errors name the method
    /// and `what` (`flatten`, `keywords`).
    fn flattened<'r>(&'r self, m: &Method, what: &str, name: &str, ty: &'r Type) -> Result<(&'r Record, bool, String), String> {
        let (by_ref, inner) = match ty {
            Type::Reference(r) => (true, &*r.elem),
            other => (false, other),
        };
        let id = inner.to_token_stream().to_string();
        let r = self.record_of(inner).ok_or_else(|| format!("method {}: {what}({name}): `{id}` is not a record", m.name))?;
        let core = r.core.clone().ok_or_else(|| format!("method {}: {what}({name}): record {id} has no core type", m.name))?;
        Ok((r, by_ref, core))
    }

    pub(crate) fn python_params(&self, m: &Method) -> Result<PyParams, String> {
        let mut out = PyParams { params: vec![], defaults: m.defaults.clone(), keyword_from: None, builds: vec![], args: BTreeMap::new() };
        for (name, ty) in &m.params {
            let Some((_, keywords, lead)) = m.flatten.iter().find(|(p, _, _)| p == name) else {
                out.params.push((name.clone(), ty.clone()));
                continue;
            };
            let (r, by_ref, core) = self.flattened(m, "flatten", name, ty)?;
            let id = &r.name;
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
            let (n, core, names) = (toks(name), toks(&core), fields.iter().map(|f| toks(&f.name)));
            out.builds.push(quote!(let #n = #core { #(#names),* };));
            out.args.insert(name.clone(), if by_ref { quote!(&#n) } else { n });
        }
        Ok(out)
    }
}

/// Node's form of a record parameter flattened with leading fields
/// (`keywords(p = "a, b")`): those fields as parameters, the rest in one
/// options object (`<Method>Options`, every field optional).
pub(crate) struct NodeOptions {
    /// The flattened parameter and its record's core type.
    pub(crate) param: TokenStream,
    pub(crate) core: TokenStream,
    /// The call's argument (`p` or `&p`).
    pub(crate) arg: TokenStream,
    /// The options object's name, e.g. `CreateSessionOptions`.
    pub(crate) name: syn::Ident,
    /// The method's parameters with the leading fields in place of `param`.
    pub(crate) params: Vec<(String, Type)>,
    pub(crate) lead: Vec<String>,
    /// The other fields' conversions from `o`, the options object.
    pub(crate) inits: Vec<TokenStream>,
    /// The options object's declaration.
    pub(crate) decl: TokenStream,
}

impl Schema {
    pub(crate) fn node_options(&self, m: &Method) -> Result<Option<NodeOptions>, String> {
        let Some((param, _, lead)) = m.flatten.iter().find(|(_, _, lead)| !lead.is_empty()) else { return Ok(None) };
        let (pos, ty) = m.params.iter().enumerate().find(|(_, (n, _))| n == param).map(|(k, (_, t))| (k, t)).ok_or_else(|| format!("method {}: no parameter `{param}`", m.name))?;
        let (r, by_ref, core) = self.flattened(m, "keywords", param, ty)?;
        let (first, rest) = self.lead_fields(m, r, lead)?;
        if let Some(f) = rest.iter().find(|f| f.default.is_none() && f.host_default.is_none() && !is_option(&f.ty)) {
            return Err(format!("method {}: field `{}` of the options object needs a default", m.name, f.name));
        }
        let host_name = m.getter.as_deref().unwrap_or(&m.name);
        let pascal: String = camel(host_name).chars().enumerate().map(|(k, c)| if k == 0 { c.to_ascii_uppercase() } else { c }).collect();
        let name = format_ident!("{pascal}Options");
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
