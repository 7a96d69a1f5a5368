//! Provider tool names, the tool selection and the search tool.

use std::collections::BTreeMap;

mod tool_lists;

use mcp_agent::names::{
    is_provider_name, search_tool_schema, select, tool_budget, CatalogueTool, LeftOut,
    ProviderNames, SearchIndex, SearchQuery, SelectionConfig, ServerRule, MAX_NAME_LEN,
    SEARCH_TOOL,
};
use mcp_agent::schema::{compile, Target};
use serde_json::json;

#[test]
fn the_name_rule() {
    let rows: &[(&str, bool)] = &[
        ("a", true),
        ("_a", true),
        ("A-b_9", true),
        ("", false),
        ("9a", false),
        ("-a", false),
        ("a.b", false),
        ("a:b", false),
        ("a b", false),
        ("é", false),
        (&"a".repeat(64), true),
        (&"a".repeat(65), false),
    ];
    for (name, valid) in rows {
        assert_eq!(is_provider_name(name), *valid, "{name:?}");
    }
}

#[test]
fn plain_when_it_fits_and_is_unique_hashed_otherwise() {
    let long = "t".repeat(70);
    let pairs: Vec<(&str, &str)> = vec![
        ("github", "search"),
        ("jira", "search"),
        ("fs", "read.file"),
        ("9lives", "x"),
        ("a", "_b"),
        ("a_", "b"),
        ("srv", long.as_str()),
        ("日本", "ツール"),
        ("s", ""),
        ("search", "tools"),
    ];
    let names = ProviderNames::build(pairs.iter().copied());
    assert_eq!(names.len(), pairs.len());
    let rows: &[(&str, &str, Option<&str>)] = &[
        ("github", "search", Some("github__search")),
        ("jira", "search", Some("jira__search")),
        ("search", "tools", Some("search__tools")),
        ("fs", "read.file", None),
        ("9lives", "x", None),
        ("a", "_b", None),
        ("a_", "b", None),
        ("srv", long.as_str(), None),
        ("日本", "ツール", None),
        ("s", "", None),
    ];
    for (server, tool, plain) in rows {
        let name = names.name(server, tool).unwrap();
        assert!(is_provider_name(name), "{name}");
        assert_ne!(name, SEARCH_TOOL);
        assert_eq!(names.resolve(name), Some((*server, *tool)));
        match plain {
            Some(p) => assert_eq!(name, *p),
            None => {
                let (_, hash) = name.rsplit_once('-').unwrap();
                assert_eq!(hash.len(), 12, "{name}");
                assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()));
            }
        }
    }
    assert_eq!(names.name("9lives", "x").unwrap().as_bytes()[0], b'_');
    assert_eq!(names.name("srv", &long).unwrap().len(), MAX_NAME_LEN);
    assert!(names
        .name("fs", "read.file")
        .unwrap()
        .starts_with("fs__read_file-"));
    assert_ne!(names.name("a", "_b"), names.name("a_", "b"));
    assert_eq!(names.name("nope", "x"), None);
    assert_eq!(names.resolve("github__nope"), None);
}

#[test]
fn names_depend_only_on_the_set() {
    let pairs = [
        ("a", "x"),
        ("a_", "_x"),
        ("b", "y.z"),
        ("b", "y_z"),
        ("c", "q"),
        ("a", "x"),
    ];
    let forward = ProviderNames::build(pairs.iter().copied());
    let mut reversed = pairs;
    reversed.reverse();
    assert_eq!(ProviderNames::build(reversed.iter().copied()), forward);
    let mut rotated = pairs;
    rotated.rotate_left(2);
    assert_eq!(ProviderNames::build(rotated.iter().copied()), forward);
    assert_eq!(forward.len(), 5, "duplicates count once");
}

#[test]
fn the_real_tool_lists_get_valid_names_that_map_back() {
    // Each list stands for one server, named by its file.
    let pairs: Vec<(String, String)> = tool_lists::lists()
        .into_iter()
        .flat_map(|list| {
            tool_lists::tools(&list)
                .into_iter()
                .map(move |(tool, _)| (list.clone(), tool))
        })
        .collect();
    let names = ProviderNames::build(pairs.iter().map(|(s, t)| (s.as_str(), t.as_str())));
    let mut plain = 0;
    for (server, tool) in &pairs {
        let name = names.name(server, tool).unwrap();
        assert!(is_provider_name(name), "{server}/{tool}: {name}");
        assert_eq!(names.resolve(name), Some((server.as_str(), tool.as_str())));
        plain += usize::from(name == format!("{server}__{tool}"));
    }
    println!("{} names, {plain} plain", names.len());
    assert!(plain > pairs.len() / 2);
}

fn tool(server: &str, tool: &str, description: &str) -> CatalogueTool {
    CatalogueTool {
        server: server.into(),
        tool: tool.into(),
        description: description.into(),
    }
}

fn pair(server: &str, tool: &str) -> (String, String) {
    (server.into(), tool.into())
}

#[test]
fn selection_follows_the_rules_in_order() {
    let catalogue = vec![
        tool("gh", "delete_repo", ""),
        tool("gh", "search_code", ""),
        tool("gh", "search_issues", ""),
        tool("gh", "list_prs", ""),
        tool("fs", "read_file", ""),
        tool("fs", "write_file", ""),
        tool("fs", "stat", ""),
    ];
    let mut servers = BTreeMap::new();
    servers.insert(
        "gh".to_owned(),
        ServerRule {
            include: vec!["search_*".into(), "list_*".into(), "delete_*".into()],
            exclude: vec!["delete_*".into()],
            limit: None,
        },
    );
    servers.insert(
        "fs".to_owned(),
        ServerRule {
            include: vec!["*_file".into()],
            exclude: vec![],
            limit: Some(1),
        },
    );
    let selection = select(
        &catalogue,
        &SelectionConfig {
            servers,
            budget: 128,
        },
    );
    assert_eq!(
        selection.offered,
        vec![
            pair("fs", "read_file"),
            pair("gh", "list_prs"),
            pair("gh", "search_code"),
            pair("gh", "search_issues")
        ]
    );
    assert_eq!(
        selection.left_out,
        vec![
            (pair("fs", "stat"), LeftOut::NotIncluded),
            (pair("fs", "write_file"), LeftOut::ServerLimit(1)),
            (
                pair("gh", "delete_repo"),
                LeftOut::Excluded("delete_*".into())
            ),
        ]
    );
    assert!(selection.search_tool, "write_file is searchable only");
}

#[test]
fn over_budget_the_servers_take_turns_and_search_finds_the_rest() {
    let mut catalogue = Vec::new();
    for i in 0..30 {
        catalogue.push(tool("big", &format!("t{i:02}"), "bulk"));
    }
    catalogue.push(tool("small", "only", "the one"));
    let config = SelectionConfig {
        servers: BTreeMap::new(),
        budget: 16,
    };
    let selection = select(&catalogue, &config);
    // 16 = the search tool + 10 places for found tools + 5 up front.
    assert!(selection.search_tool);
    assert_eq!(
        selection.offered,
        vec![
            pair("big", "t00"),
            pair("big", "t01"),
            pair("big", "t02"),
            pair("big", "t03"),
            pair("small", "only")
        ]
    );
    assert_eq!(selection.left_out.len(), 26);
    assert!(selection
        .left_out
        .iter()
        .all(|(_, why)| *why == LeftOut::OverBudget(16)));
    let mut selection = selection;
    let wanted: Vec<(String, String)> = (10..22).map(|i| pair("big", &format!("t{i}"))).collect();
    selection.promote(wanted.iter().map(|(s, t)| (s.as_str(), t.as_str())));
    selection.promote([("big", "t00"), ("nope", "x")]);
    // Room for 10: the two oldest made way.
    let found: Vec<_> = selection.found.iter().cloned().collect();
    assert_eq!(found, wanted[2..].to_vec());
    assert_eq!(selection.offered_now().count(), 15);
    assert!(selection.offered_now().count() < config.budget);
}

#[test]
fn within_budget_there_is_no_search_tool() {
    let catalogue: Vec<_> = (0..128).map(|i| tool("s", &format!("t{i}"), "")).collect();
    for target in Target::ALL {
        let selection = select(
            &catalogue,
            &SelectionConfig {
                servers: BTreeMap::new(),
                budget: tool_budget(target),
            },
        );
        assert_eq!(selection.offered.len(), 128);
        assert!(!selection.search_tool);
        assert!(selection.left_out.is_empty());
    }
}

#[test]
fn search_ranks_names_over_descriptions_and_stays_bounded() {
    let tools = vec![
        tool("fs", "read_file", "Read the contents of a file"),
        tool("fs", "readMultipleFiles", "Read several files at once"),
        tool(
            "web",
            "fetch",
            "Fetch a URL and return it as markdown, or read a page",
        ),
        tool("time", "get_current_time", "Current time in a zone"),
    ];
    let index = SearchIndex::new(&tools);
    let hits = index.search("read file", 10);
    let got: Vec<(&str, u32)> = hits.iter().map(|h| (h.tool.as_str(), h.score)).collect();
    assert_eq!(
        got,
        vec![("read_file", 6), ("readMultipleFiles", 5), ("fetch", 1)]
    );
    assert_eq!(index.search("READ", 1).len(), 1);
    assert!(index.search("zebra", 10).is_empty());
    assert!(index.search("", 10).is_empty());
    let many: Vec<_> = (0..50)
        .map(|i| tool("s", &format!("tool{i}"), "common word"))
        .collect();
    let index = SearchIndex::new(&many);
    assert_eq!(index.search("common", 1000).len(), 10);
    let hostile = "common ".repeat(100_000);
    assert_eq!(index.search(&hostile, 3).len(), 3);
}

#[test]
fn the_search_tool_is_valid_for_every_provider() {
    assert!(is_provider_name(SEARCH_TOOL));
    let schema = search_tool_schema();
    let openai = compile(&schema, Target::OpenAi).unwrap();
    assert!(openai.strict);
    assert!(openai.loss.is_empty());
    assert_eq!(openai.parameters, schema);
    let anthropic = compile(&schema, Target::Anthropic).unwrap();
    assert_eq!(anthropic.parameters, schema);
    let gemini = compile(&schema, Target::Gemini).unwrap();
    assert_eq!(
        gemini.parameters,
        json!({"type": "OBJECT", "properties": {"query": {"type": "STRING", "description": "Keywords about the tool you need."}}, "required": ["query"]})
    );
    assert_eq!(
        SearchQuery::from_arguments(&json!({"query": "read"}))
            .unwrap()
            .query,
        "read"
    );
    assert!(SearchQuery::from_arguments(&json!({"query": 5})).is_err());
    assert!(SearchQuery::from_arguments(&json!("read")).is_err());
}
