//! Recursive types: a field or variant that leads back to its own type
//! without passing through a `Vec` or a map is boxed, so every type has a
//! finite size.

use std::collections::{HashMap, HashSet};

use crate::ir::{Body, Def, Ty};

/// The named type a value of `ty` contains inline, if any.
fn direct(ty: &Ty) -> Option<&str> {
    match ty {
        Ty::Named(name) => Some(name),
        Ty::Nullable(inner) => direct(inner),
        _ => None,
    }
}

fn edges(def: &Def) -> Vec<&str> {
    match &def.body {
        Body::Struct(s) => s.fields.iter().filter_map(|f| direct(&f.ty)).collect(),
        Body::Union(u) => u.variants.iter().filter_map(|v| direct(&v.ty)).collect(),
        Body::Alias(ty) => direct(ty).into_iter().collect(),
        _ => Vec::new(),
    }
}

pub(crate) fn break_cycles(defs: &mut [Def]) {
    let graph: HashMap<String, Vec<String>> = defs
        .iter()
        .map(|d| {
            (
                d.name.clone(),
                edges(d).into_iter().map(str::to_owned).collect(),
            )
        })
        .collect();
    let reaches = |from: &str, to: &str| {
        let mut seen = HashSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(node) = stack.pop() {
            if node == to {
                return true;
            }
            if seen.insert(node.clone()) {
                stack.extend(graph.get(&node).into_iter().flatten().cloned());
            }
        }
        false
    };
    for def in defs.iter_mut() {
        let name = def.name.clone();
        match &mut def.body {
            Body::Struct(s) => {
                for field in &mut s.fields {
                    field.boxed = direct(&field.ty).is_some_and(|t| reaches(t, &name));
                }
            }
            Body::Union(u) => {
                for variant in &mut u.variants {
                    variant.boxed = direct(&variant.ty).is_some_and(|t| reaches(t, &name));
                }
            }
            _ => {}
        }
    }
}
