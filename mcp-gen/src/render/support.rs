//! The support module carried by every generated file.

use proc_macro2::TokenStream;
use quote::quote;

/// The private module every generated file carries: constant checks and the
/// union variant ranking. Kept in the output so generated code depends on
/// nothing but serde and serde_json.
pub(super) fn support() -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(dead_code)]
        mod __private {
            use ::core::fmt;
            use ::core::result::Result;
            use ::serde::de::{Deserializer, Error, Visitor};
            use ::serde_json::Value;

            struct Expect<T> {
                field: &'static str,
                value: T,
            }

            impl<'de> Visitor<'de> for Expect<&'static str> {
                type Value = ();
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    write!(f, "`{}` to be {:?}", self.field, self.value)
                }
                fn visit_str<E: Error>(self, v: &str) -> Result<(), E> {
                    if v == self.value {
                        Ok(())
                    } else {
                        Err(E::custom(format_args!("invalid `{}`: expected {:?}, found {:?}", self.field, self.value, v)))
                    }
                }
            }

            impl<'de> Visitor<'de> for Expect<i64> {
                type Value = ();
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    write!(f, "`{}` to be {}", self.field, self.value)
                }
                fn visit_i64<E: Error>(self, v: i64) -> Result<(), E> {
                    if v == self.value {
                        Ok(())
                    } else {
                        Err(E::custom(format_args!("invalid `{}`: expected {}, found {}", self.field, self.value, v)))
                    }
                }
                fn visit_u64<E: Error>(self, v: u64) -> Result<(), E> {
                    match i64::try_from(v) {
                        Ok(v) => self.visit_i64(v),
                        Err(_) => Err(E::custom(format_args!("invalid `{}`: expected {}, found {}", self.field, self.value, v))),
                    }
                }
            }

            impl<'de> Visitor<'de> for Expect<bool> {
                type Value = ();
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    write!(f, "`{}` to be {}", self.field, self.value)
                }
                fn visit_bool<E: Error>(self, v: bool) -> Result<(), E> {
                    if v == self.value {
                        Ok(())
                    } else {
                        Err(E::custom(format_args!("invalid `{}`: expected {}, found {}", self.field, self.value, v)))
                    }
                }
            }

            pub(super) fn expect_str<'de, D: Deserializer<'de>>(d: D, field: &'static str, value: &'static str) -> Result<(), D::Error> {
                d.deserialize_str(Expect { field, value })
            }

            pub(super) fn expect_i64<'de, D: Deserializer<'de>>(d: D, field: &'static str, value: i64) -> Result<(), D::Error> {
                d.deserialize_i64(Expect { field, value })
            }

            pub(super) fn expect_bool<'de, D: Deserializer<'de>>(d: D, field: &'static str, value: bool) -> Result<(), D::Error> {
                d.deserialize_bool(Expect { field, value })
            }

            /// Reads the value of the field `wire` into `slot`, refusing a
            /// second one. One generic body for every field of every
            /// struct, instead of the same lines in each visitor.
            pub(super) fn take<'de, A: ::serde::de::MapAccess<'de>, T: ::serde::Deserialize<'de>>(map: &mut A, slot: &mut ::core::option::Option<T>, wire: &'static str) -> Result<(), A::Error> {
                if slot.is_some() {
                    return Err(A::Error::duplicate_field(wire));
                }
                *slot = ::core::option::Option::Some(map.next_value()?);
                Ok(())
            }

            /// The value of the required field `wire`.
            pub(super) fn required<T, E: Error>(slot: ::core::option::Option<T>, wire: &'static str) -> Result<T, E> {
                match slot {
                    ::core::option::Option::Some(value) => Ok(value),
                    ::core::option::Option::None => Err(E::missing_field(wire)),
                }
            }

            /// An object key, borrowed from the input when it can be.
            pub(super) enum Key<'de> {
                Borrowed(&'de str),
                Owned(::std::string::String),
            }

            impl Key<'_> {
                pub(super) fn as_str(&self) -> &str {
                    match self {
                        Key::Borrowed(s) => s,
                        Key::Owned(s) => s,
                    }
                }

                pub(super) fn into_owned(self) -> ::std::string::String {
                    match self {
                        Key::Borrowed(s) => s.to_owned(),
                        Key::Owned(s) => s,
                    }
                }
            }

            impl<'de> ::serde::Deserialize<'de> for Key<'de> {
                fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    struct KeyVisitor;
                    impl<'de> Visitor<'de> for KeyVisitor {
                        type Value = Key<'de>;
                        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                            f.write_str("an object key")
                        }
                        fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                            Ok(Key::Borrowed(v))
                        }
                        fn visit_str<E: Error>(self, v: &str) -> Result<Key<'de>, E> {
                            Ok(Key::Owned(v.to_owned()))
                        }
                        fn visit_string<E: Error>(self, v: ::std::string::String) -> Result<Key<'de>, E> {
                            Ok(Key::Owned(v))
                        }
                    }
                    d.deserialize_str(KeyVisitor)
                }
            }

            pub(super) enum Const {
                Str(&'static str),
                Int(i64),
                Bool(bool),
            }

            impl Const {
                fn matches(&self, value: &Value) -> bool {
                    match self {
                        Const::Str(s) => value.as_str() == Some(*s),
                        Const::Int(i) => value.as_i64() == Some(*i),
                        Const::Bool(b) => value.as_bool() == Some(*b),
                    }
                }
            }

            /// What a JSON value must look like to be a candidate.
            pub(super) struct Shape {
                pub(super) kinds: u8,
                pub(super) required: &'static [&'static str],
                pub(super) consts: &'static [(&'static str, Const)],
                pub(super) known: &'static [&'static str],
                pub(super) typed: &'static [(&'static str, u8)],
                pub(super) closed: bool,
            }

            fn kind(value: &Value) -> u8 {
                match value {
                    Value::Null => 1,
                    Value::Bool(_) => 2,
                    Value::Number(n) if n.is_i64() || n.is_u64() => 4,
                    Value::Number(_) => 8,
                    Value::String(_) => 16,
                    Value::Array(_) => 32,
                    Value::Object(_) => 64,
                }
            }

            /// `None` when the shape rules the value out; otherwise a rank,
            /// lower first: fewer undeclared keys, then more declared keys,
            /// then more required keys (the more specific member), then
            /// narrower kinds.
            fn score(shape: &Shape, value: &Value) -> Option<(usize, usize, usize, u32)> {
                if shape.kinds & kind(value) == 0 {
                    return None;
                }
                let Value::Object(map) = value else {
                    return Some((0, 0, 0, shape.kinds.count_ones()));
                };
                if shape.required.iter().any(|key| !map.contains_key(*key)) {
                    return None;
                }
                for (key, expected) in shape.consts {
                    if map.get(*key).is_some_and(|v| !expected.matches(v)) {
                        return None;
                    }
                }
                for (key, kinds) in shape.typed {
                    if map.get(*key).is_some_and(|v| kind(v) & kinds == 0) {
                        return None;
                    }
                }
                let known = map.keys().filter(|k| shape.known.contains(&k.as_str())).count();
                let unknown = map.len() - known;
                if shape.closed && unknown > 0 {
                    return None;
                }
                Some((unknown, usize::MAX - known, usize::MAX - shape.required.len(), shape.kinds.count_ones()))
            }

            /// The variants that can hold `value`, best candidate first.
            pub(super) fn rank(value: &Value, variants: &[&[Shape]]) -> Vec<usize> {
                let mut scored: Vec<((usize, usize, usize, u32), usize)> = variants
                    .iter()
                    .enumerate()
                    .filter_map(|(index, shapes)| shapes.iter().filter_map(|s| score(s, value)).min().map(|s| (s, index)))
                    .collect();
                scored.sort();
                scored.into_iter().map(|(_, index)| index).collect()
            }

            /// The entries of an object read before its tag, then the rest
            /// of the object: what a tagged union hands the member it chose,
            /// so that the object is read once and never whole into a
            /// `Value`.
            pub(super) struct Replay<A> {
                read: ::std::vec::IntoIter<(::std::string::String, Value)>,
                pending: ::core::option::Option<Value>,
                rest: A,
            }

            impl<'de, A: ::serde::de::MapAccess<'de>> ::serde::de::MapAccess<'de> for Replay<A> {
                type Error = A::Error;
                fn next_key_seed<K: ::serde::de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<::core::option::Option<K::Value>, A::Error> {
                    match self.read.next() {
                        ::core::option::Option::Some((key, value)) => {
                            self.pending = ::core::option::Option::Some(value);
                            seed.deserialize(::serde::de::IntoDeserializer::<A::Error>::into_deserializer(key)).map(::core::option::Option::Some)
                        }
                        ::core::option::Option::None => self.rest.next_key_seed(seed),
                    }
                }
                fn next_value_seed<V: ::serde::de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
                    match self.pending.take() {
                        ::core::option::Option::Some(value) => seed.deserialize(value).map_err(A::Error::custom),
                        ::core::option::Option::None => self.rest.next_value_seed(seed),
                    }
                }
            }

            /// A union told apart by one string constant.
            pub(super) trait Tagged<'de>: Sized {
                const UNION: &'static str;
                const TAG: &'static str;
                const MEMBERS: &'static [&'static str];
                /// The member whose tag is `tag`, decoded from `map`; `None`
                /// when no member has that tag.
                fn member<A: ::serde::de::MapAccess<'de>>(tag: &str, map: Replay<A>) -> ::core::option::Option<Result<Self, A::Error>>;
            }

            /// Reads a tagged union's object up to its tag, keeping what
            /// came before, then lets the member read the rest.
            pub(super) struct TaggedVisitor<T>(pub(super) ::core::marker::PhantomData<T>);

            impl<T> TaggedVisitor<T> {
                fn refuse<'de, E: Error>(found: Value) -> E
                where
                    T: Tagged<'de>,
                {
                    E::custom(no_match(T::UNION, ::core::option::Option::Some(T::TAG), &found, T::MEMBERS))
                }
            }

            impl<'de, T: Tagged<'de>> Visitor<'de> for TaggedVisitor<T> {
                type Value = T;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    write!(f, "a `{}` object", T::UNION)
                }
                fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
                    let mut read = ::std::vec::Vec::new();
                    while let ::core::option::Option::Some(key) = map.next_key::<Key<'de>>()? {
                        let value: Value = map.next_value()?;
                        if key.as_str() != T::TAG {
                            read.push((key.into_owned(), value));
                            continue;
                        }
                        let tag = value.as_str().map(::std::borrow::ToOwned::to_owned);
                        let mut found = ::serde_json::Map::new();
                        found.insert(key.as_str().to_owned(), value.clone());
                        read.push((key.into_owned(), value));
                        let replay = Replay { read: read.into_iter(), pending: ::core::option::Option::None, rest: map };
                        return match tag.and_then(|tag| T::member(&tag, replay)) {
                            ::core::option::Option::Some(decoded) => decoded,
                            ::core::option::Option::None => Err(Self::refuse(Value::Object(found))),
                        };
                    }
                    Err(Self::refuse(Value::Object(read.into_iter().collect())))
                }
                fn visit_bool<E: Error>(self, v: bool) -> Result<T, E> {
                    Err(Self::refuse(Value::Bool(v)))
                }
                fn visit_i64<E: Error>(self, v: i64) -> Result<T, E> {
                    Err(Self::refuse(Value::from(v)))
                }
                fn visit_u64<E: Error>(self, v: u64) -> Result<T, E> {
                    Err(Self::refuse(Value::from(v)))
                }
                fn visit_f64<E: Error>(self, v: f64) -> Result<T, E> {
                    Err(Self::refuse(Value::from(v)))
                }
                fn visit_str<E: Error>(self, v: &str) -> Result<T, E> {
                    Err(Self::refuse(Value::from(v)))
                }
                fn visit_unit<E: Error>(self) -> Result<T, E> {
                    Err(Self::refuse(Value::Null))
                }
                fn visit_none<E: Error>(self) -> Result<T, E> {
                    Err(Self::refuse(Value::Null))
                }
                fn visit_seq<A: ::serde::de::SeqAccess<'de>>(self, _: A) -> Result<T, A::Error> {
                    Err(Self::refuse(Value::Array(::std::vec::Vec::new())))
                }
            }

            pub(super) fn no_match(union: &str, tag: Option<&str>, value: &Value, members: &[&str]) -> ::serde_json::Error {
                let found = match (tag, value) {
                    (Some(tag), Value::Object(map)) => match map.get(tag) {
                        Some(v) => format!("`{tag}` is {v}"),
                        None => format!("missing field `{tag}`"),
                    },
                    (_, Value::Object(map)) => {
                        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
                        format!("an object with keys {keys:?}")
                    }
                    (_, Value::Null) => "null".to_owned(),
                    (_, Value::Bool(_)) => "a boolean".to_owned(),
                    (_, Value::Number(_)) => "a number".to_owned(),
                    (_, Value::String(_)) => "a string".to_owned(),
                    (_, Value::Array(_)) => "an array".to_owned(),
                };
                ::serde_json::Error::custom(format_args!(
                    "no member of `{union}` accepts this value ({found}); members: {}",
                    members.join(", ")
                ))
            }
        }
    }
}
