//! The Python stub of the native module, `sessiondb/_native.pyi`, whole:
//! the hand-written part (`python/_native.hand.pyi`: imports, the classes
//! and methods Python declares by hand) with the generated records,
//! methods and functions, their types and docstrings, in its marked places.

use std::fmt::Write as _;

use super::*;

/// The lines of the hand-written part that the generated text replaces:
/// the `sessiondb.types` import and `__all__`, the record classes, the
/// `SessionStore` methods (inside its class) and the module functions.
const MARKS: [&str; 4] = ["# bridge: header", "# bridge: records", "    # bridge: methods", "# bridge: functions"];

/// The docstring of every record's `to_dict()` (Python's `record!` macro).
const TO_DICT: &str = "The record as plain data: `{attribute: value}`, nested records as dicts.";

/// `python/python/sessiondb/_native.pyi`: the hand-written part `hand` with
/// each of its [`MARKS`] replaced by the generated text: `__all__` (every
/// top-level name of both parts, sorted) with the enums' `sessiondb.types`
/// aliases, a `@final` class per record (docstring, `__new__` of a `new`
/// record with the fields' defaults, a property per field, `to_dict`), the
/// `SessionStore` methods and the module functions, with the types a
/// Python caller passes and gets and the docstrings pyo3 gives the built
/// module (the schema's docs, `inspect.cleandoc`ed; a method's error
/// classes after them). Errors: a type without a rule, a mark missing or
/// repeated.
pub fn generate_pyi(src: &str, hand: &str) -> Result<String, String> {
    let s = parse(src).map_err(|e| e.to_string())?;
    let records: Vec<&Record> = s.records.iter().filter(|r| !skipped(&r.skip, Host::Python)).collect();
    let live: Vec<&Method> = s.methods.iter().filter(|m| !skipped(&m.skip, Host::Python)).collect();
    let (mut methods, mut functions) = (String::new(), String::new());
    for m in &live {
        let out = if m.function { &mut functions } else { &mut methods };
        out.push_str(&s.py_def(m).map_err(|e| format!("method {}: {e}", m.name))?);
    }
    let classes = records.iter().map(|r| s.py_class(r).map_err(|e| format!("record {}: {e}", r.name))).collect::<Result<Vec<_>, _>>()?;
    let mut names: Vec<&str> = hand.lines().filter_map(top_level_name).collect();
    names.extend(records.iter().map(|r| r.name.as_str()).chain(live.iter().filter(|m| m.function).map(|m| m.name.as_str())));
    names.sort_unstable();
    let mut aliases: Vec<&str> = s.enums.iter().filter_map(|e| e.pyi.as_deref()).filter(|a| *a != "Literal").collect();
    aliases.sort_unstable();
    let import = if aliases.is_empty() { String::new() } else { format!("from sessiondb.types import {}\n\n", aliases.join(", ")) };
    let mut header = format!("{import}__all__ = [\n");
    names.iter().for_each(|n| writeln!(header, "    {n:?},").expect("a String takes text"));
    header.push_str("]\n");
    let parts = [header, classes.join("\n"), methods, functions];
    let mut out = String::new();
    let mut seen = [0; MARKS.len()];
    for line in hand.split_inclusive('\n') {
        match MARKS.iter().position(|m| line.trim_end() == *m) {
            Some(k) => {
                seen[k] += 1;
                out.push_str(&parts[k]);
            }
            None => out.push_str(line),
        }
    }
    match MARKS.iter().zip(seen).find(|(_, n)| *n != 1) {
        Some((m, n)) => Err(format!("the hand-written stub has `{}` {n} times (once wanted)", m.trim())),
        None => Ok(out),
    }
}

/// The name a top-level line of a stub declares (`class X:`, `def f(`, `x: T`).
fn top_level_name(line: &str) -> Option<&str> {
    let def = line.strip_prefix("class ").or_else(|| line.strip_prefix("def "));
    let rest = def.unwrap_or(line);
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let ok = match def {
        Some(_) => rest[end..].starts_with([':', '(']),
        None => rest[end..].starts_with(": ") && line.split_whitespace().count() == 2,
    };
    (end > 0 && ok).then(|| &rest[..end])
}

/// A docstring as `python/scripts/stubdoc.py` writes it at `indent`: the
/// doc lines as pyo3 joins them, `inspect.cleandoc`ed (first line stripped,
/// the others' common indentation removed, blank lines at both ends
/// dropped), backslashes and `"""` escaped; `None` for no text.
fn docstring(docs: &[String], indent: &str) -> Option<String> {
    let text = docs.iter().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n");
    let lines: Vec<&str> = text.split('\n').collect();
    let margin = lines.iter().skip(1).filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let mut lines: Vec<&str> = lines.iter().enumerate().map(|(k, l)| if k == 0 { l.trim_start() } else { l.get(margin..).unwrap_or("") }).collect();
    while lines.last() == Some(&"") {
        lines.pop();
    }
    let start = lines.iter().position(|l| !l.is_empty())?;
    let body = lines[start..].join("\n").replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let mut lines = body.split('\n');
    let first = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    if rest.is_empty() {
        return Some(format!("{indent}\"\"\"{first}\"\"\"\n"));
    }
    let mut out = format!("{indent}\"\"\"{first}\n");
    rest.iter().for_each(|l| writeln!(out, "{}", if l.is_empty() { String::new() } else { format!("{indent}{l}") }).expect("a String takes text"));
    Some(format!("{out}{indent}\"\"\"\n"))
}

/// `head:` and its docstring on the next lines, or `head: ...` without one.
fn with_doc(head: &str, docs: &[String], indent: &str) -> String {
    match docstring(docs, &format!("{indent}    ")) {
        Some(d) => format!("{indent}{head}:\n{d}"),
        None => format!("{indent}{head}: ...\n"),
    }
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
    /// A method (inside `class SessionStore:`, a property when it is a
    /// getter) or module function: its signature and docstring.
    fn py_def(&self, m: &Method) -> Result<String, String> {
        let mut params: Vec<String> = if m.function { vec![] } else { vec!["self".into()] };
        let py = self.python_params(m)?;
        for (name, ty) in &py.params {
            let t = match (m.param_pyi.iter().find(|(d, _)| d == name), m.dicts.iter().any(|(d, _)| d == name)) {
                (Some((_, t)), _) => t.clone(),
                (None, true) => self.py_dict_ty(m, name, ty)?,
                (None, false) => self.py_ty(ty, true)?,
            };
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
            Some(t) => self.py_ty(t, false)?,
            None => "None".into(),
        };
        let indent = if m.function { "" } else { "    " };
        let property = if m.getter.is_some() { format!("{indent}@property\n") } else { String::new() };
        let head = format!("def {}({}) -> {ret}", m.getter.as_deref().unwrap_or(&m.name), params.join(", "));
        Ok(property + &with_doc(&head, &methods::method_docs(self, Host::Python, m), indent))
    }

    /// A record's class: docstring, `__new__` of a `new` record, a
    /// property per field and `to_dict()`.
    fn py_class(&self, r: &Record) -> Result<String, String> {
        let fields: Vec<&Field> = r.fields.iter().filter(|f| !skipped(&f.skip, Host::Python)).collect();
        let mut out = format!("@final\nclass {}:\n{}", r.name, docstring(&r.docs, "    ").unwrap_or_default());
        if r.new {
            out.push_str("    def __new__(\n        cls,\n");
            for f in &fields {
                writeln!(out, "        {},", self.py_new_param(f)?).expect("a String takes text");
            }
            writeln!(out, "    ) -> \"{}\": ...", r.name).expect("a String takes text");
        }
        for f in &fields {
            let head = format!("def {}(self) -> {}", f.name, self.py_field_ty(f, false)?);
            out.push_str("    @property\n");
            out.push_str(&with_doc(&head, &f.docs, "    "));
        }
        out.push_str(&with_doc("def to_dict(self) -> Dict[str, Any]", &[TO_DICT.into()], "    "));
        Ok(out)
    }

    /// A field's stub type: its `pyi`, a JSON object a dict, a text field
    /// naming an enum's values (`names = Enum`) that enum's type, a field
    /// with another Python type (`python = "..."`, JSON aside) that type's,
    /// else the rule.
    fn py_field_ty(&self, f: &Field, param: bool) -> Result<String, String> {
        if let Some(t) = &f.pyi {
            return Ok(t.clone());
        }
        let shape = self.shape(&f.ty);
        let one = |t: String| if matches!(shape.kind, Kind::Option(_)) { format!("Optional[{t}]") } else { t };
        let over = f.over.get(Host::Python.name()).map(|t| syn::parse_str::<Type>(t).map_err(|e| format!("field `{}`: {e}", f.name)));
        match (self.base(&f.ty), f.names.as_deref().and_then(|n| self.enumeration(n)), over) {
            (Base::JsonObject, _, _) => Ok(one("Dict[str, Any]".into())),
            (Base::Text, Some(e), _) => Ok(one(self.py_enum(e))),
            (Base::Json, _, _) | (_, _, None) => self.py_ty(&f.ty, param),
            (_, _, Some(over)) => self.py_ty(&over?, param),
        }
    }

    /// A parameter of a `new` record's `__new__`, as `python_new` declares
    /// it: a defaulted list or JSON object `None` (empty), a defaulted text
    /// its literal or `""`, another defaulted field its literal or the
    /// type's own (`python_zero`).
    fn py_new_param(&self, f: &Field) -> Result<String, String> {
        let ty = self.py_field_ty(f, true)?;
        if f.default.is_none() && f.host_default.is_none() {
            return Ok(format!("{}: {ty}", f.name));
        }
        let (ty, value) = match (&self.shape(&f.ty).kind, self.base(&f.ty)) {
            (Kind::Option(_), _) => (ty, "None".to_string()),
            (Kind::Vec(i), _) => (format!("Optional[Sequence[{}]]", self.py_ty(i.ty, true)?), "None".into()),
            (_, Base::JsonObject) => (format!("Optional[{ty}]"), "None".into()),
            (_, Base::Text) => (ty, f.host_default.clone().unwrap_or_else(|| "\"\"".into())),
            (_, base) => {
                let zero = python_zero(base).map(String::from);
                (ty, f.host_default.clone().or(zero).ok_or_else(|| format!("field `{}` has no Python default", f.name))?)
            }
        };
        Ok(format!("{}: {ty} = {}", f.name, py_literal(&value)))
    }

    /// An enum's stub type: its `pyi` alias, the `Literal[...]` of its
    /// names (`pyi = "Literal"`), else `str`.
    fn py_enum(&self, e: &Enum) -> String {
        match e.pyi.as_deref() {
            Some("Literal") => format!("Literal[{}]", e.variants.iter().map(|v| format!("{:?}", v.text)).collect::<Vec<_>>().join(", ")),
            Some(alias) => alias.into(),
            None => "str".into(),
        }
    }

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
            Kind::Vec(i) | Kind::Set(i) => return Ok(format!("List[{}]", self.py_ty(i.ty, param)?)),
            Kind::Tuple(items) => {
                let items = items.iter().map(|i| self.py_ty(i.ty, param)).collect::<Result<Vec<_>, _>>()?;
                return Ok(format!("Tuple[{}]", items.join(", ")));
            }
            Kind::Map(k, v) => return Ok(format!("Dict[{}, {}]", self.py_ty(k.ty, param)?, self.py_ty(v.ty, param)?)),
            Kind::Leaf(base) => *base,
            _ => return Err(none()),
        };
        Ok(match base {
            Base::Record(r) if r.tuple && skipped(&r.skip, Host::Python) => {
                let fields = r.fields.iter().map(|f| self.py_ty(&f.ty, param)).collect::<Result<Vec<_>, _>>()?;
                format!("Tuple[{}]", fields.join(", "))
            }
            Base::Enum(e) => self.py_enum(e),
            Base::Str | Base::Text => "str".into(),
            Base::Int(_) | Base::Usize => "int".into(),
            Base::F64 => "float".into(),
            Base::Bool => "bool".into(),
            // `serde_json::Value`: any JSON-serialisable value.
            Base::Json => "Any".into(),
            Base::Path | Base::PathBuf if param => "Union[str, \"os.PathLike[str]\"]".into(),
            Base::Path | Base::PathBuf => "str".into(),
            Base::JsonObject => return Err(none()),
            // A record: declared here or by hand in the host (its class name).
            _ if shape.name().starts_with(char::is_uppercase) => shape.name(),
            _ => return Err(none()),
        })
    }
}
