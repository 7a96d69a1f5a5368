//! mcp-gen beside typify 0.8 on the same inputs.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use heck::ToUpperCamelCase;
use serde_json::{json, Value};

use super::{ms, sample, spec_dir, tool_lists, workspace};

/// typify's output for one schema, `None` when it refuses the schema.
fn typify(schema: &Value, title: Option<&str>) -> Option<String> {
    let mut schema = schema.clone();
    if let (Some(title), Some(obj)) = (title, schema.as_object_mut()) {
        obj.insert("title".into(), json!(title));
    }
    let root: schemars08::schema::RootSchema = serde_json::from_value(schema).ok()?;
    let mut space = typify::TypeSpace::new(&typify::TypeSpaceSettings::default());
    space.add_root_schema(root).ok()?;
    let file: syn::File = syn::parse2(space.to_stream()).ok()?;
    Some(prettyplease::unparse(&file))
}

/// Every input and output schema of a tool list, with its tool's name.
fn schemas(list: &Value) -> Vec<(String, &str, &Value)> {
    let mut out = Vec::new();
    for tool in list["tools"].as_array().into_iter().flatten() {
        let name = tool["name"].as_str().unwrap_or_default().to_owned();
        if let Some(input) = tool.get("inputSchema") {
            out.push((name.clone(), "Arguments", input));
        }
        if let Some(output) = tool.get("outputSchema") {
            out.push((name, "Output", output));
        }
    }
    out
}

pub fn generation_time() {
    let (name, list) = tool_lists().remove(0);
    let count = list["tools"].as_array().map_or(0, Vec::len);
    println!("## generation time, the largest real tool list ({name}, {count} tools; 20 runs)");
    println!(
        "{:<28} {:>8} {:>10} {:>8}",
        "generator", "min ms", "median ms", "lines"
    );
    let mut lines = 0;
    let times = sample(20, || {
        let code = mcp_gen::ClientSettings::new()
            .generate(&list)
            .expect("generates");
        lines = code.lines().count();
    });
    println!(
        "{:<28} {:>8.2} {:>10.2} {lines:>8}",
        "mcp-gen client",
        ms(times[0]),
        ms(times[10])
    );
    let times = sample(20, || {
        lines = schemas(&list)
            .iter()
            .filter_map(|(_, title, s)| typify(s, Some(title)))
            .map(|code| code.lines().count())
            .sum();
    });
    println!(
        "{:<28} {:>8.2} {:>10.2} {lines:>8}",
        "typify 0.8 (types only)",
        ms(times[0]),
        ms(times[10])
    );
}

/// A crate of generated modules under `target/typed-compare/{name}`.
struct Crate {
    dir: PathBuf,
}

impl Crate {
    fn new(name: &str, deps: &str) -> Self {
        let dir = workspace().join("target/typed-compare").join(name);
        std::fs::create_dir_all(dir.join("src")).expect("crate dir");
        let manifest = format!(
            "[package]\nname = \"compare-{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [workspace]\n\n[dependencies]\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n{deps}\n"
        );
        std::fs::write(dir.join("Cargo.toml"), manifest).expect("manifest");
        Self { dir }
    }

    /// Builds `modules` (name, source) with `driver` as `main`; returns the
    /// modules that do not compile and the binary's output, if it built.
    /// Modules that fail are left out and the crate built again, so that
    /// the rest can run.
    fn build(
        &self,
        modules: &[(String, String)],
        driver: &dyn Fn(&BTreeSet<String>) -> String,
    ) -> (BTreeSet<String>, Option<String>) {
        let mut failed = BTreeSet::new();
        for _ in 0..3 {
            let mut main = String::from("#![allow(warnings, clippy::all)]\n");
            for (name, code) in modules {
                if failed.contains(name) {
                    continue;
                }
                std::fs::write(self.dir.join(format!("src/{name}.rs")), code).expect("module");
                let _ = writeln!(main, "mod {name};");
            }
            main.push_str(&driver(&failed));
            std::fs::write(self.dir.join("src/main.rs"), main).expect("main");
            let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
                .current_dir(&self.dir)
                // One target folder for both crates: their dependencies are
                // built once. Checking and round trips need no optimisation.
                .env("CARGO_TARGET_DIR", self.dir.join("../target"))
                .args(["build", "--quiet", "--message-format", "short"])
                .output()
                .expect("cargo runs");
            if output.status.success() {
                let name = self.dir.file_name().unwrap_or_default().to_string_lossy();
                let binary = self
                    .dir
                    .join("../target/debug")
                    .join(format!("compare-{name}"));
                let run = Command::new(binary)
                    .arg(spec_dir().join("schema/2026-07-28/examples"))
                    .output()
                    .expect("the driver runs");
                return (
                    failed,
                    Some(String::from_utf8_lossy(&run.stdout).into_owned()),
                );
            }
            let stderr = String::from_utf8_lossy(&output.stderr);
            let before = failed.len();
            for line in stderr.lines().filter(|l| l.contains(": error")) {
                if let Some(module) = line
                    .strip_prefix("src/")
                    .and_then(|l| l.split(".rs:").next())
                {
                    if module != "main" {
                        failed.insert(module.to_owned());
                    }
                }
            }
            if failed.len() == before {
                eprintln!("{stderr}");
                break;
            }
        }
        (failed, None)
    }
}

/// The Rust name each generator gives the definition `def`, if its output
/// has that type.
fn rust_name(code: &str, def: &str) -> Option<String> {
    [def.to_owned(), def.to_upper_camel_case()]
        .into_iter()
        .find(|n| {
            code.contains(&format!("pub struct {n} "))
                || code.contains(&format!("pub struct {n}("))
                || code.contains(&format!("pub enum {n} "))
                || code.contains(&format!("pub type {n} "))
        })
}

/// The driver: decodes each example under the folder given as the first
/// argument into its type, encodes it, and counts the exact round trips.
fn driver(types: &[(String, String)]) -> String {
    let mut arms = String::new();
    for (def, rust) in types {
        let _ = writeln!(arms, "        {def:?} => Some(rt::<spec::{rust}>(bytes)),");
    }
    format!(
        r#"
fn rt<T: serde::de::DeserializeOwned + serde::Serialize>(bytes: &[u8]) -> bool {{
    let Ok(input) = serde_json::from_slice::<serde_json::Value>(bytes) else {{ return false }};
    match serde_json::from_slice::<T>(bytes) {{
        Ok(value) => serde_json::to_value(&value).ok() == Some(input),
        Err(_) => false,
    }}
}}

fn round_trip(name: &str, bytes: &[u8]) -> Option<bool> {{
    match name {{
{arms}        _ => None,
    }}
}}

fn main() {{
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("the examples folder"));
    let (mut exact, mut decodable, mut total) = (0, 0, 0);
    for folder in std::fs::read_dir(&dir).expect("examples").flatten() {{
        let name = folder.file_name().to_string_lossy().into_owned();
        for file in std::fs::read_dir(folder.path()).expect("folder").flatten() {{
            total += 1;
            let bytes = std::fs::read(file.path()).expect("example");
            match round_trip(&name, &bytes) {{
                Some(true) => {{ exact += 1; decodable += 1; }}
                Some(false) => decodable += 1,
                None => {{}}
            }}
        }}
    }}
    println!("{{exact}} {{decodable}} {{total}}");
}}
"#
    )
}

/// The example folders: the type names the corpus exercises.
fn example_types() -> Vec<String> {
    let dir = spec_dir().join("schema/2026-07-28/examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

struct Row {
    generator: &'static str,
    spec_types: usize,
    spec_compiles: bool,
    round_trips: String,
    schemas_generated: usize,
    schemas_without_fallback: usize,
    lists_or_schemas_compiling: String,
}

pub fn compare() {
    let spec_path = spec_dir().join("schema/2026-07-28/schema.json");
    let spec: Value =
        serde_json::from_str(&std::fs::read_to_string(&spec_path).expect("spec")).expect("json");
    let lists = tool_lists();
    let all_schemas: Vec<(String, &str, &Value)> =
        lists.iter().flat_map(|(_, l)| schemas(l)).collect();
    let types = example_types();
    println!();
    println!(
        "## mcp-gen beside typify 0.8: the 2026-07-28 schema ({} example files over {} types) and {} real tool lists ({} schemas)",
        129,
        types.len(),
        lists.len(),
        all_schemas.len()
    );
    let mut rows = Vec::new();

    // mcp-gen: the spec with stock settings, each tool list as a client.
    let ours = mcp_gen::Settings::new().generate(&spec).ok();
    let mut modules = Vec::new();
    let mut spec_types = Vec::new();
    if let Some(code) = &ours {
        spec_types = types
            .iter()
            .filter_map(|t| rust_name(code, t).map(|r| (t.clone(), r)))
            .collect();
        modules.push(("spec".to_owned(), code.clone()));
    }
    let mut fallback_free = 0;
    for (i, (_, list)) in lists.iter().enumerate() {
        let code = mcp_gen::ClientSettings::new()
            .generate(list)
            .expect("never fails on a tool list");
        fallback_free += schemas(list).len();
        fallback_free -= code
            .matches("Falls back to `serde_json::Value`")
            .count()
            .min(schemas(list).len());
        modules.push((format!("list{i}"), code));
    }
    let host = workspace().join("mcp-host");
    let krate = Crate::new(
        "mcp-gen",
        &format!(
            "mcp-host = {{ package = \"mcp-toolkit-host\", path = {:?}, default-features = false }}",
            host.display().to_string()
        ),
    );
    let (failed, out) = krate.build(&modules, &|failed| {
        if failed.contains("spec") {
            driver(&[])
        } else {
            driver(&spec_types)
        }
    });
    rows.push(Row {
        generator: "mcp-gen",
        spec_types: spec_types.len(),
        spec_compiles: ours.is_some() && !failed.contains("spec"),
        round_trips: out.unwrap_or_default().trim().to_owned(),
        schemas_generated: all_schemas.len(),
        schemas_without_fallback: fallback_free,
        lists_or_schemas_compiling: format!(
            "{}/{} lists",
            lists.len() - failed.iter().filter(|m| m.starts_with("list")).count(),
            lists.len()
        ),
    });

    // typify: the spec, and each schema of each tool on its own.
    let theirs = typify(&spec, None);
    let mut modules = Vec::new();
    let mut spec_types = Vec::new();
    if let Some(code) = &theirs {
        spec_types = types
            .iter()
            .filter_map(|t| rust_name(code, t).map(|r| (t.clone(), r)))
            .collect();
        modules.push(("spec".to_owned(), code.clone()));
    }
    let mut generated = 0;
    for (i, (_, title, schema)) in all_schemas.iter().enumerate() {
        if let Some(code) = typify(schema, Some(title)) {
            generated += 1;
            modules.push((format!("schema{i}"), code));
        }
    }
    let krate = Crate::new(
        "typify",
        "chrono = { version = \"0.4\", features = [\"serde\"] }\nregress = \"0.10\"\nuuid = { version = \"1\", features = [\"serde\"] }",
    );
    let (failed, out) = krate.build(&modules, &|failed| {
        if failed.contains("spec") {
            driver(&[])
        } else {
            driver(&spec_types)
        }
    });
    let schema_failures = failed.iter().filter(|m| m.starts_with("schema")).count();
    rows.push(Row {
        generator: "typify 0.8.0",
        spec_types: spec_types.len(),
        spec_compiles: theirs.is_some() && !failed.contains("spec"),
        round_trips: out.unwrap_or_default().trim().to_owned(),
        schemas_generated: generated,
        schemas_without_fallback: generated,
        lists_or_schemas_compiling: format!("{}/{generated} schemas", generated - schema_failures),
    });

    println!(
        "{:<14} {:>16} {:>14} {:>22} {:>14} {:>16} {:>18}",
        "generator",
        "example types",
        "spec compiles",
        "exact/decodable/files",
        "schemas gen.",
        "without Value",
        "tool code compiles"
    );
    for r in rows {
        println!(
            "{:<14} {:>16} {:>14} {:>22} {:>14} {:>16} {:>18}",
            r.generator,
            format!("{}/{}", r.spec_types, types.len()),
            r.spec_compiles,
            r.round_trips.replace(' ', "/"),
            format!("{}/{}", r.schemas_generated, all_schemas.len()),
            format!("{}/{}", r.schemas_without_fallback, all_schemas.len()),
            r.lists_or_schemas_compiling
        );
    }
}
