//! `#[resource]`, `#[resources]` and `resource_set!` at run time:
//! definitions, matching order, `resources/read` answers and errors, and
//! schema validity.

mod prompt_resource_support;

use mcp_server::resource::{
    IntoResourceResult, ResourceDefinition, ResourceHandler, ResourceList, ResourceListError,
    ResourceOutput, ResourceSet,
};
use mcp_server::types::v2026_07_28::{
    BlobResourceContents, ReadResourceResult, ReadResourceResultContentsItem, TextResourceContents,
};
use mcp_server::{resource, resource_set, resources, Context, ErrorObject};
use prompt_resource_support::{assert_valid, block_on, cx};
use serde_json::json;

/// How to use the notes server.
#[resource("notes://readme", title = "Read me", mime_type = "text/markdown")]
fn readme() -> &'static str {
    "# Notes\nRead notes with `notes://{folder}/{id}`."
}

/// One note, by folder and number.
#[resource(
    uri = "notes://{folder}/{id}{?rev}",
    name = "note",
    mime_type = "text/plain"
)]
async fn note(folder: String, id: u32, rev: Option<String>) -> Result<String, ErrorObject> {
    if folder == "secret" {
        return Err(ErrorObject::invalid_params("that folder is private"));
    }
    Ok(format!(
        "{folder}#{id} at {}",
        rev.as_deref().unwrap_or("latest")
    ))
}

/// Any file below the root, as bytes.
#[resource("files:///{+path}", icons = ["https://example.com/file.png"])]
fn file(cx: &Context, path: String) -> BlobResourceContents {
    BlobResourceContents {
        meta: None,
        blob: "AAEC".into(),
        mime_type: Some("application/octet-stream".into()),
        uri: format!("files:///{path}?by={}", cx.principal().unwrap_or("anyone")),
        extra: Default::default(),
    }
}

/// A folder listing: several entries.
#[resource("notes://{folder}")]
fn folder(folder: String) -> Vec<TextResourceContents> {
    (1..=2)
        .map(|i| TextResourceContents {
            meta: None,
            mime_type: None,
            text: format!("note {i}"),
            uri: format!("notes://{folder}/{i}"),
            extra: Default::default(),
        })
        .collect()
}

struct Server;

fn read(
    set: &impl ResourceSet<Server>,
    uri: &str,
    cx: &Context,
) -> Option<Result<ResourceOutput, ErrorObject>> {
    set.read_resource(uri, &Server, cx).map(block_on)
}

fn contents(output: &ResourceOutput) -> &ReadResourceResult {
    match output {
        ResourceOutput::Complete(result) => result,
        other => panic!("expected contents, got {other:?}"),
    }
}

fn text(item: &ReadResourceResultContentsItem) -> (&str, &str, Option<&str>) {
    match item {
        ReadResourceResultContentsItem::Text(t) => {
            (t.uri.as_str(), t.text.as_str(), t.mime_type.as_deref())
        }
        ReadResourceResultContentsItem::Blob(b) => {
            (b.uri.as_str(), b.blob.as_str(), b.mime_type.as_deref())
        }
    }
}

fn set() -> ResourceList<Server> {
    resource_set![readme, note, file, folder]
}

#[test]
fn definitions_say_resource_or_template() {
    let ResourceDefinition::Resource(readme_def) =
        ResourceHandler::<Server>::definition(&readme {})
    else {
        panic!("a fixed URI is a resource");
    };
    assert_eq!(
        serde_json::to_value(&readme_def).unwrap(),
        json!({
            "uri": "notes://readme",
            "name": "readme",
            "title": "Read me",
            "description": "How to use the notes server.",
            "mimeType": "text/markdown"
        })
    );
    let ResourceDefinition::Template(note_def) = ResourceHandler::<Server>::definition(&note {})
    else {
        panic!("a URI with variables is a template");
    };
    assert_eq!(note_def.uri_template, "notes://{folder}/{id}{?rev}");
    assert_eq!(note_def.name, "note");
    let set = set();
    assert_eq!(set.resources().len(), 1);
    let templates: Vec<String> = set
        .resource_templates()
        .into_iter()
        .map(|t| t.uri_template)
        .collect();
    assert_eq!(
        templates,
        [
            "notes://{folder}/{id}{?rev}",
            "files:///{+path}",
            "notes://{folder}"
        ]
    );
}

#[test]
fn every_definition_validates_against_the_schema() {
    let set = set();
    let journal = Journal::default();
    let mut resources = set.resources();
    resources.extend(journal.resources());
    let mut templates = set.resource_templates();
    templates.extend(journal.resource_templates());
    assert_eq!((resources.len(), templates.len()), (2, 6));
    for resource in &resources {
        assert_valid("Resource", resource);
    }
    for template in &templates {
        assert_valid("ResourceTemplate", template);
    }
}

#[test]
fn reads_fixed_resources_and_fills_the_declared_mime_type() {
    let out = read(&set(), "notes://readme", &cx("resources/read"))
        .expect("known")
        .unwrap();
    let result = contents(&out);
    assert_eq!(result.result_type.as_deref(), Some("complete"));
    assert_eq!(result.contents.len(), 1);
    let (uri, body, mime) = text(&result.contents[0]);
    assert_eq!((uri, mime), ("notes://readme", Some("text/markdown")));
    assert!(body.starts_with("# Notes"));
    assert_valid("ReadResourceResult", result);
}

#[test]
fn reads_templates_with_decoded_and_parsed_variables() {
    let cx = cx("resources/read");
    let out = read(&set(), "notes://work%20stuff/42?rev=v%2F2", &cx)
        .expect("matches")
        .unwrap();
    let (uri, body, mime) = text(&contents(&out).contents[0]);
    assert_eq!(body, "work stuff#42 at v/2");
    assert_eq!(
        (uri, mime),
        ("notes://work%20stuff/42?rev=v%2F2", Some("text/plain"))
    );
    assert_valid("ReadResourceResult", contents(&out));

    let out = read(&set(), "notes://team/7", &cx).unwrap().unwrap();
    assert_eq!(text(&contents(&out).contents[0]).1, "team#7 at latest");

    // A variable that does not parse is -32602 naming it.
    let error = read(&set(), "notes://team/seven", &cx)
        .unwrap()
        .unwrap_err();
    assert_eq!(error.code, -32602);
    assert!(error.message.contains("`id`"), "{}", error.message);
    // Errors of the function pass through.
    let error = read(&set(), "notes://secret/1", &cx).unwrap().unwrap_err();
    assert_eq!(error, ErrorObject::invalid_params("that folder is private"));
}

#[test]
fn unknown_and_traversing_uris_are_not_found() {
    let cx = cx("resources/read");
    for uri in [
        "notes://",
        "other://readme",
        "notes://a/b/c",
        "files:///../etc/passwd",
        "notes://%2E%2E",
        "files:///a/%2e%2e/b",
    ] {
        assert!(read(&set(), uri, &cx).is_none(), "{uri}");
    }
    // What the router answers in that case.
    let error = ErrorObject::resource_not_found("notes://nope");
    assert_eq!(
        (error.code, error.data),
        (-32602, Some(json!({ "uri": "notes://nope" })))
    );
}

#[test]
fn blobs_lists_and_the_context() {
    let cx = cx("resources/read").with_principal("ada");
    let out = read(&set(), "files:///src/lib.rs", &cx).unwrap().unwrap();
    let result = contents(&out);
    assert_eq!(
        text(&result.contents[0]),
        (
            "files:///src/lib.rs?by=ada",
            "AAEC",
            Some("application/octet-stream")
        )
    );
    assert_valid("ReadResourceResult", result);

    let out = read(&set(), "notes://inbox", &cx).unwrap().unwrap();
    let result = contents(&out);
    let entries: Vec<_> = result.contents.iter().map(text).collect();
    assert_eq!(
        entries,
        [
            ("notes://inbox/1", "note 1", None),
            ("notes://inbox/2", "note 2", None)
        ]
    );
    assert_valid("ReadResourceResult", result);
}

/// A server whose resources read its own state.
#[derive(Default)]
struct Journal {
    entries: Vec<String>,
}

#[resources]
impl Journal {
    /// All entries.
    #[resource("journal://entries/all", mime_type = "text/plain")]
    fn all(&self) -> String {
        self.entries.join("\n")
    }

    /// One entry by position (also matches `all`, which wins as an exact URI).
    #[resource("journal://entries/{index}")]
    fn entry(&self, index: usize) -> Result<String, ErrorObject> {
        self.entries
            .get(index)
            .cloned()
            .ok_or_else(|| ErrorObject::resource_not_found(&format!("journal://entries/{index}")))
    }

    /// Searches, asynchronously; every query variable is optional.
    #[resource("journal://search{?q,limit}")]
    async fn search(&self, q: Option<String>, limit: Option<usize>) -> Vec<String> {
        let q = q.unwrap_or_default();
        self.entries
            .iter()
            .filter(|e| e.contains(&q))
            .take(limit.unwrap_or(usize::MAX))
            .cloned()
            .collect()
    }

    /// Declared after `entry`, so never reached for `journal://entries/...`.
    #[resource("journal://{section}/{item}")]
    fn section(section: String, item: String) -> String {
        format!("{section}/{item}")
    }
}

#[test]
fn an_impl_block_is_its_own_resource_set_exact_first_then_templates_in_order() {
    let journal = Journal {
        entries: vec!["rain".into(), "sun".into(), "more rain".into()],
    };
    let cx = cx("resources/read");
    let read = |uri: &str| journal.read_resource(uri, &journal, &cx).map(block_on);
    let body = |uri: &str| {
        text(&contents(&read(uri).unwrap().unwrap()).contents[0])
            .1
            .to_owned()
    };
    assert_eq!(body("journal://entries/all"), "rain\nsun\nmore rain");
    assert_eq!(body("journal://entries/1"), "sun");
    assert_eq!(body("journal://other/x"), "other/x");
    let error = read("journal://entries/9").unwrap().unwrap_err();
    assert!(error.is_resource_not_found());
    let out = read("journal://search?q=rain&limit=1").unwrap().unwrap();
    assert_eq!(contents(&out).contents.len(), 1);
    let out = read("journal://search").unwrap().unwrap();
    assert_eq!(contents(&out).contents.len(), 3);
    assert!(read("journal://search?unknown=1").is_none());
    assert!(read("diary://entries/1").is_none());
    let fixed: Vec<String> = journal.resources().into_iter().map(|r| r.uri).collect();
    assert_eq!(fixed, ["journal://entries/all"]);
}

#[test]
fn composed_sets_try_every_exact_uri_before_any_template() {
    /// Shadows nothing by itself, but its template would match the readme.
    #[resource("notes://{name}")]
    fn anything(name: String) -> String {
        format!("template saw {name}")
    }
    let cx = cx("resources/read");
    let combined = (resource_set![anything], set());
    let out = block_on(
        combined
            .read_resource("notes://readme", &Server, &cx)
            .unwrap(),
    )
    .unwrap();
    assert!(text(&contents(&out).contents[0]).1.starts_with("# Notes"));
    let out = block_on(
        combined
            .read_resource("notes://other", &Server, &cx)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(text(&contents(&out).contents[0]).1, "template saw other");
    assert!(ResourceSet::<Server>::resources(&()).is_empty());
}

#[test]
fn resource_list_refuses_duplicates_and_shadowed_templates() {
    /// Same shape as `folder`, other variable name.
    #[resource("notes://{other}")]
    fn shadow(other: String) -> String {
        other
    }
    let mut list = ResourceList::<Server>::new();
    list.push(readme {}).unwrap().push(folder {}).unwrap();
    assert_eq!(
        list.push(readme {}).unwrap_err(),
        ResourceListError::Duplicate("notes://readme".into())
    );
    assert_eq!(
        list.push(shadow {}).unwrap_err(),
        ResourceListError::Duplicate("notes://{other}".into())
    );
    assert_eq!(list.len(), 2);
    assert_eq!(
        format!("{list:?}"),
        r#"["notes://readme", "notes://{folder}"]"#
    );
}

#[test]
fn conversions_fill_in_the_result_type_and_the_uri() {
    let from_string = "hi".to_owned().into_resource_result("x://a").unwrap();
    let from_str = "hi".into_resource_result("x://a").unwrap();
    assert_eq!(from_string, from_str);
    let result = contents(&from_string);
    assert_eq!(result.result_type.as_deref(), Some("complete"));
    assert_eq!(
        serde_json::to_value(result).unwrap()["cacheScope"],
        "private"
    );
    assert_eq!(result.ttl_ms, Some(0));
    let public = ReadResourceResult {
        cache_scope: Some(mcp_server::types::v2026_07_28::CacheScope::Public),
        ttl_ms: Some(60_000),
        ..result.clone()
    };
    let kept = public.clone().into_resource_result("x://a").unwrap();
    assert_eq!(contents(&kept), &public);
    assert_eq!(text(&result.contents[0]), ("x://a", "hi", None));
    let vec = vec!["a", "b"].into_resource_result("x://a").unwrap();
    assert_eq!(contents(&vec).contents.len(), 2);
    let error: Result<String, ErrorObject> = Err(ErrorObject::internal_error("disk"));
    assert_eq!(
        error.into_resource_result("x://a").unwrap_err().code,
        -32603
    );
}
