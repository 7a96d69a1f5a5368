//! URI templates: what parses, how URIs match, expansion, and properties
//! over arbitrary input.

use std::collections::BTreeMap;

use mcp_server::uri_template::{TemplateErrorKind, UriTemplate, MAX_TEMPLATE_LEN, MAX_URI_LEN};
use proptest::prelude::*;

fn t(source: &str) -> UriTemplate {
    UriTemplate::parse(source).unwrap_or_else(|e| panic!("{source}: {e}"))
}

fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn refused(source: &str) -> (TemplateErrorKind, usize) {
    let error = UriTemplate::parse(source).expect_err(source);
    (error.kind().clone(), error.offset())
}

#[test]
fn reads_the_supported_forms() {
    let template = t("repo://{owner}/{+path}{/a,b}{?q,page}{&x}{#frag}");
    assert_eq!(
        template.variables().collect::<Vec<_>>(),
        ["owner", "path", "a", "b", "q", "page", "x", "frag"]
    );
    assert_eq!(
        template.optional_variables().collect::<Vec<_>>(),
        ["q", "page", "x"]
    );
    assert_eq!(template.scheme(), Some("repo"));
    assert!(!template.is_fixed());
    assert_eq!(
        template.to_string(),
        "repo://{owner}/{+path}{/a,b}{?q,page}{&x}{#frag}"
    );

    let fixed = t("config://app/settings%20v2");
    assert!(fixed.is_fixed());
    assert_eq!(fixed.variables().count(), 0);
    assert_eq!(t("{+base}/x").scheme(), None);
    assert_eq!(t("1abc://x").scheme(), None);
    assert_eq!("notes://{id}".parse::<UriTemplate>(), Ok(t("notes://{id}")));
}

#[test]
fn refuses_what_it_cannot_match_back_and_says_where() {
    use TemplateErrorKind::*;
    assert_eq!(refused("notes://{id"), (UnclosedExpression, 8));
    assert_eq!(refused("notes://{a{b}"), (UnclosedExpression, 8));
    assert_eq!(refused("notes://id}"), (UnmatchedClose, 10));
    assert_eq!(refused("notes://{}"), (EmptyExpression, 8));
    assert_eq!(refused("notes://{?}"), (EmptyExpression, 8));
    assert_eq!(refused("notes://{a-b}"), (InvalidVariableName, 9));
    assert_eq!(refused("notes://{a,}"), (InvalidVariableName, 11));
    assert_eq!(refused("notes://{.a}"), (UnsupportedOperator('.'), 9));
    assert_eq!(refused("notes://{;a}"), (UnsupportedOperator(';'), 9));
    assert_eq!(refused("notes://{!a}"), (UnsupportedOperator('!'), 9));
    assert_eq!(refused("notes://{id:3}"), (PrefixModifier, 11));
    assert_eq!(refused("notes://{/ids*}"), (ExplodeModifier, 13));
    assert_eq!(refused("notes://{+a,b}"), (MultipleVariables, 8));
    assert_eq!(
        refused("notes://{a}/{a}"),
        (DuplicateVariable("a".into()), 13)
    );
    assert_eq!(refused("notes://{a}{b}"), (AdjacentExpressions, 11));
    assert_eq!(refused("notes://{a}{+b}"), (AdjacentExpressions, 11));
    assert_eq!(refused("notes://a b"), (InvalidCharacter(' '), 9));
    assert_eq!(refused("notes://a\u{85}"), (InvalidCharacter('\u{85}'), 9));
    assert_eq!(refused("notes://100%"), (InvalidPercentEncoding, 11));
    assert_eq!(refused("notes://%G0"), (InvalidPercentEncoding, 8));
    // Dotted and percent-encoded names are valid RFC 6570 names.
    assert_eq!(
        t("x://{a.b}/{c%20d}").variables().collect::<Vec<_>>(),
        ["a.b", "c%20d"]
    );
    // An expression may follow another one when its operator marks the start.
    t("x://{a}{/b}{?c}{&d}{#e}");
    let long = format!("x://{}", "a".repeat(MAX_TEMPLATE_LEN));
    assert_eq!(refused(&long), (TooLong, MAX_TEMPLATE_LEN));
    t(&format!("x://{}", "a".repeat(MAX_TEMPLATE_LEN - 4)));
    assert!(UriTemplate::parse("x://{a}{b}")
        .unwrap_err()
        .to_string()
        .contains("byte 7"));
}

#[test]
fn matches_level_one_and_decodes() {
    let template = t("notes://{folder}/{id}");
    assert_eq!(
        template.matches("notes://team/Q3%20plan%2Fdraft"),
        Some(vars(&[("folder", "team"), ("id", "Q3 plan/draft")]))
    );
    assert_eq!(
        template.matches("notes://caf%C3%A9/n\u{f8}tes"),
        Some(vars(&[("folder", "café"), ("id", "nøtes")]))
    );
    // Unencoded reserved characters are not part of a `{var}` value.
    assert_eq!(template.matches("notes://team/a/b"), None);
    assert_eq!(template.matches("notes://team/a?b"), None);
    // Required values are not empty; literals must be there.
    assert_eq!(template.matches("notes://team/"), None);
    assert_eq!(template.matches("notes:/team/x"), None);
    assert_eq!(template.matches("other://team/x"), None);
    // Broken or non-UTF-8 percent-encoding does not match.
    assert_eq!(template.matches("notes://team/%zz"), None);
    assert_eq!(template.matches("notes://team/%FF"), None);
    // Several variables in one expression.
    assert_eq!(
        t("pt://{x,y}").matches("pt://1024,768"),
        Some(vars(&[("x", "1024"), ("y", "768")]))
    );
    assert_eq!(t("pt://{x,y}").matches("pt://1024"), None);
}

#[test]
fn refuses_traversal_however_it_is_spelled() {
    let simple = t("file:///docs/{name}");
    for uri in [
        "file:///docs/%2E%2E",
        "file:///docs/..",
        "file:///docs/%2e%2E%2Fetc",
        "file:///docs/x%2F..%2Fy",
        "file:///docs/..%5Cwindows",
        "file:///docs/a%00b",
    ] {
        assert_eq!(simple.matches(uri), None, "{uri}");
    }
    assert!(simple.matches("file:///docs/...").is_some());
    assert!(simple.matches("file:///docs/..a").is_some());

    let reserved = t("file:///{+path}");
    for uri in [
        "file:///../etc/passwd",
        "file:///a/../../b",
        "file:///a/%2e%2e/b",
        "file:///a/..",
    ] {
        assert_eq!(reserved.matches(uri), None, "{uri}");
    }
    assert_eq!(
        reserved.matches("file:///src/lib.rs"),
        Some(vars(&[("path", "src/lib.rs")]))
    );
    assert_eq!(t("p://x{/seg}").matches("p://x/.."), None);
    // Query values are not paths.
    assert_eq!(
        t("s://find{?q}").matches("s://find?q=.."),
        Some(vars(&[("q", "..")]))
    );
}

#[test]
fn matches_the_other_operators() {
    assert_eq!(
        t("files:///{+path}").matches("files:///a/b%20c.md?x#y"),
        Some(vars(&[("path", "a/b c.md?x#y")]))
    );
    assert_eq!(
        t("doc://{id}{#section}").matches("doc://intro#part-2/a"),
        Some(vars(&[("id", "intro"), ("section", "part-2/a")]))
    );
    assert_eq!(t("doc://{id}{#section}").matches("doc://intro"), None);
    assert_eq!(
        t("repo://x{/owner,name}").matches("repo://x/mcp/toolkit"),
        Some(vars(&[("owner", "mcp"), ("name", "toolkit")]))
    );
    assert_eq!(t("repo://x{/owner,name}").matches("repo://x/mcp"), None);
    assert_eq!(t("repo://x{/owner,name}").matches("repo://x/mcp/a/b"), None);
}

#[test]
fn a_value_matches_only_as_expansion_writes_it() {
    // `%7E` is `~`, which expansion writes as it is: no value is written so.
    assert_eq!(t("notes://{id}").matches("notes://a%7Eb"), None);
    assert_eq!(
        t("notes://{id}").matches("notes://a~b%2fc"),
        Some(vars(&[("id", "a~b/c")]))
    );
    // A reserved expansion writes `/` and `!` as they are, and keeps a `%`
    // before two hex digits.
    let path = t("files:///{+path}");
    assert_eq!(path.matches("files:///a%2Fb"), None);
    assert_eq!(path.matches("files:///a%21"), None);
    assert_eq!(path.matches("files:///a%2541"), None);
    assert_eq!(
        path.matches("files:///a%25zz%5C"),
        Some(vars(&[("path", "a%zz\\")]))
    );
    // Found by fuzzing: the literal `a%21%3A` also stands inside the
    // encoded `id`; the split whose values expand back wins.
    let template = t("te//{id}a%21%3A{+a}");
    let uri = "te//%28r%2FpFa%21%3A%5Ca%21%3Ax";
    let values = template.matches(uri).expect("matches");
    assert_eq!(values, vars(&[("a", "x"), ("id", "(r/pFa!:\\")]));
    assert_eq!(template.expand(&values), uri);
}

#[test]
fn query_pairs_are_optional_unordered_and_known() {
    let template = t("search://items{?q,limit}{&page}");
    assert_eq!(template.matches("search://items"), Some(vars(&[])));
    assert_eq!(
        template.matches("search://items?limit=5&q=red%20shoes"),
        Some(vars(&[("q", "red shoes"), ("limit", "5")]))
    );
    assert_eq!(
        template.matches("search://items?q=&page=2"),
        Some(vars(&[("q", ""), ("page", "2")]))
    );
    assert_eq!(
        template.matches("search://items&page=2"),
        Some(vars(&[("page", "2")]))
    );
    assert_eq!(template.matches("search://items?q=a&q=b"), None);
    assert_eq!(template.matches("search://items?other=1"), None);
    assert_eq!(template.matches("search://items?q"), None);
    assert_eq!(template.matches("search://items?q=a b"), None);
}

#[test]
fn the_earliest_split_that_fits_wins() {
    assert_eq!(
        t("doc://{name}.{ext}").matches("doc://archive.tar.gz"),
        Some(vars(&[("name", "archive"), ("ext", "tar.gz")]))
    );
    assert_eq!(
        t("doc://{+base}/{file}").matches("doc://a/b/c"),
        Some(vars(&[("base", "a/b"), ("file", "c")]))
    );
    // A reserved value stops where a following query can start.
    assert_eq!(
        t("files:///{+path}{?rev}").matches("files:///a/b?rev=3"),
        Some(vars(&[("path", "a/b"), ("rev", "3")]))
    );
    assert_eq!(
        t("files:///{+path}{?rev}").matches("files:///a/b?x"),
        Some(vars(&[("path", "a/b?x")]))
    );
}

#[test]
fn long_uris_never_match() {
    let template = t("x:{+rest}");
    let long = format!("x:{}", "a".repeat(MAX_URI_LEN));
    assert_eq!(template.matches(&long), None);
    let fits = format!("x:{}", "a".repeat(MAX_URI_LEN - 2));
    assert!(template.matches(&fits).is_some());
}

#[test]
fn adversarial_backtracking_stays_fast() {
    let template = t("x:{+a}/{+b}/{+c}/{+d}!");
    let uri = format!("x:{}", "/".repeat(MAX_URI_LEN - 2));
    let started = std::time::Instant::now();
    assert_eq!(template.matches(&uri), None);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn expands_like_rfc_6570() {
    let values = vars(&[
        ("var", "value"),
        ("hello", "Hello World!"),
        ("path", "/foo/bar"),
        ("x", "1024"),
        ("y", "768"),
        ("empty", ""),
        ("pct", "50%25 off"),
    ]);
    let cases = [
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("{#var}", "#value"),
        ("{#hello}", "#Hello%20World!"),
        ("X{/var}", "X/value"),
        ("X{/var,x}/here", "X/value/1024/here"),
        ("{x,y}", "1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("X{?x,y}", "X?x=1024&y=768"),
        ("X{?x,empty}", "X?x=1024&empty="),
        ("X{?x,undefined}", "X?x=1024"),
        ("X{?undefined}", "X"),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("X{undefined}Y", "XY"),
        ("{+pct}", "50%25%20off"),
        ("{pct}", "50%2525%20off"),
        ("{hello}", "Hello%20World%21"),
        ("caf%C3%A9/{var}", "caf%C3%A9/value"),
    ];
    for (template, expected) in cases {
        assert_eq!(t(template).expand(&values), expected, "{template}");
    }
    assert_eq!(t("n://{v}").expand(&vars(&[("v", "é")])), "n://%C3%A9");
}

/// Values a non-query variable can round-trip: not empty, no NUL, no `..`
/// segment.
fn path_value() -> impl Strategy<Value = String> {
    any::<String>().prop_filter("a value that matching keeps", |v| {
        !v.is_empty() && !v.contains('\0') && !v.split(['/', '\\']).any(|s| s == "..")
    })
}

/// Values for `{+var}` and `{#var}`, which keep `%` sequences as they are.
fn reserved_value() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9/:@!$&'()*+,;=._~ é\\[\\]-]{1,24}".prop_filter("no `..` segment", |v| {
        !v.split(['/', '\\']).any(|s| s == "..")
    })
}

fn query_value() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(any::<String>().prop_filter("no NUL", |v| !v.contains('\0')))
}

fn with_optional(
    mut map: BTreeMap<String, String>,
    optional: &[(&str, Option<String>)],
) -> BTreeMap<String, String> {
    for (name, value) in optional {
        if let Some(value) = value {
            map.insert((*name).to_owned(), value.clone());
        }
    }
    map
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn simple_values_round_trip(id in path_value()) {
        let template = t("notes://{id}");
        let values = vars(&[("id", &id)]);
        prop_assert_eq!(template.matches(&template.expand(&values)), Some(values));
    }

    #[test]
    fn mixed_templates_round_trip(
        owner in path_value(),
        name in path_value(),
        branch in path_value(),
        path in query_value(),
        plain in query_value(),
        page in query_value(),
    ) {
        let template = t("repo://{owner}/{name}/tree{/branch}{?path,plain}{&page}");
        let values = with_optional(
            vars(&[("owner", &owner), ("name", &name), ("branch", &branch)]),
            &[("path", path), ("plain", plain), ("page", page)],
        );
        prop_assert_eq!(template.matches(&template.expand(&values)), Some(values));
    }

    #[test]
    fn reserved_values_round_trip(path in reserved_value(), a in path_value(), b in path_value(), frag in reserved_value()) {
        let files = t("files:///{+path}");
        let values = vars(&[("path", &path)]);
        prop_assert_eq!(files.matches(&files.expand(&values)), Some(values));

        let pair = t("pair://{a,b}/x{#frag}");
        let values = vars(&[("a", &a), ("b", &b), ("frag", &frag)]);
        prop_assert_eq!(pair.matches(&pair.expand(&values)), Some(values));
    }

    #[test]
    fn dotted_names_split_at_the_first_dot(
        name in "[a-z0-9_~-]{1,12}",
        ext in "[a-z0-9.]{1,12}".prop_filter("`..` is refused", |e| e != ".."),
    ) {
        let template = t("doc://{name}.{ext}");
        let values = vars(&[("name", &name), ("ext", &ext)]);
        prop_assert_eq!(template.matches(&template.expand(&values)), Some(values));
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(text in any::<String>()) {
        let _ = UriTemplate::parse(&text);
    }

    #[test]
    fn matching_and_expanding_never_panic(
        template in "[a-z:/{}+#?&,.=%0-9A-F*;é ]{0,32}",
        uri in "[a-z:/?&=#.%0-9A-F,+é ]{0,48}",
        other_uri in any::<String>(),
        value in any::<String>(),
    ) {
        if let Ok(template) = UriTemplate::parse(&template) {
            let _ = template.matches(&uri);
            let _ = template.matches(&other_uri);
            let values: BTreeMap<String, String> = template
                .variables()
                .map(|name| (name.to_owned(), value.clone()))
                .collect();
            let expanded = template.expand(&values);
            // Whatever matches, expanding the match gives a URI that matches too.
            if let Some(found) = template.matches(&expanded) {
                prop_assert!(template.matches(&template.expand(&found)).is_some());
            }
        }
    }
}
