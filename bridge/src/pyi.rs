//! The Python stub signatures of the generated methods and functions.

use std::fmt::Write as _;

use super::*;

/// The Python stub signatures (`_native.pyi`) of the generated methods and
/// functions: a `class SessionStore:` block of `def name(self, ...) -> T: ...`
/// lines, then the module functions, with the types a Python caller passes
/// and gets (enums as `Literal[...]` of their names, paths as `str` or
/// `os.PathLike[str]`, records by their class names). The Python module
/// carries it as `_native._bridge_stubs`; `python/scripts/stubdoc.py`
/// writes these signatures into the stub. Errors: a type without a rule.
pub fn generate_pyi(src: &str) -> Result<String, String> {
    let s = parse(src).map_err(|e| e.to_string())?;
    let live: Vec<&Method> = s.methods.iter().filter(|m| !skipped(&m.skip, Host::Python)).collect();
    let mut out = String::from("class SessionStore:\n");
    for function in [false, true] {
        for m in live.iter().filter(|m| m.function == function) {
            let mut params: Vec<String> = if function { vec![] } else { vec!["self".into()] };
            let py = s.python_params(m)?;
            for (name, ty) in &py.params {
                let t = match (m.param_pyi.iter().find(|(d, _)| d == name), m.dicts.iter().any(|(d, _)| d == name)) {
                    (Some((_, t)), _) => Ok(t.clone()),
                    (None, true) => s.py_dict_ty(m, name, ty),
                    (None, false) => s.py_ty(ty, true),
                };
                let t = t.map_err(|e| format!("method {}: {e}", m.name))?;
                if py.keyword_from.as_ref() == Some(name) {
                    params.push("*".into());
                }
                match py.defaults.iter().find(|(d, _)| d == name) {
                    // A record parameter defaulting to `None` (optional in every
                    // host): `Optional[...]`, as PEP 484 wants it spelled.
                    Some((_, d)) if d == "None" && !t.starts_with("Optional[") => params.push(format!("{name}: Optional[{t}] = None")),
                    Some((_, d)) => params.push(format!("{name}: {t} = {}", py_literal(d))),
                    None => params.push(format!("{name}: {t}")),
                }
            }
            let ret = match m.returns.as_ref().or(m.ret.as_ref()) {
                Some(t) => s.py_ty(t, false).map_err(|e| format!("method {}: {e}", m.name))?,
                None => "None".into(),
            };
            let indent = if function { "" } else { "    " };
            if m.getter.is_some() {
                let _ = writeln!(out, "{indent}@property");
            }
            let name = m.getter.as_deref().unwrap_or(&m.name);
            let _ = writeln!(out, "{indent}def {name}({}) -> {ret}: ...", params.join(", "));
        }
    }
    Ok(out)
}

/// A `defaults(...)` value as Python source.
pub(crate) fn py_literal(v: &str) -> String {
    match v {
        "None" => "None".into(),
        "true" => "True".into(),
        "false" => "False".into(),
        other => other.into(),
    }
}

impl Schema {
    /// The Python stub type of a `dict(...)` parameter: the record's class
    /// or its dict form (`dict = "Type"` on the record; the dict form
    /// alone when Python has no class), in a `Sequence` for a list, in an
    /// `Optional` when it defaults to `None`.
    pub(crate) fn py_dict_ty(&self, m: &Method, name: &str, ty: &Type) -> Result<String, String> {
        let (list, r) = match self.param_shape(ty) {
            (Wrap::None | Wrap::Ref, Base::Record(r)) => (false, r),
            (Wrap::Slice, Base::Record(r)) => (true, r),
            _ => {
                let t = ty.to_token_stream().to_string().replace(' ', "");
                return Err(format!("`dict({name})`: `{t}` is not a record or a list of records"));
            }
        };
        let dict = r.dict.as_ref().ok_or_else(|| format!("`dict({name})`: record {} needs `dict = \"Type\"` (its dict form's stub type)", r.name))?;
        let one = if skipped(&r.skip, Host::Python) { dict.clone() } else { format!("Union[{}, {dict}]", r.name) };
        let optional = m.defaults.iter().any(|(d, v)| d == name && v == "None");
        Ok(match (list, optional) {
            (true, _) => format!("Sequence[{one}]"),
            (false, true) => format!("Optional[{one}]"),
            (false, false) => one,
        })
    }

    /// The Python stub type of a schema type (`param`: what a caller may pass).
    pub(crate) fn py_ty(&self, ty: &Type, param: bool) -> Result<String, String> {
        let none = || format!("no Python stub type for `{}`", ty.to_token_stream().to_string().replace(' ', ""));
        let shape = self.shape(ty);
        let base = match &shape.kind {
            Kind::Ref(i) => return self.py_ty(i.ty, param),
            Kind::Slice(i) | Kind::Vec(i) if matches!(i.base(), Base::Int(Int::U8)) => return Ok("bytes".into()),
            Kind::Slice(i) => return Ok(format!("Sequence[{}]", self.py_ty(i.ty, param)?)),
            Kind::Unit => return Ok("None".into()),
            Kind::Option(i) => return Ok(format!("Optional[{}]", self.py_ty(i.ty, param)?)),
            Kind::Vec(i) => return Ok(format!("List[{}]", self.py_ty(i.ty, param)?)),
            Kind::Leaf(base) => *base,
            _ => return Err(none()),
        };
        Ok(match base {
            Base::Record(r) if r.tuple && skipped(&r.skip, Host::Python) => {
                let fields = r.fields.iter().map(|f| self.py_ty(&f.ty, param)).collect::<Result<Vec<_>, _>>()?;
                format!("Tuple[{}]", fields.join(", "))
            }
            Base::Enum(e) => format!("Literal[{}]", e.variants.iter().map(|v| format!("{:?}", v.text)).collect::<Vec<_>>().join(", ")),
            Base::Str | Base::Text => "str".into(),
            Base::Int(_) | Base::Usize => "int".into(),
            Base::F64 => "float".into(),
            Base::Bool => "bool".into(),
            // `serde_json::Value`: any JSON-serialisable value.
            Base::Json => "Any".into(),
            Base::Path | Base::PathBuf if param => "Union[str, \"os.PathLike[str]\"]".into(),
            Base::JsonObject => return Err(none()),
            // A record: declared here or by hand in the host (its class name).
            _ if shape.name().starts_with(char::is_uppercase) => shape.name(),
            _ => return Err(none()),
        })
    }
}
