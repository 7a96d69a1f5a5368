//! The intermediate form between JSON Schema and Rust: every construct the
//! normalisation pass understands, with names already chosen.

/// A Rust type expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    Bool,
    Str,
    Int,
    /// `number`: kept as `serde_json::Number` so `1` and `1.0` both survive.
    Num,
    Any,
    Unit,
    /// A generated type.
    Named(String),
    Vec(Box<Ty>),
    /// A string-keyed map; a map of [`Ty::Any`] is a `serde_json::Map`.
    Map(Box<Ty>),
    /// `null` or the inner type.
    Nullable(Box<Ty>),
}

/// One generated item.
#[derive(Debug)]
pub(crate) struct Def {
    pub name: String,
    /// The JSON pointer it came from.
    pub pointer: String,
    /// The `$defs` entry it is (`Some`) or lives in (inline types).
    pub schema_def: Option<String>,
    /// Whether this is the `$defs` entry itself.
    pub top_level: bool,
    pub description: Option<String>,
    /// Why the item is `serde_json::Value` instead of a type of its own.
    pub fallback: Option<String>,
    pub body: Body,
}

#[derive(Debug)]
pub(crate) enum Body {
    /// Filled in after the name is reserved, so recursive references work.
    Pending,
    Struct(Struct),
    Alias(Ty),
    /// A replacement given in the settings: an alias of a Rust path.
    Replaced(String),
    /// A closed set of strings.
    Enum(Vec<String>),
    /// A single allowed value: a unit struct that checks it.
    Const {
        property: String,
        value: ConstValue,
    },
    Union(Union),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ConstValue {
    Str(String),
    Int(i64),
    Bool(bool),
}

#[derive(Debug)]
pub(crate) struct Struct {
    pub fields: Vec<Field>,
    /// `None`: unknown keys are refused; `Some(ty)`: kept in a flattened map.
    pub extra: Option<(String, Ty)>,
}

#[derive(Debug)]
pub(crate) struct Field {
    pub wire: String,
    pub ident: String,
    pub ty: Ty,
    pub required: bool,
    pub nullable: bool,
    pub boxed: bool,
    pub description: Option<String>,
    /// Why the field is `serde_json::Value` instead of a faithful type.
    pub fallback: Option<String>,
}

#[derive(Debug)]
pub(crate) struct Union {
    pub variants: Vec<Variant>,
    /// The property whose constant value alone tells the variants apart.
    pub tag: Option<String>,
}

#[derive(Debug)]
pub(crate) struct Variant {
    pub name: String,
    /// What the schema calls the member (its `$defs` name or its kind).
    pub schema_name: String,
    pub ty: Ty,
    pub boxed: bool,
    /// The JSON shapes that can decode as this variant.
    pub shapes: Vec<Shape>,
}

/// JSON kinds, as bits.
pub(crate) mod kind {
    pub const NULL: u8 = 1;
    pub const BOOL: u8 = 2;
    pub const INT: u8 = 4;
    /// A number with a fraction or exponent; `number` is `INT | FLOAT`.
    pub const FLOAT: u8 = 8;
    pub const STR: u8 = 16;
    pub const ARR: u8 = 32;
    pub const OBJ: u8 = 64;
    pub const ANY: u8 = 127;
}

/// What a JSON value must look like to be a candidate for a variant.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Shape {
    pub kinds: u8,
    /// Keys an object must have.
    pub required: Vec<String>,
    /// Keys whose value, when present, must equal a constant.
    pub consts: Vec<(String, ConstValue)>,
    /// Keys the schema declares.
    pub known: Vec<String>,
    /// Declared keys whose values must be of these kinds.
    pub typed: Vec<(String, u8)>,
    /// Whether undeclared keys rule the shape out.
    pub closed: bool,
}
