//! The handlers a server serves, behind object-safe traits so that one
//! router can hold any mix of tool, prompt and resource sets.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::v2026_07_28::{Prompt, Resource, ResourceTemplate, Tool};
use serde_json::{Map, Value};

use crate::context::Context;
use crate::prompt::{PromptOutput, PromptSet};
use crate::resource::{ResourceOutput, ResourceSet};
use crate::tool::{ToolOutput, ToolSet};
use crate::BoxFuture;

type Reply<'a, T> = Option<BoxFuture<'a, Result<T, ErrorObject>>>;

trait DynTools: Send + Sync {
    fn call<'a>(
        &'a self,
        name: &str,
        cx: &'a Context,
        arguments: Map<String, Value>,
    ) -> Reply<'a, ToolOutput>;
}

impl<T: ToolSet> DynTools for T {
    fn call<'a>(
        &'a self,
        name: &str,
        cx: &'a Context,
        arguments: Map<String, Value>,
    ) -> Reply<'a, ToolOutput> {
        self.call_tool(name, cx, arguments)
    }
}

trait DynPrompts: Send + Sync {
    fn list(&self) -> Vec<Prompt>;
    fn get<'a>(
        &'a self,
        name: &str,
        cx: &'a Context,
        arguments: BTreeMap<String, String>,
    ) -> Reply<'a, PromptOutput>;
}

struct Prompts<S, P: ?Sized> {
    state: Arc<S>,
    set: Arc<P>,
}

impl<S: Send + Sync, P: PromptSet<S> + ?Sized> DynPrompts for Prompts<S, P> {
    fn list(&self) -> Vec<Prompt> {
        self.set.prompts()
    }

    fn get<'a>(
        &'a self,
        name: &str,
        cx: &'a Context,
        arguments: BTreeMap<String, String>,
    ) -> Reply<'a, PromptOutput> {
        self.set.get_prompt(name, &self.state, cx, arguments)
    }
}

trait DynResources: Send + Sync {
    fn list(&self) -> Vec<Resource>;
    fn templates(&self) -> Vec<ResourceTemplate>;
    fn read<'a>(&'a self, uri: &'a str, cx: &'a Context) -> Reply<'a, ResourceOutput>;
}

struct Resources<S, R: ?Sized> {
    state: Arc<S>,
    set: Arc<R>,
}

impl<S: Send + Sync, R: ResourceSet<S> + ?Sized> DynResources for Resources<S, R> {
    fn list(&self) -> Vec<Resource> {
        self.set.resources()
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        self.set.resource_templates()
    }

    fn read<'a>(&'a self, uri: &'a str, cx: &'a Context) -> Reply<'a, ResourceOutput> {
        self.set.read_resource(uri, &self.state, cx)
    }
}

/// Everything a server serves. Lists are computed once, at build time, so
/// every request sees the same order.
#[derive(Default)]
pub(crate) struct Handlers {
    tools: Vec<Arc<dyn DynTools>>,
    /// Where each tool is, by name: its set (an index into `tools`) and
    /// its place in `tool_list`. A call finds its tool in constant time,
    /// however many there are.
    tool_sets: HashMap<String, (usize, usize)>,
    tool_list: Vec<Tool>,
    /// The scopes of the tools that declare any, by name.
    tool_scopes: HashMap<String, &'static [&'static str]>,
    /// The tools whose calls the request span records the arguments and
    /// result of (see [`ServerBuilder::trace_tool_io`](super::ServerBuilder::trace_tool_io)).
    traced: HashSet<String>,
    prompts: Option<Box<dyn DynPrompts>>,
    prompt_list: Vec<Prompt>,
    resources: Option<Box<dyn DynResources>>,
    resource_list: Vec<Resource>,
    template_list: Vec<ResourceTemplate>,
    /// The views of MCP Apps, listed after the resource set's resources
    /// and read before them.
    #[cfg(feature = "apps")]
    views: Vec<crate::apps::View>,
}

impl Handlers {
    /// Adds a tool set after those already added; its tools are listed
    /// after theirs. Returns the name of a tool that an earlier set already
    /// has, if any (the set is then not added).
    pub(crate) fn add_tools<T: ToolSet + 'static>(&mut self, tools: Arc<T>) -> Result<(), String> {
        let list = T::tools();
        if let Some(dup) = list.iter().find(|t| self.tool_sets.contains_key(&t.name)) {
            return Err(dup.name.clone());
        }
        let index = self.tools.len();
        for (n, tool) in list.iter().enumerate() {
            let scopes = T::scopes(&tool.name);
            if !scopes.is_empty() {
                self.tool_scopes.insert(tool.name.clone(), scopes);
            }
            let place = self.tool_list.len() + n;
            self.tool_sets
                .entry(tool.name.clone())
                .or_insert((index, place));
        }
        self.tool_list.extend(list);
        self.tools.push(tools);
        Ok(())
    }

    pub(crate) fn set_prompts<S, P>(&mut self, state: Arc<S>, set: Arc<P>)
    where
        S: Send + Sync + 'static,
        P: PromptSet<S> + ?Sized + 'static,
    {
        let prompts = Prompts { state, set };
        self.prompt_list = prompts.list();
        self.prompts = Some(Box::new(prompts));
    }

    pub(crate) fn set_resources<S, R>(&mut self, state: Arc<S>, set: Arc<R>)
    where
        S: Send + Sync + 'static,
        R: ResourceSet<S> + ?Sized + 'static,
    {
        let resources = Resources { state, set };
        self.resource_list = resources.list();
        self.template_list = resources.templates();
        self.resources = Some(Box::new(resources));
    }

    pub(crate) fn has_tools(&self) -> bool {
        !self.tools.is_empty()
    }

    pub(crate) fn has_prompts(&self) -> bool {
        self.prompts.is_some()
    }

    pub(crate) fn has_resources(&self) -> bool {
        self.resources.is_some() || self.has_views()
    }

    /// Whether any view of MCP Apps is served.
    pub(crate) fn has_views(&self) -> bool {
        #[cfg(feature = "apps")]
        return !self.views.is_empty();
        #[cfg(not(feature = "apps"))]
        false
    }

    /// Serves `views` beside the resource set, once they are all valid and
    /// no URI is taken twice; then checks that every tool's view is
    /// served.
    #[cfg(feature = "apps")]
    pub(crate) fn add_views(
        &mut self,
        views: Vec<crate::apps::View>,
    ) -> Result<(), super::BuildError> {
        use crate::apps::ViewError;
        for view in &views {
            view.validate().map_err(super::BuildError::View)?;
            if self.resource_list.iter().any(|r| r.uri == view.uri()) {
                let duplicate = ViewError::Duplicate(view.uri().to_owned());
                return Err(super::BuildError::View(duplicate));
            }
            self.resource_list.push(view.resource());
        }
        self.views = views;
        crate::apps::check_links(&self.tool_list, |uri| {
            self.resource_list.iter().any(|r| r.uri == uri)
        })
        .map_err(|(tool, uri)| super::BuildError::UndeclaredView { tool, uri })
    }

    pub(crate) fn tools(&self) -> &[Tool] {
        &self.tool_list
    }

    /// Lets the request span of a call of the tool `name` record its
    /// arguments and result.
    pub(crate) fn trace_io(&mut self, name: String) {
        self.traced.insert(name);
    }

    /// Whether the request span of a call of the tool `name` records its
    /// arguments and result.
    pub(crate) fn traces_io(&self, name: &str) -> bool {
        !self.traced.is_empty() && self.traced.contains(name)
    }

    /// The tool called `name`.
    pub(crate) fn tool(&self, name: &str) -> Option<&Tool> {
        let &(_, place) = self.tool_sets.get(name)?;
        self.tool_list.get(place)
    }

    /// The scopes a call of the tool `name` needs.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn tool_scopes(&self, name: &str) -> &'static [&'static str] {
        self.tool_scopes.get(name).copied().unwrap_or_default()
    }

    pub(crate) fn prompts(&self) -> &[Prompt] {
        &self.prompt_list
    }

    pub(crate) fn resources(&self) -> &[Resource] {
        &self.resource_list
    }

    pub(crate) fn templates(&self) -> &[ResourceTemplate] {
        &self.template_list
    }

    pub(crate) fn call_tool<'a>(
        &'a self,
        name: &str,
        cx: &'a Context,
        arguments: Map<String, Value>,
    ) -> Reply<'a, ToolOutput> {
        let set = self.tools.get(self.tool_sets.get(name)?.0)?;
        set.call(name, cx, arguments)
    }

    pub(crate) fn get_prompt<'a>(
        &'a self,
        name: &str,
        cx: &'a Context,
        arguments: BTreeMap<String, String>,
    ) -> Reply<'a, PromptOutput> {
        self.prompts.as_ref()?.get(name, cx, arguments)
    }

    pub(crate) fn read_resource<'a>(
        &'a self,
        uri: &'a str,
        cx: &'a Context,
    ) -> Reply<'a, ResourceOutput> {
        #[cfg(feature = "apps")]
        if let Some(view) = self.views.iter().find(|v| v.uri() == uri) {
            let contents = ResourceOutput::Complete(view.contents());
            return Some(Box::pin(std::future::ready(Ok(contents))));
        }
        self.resources.as_ref()?.read(uri, cx)
    }
}
