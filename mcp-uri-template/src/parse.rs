//! Reading the text of an RFC 6570 URI template into literals and
//! expressions.
//!
//! Plain `std` Rust: `mcp-derive` parses `#[resource]` templates with it at
//! compile time, and `mcp-server` at run time, so that both apply exactly
//! the same rules.

use std::fmt;
use std::str::FromStr;

/// The longest template accepted, in bytes.
pub const MAX_TEMPLATE_LEN: usize = 1024;

/// A parsed URI template: the subset of RFC 6570 that can be both expanded
/// and matched back unambiguously. See the `uri_template` module for the
/// rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UriTemplate {
    source: String,
    pub(crate) parts: Vec<Part>,
}

/// A stretch of template text: copied verbatim, or an expression in braces.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Part {
    /// Text outside braces, matched byte for byte.
    Literal(String),
    /// `{op var,var}`.
    Expression {
        /// How the values are encoded and joined.
        operator: Operator,
        /// The variable names, in order, at least one.
        variables: Vec<String>,
    },
}

/// The operators this parser accepts (RFC 6570 levels 1 to 3, minus `.`
/// and `;`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Operator {
    /// `{var}`: unreserved characters, everything else percent-encoded.
    Simple,
    /// `{+var}`: reserved characters such as `/` pass through.
    Reserved,
    /// `{#var}`: like `+`, after a `#`.
    Fragment,
    /// `{/var}`: one `/`-prefixed path segment per variable.
    Path,
    /// `{?var}`: a query, `?name=value&name=value`.
    Query,
    /// `{&var}`: more query pairs, `&name=value`.
    Continuation,
}

impl Operator {
    /// Whether a URI may leave the variables of this operator out and still
    /// match: only query pairs are optional.
    pub(crate) fn is_optional(self) -> bool {
        matches!(self, Operator::Query | Operator::Continuation)
    }
}

/// Why a template was refused, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    kind: TemplateErrorKind,
    offset: usize,
}

/// The kinds of [`TemplateError`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplateErrorKind {
    /// A `{` with no `}` before the end or before the next `{`.
    UnclosedExpression,
    /// A `}` that closes nothing.
    UnmatchedClose,
    /// `{}`, or an operator with no variable after it.
    EmptyExpression,
    /// A variable name that is not letters, digits, `_`, percent-encoded
    /// bytes and single inner dots.
    InvalidVariableName,
    /// An operator outside the supported set: `.` and `;`, and the
    /// characters RFC 6570 keeps for future operators.
    UnsupportedOperator(char),
    /// A `:N` prefix modifier.
    PrefixModifier,
    /// A `*` explode modifier.
    ExplodeModifier,
    /// A `+` or `#` expression with more than one variable: reserved
    /// characters include `,`, so the values could not be told apart.
    MultipleVariables,
    /// The same variable in two places.
    DuplicateVariable(String),
    /// A `{var}` or `{+var}` right after another expression, with no literal
    /// text to show where one value ends.
    AdjacentExpressions,
    /// A character that may not appear in a template outside braces.
    InvalidCharacter(char),
    /// A `%` not followed by two hexadecimal digits.
    InvalidPercentEncoding,
    /// More than [`MAX_TEMPLATE_LEN`] bytes.
    TooLong,
}

impl TemplateError {
    fn new(kind: TemplateErrorKind, offset: usize) -> Self {
        TemplateError { kind, offset }
    }

    /// What is wrong.
    pub fn kind(&self) -> &TemplateErrorKind {
        &self.kind
    }

    /// The byte offset in the template where the problem starts.
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.offset;
        match &self.kind {
            TemplateErrorKind::UnclosedExpression => {
                write!(f, "the `{{` at byte {at} is not closed by a `}}`")
            }
            TemplateErrorKind::UnmatchedClose => {
                write!(f, "the `}}` at byte {at} closes no expression")
            }
            TemplateErrorKind::EmptyExpression => {
                write!(f, "the expression at byte {at} names no variable")
            }
            TemplateErrorKind::InvalidVariableName => write!(
                f,
                "invalid variable name at byte {at}: use letters, digits and `_`"
            ),
            TemplateErrorKind::UnsupportedOperator(op) => write!(
                f,
                "the operator `{op}` at byte {at} is not supported; \
                 use no operator, `+`, `#`, `/`, `?` or `&`"
            ),
            TemplateErrorKind::PrefixModifier => write!(
                f,
                "prefix modifiers like `{{var:3}}` are not supported (byte {at})"
            ),
            TemplateErrorKind::ExplodeModifier => write!(
                f,
                "explode modifiers like `{{var*}}` are not supported (byte {at})"
            ),
            TemplateErrorKind::MultipleVariables => write!(
                f,
                "a `+` or `#` expression takes exactly one variable (byte {at})"
            ),
            TemplateErrorKind::DuplicateVariable(name) => {
                write!(f, "the variable `{name}` appears twice (byte {at})")
            }
            TemplateErrorKind::AdjacentExpressions => write!(
                f,
                "the expression at byte {at} follows another expression directly, \
                 so a URI could not be split between them; put literal text between them"
            ),
            TemplateErrorKind::InvalidCharacter(c) => write!(
                f,
                "the character {c:?} at byte {at} is not allowed in a URI template; \
                 percent-encode it"
            ),
            TemplateErrorKind::InvalidPercentEncoding => write!(
                f,
                "the `%` at byte {at} is not followed by two hexadecimal digits"
            ),
            TemplateErrorKind::TooLong => {
                write!(f, "the template is longer than {MAX_TEMPLATE_LEN} bytes")
            }
        }
    }
}

impl std::error::Error for TemplateError {}

impl UriTemplate {
    /// Parses a template.
    ///
    /// # Errors
    ///
    /// A [`TemplateError`] when the text is not a valid RFC 6570 template,
    /// or uses a form outside the supported subset (`.` and `;` operators,
    /// `:N` and `*` modifiers, several variables in one `+` or `#`
    /// expression, a variable used twice, a `{var}` or `{+var}` right
    /// after another expression, or more than [`MAX_TEMPLATE_LEN`] bytes).
    pub fn parse(source: &str) -> Result<UriTemplate, TemplateError> {
        if source.len() > MAX_TEMPLATE_LEN {
            return Err(TemplateError::new(
                TemplateErrorKind::TooLong,
                MAX_TEMPLATE_LEN,
            ));
        }
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut seen: Vec<String> = Vec::new();
        let bytes = source.as_bytes();
        let mut i = 0;
        while let Some(c) = source.get(i..).and_then(|rest| rest.chars().next()) {
            match c {
                '{' => {
                    let close = expression_end(bytes, i)?;
                    let starts_adjacent =
                        literal.is_empty() && matches!(parts.last(), Some(Part::Expression { .. }));
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    let body = source.get(i + 1..close).unwrap_or_default();
                    let part = parse_expression(body, i, &mut seen)?;
                    if starts_adjacent
                        && matches!(
                            part,
                            Part::Expression {
                                operator: Operator::Simple | Operator::Reserved,
                                ..
                            }
                        )
                    {
                        return Err(TemplateError::new(
                            TemplateErrorKind::AdjacentExpressions,
                            i,
                        ));
                    }
                    parts.push(part);
                    i = close + 1;
                }
                '}' => {
                    return Err(TemplateError::new(TemplateErrorKind::UnmatchedClose, i));
                }
                '%' => {
                    if !is_pct_triplet(bytes, i) {
                        return Err(TemplateError::new(
                            TemplateErrorKind::InvalidPercentEncoding,
                            i,
                        ));
                    }
                    literal.push_str(source.get(i..i + 3).unwrap_or_default());
                    i += 3;
                }
                c if is_literal_char(c) => {
                    literal.push(c);
                    i += c.len_utf8();
                }
                c => {
                    return Err(TemplateError::new(
                        TemplateErrorKind::InvalidCharacter(c),
                        i,
                    ));
                }
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate {
            source: source.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in the order they appear.
    pub fn variables(&self) -> impl Iterator<Item = &str> + '_ {
        self.expressions()
            .flat_map(|(_, variables)| variables.iter().map(String::as_str))
    }

    /// The variables a matching URI may leave out: those of `{?...}` and
    /// `{&...}` expressions. Every other variable is present, and not empty,
    /// whenever a URI matches.
    pub fn optional_variables(&self) -> impl Iterator<Item = &str> + '_ {
        self.expressions()
            .filter(|(operator, _)| operator.is_optional())
            .flat_map(|(_, variables)| variables.iter().map(String::as_str))
    }

    /// Whether the template has no expressions, so it stands for exactly
    /// one URI: itself.
    pub fn is_fixed(&self) -> bool {
        self.expressions().next().is_none()
    }

    /// The URI scheme the template starts with (`notes` in
    /// `notes://{id}`), if its first characters spell one followed by `:`.
    pub fn scheme(&self) -> Option<&str> {
        let Some(Part::Literal(first)) = self.parts.first() else {
            return None;
        };
        let (scheme, _) = first.split_once(':')?;
        let mut chars = scheme.chars();
        let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
        let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        (starts_with_letter && rest_ok).then_some(scheme)
    }

    /// Whether the two templates differ at most in the names of their
    /// variables, so that they match exactly the same URIs.
    pub fn is_equivalent(&self, other: &UriTemplate) -> bool {
        self.parts.len() == other.parts.len()
            && self.parts.iter().zip(&other.parts).all(|pair| match pair {
                (Part::Literal(a), Part::Literal(b)) => a == b,
                (
                    Part::Expression {
                        operator: op_a,
                        variables: vars_a,
                    },
                    Part::Expression {
                        operator: op_b,
                        variables: vars_b,
                    },
                ) => op_a == op_b && vars_a.len() == vars_b.len(),
                _ => false,
            })
    }

    fn expressions(&self) -> impl Iterator<Item = (Operator, &[String])> + '_ {
        self.parts.iter().filter_map(|part| match part {
            Part::Expression {
                operator,
                variables,
            } => Some((*operator, variables.as_slice())),
            Part::Literal(_) => None,
        })
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl FromStr for UriTemplate {
    type Err = TemplateError;

    fn from_str(source: &str) -> Result<Self, Self::Err> {
        UriTemplate::parse(source)
    }
}

/// The offset of the `}` closing the `{` at `open`.
fn expression_end(bytes: &[u8], open: usize) -> Result<usize, TemplateError> {
    let unclosed = TemplateError::new(TemplateErrorKind::UnclosedExpression, open);
    let rest = bytes.get(open + 1..).ok_or_else(|| unclosed.clone())?;
    match rest.iter().position(|&b| b == b'{' || b == b'}') {
        Some(at) if rest.get(at) == Some(&b'}') => Ok(open + 1 + at),
        _ => Err(unclosed),
    }
}

/// Parses the text between the braces of the expression opened at `open`.
fn parse_expression(
    body: &str,
    open: usize,
    seen: &mut Vec<String>,
) -> Result<Part, TemplateError> {
    let empty = TemplateError::new(TemplateErrorKind::EmptyExpression, open);
    let first = body.chars().next().ok_or_else(|| empty.clone())?;
    let operator = match first {
        '+' => Some(Operator::Reserved),
        '#' => Some(Operator::Fragment),
        '/' => Some(Operator::Path),
        '?' => Some(Operator::Query),
        '&' => Some(Operator::Continuation),
        '.' | ';' | '=' | ',' | '!' | '@' | '|' => {
            return Err(TemplateError::new(
                TemplateErrorKind::UnsupportedOperator(first),
                open + 1,
            ));
        }
        _ => None,
    };
    let (operator, list, list_offset) = match operator {
        Some(op) => (op, body.get(1..).unwrap_or_default(), open + 2),
        None => (Operator::Simple, body, open + 1),
    };
    if list.is_empty() {
        return Err(empty);
    }
    let mut variables = Vec::new();
    let mut offset = list_offset;
    for spec in list.split(',') {
        variables.push(parse_varspec(spec, offset, seen)?);
        offset += spec.len() + 1;
    }
    if variables.len() > 1 && matches!(operator, Operator::Reserved | Operator::Fragment) {
        return Err(TemplateError::new(
            TemplateErrorKind::MultipleVariables,
            open,
        ));
    }
    Ok(Part::Expression {
        operator,
        variables,
    })
}

/// Parses one `name` of a variable list starting at `offset`, refusing
/// modifiers and names already used.
fn parse_varspec(
    spec: &str,
    offset: usize,
    seen: &mut Vec<String>,
) -> Result<String, TemplateError> {
    if let Some(at) = spec.find(':') {
        return Err(TemplateError::new(
            TemplateErrorKind::PrefixModifier,
            offset + at,
        ));
    }
    if let Some(at) = spec.find('*') {
        return Err(TemplateError::new(
            TemplateErrorKind::ExplodeModifier,
            offset + at,
        ));
    }
    if !is_varname(spec) {
        return Err(TemplateError::new(
            TemplateErrorKind::InvalidVariableName,
            offset,
        ));
    }
    if seen.iter().any(|name| name == spec) {
        return Err(TemplateError::new(
            TemplateErrorKind::DuplicateVariable(spec.to_owned()),
            offset,
        ));
    }
    seen.push(spec.to_owned());
    Ok(spec.to_owned())
}

/// `varchar *( ["."] varchar )` with `varchar = ALPHA / DIGIT / "_" /
/// pct-encoded`.
fn is_varname(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mut i = 0;
    let mut after_dot = true;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'%' if is_pct_triplet(bytes, i) => {
                after_dot = false;
                i += 3;
            }
            b'.' if !after_dot => {
                after_dot = true;
                i += 1;
            }
            b if b.is_ascii_alphanumeric() || b == b'_' => {
                after_dot = false;
                i += 1;
            }
            _ => return false,
        }
    }
    !after_dot
}

/// Whether `bytes[at..]` starts with `%` and two hexadecimal digits.
pub(crate) fn is_pct_triplet(bytes: &[u8], at: usize) -> bool {
    bytes.get(at) == Some(&b'%')
        && bytes.get(at + 1).is_some_and(u8::is_ascii_hexdigit)
        && bytes.get(at + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// Characters allowed outside braces: anything but controls, space and
/// `" ' % < > \ ^ ` { | }` (`%` only as part of a percent-encoded byte).
fn is_literal_char(c: char) -> bool {
    !(c.is_control()
        || matches!(
            c,
            ' ' | '"' | '\'' | '%' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}'
        ))
}
