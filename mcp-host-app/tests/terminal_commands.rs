//! The `mcp-host` command at a pseudo-terminal, where a person reads what
//! went wrong: a server missing from the configuration, a server that
//! failed to start, a tool the server does not have, arguments that do
//! not fit, and servers that are down while listing; and the prompt and
//! resource commands.
//!
//! Each command runs in a session of its own whose controlling terminal is
//! the pseudo-terminal, as a shell would start it (see `common::pty`).

mod common;

use std::path::Path;

use common::pty::{first_json, printed_result, Pty, ENTER};
use common::{config_file, everything, example_entry, notes, scripted_entry, Scratch};
use serde_json::{json, Value};

/// A configuration file of `entries`, named after `name`.
fn config(name: &str, entries: Value) -> Scratch {
    Scratch(config_file(&format!("commands-{name}"), entries))
}

/// The `everything` example as `local`, and the scripted server that
/// exits at once as `bad`.
fn with_a_broken_server(name: &str) -> Scratch {
    config(
        name,
        json!({
            "local": example_entry(everything()),
            "bad": scripted_entry("exits", json!({})),
        }),
    )
}

/// Runs `args` at a terminal to its end; whether it succeeded, and the
/// screen.
fn run(config: &Path, args: &[&str]) -> (bool, String, Pty) {
    let mut pty = Pty::spawn(config, args, None);
    let (status, screen) = pty.finish();
    (status.success(), screen, pty)
}

#[test]
fn a_server_missing_from_the_configuration_is_named_with_those_there_are() {
    let config = with_a_broken_server("missing");
    let (ok, screen, _) = run(&config.0, &["call", "nope__search"]);
    assert!(!ok, "{screen}");
    assert!(
        screen.contains(
            "mcp-host: no server `nope` in the configuration; \
             the configured servers are `bad`, `local`"
        ),
        "{screen}"
    );
}

#[test]
fn a_server_that_failed_to_start_shows_its_command_exit_status_and_stderr() {
    let config = with_a_broken_server("failed");
    let (ok, screen, _) = run(&config.0, &["call", "bad__anything", "--yes"]);
    assert!(!ok, "{screen}");
    assert!(
        screen.contains("mcp-host: server `bad` is not running: `python3 "),
        "{screen}"
    );
    assert!(
        screen.contains(
            "server.py exits` exited with status 3 before it answered; \
             the last lines of its stderr [untrusted, from server `bad`]:\n"
        ),
        "{screen}"
    );
    // The last ten lines, indented, and nothing before them.
    assert!(
        screen.contains("    starting step 22\n")
            && screen.contains("    starting step 30\n    fatal: no database\n"),
        "{screen}"
    );
    assert!(!screen.contains("starting step 21"), "{screen}");
}

#[test]
fn a_program_that_cannot_run_is_named() {
    let config = config(
        "no-program",
        json!({"gone": {"command": "mcp-host-test-no-such-program", "args": ["--stdio"]}}),
    );
    let (ok, screen, _) = run(&config.0, &["servers"]);
    assert!(!ok, "{screen}");
    assert!(
        screen.contains("could not start `mcp-host-test-no-such-program --stdio`: "),
        "{screen}"
    );
}

#[test]
fn a_tool_the_server_does_not_have_gets_the_closest_names() {
    let config = with_a_broken_server("closest");
    let (ok, screen, _) = run(&config.0, &["call", "local__test_simple_txt", "--yes"]);
    assert!(!ok, "{screen}");
    assert!(
        screen.contains(
            "mcp-host: server `local` has no tool `test_simple_txt`; the closest tools it has \
             [untrusted, from server `local`]: `test_simple_text`"
        ),
        "{screen}"
    );
}

#[test]
fn the_closest_names_of_a_hostile_server_are_shown_as_text() {
    let config = config(
        "hostile",
        json!({"scripted": scripted_entry("hostile", json!({}))}),
    );
    let (ok, screen, pty) = run(&config.0, &["call", "scripted__flak"]);
    assert!(!ok, "{screen}");
    assert!(
        screen.contains("`flaky\\u{1b}]0;owned\\u{7}\\u{202e}`"),
        "{screen}"
    );
    // Neither the escape sequence nor the override reached the terminal.
    let raw = String::from_utf8_lossy(&pty.raw);
    assert!(!raw.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{raw:?}");
}

#[test]
fn listing_warns_and_fails_when_a_server_is_down() {
    let config = with_a_broken_server("listing");
    for command in ["tools", "prompts", "resources"] {
        let (ok, screen, _) = run(&config.0, &[command]);
        assert!(!ok, "{command}: {screen}");
        assert!(
            screen.contains("warning: server `bad` is not running: `python3 ")
                && screen.contains("exited with status 3"),
            "{command}: {screen}"
        );
        // The servers that are up are still listed.
        assert!(
            screen.contains("\"server\": \"local\""),
            "{command}: {screen}"
        );
    }
}

#[test]
fn arguments_that_do_not_fit_are_refused_before_the_approval_question() {
    let config = config("arguments", json!({"notes": example_entry(notes())}));
    let (ok, screen, _) = run(
        &config.0,
        &["call", "notes__create_note", "--args", r#"{"title": 3}"#],
    );
    assert!(!ok, "{screen}");
    assert!(
        screen.contains(
            "mcp-host: the arguments of `notes__create_note` do not fit its input schema \
             [untrusted, from server `notes`]: `body`: \"body\" is a required property; \
             `title`: 3 is not of type \"string\""
        ),
        "{screen}"
    );
    assert!(!screen.contains("Run it?"), "{screen}");
}

#[test]
fn a_form_field_line_does_not_end_in_a_period_and_a_colon() {
    let config = config("field", json!({"notes": example_entry(notes())}));
    // A handle of the right form that names no note: the server asks to
    // confirm before it looks.
    let args = json!({"handle": format!("note_{}", "a".repeat(32))}).to_string();
    let mut pty = Pty::spawn(
        &config.0,
        &["call", "notes__delete_note", "--args", &args, "--yes"],
        None,
    );
    pty.expect("[untrusted, from server `notes`] Delete this note for good?\n");
    pty.expect("Accept (y), decline (N) or cancel (c)? ");
    pty.type_keys(&format!("y{ENTER}"));
    let line = pty.expect("delete (boolean) – Tick to delete the note for good: ");
    assert!(!line.contains(".:"), "{line}");
    pty.type_keys(&format!("y{ENTER}"));
    let (_, screen) = pty.finish();
    assert!(!screen.contains(".: "), "{screen}");
    // The server got the answer, then found no such note.
    assert_eq!(printed_result(&screen)["isError"], true, "{screen}");
}

#[test]
fn prompts_are_listed_and_got_by_qualified_name() {
    let config = config("prompts", json!({"local": example_entry(everything())}));
    let (ok, screen, _) = run(&config.0, &["prompts"]);
    assert!(ok, "{screen}");
    let listed = first_json(&screen);
    let prompt = listed
        .as_array()
        .and_then(|l| {
            l.iter()
                .find(|p| p["name"] == "local__test_prompt_with_arguments")
        })
        .unwrap_or_else(|| panic!("not listed: {screen}"));
    assert_eq!(prompt["server"], "local");
    assert_eq!(prompt["arguments"][0]["name"], "arg1");
    assert_eq!(prompt["arguments"][0]["required"], true);

    let args = r#"{"arg1": "tea", "arg2": "café"}"#;
    let (ok, screen, _) = run(
        &config.0,
        &[
            "prompt",
            "local__test_prompt_with_arguments",
            "--args",
            args,
        ],
    );
    assert!(ok, "{screen}");
    assert_eq!(
        first_json(&screen)["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='tea', arg2='café'"
    );

    let (ok, screen, _) = run(
        &config.0,
        &[
            "prompt",
            "local__test_prompt_with_arguments",
            "--args",
            r#"{"arg1": 1}"#,
        ],
    );
    assert!(!ok, "{screen}");
    assert!(
        screen.contains("--args: prompt arguments are strings, and `arg1` is 1; write it as \"1\""),
        "{screen}"
    );
}

#[test]
fn resources_and_templates_are_listed_and_read() {
    let config = config("resources", json!({"local": example_entry(everything())}));
    let (ok, screen, _) = run(&config.0, &["resources"]);
    assert!(ok, "{screen}");
    let listed = first_json(&screen);
    assert!(
        listed["resources"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["uri"] == "test://static-text")),
        "{screen}"
    );
    assert_eq!(
        listed["templates"][0]["uriTemplate"], "test://template/{id}/data",
        "{screen}"
    );
    assert_eq!(listed["templates"][0]["server"], "local");

    // From a template, the server found by its URI.
    let (ok, screen, _) = run(&config.0, &["read", "test://template/42/data"]);
    assert!(ok, "{screen}");
    let contents = &first_json(&screen)["contents"][0];
    assert_eq!(contents["uri"], "test://template/42/data");
    assert!(
        contents["text"]
            .as_str()
            .is_some_and(|t| t.contains("Data for ID: 42")),
        "{screen}"
    );

    // A listed resource, from the server named.
    let (ok, screen, _) = run(
        &config.0,
        &["read", "test://static-text", "--server", "local"],
    );
    assert!(ok, "{screen}");
    assert_eq!(
        first_json(&screen)["contents"][0]["text"],
        "This is the content of the static text resource."
    );

    let (ok, screen, _) = run(&config.0, &["read", "test://nowhere"]);
    assert!(!ok, "{screen}");
    assert!(
        screen.contains(
            "no server lists `test://nowhere` or has a resource template it matches; \
             name one with --server"
        ),
        "{screen}"
    );
}
