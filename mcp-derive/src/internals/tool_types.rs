//! Looking at types by their spelling. A macro sees tokens, not types, so
//! these answers are syntactic: `Option<T>` is recognised by its last path
//! segment, whatever path leads to it.

use syn::{GenericArgument, PathArguments, PathSegment, Type};

use super::tool_symbol::*;

/// The type without invisible groups and parentheses.
pub(crate) fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => peel(&group.elem),
        Type::Paren(paren) => peel(&paren.elem),
        other => other,
    }
}

/// The last segment of a plain path type (`a::b::C<D>` gives `C<D>`).
pub(crate) fn last_segment(ty: &Type) -> Option<&PathSegment> {
    match peel(ty) {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        _ => None,
    }
}

/// Whether the type's last path segment is `name`.
pub(crate) fn is_named(ty: &Type, name: Symbol) -> bool {
    last_segment(ty).is_some_and(|seg| seg.ident == name)
}

/// The type arguments of a path segment (`C<A, B>` gives `A`, `B`).
pub(crate) fn type_args(segment: &PathSegment) -> Vec<&Type> {
    match &segment.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `T` for `Option<T>`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    let segment = last_segment(ty).filter(|seg| seg.ident == OPTION)?;
    match type_args(segment).as_slice() {
        [inner] => Some(inner),
        _ => None,
    }
}

/// `T` for `Vec<T>`.
pub(crate) fn vec_inner(ty: &Type) -> Option<&Type> {
    let segment = last_segment(ty).filter(|seg| seg.ident == VEC)?;
    match type_args(segment).as_slice() {
        [inner] => Some(inner),
        _ => None,
    }
}

/// Whether `name` appears as a path segment anywhere inside the type.
pub(crate) fn mentions(ty: &Type, name: Symbol) -> bool {
    match peel(ty) {
        Type::Path(path) => path.path.segments.iter().any(|seg| {
            seg.ident == name
                || type_args(seg)
                    .into_iter()
                    .any(|inner| mentions(inner, name))
        }),
        Type::Reference(r) => mentions(&r.elem, name),
        Type::Array(a) => mentions(&a.elem, name),
        Type::Slice(s) => mentions(&s.elem, name),
        Type::Tuple(t) => t.elems.iter().any(|e| mentions(e, name)),
        _ => false,
    }
}

/// The primitive kinds a header or a form field may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    String,
    Integer,
    Float,
    Bool,
}

/// The scalar kind of a plain `String`, `bool`, integer or float type.
pub(crate) fn scalar(ty: &Type) -> Option<Scalar> {
    let segment = last_segment(ty)?;
    if !segment.arguments.is_none() {
        return None;
    }
    let name = segment.ident.to_string();
    Some(match name.as_str() {
        "String" => Scalar::String,
        "bool" => Scalar::Bool,
        "f32" | "f64" => Scalar::Float,
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => Scalar::Integer,
        _ => return None,
    })
}
