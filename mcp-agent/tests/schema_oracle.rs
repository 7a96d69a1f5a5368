//! The real tool lists of `mcp-gen/tests/tools` (and the hostile schemas
//! that compile) against the official SDKs' own schema transformers, and
//! the argument round trip through `restore`.
//!
//! The SDKs (`openai`, `google-genai`) are pinned with every dependency in
//! `tests/oracle/requirements.txt` and installed into `tests/oracle/.venv`
//! (git-ignored) the first time, and again only when the requirements
//! change; `tests/oracle/sdk_transform.py` runs their transformers on JSON
//! from stdin. A failed install fails the test and names what is missing.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

mod common;
mod tool_lists;

use mcp_agent::schema::{compile, Action, Compiled, Target};
use serde_json::{json, Value};

fn oracle_dir() -> PathBuf {
    common::venv::tests_dir("oracle")
}

/// `tests/oracle/.venv/bin/python`, with the pinned SDKs installed.
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let dir = oracle_dir();
        common::venv::Venv {
            requirements: dir.join("requirements.txt"),
            path: dir.join(".venv"),
            env: &[],
            pip_args: &[],
            needs: "",
        }
        .python()
    })
}

/// The SDK transformers' verdicts on `request` (see the driver's docs).
fn transform(request: &Value) -> Value {
    let mut child = Command::new(python())
        .arg(oracle_dir().join("sdk_transform.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the oracle driver starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(request.to_string().as_bytes())
        .expect("the request is written");
    let output = child.wait_with_output().expect("the oracle driver ends");
    assert!(
        output.status.success(),
        "sdk_transform.py failed: {}",
        output.status
    );
    serde_json::from_slice(&output.stdout).expect("the oracle answers JSON")
}

/// Every tool of every list: (list/tool, inputSchema).
fn real_tools() -> Vec<(String, Value)> {
    tool_lists::lists()
        .into_iter()
        .flat_map(|list| {
            tool_lists::tools(&list)
                .into_iter()
                .map(move |(name, schema)| (format!("{list}/{name}"), schema))
        })
        .collect()
}

/// Schemas from the hostile tests that compile, with recursion and unions.
fn hostile() -> Vec<(String, Value)> {
    let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "required": ["root"],
        "$defs": {"Node": {"type": "object", "properties": {"value": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["value"]}}});
    let list = json!({"type": "object", "properties": {"value": {"type": "integer"}, "next": {"$ref": "#"}}, "required": ["value"]});
    let union = json!({"type": "object", "properties": {"shape": {"oneOf": [
        {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
        {"type": "object", "properties": {"w": {"type": "number"}, "h": {"type": "number", "exclusiveMinimum": 0}}, "required": ["w"]}]}}});
    let mixed = json!({"type": "object", "properties": {"t": {"type": ["string", "integer", "null"]}, "c": {"const": "x"},
        "f": {"type": "string", "format": "uri", "minLength": 3}, "d": {"$ref": "#/$defs/D", "description": "inlined"}},
        "$defs": {"D": {"type": "object", "properties": {"k": {"type": "boolean"}}}}});
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/D{}", i + 1);
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}}),
        );
    }
    defs.insert("D30".into(), json!({"type": "string"}));
    let fan_out =
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs});
    vec![
        ("hostile/fan-out-of-30".into(), fan_out),
        ("hostile/tree".into(), tree),
        ("hostile/list".into(), list),
        ("hostile/union".into(), union),
        ("hostile/mixed".into(), mixed),
    ]
}

/// JSON equality with numbers compared by value (`1` is `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn real_tools_compile_for_every_target_and_are_sdk_fixpoints() {
    // The crafted `hostile` list may hold schemas that must be refused, or
    // that overrun a bound for a target that inlines; the real lists must
    // compile for every target.
    let mut refused = Vec::new();
    let tools: Vec<(String, Value)> = real_tools().into_iter().chain(hostile()).collect();
    let mut totals: BTreeMap<(bool, Target, Action), usize> = BTreeMap::new();
    let mut compiled: BTreeMap<Target, Vec<(String, Compiled)>> = BTreeMap::new();
    for (name, schema) in &tools {
        for target in Target::ALL {
            let c = match compile(schema, target) {
                Ok(c) => c,
                Err(e) if name.starts_with("hostile/") => {
                    refused.push(format!("{name} for {target:?}: {e}"));
                    continue;
                }
                Err(e) => panic!("{name} for {target:?}: {e}"),
            };
            // The lists taken from real servers, apart from the ones written
            // by hand (PROVENANCE.md).
            let real = tool_lists::REAL_SERVERS
                .iter()
                .any(|r| name.starts_with(&format!("{r}/")));
            for entry in &c.loss.entries {
                *totals.entry((real, target, entry.action)).or_default() += 1;
            }
            compiled.entry(target).or_default().push((name.clone(), c));
        }
    }
    println!("refused from the hostile list: {refused:#?}");
    println!("{} schemas; loss entries:", tools.len());
    for ((real, target, action), n) in &totals {
        let lists = if *real {
            "real servers"
        } else {
            "hand-written"
        };
        println!("  {lists}: {target:?}: {action}: {n}");
    }
    let strict: Vec<&(String, Compiled)> = compiled[&Target::OpenAi]
        .iter()
        .filter(|(_, c)| c.strict)
        .collect();
    println!(
        "  OpenAi: strict {} of {}",
        strict.len(),
        compiled[&Target::OpenAi].len()
    );
    for (name, c) in &compiled[&Target::OpenAi] {
        if !c.strict {
            assert_eq!(
                c.loss.count(Action::NotStrict),
                1,
                "{name}: a non-strict tool says why"
            );
        }
    }
    let gemini = &compiled[&Target::Gemini];
    let request = json!({
        "openai": strict.iter().map(|(_, c)| c.parameters.clone()).collect::<Vec<_>>(),
        "gemini": gemini.iter().map(|(_, c)| c.parameters.clone()).collect::<Vec<_>>(),
    });
    let reply = transform(&request);
    for (side, ours) in [
        (
            "openai",
            strict.iter().map(|(n, c)| (n, c)).collect::<Vec<_>>(),
        ),
        ("gemini", gemini.iter().map(|(n, c)| (n, c)).collect()),
    ] {
        let verdicts = reply[side].as_array().expect("one verdict per schema");
        assert_eq!(verdicts.len(), ours.len());
        for ((name, c), verdict) in ours.iter().zip(verdicts) {
            let sdk = verdict
                .get("ok")
                .unwrap_or_else(|| panic!("{side} SDK rejects {name}: {}", verdict["error"]));
            assert!(
                same(sdk, &c.parameters),
                "{side}: {name} is not a fixpoint of the SDK:\n ours {}\n sdk  {sdk}",
                c.parameters
            );
        }
    }
}

/// Arguments a strict-mode model may send for `schema` (the compiled one,
/// `root` holding its `$defs`): `null` for every nullable property, one
/// item in every array, the least value each bound allows.
fn sample(schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > 12 {
        return Value::Null;
    }
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let target = root
            .pointer(r.trim_start_matches('#'))
            .cloned()
            .unwrap_or(Value::Null);
        return sample(&target, root, depth + 1);
    }
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        if branches
            .iter()
            .any(|b| b.get("type") == Some(&json!("null")))
        {
            return Value::Null;
        }
        return sample(&branches[0], root, depth + 1);
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::Array(kinds)) if kinds.contains(&json!("null")) => return Value::Null,
        Some(Value::Array(kinds)) => kinds[0].as_str().unwrap_or("null").to_owned(),
        Some(Value::String(k)) => k.clone(),
        _ => "null".to_owned(),
    };
    let least = schema
        .get("minimum")
        .or(schema.get("exclusiveMinimum"))
        .and_then(Value::as_f64)
        .unwrap_or(1.0);
    match kind.as_str() {
        "object" => Value::Object(
            schema["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), sample(v, root, depth + 1)))
                .collect(),
        ),
        "array" => json!([sample(&schema["items"], root, depth + 1)]),
        "string" => match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => json!("2026-12-01T00:00:00Z"),
            Some("date") => json!("2026-12-01"),
            Some("email") => json!("a@example.com"),
            Some("uuid") => json!("6f1c1b8e-2f4a-4b9c-9a57-0c1d2e3f4a5b"),
            // Also a URI: formats moved into the description are not
            // enforced by the provider, and a model that reads them sends
            // a fitting value; the loss report says so.
            _ => json!("https://example.com/x"),
        },
        "integer" => json!(least.ceil() as i64 + 1),
        "number" => json!(least + 1.0),
        "boolean" => json!(true),
        _ => Value::Null,
    }
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{schema} is not a schema: {e}"))
}

/// `value` with `null` put back at `pointer` (an object member).
fn with_null(value: &Value, pointer: &str) -> Value {
    let mut value = value.clone();
    let (parent, key) = pointer.rsplit_once('/').expect("a member pointer");
    let key = key.replace("~1", "/").replace("~0", "~");
    if let Some(Value::Object(map)) = value.pointer_mut(parent) {
        map.insert(key, Value::Null);
    }
    value
}

#[test]
fn strict_arguments_restore_to_arguments_the_original_accepts() {
    let (mut checked, mut skipped, mut nulls) = (0, 0, 0);
    for (name, schema) in real_tools().into_iter().chain(hostile()) {
        let Ok(compiled) = compile(&schema, Target::OpenAi) else {
            continue;
        };
        if !compiled.strict {
            continue;
        }
        let model = sample(&compiled.parameters, &compiled.parameters, 0);
        if !validator(&compiled.parameters).is_valid(&model) {
            skipped += 1; // a pattern or a bound the sampler does not meet
            continue;
        }
        let Ok(original) = jsonschema::validator_for(&schema) else {
            skipped += 1; // a hostile original that is not a valid schema
            continue;
        };
        let restored = compiled.restore(model.clone());
        assert!(
            restored.removed.is_empty(),
            "{name}: strict objects are closed already"
        );
        assert!(
            original.is_valid(&restored.arguments),
            "{name}: {} restored to {} does not fit the original",
            model,
            restored.arguments
        );
        for pointer in &restored.stripped {
            assert_eq!(
                model.pointer(pointer),
                Some(&Value::Null),
                "{name}: {pointer} was not a null"
            );
            assert!(
                !original.is_valid(&with_null(&restored.arguments, pointer)),
                "{name}: the null at {pointer} was one the original accepts, it should have stayed"
            );
        }
        checked += 1;
        nulls += restored.stripped.len();
    }
    println!("round trip: {checked} strict schemas checked, {nulls} nulls stripped, {skipped} samples skipped");
    assert!(checked >= 60, "too few schemas checked: {checked}");
    assert!(nulls > 0);
}
