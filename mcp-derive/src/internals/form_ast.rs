//! `#[derive(ElicitForm)]` input as the macro sees it: a struct of flat
//! fields (a form) or an enum of unit variants (the choices of one field),
//! with their `#[form(...)]` keys, checked as they are read.

use heck::{
    ToKebabCase, ToLowerCamelCase, ToShoutyKebabCase, ToShoutySnakeCase, ToSnakeCase,
    ToUpperCamelCase,
};
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Expr, Fields, Ident, Lit, LitStr, Meta, Type, UnOp};

use super::ctxt::Ctxt;
use super::tool_attr::{self, Keys};
use super::tool_symbol::*;
use super::tool_types::{self, last_segment, Scalar};

/// What the derive is applied to.
pub(crate) enum Form {
    /// A struct: the form itself.
    Struct {
        message: Option<String>,
        fields: Vec<Field>,
    },
    /// An enum of unit variants: the choices of a field.
    Choices(Vec<Variant>),
}

pub(crate) struct Field {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) spec: Spec,
}

/// The options of one field, as `FieldSpec` takes them.
#[derive(Default)]
pub(crate) struct Spec {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) default: Option<DefaultValue>,
    pub(crate) format: Option<String>,
    pub(crate) min: Option<f64>,
    pub(crate) max: Option<f64>,
    pub(crate) min_length: Option<u32>,
    pub(crate) max_length: Option<u32>,
    pub(crate) choices: Vec<String>,
}

pub(crate) enum DefaultValue {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

pub(crate) struct Variant {
    pub(crate) ident: Ident,
    pub(crate) value: String,
    pub(crate) title: Option<String>,
}

/// The `rename_all` rules, named as serde names them.
const RENAME_RULES: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

/// The string formats the spec defines.
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

fn rename(rule: &str, name: &str) -> String {
    match rule {
        "lowercase" => name.to_lowercase(),
        "UPPERCASE" => name.to_uppercase(),
        "PascalCase" => name.to_upper_camel_case(),
        "camelCase" => name.to_lower_camel_case(),
        "snake_case" => name.to_snake_case(),
        "SCREAMING_SNAKE_CASE" => name.to_shouty_snake_case(),
        "kebab-case" => name.to_kebab_case(),
        _ => name.to_shouty_kebab_case(),
    }
}

/// How a field's type looks, for checking which keys fit it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Scalar(Scalar),
    /// `Vec<String>`.
    StringList,
    /// `Vec<T>` of something else, presumably an enum of choices.
    ChoiceList,
    /// A named type, presumably an enum of choices.
    Other,
}

impl Form {
    pub(crate) fn from_syn(cx: &mut Ctxt, input: &DeriveInput) -> Option<Form> {
        if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
            cx.error_spanned_by(
                &input.generics,
                "`#[derive(ElicitForm)]` does not take generic types: a form's schema is fixed; remove the generic parameters",
            );
        }
        match &input.data {
            Data::Struct(data) => {
                let rule = container(cx, &input.attrs, FORM_STRUCT_KEYS);
                let message = rule
                    .message
                    .map(|m| m.value())
                    .or_else(|| tool_attr::docs(&input.attrs));
                let fields = match &data.fields {
                    Fields::Named(named) => named
                        .named
                        .iter()
                        .filter_map(|f| Field::from_syn(cx, f, rule.rename_all.as_deref()))
                        .collect(),
                    Fields::Unit => Vec::new(),
                    Fields::Unnamed(unnamed) => {
                        cx.error_spanned_by(
                            unnamed,
                            "an elicitation form needs named fields, which become the form's keys: write `struct Form { name: Type }`",
                        );
                        return None;
                    }
                };
                check_unique(cx, fields.iter().map(|f| (&f.spec.name, &f.ident)), "field");
                Some(Form::Struct { message, fields })
            }
            Data::Enum(data) => {
                let rule = container(cx, &input.attrs, FORM_ENUM_KEYS);
                if data.variants.is_empty() {
                    cx.error_spanned_by(
                        &input.ident,
                        "a choice enum needs at least one variant to choose",
                    );
                }
                let variants: Vec<Variant> = data
                    .variants
                    .iter()
                    .filter_map(|v| Variant::from_syn(cx, v, rule.rename_all.as_deref()))
                    .collect();
                check_unique(cx, variants.iter().map(|v| (&v.value, &v.ident)), "choice");
                Some(Form::Choices(variants))
            }
            Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "`#[derive(ElicitForm)]` goes on a struct (a form) or an enum of unit variants (a choice), not a union",
                );
                None
            }
        }
    }
}

fn check_unique<'a>(
    cx: &mut Ctxt,
    names: impl Iterator<Item = (&'a String, &'a Ident)>,
    what: &str,
) {
    let mut seen: Vec<&String> = Vec::new();
    for (name, ident) in names {
        if seen.contains(&name) {
            cx.error_spanned_by(
                ident,
                format!("two {what}s are both named `{name}` on the wire; change one with `#[form(rename = \"...\")]`"),
            );
        } else {
            seen.push(name);
        }
    }
}

#[derive(Default)]
struct Container {
    message: Option<LitStr>,
    rename_all: Option<String>,
}

fn container(cx: &mut Ctxt, attrs: &[syn::Attribute], known: &[Symbol]) -> Container {
    let mut out = Container::default();
    let mut keys = Keys::new(FORM.0, known);
    for attr in attrs.iter().filter(|a| tool_attr::is(a, FORM)) {
        for meta in tool_attr::attr_metas(cx, attr, FORM.0) {
            match keys.accept(cx, &meta) {
                Some(MESSAGE) => {
                    out.message = tool_attr::string(cx, FORM.0, MESSAGE, &meta).filter(|m| {
                        let empty = m.value().trim().is_empty();
                        if empty {
                            cx.error_spanned_by(m, "`#[form]` key `message` cannot be empty");
                        }
                        !empty
                    });
                }
                Some(RENAME_ALL) => out.rename_all = rename_rule(cx, &meta),
                _ => {}
            }
        }
    }
    out
}

fn rename_rule(cx: &mut Ctxt, meta: &Meta) -> Option<String> {
    let lit = tool_attr::string(cx, FORM.0, RENAME_ALL, meta)?;
    let rule = lit.value();
    if RENAME_RULES.contains(&rule.as_str()) {
        Some(rule)
    } else {
        let list: Vec<String> = RENAME_RULES.iter().map(|r| format!("`{r}`")).collect();
        cx.error_spanned_by(
            &lit,
            format!(
                "unknown `rename_all` rule `{rule}`; expected one of {}",
                list.join(", ")
            ),
        );
        None
    }
}

impl Variant {
    fn from_syn(cx: &mut Ctxt, variant: &syn::Variant, rule: Option<&str>) -> Option<Variant> {
        if !matches!(variant.fields, Fields::Unit) {
            cx.error_spanned_by(
                &variant.fields,
                "a form choice must be a unit variant: forms must be flat, so a choice carries no data; remove the fields",
            );
        }
        let base = variant.ident.unraw().to_string();
        let mut value = rule.map_or_else(|| base.clone(), |r| rename(r, &base));
        let mut title = tool_attr::docs(&variant.attrs);
        let mut keys = Keys::new(FORM.0, FORM_VARIANT_KEYS);
        for attr in variant.attrs.iter().filter(|a| tool_attr::is(a, FORM)) {
            for meta in tool_attr::attr_metas(cx, attr, FORM.0) {
                match keys.accept(cx, &meta) {
                    Some(RENAME) => {
                        if let Some(lit) = non_empty(cx, &meta, RENAME) {
                            value = lit;
                        }
                    }
                    Some(TITLE) => title = non_empty(cx, &meta, TITLE).or(title),
                    _ => {}
                }
            }
        }
        Some(Variant {
            ident: variant.ident.clone(),
            value,
            title,
        })
    }
}

fn non_empty(cx: &mut Ctxt, meta: &Meta, key: Symbol) -> Option<String> {
    let lit = tool_attr::string(cx, FORM.0, key, meta)?;
    if lit.value().is_empty() {
        cx.error_spanned_by(&lit, format!("`#[form]` key `{key}` cannot be empty"));
        return None;
    }
    Some(lit.value())
}

/// Whether the type is flat; reports at the type when it is not.
fn class(cx: &mut Ctxt, ty: &Type) -> Option<Class> {
    let flat = "forms must be flat: a field is a string, a number, a boolean, a choice or a list of choices";
    let inner = tool_types::option_inner(ty).unwrap_or(ty);
    if tool_types::option_inner(inner).is_some() {
        cx.error_spanned_by(
            ty,
            "a form field cannot be `Option<Option<T>>`; one `Option` makes it optional",
        );
        return None;
    }
    let Some(segment) = last_segment(inner) else {
        cx.error_spanned_by(ty, format!("{flat}; this type is not"));
        return None;
    };
    if let Some(scalar) = tool_types::scalar(inner) {
        return Some(Class::Scalar(scalar));
    }
    let name = segment.ident.to_string();
    if matches!(
        name.as_str(),
        "HashMap"
            | "BTreeMap"
            | "IndexMap"
            | "Map"
            | "HashSet"
            | "BTreeSet"
            | "Value"
            | "Box"
            | "Rc"
            | "Arc"
    ) {
        cx.error_spanned_by(ty, format!("{flat}; `{name}` is not"));
        return None;
    }
    if let Some(item) = tool_types::vec_inner(inner) {
        return match tool_types::scalar(item) {
            Some(Scalar::String) => Some(Class::StringList),
            Some(_) => {
                cx.error_spanned_by(ty, "a list field holds choices: use `Vec<String>` with `#[form(choices(...))]`, or a `Vec` of an enum that derives `ElicitForm`");
                None
            }
            None if last_segment(item).is_some_and(|s| s.arguments.is_none()) => {
                Some(Class::ChoiceList)
            }
            None => {
                cx.error_spanned_by(ty, format!("{flat}; a list of this type is not"));
                None
            }
        };
    }
    Some(Class::Other)
}

impl Field {
    fn from_syn(cx: &mut Ctxt, field: &syn::Field, rule: Option<&str>) -> Option<Field> {
        let ident = field.ident.clone()?;
        let base = ident.unraw().to_string();
        let mut spec = Spec {
            name: rule.map_or_else(|| base.clone(), |r| rename(r, &base)),
            description: tool_attr::docs(&field.attrs),
            ..Spec::default()
        };
        let class = class(cx, &field.ty);
        let mut keys = Keys::new(FORM.0, FORM_FIELD_KEYS);
        for attr in field.attrs.iter().filter(|a| tool_attr::is(a, FORM)) {
            for meta in tool_attr::attr_metas(cx, attr, FORM.0) {
                let Some(key) = keys.accept(cx, &meta) else {
                    continue;
                };
                spec.read(cx, key, &meta, class);
            }
        }
        if class == Some(Class::StringList) && spec.choices.is_empty() {
            cx.error_spanned_by(
                &field.ty,
                "a list of strings is a multiple choice and needs its choices: add `#[form(choices(\"a\", \"b\"))]`",
            );
        }
        spec.check(cx, field);
        Some(Field {
            ident,
            ty: field.ty.clone(),
            spec,
        })
    }
}

impl Spec {
    fn read(&mut self, cx: &mut Ctxt, key: Symbol, meta: &Meta, class: Option<Class>) {
        let fits = |allowed: &[Class]| class.is_none_or(|c| allowed.contains(&c));
        let wrong = |cx: &mut Ctxt, what: &str| {
            cx.error_spanned_by(
                meta.path(),
                format!("`#[form]` key `{key}` fits only {what}"),
            );
        };
        use Scalar::*;
        match key {
            TITLE => self.title = non_empty(cx, meta, key),
            RENAME => {
                if let Some(name) = non_empty(cx, meta, key) {
                    self.name = name;
                }
            }
            FORMAT if !fits(&[Class::Scalar(String)]) => wrong(cx, "a `String` field"),
            FORMAT => {
                if let Some(lit) = tool_attr::string(cx, FORM.0, key, meta) {
                    if FORMATS.contains(&lit.value().as_str()) {
                        self.format = Some(lit.value());
                    } else {
                        cx.error_spanned_by(
                            &lit,
                            "unknown `format`; expected `email`, `uri`, `date` or `date-time`",
                        );
                    }
                }
            }
            MIN | MAX if !fits(&[Class::Scalar(Integer), Class::Scalar(Float)]) => {
                wrong(cx, "a number field")
            }
            MIN => self.min = number(cx, meta, key),
            MAX => self.max = number(cx, meta, key),
            MIN_LENGTH | MAX_LENGTH
                if !fits(&[Class::Scalar(String), Class::StringList, Class::ChoiceList]) =>
            {
                wrong(cx, "a `String` or `Vec` field")
            }
            MIN_LENGTH => self.min_length = length(cx, meta, key),
            MAX_LENGTH => self.max_length = length(cx, meta, key),
            CHOICES if !fits(&[Class::Scalar(String), Class::StringList]) => wrong(
                cx,
                "a `String` or `Vec<String>` field; an enum lists its own choices",
            ),
            CHOICES => {
                self.choices = tool_attr::strings(cx, FORM.0, key, meta)
                    .unwrap_or_default()
                    .iter()
                    .map(LitStr::value)
                    .collect();
            }
            _ => self.default = default(cx, meta, class),
        }
    }

    fn check(&self, cx: &mut Ctxt, field: &syn::Field) {
        let at = field.ident.as_ref();
        if let (Some(min), Some(max)) = (self.min, self.max) {
            if min > max {
                cx.error_spanned_by(at, "`#[form]` key `min` is larger than `max`");
            }
        }
        if let (Some(min), Some(max)) = (self.min_length, self.max_length) {
            if min > max {
                cx.error_spanned_by(at, "`#[form]` key `min_length` is larger than `max_length`");
            }
        }
        if let (Some(DefaultValue::Str(value)), false) = (&self.default, self.choices.is_empty()) {
            if !self.choices.contains(value) {
                cx.error_spanned_by(
                    at,
                    format!("the default `{value}` is not one of the `choices`"),
                );
            }
        }
    }
}

/// A number literal, possibly negative.
fn number(cx: &mut Ctxt, meta: &Meta, key: Symbol) -> Option<f64> {
    let message = format!("`#[form]` key `{key}` takes a number: `{key} = 10`");
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(meta, message);
        return None;
    };
    let (negative, lit) = match &nv.value {
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => (true, &*unary.expr),
        other => (false, other),
    };
    let value = match lit {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<f64>().ok(),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Float(f), ..
        }) => f.base10_parse::<f64>().ok(),
        _ => None,
    };
    match value {
        Some(v) => Some(if negative { -v } else { v }),
        None => {
            cx.error_spanned_by(&nv.value, message);
            None
        }
    }
}

fn length(cx: &mut Ctxt, meta: &Meta, key: Symbol) -> Option<u32> {
    if let Meta::NameValue(nv) = meta {
        if let Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) = &nv.value
        {
            if let Ok(n) = i.base10_parse::<u32>() {
                return Some(n);
            }
        }
    }
    cx.error_spanned_by(
        meta,
        format!("`#[form]` key `{key}` takes a whole number: `{key} = 3`"),
    );
    None
}

fn default(cx: &mut Ctxt, meta: &Meta, class: Option<Class>) -> Option<DefaultValue> {
    let Meta::NameValue(nv) = meta else {
        cx.error_spanned_by(
            meta,
            "`#[form]` key `default` takes a value: `default = ...`",
        );
        return None;
    };
    let (negative, expr) = match &nv.value {
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => (true, &*unary.expr),
        other => (false, other),
    };
    let Expr::Lit(syn::ExprLit { lit, .. }) = expr else {
        cx.error_spanned_by(&nv.value, "`#[form]` key `default` takes a literal");
        return None;
    };
    let class = class?;
    let value = match (class, lit) {
        (Class::Scalar(Scalar::String) | Class::Other, Lit::Str(s)) if !negative => {
            Some(DefaultValue::Str(s.value()))
        }
        (Class::Scalar(Scalar::Bool), Lit::Bool(b)) if !negative => {
            Some(DefaultValue::Bool(b.value))
        }
        (Class::Scalar(Scalar::Integer), Lit::Int(i)) => i
            .base10_parse::<i64>()
            .ok()
            .map(|v| DefaultValue::Int(if negative { -v } else { v })),
        (Class::Scalar(Scalar::Float), Lit::Int(i)) => i
            .base10_parse::<f64>()
            .ok()
            .map(|v| DefaultValue::Float(if negative { -v } else { v })),
        (Class::Scalar(Scalar::Float), Lit::Float(f)) => f
            .base10_parse::<f64>()
            .ok()
            .map(|v| DefaultValue::Float(if negative { -v } else { v })),
        _ => None,
    };
    if value.is_none() {
        let expected = match class {
            Class::Scalar(Scalar::String) => "a string",
            Class::Other => "the string value of a choice",
            Class::Scalar(Scalar::Bool) => "`true` or `false`",
            Class::Scalar(Scalar::Integer) => "an integer",
            Class::Scalar(Scalar::Float) => "a number",
            Class::StringList | Class::ChoiceList => {
                cx.error_spanned_by(
                    meta.path(),
                    "`#[form]` key `default` does not fit a list field",
                );
                return None;
            }
        };
        cx.error_spanned_by(
            &nv.value,
            format!("this `default` does not fit the field's type; expected {expected}"),
        );
    }
    value
}
