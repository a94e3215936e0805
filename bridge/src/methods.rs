//! The generated `SessionStore` methods and module functions of each host.

use super::*;

/// The generated `SessionStore` methods and module functions of `host` for
/// the schema text `src`: Python `#[pymethods]`/`#[pyfunction]` (GIL
/// released around a core call that waits on disk or crypto) with
/// `register_functions(module)`, Node `#[napi]` (a Promise via `AsyncTask`
/// for those calls), Kotlin/Swift `#[uniffi::export]`. Each converts its
/// arguments, calls the core method (or the free function `core = path`,
/// with the store first for a method) and converts the result by the host's
/// `Conv`. Kotlin/Swift also get each item's `suspend`/`async` twin
/// (`Emit::twin`): the store methods on `AsyncSessionStore`, the `blocking`
/// functions on `SessionDbAsync`. Errors: a parameter type without a rule.
pub fn generate_methods(host: Host, src: &str) -> Result<TokenStream, String> {
    let s = parse(src).map_err(|e| e.to_string())?;
    let live: Vec<&Method> = s.methods.iter().filter(|m| !skipped(&m.skip, host)).collect();
    let (mut methods, mut after, mut functions) = (vec![], vec![], vec![]);
    // Kotlin/Swift: each item's `suspend`/`async` twin (`Emit::twin`).
    let (mut method_twins, mut function_twins) = (vec![], vec![]);
    for m in live.iter().filter(|m| !m.function) {
        let e = Emit::new(&s, host, m)?;
        methods.push(e.item());
        // Declarations a method brings (Node's options objects), after the impl.
        after.extend(e.options.as_ref().map(|n| n.decl.clone()));
        method_twins.extend((host == Host::Uniffi).then(|| e.twin()));
    }
    for m in live.iter().filter(|m| m.function) {
        let e = Emit::new(&s, host, m)?;
        functions.push(e.item());
        function_twins.extend((host == Host::Uniffi && m.blocking).then(|| e.twin()));
    }
    // The twins' impls, each after the items it twins (none when empty).
    let method_twins = (!method_twins.is_empty()).then(|| quote!(#[uniffi::export] impl AsyncSessionStore { #(#method_twins)* }));
    let function_twins = (!function_twins.is_empty()).then(|| quote!(#[uniffi::export] impl SessionDbAsync { #(#function_twins)* }));
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
    Ok(quote!(#attr impl SessionStore { #(#methods)* } #method_twins #(#after)* #(#functions)* #function_twins #register))
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
        doc_attrs(&method_docs(self.s, self.host, self.m))
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
        // `ordered`: the turn is taken here, on the JS thread, in call order.
        let job = |work: TokenStream| match (m.ordered, m.hold_turn) {
            (false, false) => quote!(Ok(crate::job::job(#work))),
            _ => quote!(Ok(crate::job::job_in_turn(s.append_turn(), #work))),
        };
        // `hold_turn`: the whole call after the earlier appends' commit.
        let work = |value: TokenStream| match m.hold_turn {
            true => quote!(move || { let _held = s.hold_turn(); #value }),
            false => quote!(move || #value),
        };
        let value = match (m.infallible, promise) {
            (true, true) => job(work(quote!(Ok(#conv(#call))))),
            (false, true) => job(work(quote!(#call.map(#conv)))),
            (true, false) => quote!(Ok(#conv(#call))),
            (false, false) => quote!(#call.map(#conv).map_err(crate::errors::to_napi)),
        };
        quote!(#docs #attr pub fn #name(#(#params),*) -> #ret { #open #value })
    }

    /// Kotlin/Swift: `#[uniffi::export]` (defaults named by the host's
    /// parameter names).
    fn uniffi(&self) -> TokenStream {
        let m = self.m;
        let attr = match m.function {
            true if m.defaults.is_empty() => quote!(#[uniffi::export]),
            true => {
                let defaults = self.uniffi_defaults();
                quote!(#[uniffi::export(default(#(#defaults),*))])
            }
            false => self.uniffi_method_attr(),
        };
        let (ret, name, params, docs, call) = (self.uniffi_ret(), toks(&m.name), self.params(), self.docs(), self.call());
        let open = self.open_body(quote!(&self.inner));
        let conv = quote!(crate::records::Conv::conv);
        let value = if m.infallible { quote!(#conv(#call)) } else { quote!(Ok(#conv(#call?))) };
        quote!(#docs #attr pub fn #name(#(#params),*) -> #ret { #open #value })
    }

    /// The `suspend` (Kotlin) / `async` (Swift) twin of the item `uniffi`
    /// writes, uniffi's own async export: a store method on
    /// `AsyncSessionStore` (a `sync` one stays a plain call), a `blocking`
    /// module function on `SessionDbAsync`; the same name, docs, defaults,
    /// parameters, result and errors, its body the blocking item run whole
    /// on the blocking pool (`async_store::offload`).
    fn twin(&self) -> TokenStream {
        let m = self.m;
        let (attr, ret, name, docs) = (self.uniffi_method_attr(), self.uniffi_ret(), toks(&m.name), self.docs());
        let params = self.params();
        let params = if m.function { quote!(&self, #(#params),*) } else { quote!(#(#params),*) };
        let args = self.plans.iter().map(|(n, p)| toks(p.rename.as_deref().unwrap_or(n)));
        let body = match (m.function, m.sync) {
            (true, _) => quote!(crate::async_store::offload(move || #name(#(#args),*)).await),
            (false, true) => return quote!(#docs #attr pub fn #name(#params) -> #ret { self.store.#name(#(#args),*) }),
            (false, false) => quote! {
                let s = std::sync::Arc::clone(&self.store);
                crate::async_store::offload(move || s.#name(#(#args),*)).await
            },
        };
        quote!(#docs #attr pub async fn #name(#params) -> #ret { #body })
    }

    /// `name = value` of each default, by the host's parameter name.
    fn uniffi_defaults(&self) -> Vec<TokenStream> {
        let host_name = |n: &str| self.plans.iter().find(|(p, _)| p == n).and_then(|(_, p)| p.rename.clone()).unwrap_or_else(|| n.to_string());
        self.m.defaults.iter().map(|(n, v)| {
            let (host, v) = (toks(&host_name(n)), toks(v));
            quote!(#host = #v)
        }).collect()
    }

    /// A method's `#[uniffi::method(default(...))]`, none without defaults.
    fn uniffi_method_attr(&self) -> TokenStream {
        let defaults = self.uniffi_defaults();
        if defaults.is_empty() { quote!() } else { quote!(#[uniffi::method(default(#(#defaults),*))]) }
    }

    /// The result: the host type, in `crate::error::Result` unless `infallible`.
    fn uniffi_ret(&self) -> TokenStream {
        let host_ret = &self.host_ret;
        if self.m.infallible { quote!(#host_ret) } else { quote!(crate::error::Result<#host_ret>) }
    }
}

/// A method's or function's docs as `host` shows them: the schema's, then
/// the error classes it raises (Kotlin/Swift: the kinds) after a blank line.
pub(crate) fn method_docs(s: &Schema, host: Host, m: &Method) -> Vec<String> {
    let mut docs = m.docs.clone();
    if !m.errors.is_empty() {
        let classes = m.errors.iter().map(|k| error_class(s, k)).collect::<Vec<_>>().join(", ");
        docs.push(String::new());
        docs.push(match host {
            Host::Python => format!(" Raises {classes}."),
            Host::Node if !m.sync => format!(" Rejects with {classes}."),
            Host::Node => format!(" Throws {classes}."),
            Host::Uniffi => format!(" Errors: {}.", m.errors.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
        });
    }
    docs
}
