//! The tools offered to the model in one conversation, sans-IO: each
//! tool's schema lowered for the provider ([`crate::schema`]), its provider
//! name ([`crate::names`]), which tools are offered up front and which only
//! through the search tool, and the way back from a provider name and the
//! model's arguments to the host's tool and the arguments its original
//! schema expects.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::flow::{HostText, ServerText, Source};
use crate::names::{
    self, search_tool_schema, CatalogueTool, ProviderNames, SearchIndex, SearchQuery, Selection,
    SelectionConfig, SEARCH_TOOL, SEARCH_TOOL_DESCRIPTION,
};
use crate::provider::{Provider, ToolDeclaration};
use crate::schema::{self, CompileError, Compiled, LossReport, Target};

/// One tool of the host's catalogue, as the conversation needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInput {
    /// The host's id of the server.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// The host's qualified name ([`mcp_host::names::QualifiedNames`]).
    pub qualified: String,
    /// The description, as the server wrote it (it goes to the model, which
    /// sees every tool description as the server's words).
    pub description: String,
    /// The tool's `inputSchema`, as the server wrote it.
    pub input_schema: Value,
    /// The SHA-256 of the whole definition's canonical JSON (RFC 8785),
    /// as the server sent it: what a person's review accepts.
    pub digest: String,
}

/// A tool the model may call.
#[derive(Debug, Clone)]
pub struct OfferedTool {
    /// The host's id of the server.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// The host's qualified name.
    pub qualified: String,
    /// The schema as the provider got it.
    pub compiled: Compiled,
    /// The description as the provider got it.
    pub description: String,
    /// The SHA-256 of the whole definition as the server sent it.
    pub digest: String,
}

impl OfferedTool {
    /// Where its definition came from, for the flow policy's labels.
    pub fn source(&self) -> Source {
        Source::Definition {
            server: self.server.clone(),
            tool: self.tool.clone(),
            digest: self.digest.clone(),
        }
    }
}

/// A tool that cannot be offered: its schema does not compile for the
/// provider.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// The host's qualified name.
    pub qualified: String,
    /// Why.
    pub error: CompileError,
}

/// What a tool call of the model names, mapped back.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// A host tool, with the arguments its original schema expects.
    Tool {
        /// The host's id of the server.
        server: String,
        /// The tool's name on that server.
        tool: String,
        /// The host's qualified name.
        qualified: String,
        /// The arguments, restored ([`Compiled::restore`]).
        arguments: Map<String, Value>,
    },
    /// The search tool, with the model's query.
    Search(SearchQuery),
    /// Nothing the model may call: the message says what to do instead.
    Error(HostText),
}

/// The tool search's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchAnswer {
    /// No tool matched: the host's own words.
    Nothing(HostText),
    /// The tools found, named and described by their servers: text built
    /// from their definitions, labelled with each.
    Found(ServerText),
}

/// The tools of one conversation with one provider.
#[derive(Debug, Clone)]
pub struct Offer {
    provider: Provider,
    tools: BTreeMap<(String, String), OfferedTool>,
    names: ProviderNames,
    selection: Selection,
    index: SearchIndex,
    refused: Vec<Refused>,
}

/// The schema compiler's target for `provider`.
pub fn target(provider: Provider) -> Target {
    match provider {
        Provider::OpenAi => Target::OpenAi,
        Provider::Anthropic => Target::Anthropic,
        Provider::Gemini => Target::Gemini,
    }
}

impl Offer {
    /// Compiles every tool of `catalogue` for `provider` and selects those
    /// offered up front by `selection` (its budget is capped at the
    /// provider's, [`names::tool_budget`]). A tool whose schema does not
    /// compile is left out and listed in [`refused`](Self::refused).
    pub fn build(provider: Provider, catalogue: &[ToolInput], selection: &SelectionConfig) -> Self {
        let target = target(provider);
        let mut tools = BTreeMap::new();
        let mut refused = Vec::new();
        for input in catalogue {
            match schema::compile(&input.input_schema, target) {
                Ok(compiled) => {
                    let description = describe(&input.description, &compiled);
                    tools.insert(
                        (input.server.clone(), input.tool.clone()),
                        OfferedTool {
                            server: input.server.clone(),
                            tool: input.tool.clone(),
                            qualified: input.qualified.clone(),
                            compiled,
                            description,
                            digest: input.digest.clone(),
                        },
                    );
                }
                Err(error) => refused.push(Refused {
                    qualified: input.qualified.clone(),
                    error,
                }),
            }
        }
        let names = ProviderNames::build(tools.keys().map(|(s, t)| (s.as_str(), t.as_str())));
        let listed: Vec<CatalogueTool> = tools
            .values()
            .map(|t| CatalogueTool {
                server: t.server.clone(),
                tool: t.tool.clone(),
                description: t.description.clone(),
            })
            .collect();
        let config = SelectionConfig {
            budget: selection.budget.min(names::tool_budget(target)),
            ..selection.clone()
        };
        let selection = names::select(&listed, &config);
        let index = SearchIndex::new(listed.iter().filter(|t| {
            selection
                .left_out
                .iter()
                .any(|((s, n), why)| *s == t.server && *n == t.tool && why.searchable())
        }));
        Self {
            provider,
            tools,
            names,
            selection,
            index,
            refused,
        }
    }

    /// The provider the tools were compiled for.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The declarations to send this turn: the tools offered now, then
    /// the search tool when some tools are only searchable.
    pub fn declarations(&self) -> Vec<ToolDeclaration> {
        let mut out: Vec<ToolDeclaration> = self
            .selection
            .offered_now()
            .filter_map(|key| {
                let tool = self.tools.get(key)?;
                let name = self.names.name(&tool.server, &tool.tool)?;
                Some(ToolDeclaration {
                    name: name.to_owned(),
                    description: tool.description.clone(),
                    parameters: tool.compiled.parameters.clone(),
                    strict: tool.compiled.strict,
                })
            })
            .collect();
        if self.selection.search_tool {
            let parameters = search_tool_schema();
            let strict = self.provider == Provider::OpenAi;
            out.push(ToolDeclaration {
                name: SEARCH_TOOL.to_owned(),
                description: SEARCH_TOOL_DESCRIPTION.to_owned(),
                parameters,
                strict,
            });
        }
        out
    }

    /// Every tool the [declarations](Self::declarations) of this turn
    /// carry: whose definitions the flow policy records before the model
    /// reads them.
    pub fn offered_tools(&self) -> impl Iterator<Item = &OfferedTool> {
        self.selection
            .offered_now()
            .filter_map(|key| self.tools.get(key))
    }

    /// The text of `tool`'s declaration as the provider gets it (name,
    /// description, parameters): what the ledger keeps of its definition.
    pub fn declaration_text(&self, tool: &OfferedTool) -> String {
        let name = self
            .names
            .name(&tool.server, &tool.tool)
            .unwrap_or_default();
        serde_json::json!({
            "name": name,
            "description": tool.description,
            "parameters": tool.compiled.parameters,
        })
        .to_string()
    }

    /// The tool behind the provider name `name`, offered this turn.
    pub fn offered(&self, name: &str) -> Option<&OfferedTool> {
        let (server, tool) = self.names.resolve(name)?;
        let key = (server.to_owned(), tool.to_owned());
        self.selection
            .offered_now()
            .any(|k| *k == key)
            .then(|| self.tools.get(&key))
            .flatten()
    }

    /// Maps a call of `name` with the model's `arguments` back to the
    /// host's tool and the arguments its original schema expects.
    pub fn resolve(&self, name: &str, arguments: &Map<String, Value>) -> Resolved {
        if name == SEARCH_TOOL && self.selection.search_tool {
            return match SearchQuery::from_arguments(&Value::Object(arguments.clone())) {
                Ok(query) => Resolved::Search(query),
                Err(message) => Resolved::Error(HostText::new(message)),
            };
        }
        let Some(tool) = self.offered(name) else {
            return Resolved::Error(HostText::new(
                "there is no tool of that name in this conversation; call one of the tools offered",
            ));
        };
        let restored = tool.compiled.restore(Value::Object(arguments.clone()));
        match restored.arguments {
            Value::Object(arguments) => Resolved::Tool {
                server: tool.server.clone(),
                tool: tool.tool.clone(),
                qualified: tool.qualified.clone(),
                arguments,
            },
            _ => Resolved::Error(HostText::new("the arguments must be a JSON object")),
        }
    }

    /// Runs the search tool: the best searchable tools for `query`, offered
    /// from the next turn on; the answer to give the model back. The
    /// tools' names and descriptions are their servers' words, so a found
    /// list is [`ServerText`] labelled with the definition of every tool
    /// it names.
    pub fn search(&mut self, query: &SearchQuery) -> SearchAnswer {
        let hits = self.index.search(&query.query, names::MAX_RESULTS);
        self.selection
            .promote(hits.iter().map(|h| (h.server.as_str(), h.tool.as_str())));
        let mut sources = Vec::new();
        let mut text = String::from("these tools are offered from now on:\n");
        for hit in &hits {
            let Some(tool) = self.tools.get(&(hit.server.clone(), hit.tool.clone())) else {
                continue;
            };
            if let Some(name) = self.names.name(&hit.server, &hit.tool) {
                text.push_str(&format!("- {name}: {}\n", first_line(&tool.description)));
                sources.push(tool.source());
            }
        }
        if sources.is_empty() {
            return SearchAnswer::Nothing(HostText::new("no tool matches; try other keywords"));
        }
        SearchAnswer::Found(ServerText::definitions(sources, SEARCH_TOOL, text))
    }

    /// The tools whose schema did not compile for the provider.
    pub fn refused(&self) -> &[Refused] {
        &self.refused
    }

    /// The loss report of every tool compiled, by qualified name.
    pub fn losses(&self) -> impl Iterator<Item = (&str, &LossReport)> {
        self.tools
            .values()
            .map(|t| (t.qualified.as_str(), &t.compiled.loss))
    }

    /// How many tools are offered this turn, the search tool included.
    pub fn offered_count(&self) -> usize {
        self.selection.offered_now().count() + usize::from(self.selection.search_tool)
    }

    /// The selection, with the reason each tool left out was left out.
    pub fn selection(&self) -> &Selection {
        &self.selection
    }
}

/// The description the provider gets: the server's, then the constraints
/// the compiler moved out of the schema.
fn describe(description: &str, compiled: &Compiled) -> String {
    if compiled.description_notes.is_empty() {
        return description.to_owned();
    }
    let mut out = description.trim_end().to_owned();
    out.push_str("\n\nArgument constraints: ");
    out.push_str(&compiled.description_notes.join("; "));
    out
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    line.chars().take(200).collect()
}
