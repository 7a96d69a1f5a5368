#![doc = include_str!("../docs/resource.md")]

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use mcp_types::v2026_07_28::{
    BlobResourceContents, CacheScope, InputRequiredResult, ReadResourceResult,
    ReadResourceResultContentsItem, Resource, ResourceTemplate, TextResourceContents,
};
use mcp_types::ResultType;

use crate::uri_template::{TemplateError, UriTemplate};
use crate::{BoxFuture, Context, ErrorObject};

/// What `resources/read` answers: the contents, or a request for more
/// input from the client (a multi-round-trip request).
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceOutput {
    /// The contents of the resource.
    Complete(ReadResourceResult),
    /// The client must supply input and retry.
    InputRequired(InputRequiredResult),
}

impl From<ReadResourceResult> for ResourceOutput {
    fn from(result: ReadResourceResult) -> Self {
        ResourceOutput::Complete(result)
    }
}

impl From<InputRequiredResult> for ResourceOutput {
    fn from(result: InputRequiredResult) -> Self {
        ResourceOutput::InputRequired(result)
    }
}

/// How a handler appears in the lists: one fixed resource, or a template
/// standing for many.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceDefinition {
    /// Listed by `resources/list`.
    Resource(Resource),
    /// Listed by `resources/templates/list`.
    Template(ResourceTemplate),
}

/// One entry of a resource's `contents`.
///
/// Implemented for `String` and `&str` (text with the requested URI),
/// [`TextResourceContents`], [`BlobResourceContents`] and
/// [`ReadResourceResultContentsItem`].
pub trait IntoResourceContents {
    /// Converts the value into a `contents` entry for `uri`, the URI that
    /// was read.
    fn into_resource_contents(self, uri: &str) -> ReadResourceResultContentsItem;
}

impl IntoResourceContents for String {
    fn into_resource_contents(self, uri: &str) -> ReadResourceResultContentsItem {
        ReadResourceResultContentsItem::Text(TextResourceContents {
            meta: None,
            mime_type: None,
            text: self,
            uri: uri.to_owned(),
            extra: serde_json::Map::new(),
        })
    }
}

impl IntoResourceContents for &str {
    fn into_resource_contents(self, uri: &str) -> ReadResourceResultContentsItem {
        self.to_owned().into_resource_contents(uri)
    }
}

impl IntoResourceContents for TextResourceContents {
    fn into_resource_contents(self, _uri: &str) -> ReadResourceResultContentsItem {
        ReadResourceResultContentsItem::Text(self)
    }
}

impl IntoResourceContents for BlobResourceContents {
    fn into_resource_contents(self, _uri: &str) -> ReadResourceResultContentsItem {
        ReadResourceResultContentsItem::Blob(self)
    }
}

impl IntoResourceContents for ReadResourceResultContentsItem {
    fn into_resource_contents(self, _uri: &str) -> ReadResourceResultContentsItem {
        self
    }
}

/// A value a resource function may return.
///
/// Implemented for everything that is [`IntoResourceContents`] (one
/// entry), `Vec`s of those (several entries, for example the files of a
/// folder), [`ReadResourceResult`], [`InputRequiredResult`],
/// [`ResourceOutput`], and `Result<T, E>` of any of these with
/// `E: Into<ErrorObject>`. A missing `resultType` is filled in, and so are
/// missing cache hints of a complete read, with the values that never
/// over-share: `ttlMs: 0` and `cacheScope: "private"`. Return a
/// [`ReadResourceResult`] to choose others.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "this type does not implement `IntoResourceResult`",
    note = "return a `String`, a `TextResourceContents`, a `BlobResourceContents`, a `Vec` of \
            them, a `ReadResourceResult`, an `InputRequiredResult`, or a `Result` of one of them"
)]
pub trait IntoResourceResult {
    /// Converts the value into the answer to `resources/read` for `uri`.
    ///
    /// # Errors
    ///
    /// The error of a `Result`, converted into an [`ErrorObject`].
    fn into_resource_result(self, uri: &str) -> Result<ResourceOutput, ErrorObject>;
}

/// Fills what a complete read must carry and the value left out: the
/// `resultType`, and the cache hints with their safe values (`ttlMs` 0,
/// stale at once; `cacheScope` private, never shared across users).
fn complete(mut result: ReadResourceResult) -> ResourceOutput {
    result
        .result_type
        .get_or_insert_with(|| ResultType::Complete.as_str().to_owned());
    result.ttl_ms.get_or_insert(0);
    result.cache_scope.get_or_insert(CacheScope::Private);
    ResourceOutput::Complete(result)
}

fn contents(contents: Vec<ReadResourceResultContentsItem>) -> ResourceOutput {
    complete(ReadResourceResult {
        meta: None,
        cache_scope: None,
        contents,
        result_type: None,
        ttl_ms: None,
        extra: serde_json::Map::new(),
    })
}

macro_rules! single_contents {
    ($($ty:ty),+) => {$(
        impl IntoResourceResult for $ty {
            fn into_resource_result(self, uri: &str) -> Result<ResourceOutput, ErrorObject> {
                Ok(contents(vec![self.into_resource_contents(uri)]))
            }
        }
    )+};
}

single_contents!(
    String,
    &str,
    TextResourceContents,
    BlobResourceContents,
    ReadResourceResultContentsItem
);

impl<T: IntoResourceContents> IntoResourceResult for Vec<T> {
    fn into_resource_result(self, uri: &str) -> Result<ResourceOutput, ErrorObject> {
        Ok(contents(
            self.into_iter()
                .map(|item| item.into_resource_contents(uri))
                .collect(),
        ))
    }
}

impl IntoResourceResult for ReadResourceResult {
    fn into_resource_result(self, _uri: &str) -> Result<ResourceOutput, ErrorObject> {
        Ok(complete(self))
    }
}

impl IntoResourceResult for InputRequiredResult {
    fn into_resource_result(mut self, _uri: &str) -> Result<ResourceOutput, ErrorObject> {
        if self.result_type.is_none() {
            self.result_type = Some(ResultType::InputRequired.as_str().to_owned());
        }
        Ok(ResourceOutput::InputRequired(self))
    }
}

impl IntoResourceResult for ResourceOutput {
    fn into_resource_result(self, uri: &str) -> Result<ResourceOutput, ErrorObject> {
        match self {
            ResourceOutput::Complete(result) => result.into_resource_result(uri),
            ResourceOutput::InputRequired(result) => result.into_resource_result(uri),
        }
    }
}

impl<T: IntoResourceResult, E: Into<ErrorObject>> IntoResourceResult for Result<T, E> {
    fn into_resource_result(self, uri: &str) -> Result<ResourceOutput, ErrorObject> {
        self.map_err(Into::into)?.into_resource_result(uri)
    }
}

/// One resource, or one resource template, that a server of type `S`
/// offers.
///
/// `#[resource]` on a free function generates a unit-like struct of the
/// function's name that implements this trait for every `S`.
pub trait ResourceHandler<S: ?Sized>: Send + Sync {
    /// The resource or template as the list methods show it.
    fn definition(&self) -> ResourceDefinition;

    /// Answers `resources/read` for `uri`, whose template variables (none
    /// for a fixed resource) have already been matched and decoded.
    ///
    /// # Errors
    ///
    /// The future resolves to an error when a variable does not parse
    /// (-32602 naming it), or when reading fails.
    fn read<'a>(
        &'a self,
        server: &'a S,
        cx: &'a Context,
        uri: &'a str,
        variables: BTreeMap<String, String>,
    ) -> BoxFuture<'a, Result<ResourceOutput, ErrorObject>>;
}

/// The resources and resource templates a server of type `S` offers, and
/// how to read a URI.
///
/// `#[resources]` on `impl Server { .. }` implements `ResourceSet<Server>`
/// for `Server`: the server is its own set, so pass it as both. Free
/// functions are grouped with [`resource_set!`](crate::resource_set). Sets
/// combine as tuples, `(a, b)`: fixed URIs of every member are tried before
/// any template, then templates member by member.
pub trait ResourceSet<S: ?Sized>: Send + Sync {
    /// The fixed resources, in a fixed order (declaration order for the
    /// macros).
    fn resources(&self) -> Vec<Resource>;

    /// The resource templates, in a fixed order.
    fn resource_templates(&self) -> Vec<ResourceTemplate>;

    /// The sets of the implementing type, found by the macros' expansion;
    /// not a stable API.
    #[doc(hidden)]
    fn __own_sets() -> crate::server::OwnSets<Self>
    where
        Self: Sized,
    {
        crate::server::OwnSets::NONE
    }

    /// Starts reading `uri` if it is exactly the URI of a fixed resource.
    ///
    /// # Errors
    ///
    /// As [`ResourceHandler::read`].
    fn read_exact<'a>(
        &'a self,
        uri: &'a str,
        server: &'a S,
        cx: &'a Context,
    ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>>;

    /// Starts reading `uri` through the first template, in order, that
    /// matches it.
    ///
    /// # Errors
    ///
    /// As [`ResourceHandler::read`].
    fn read_templated<'a>(
        &'a self,
        uri: &'a str,
        server: &'a S,
        cx: &'a Context,
    ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>>;

    /// Starts answering `resources/read`: an exact URI first, then the
    /// templates in order. `None` means the URI is unknown; the router
    /// answers with [`ErrorObject::resource_not_found`].
    ///
    /// # Errors
    ///
    /// As [`ResourceHandler::read`].
    fn read_resource<'a>(
        &'a self,
        uri: &'a str,
        server: &'a S,
        cx: &'a Context,
    ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>> {
        self.read_exact(uri, server, cx)
            .or_else(|| self.read_templated(uri, server, cx))
    }
}

/// How a [`ResourceList`] entry is found.
enum Route {
    Exact(String),
    Template(Option<UriTemplate>),
}

/// An ordered list of resource handlers, usually built with
/// [`resource_set!`](crate::resource_set).
pub struct ResourceList<S: ?Sized> {
    entries: Vec<(Route, Box<dyn ResourceHandler<S>>)>,
}

impl<S: ?Sized> ResourceList<S> {
    /// An empty list.
    pub fn new() -> Self {
        ResourceList {
            entries: Vec::new(),
        }
    }

    /// Appends `handler`.
    ///
    /// # Errors
    ///
    /// [`ResourceListError`] when the handler's URI is already in the list,
    /// when its template matches the same URIs as one already in the list,
    /// or when its template does not parse. The list is left unchanged.
    pub fn push(
        &mut self,
        handler: impl ResourceHandler<S> + 'static,
    ) -> Result<&mut Self, ResourceListError> {
        let route = match handler.definition() {
            ResourceDefinition::Resource(resource) => {
                let taken = self
                    .entries
                    .iter()
                    .any(|(route, _)| matches!(route, Route::Exact(uri) if *uri == resource.uri));
                if taken {
                    return Err(ResourceListError::Duplicate(resource.uri));
                }
                Route::Exact(resource.uri)
            }
            ResourceDefinition::Template(template) => {
                let parsed = UriTemplate::parse(&template.uri_template).map_err(|error| {
                    ResourceListError::InvalidTemplate(template.uri_template.clone(), error)
                })?;
                let taken = self.entries.iter().any(|(route, _)| {
                    matches!(route, Route::Template(Some(t)) if t.is_equivalent(&parsed))
                });
                if taken {
                    return Err(ResourceListError::Duplicate(template.uri_template));
                }
                Route::Template(Some(parsed))
            }
        };
        self.entries.push((route, Box::new(handler)));
        Ok(self)
    }

    /// Appends a handler that `resource_set!` and `#[resource]` already
    /// checked.
    #[doc(hidden)]
    pub fn __with(mut self, handler: impl ResourceHandler<S> + 'static) -> Self {
        let route = match handler.definition() {
            ResourceDefinition::Resource(resource) => Route::Exact(resource.uri),
            ResourceDefinition::Template(template) => {
                Route::Template(UriTemplate::parse(&template.uri_template).ok())
            }
        };
        self.entries.push((route, Box::new(handler)));
        self
    }

    /// The number of resources and templates.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<S: ?Sized> Default for ResourceList<S> {
    fn default() -> Self {
        ResourceList::new()
    }
}

impl<S: ?Sized> fmt::Debug for ResourceList<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|(route, _)| match route {
                Route::Exact(uri) => uri.as_str(),
                Route::Template(Some(template)) => template.as_str(),
                Route::Template(None) => "<invalid template>",
            }))
            .finish()
    }
}

impl<S: ?Sized> ResourceSet<S> for ResourceList<S> {
    fn resources(&self) -> Vec<Resource> {
        self.entries
            .iter()
            .filter_map(|(_, handler)| match handler.definition() {
                ResourceDefinition::Resource(resource) => Some(resource),
                ResourceDefinition::Template(_) => None,
            })
            .collect()
    }

    fn resource_templates(&self) -> Vec<ResourceTemplate> {
        self.entries
            .iter()
            .filter_map(|(_, handler)| match handler.definition() {
                ResourceDefinition::Template(template) => Some(template),
                ResourceDefinition::Resource(_) => None,
            })
            .collect()
    }

    fn read_exact<'a>(
        &'a self,
        uri: &'a str,
        server: &'a S,
        cx: &'a Context,
    ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>> {
        let (_, handler) = self
            .entries
            .iter()
            .find(|(route, _)| matches!(route, Route::Exact(exact) if exact == uri))?;
        Some(handler.read(server, cx, uri, BTreeMap::new()))
    }

    fn read_templated<'a>(
        &'a self,
        uri: &'a str,
        server: &'a S,
        cx: &'a Context,
    ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>> {
        self.entries
            .iter()
            .find_map(|(route, handler)| match route {
                Route::Template(Some(template)) => {
                    let variables = template.matches(uri)?;
                    Some(handler.read(server, cx, uri, variables))
                }
                _ => None,
            })
    }
}

/// [`ResourceList::push`] refused a handler.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceListError {
    /// The URI, or a template matching the same URIs, is already listed.
    Duplicate(String),
    /// The handler's template does not parse.
    InvalidTemplate(String, TemplateError),
}

impl fmt::Display for ResourceListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceListError::Duplicate(uri) => {
                write!(
                    f,
                    "`{uri}` (or a template matching the same URIs) is already in the list"
                )
            }
            ResourceListError::InvalidTemplate(template, error) => {
                write!(f, "invalid URI template `{template}`: {error}")
            }
        }
    }
}

impl std::error::Error for ResourceListError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ResourceListError::InvalidTemplate(_, error) => Some(error),
            ResourceListError::Duplicate(_) => None,
        }
    }
}

impl<S: ?Sized> ResourceSet<S> for () {
    fn resources(&self) -> Vec<Resource> {
        Vec::new()
    }

    fn resource_templates(&self) -> Vec<ResourceTemplate> {
        Vec::new()
    }

    fn read_exact<'a>(
        &'a self,
        _uri: &'a str,
        _server: &'a S,
        _cx: &'a Context,
    ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>> {
        None
    }

    fn read_templated<'a>(
        &'a self,
        _uri: &'a str,
        _server: &'a S,
        _cx: &'a Context,
    ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>> {
        None
    }
}

macro_rules! forward_resource_set {
    ($($pointer:ty),+) => {$(
        impl<S: ?Sized, T: ResourceSet<S> + ?Sized> ResourceSet<S> for $pointer {
            fn resources(&self) -> Vec<Resource> {
                (**self).resources()
            }

            fn resource_templates(&self) -> Vec<ResourceTemplate> {
                (**self).resource_templates()
            }

            fn read_exact<'a>(
                &'a self,
                uri: &'a str,
                server: &'a S,
                cx: &'a Context,
            ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>> {
                (**self).read_exact(uri, server, cx)
            }

            fn read_templated<'a>(
                &'a self,
                uri: &'a str,
                server: &'a S,
                cx: &'a Context,
            ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>> {
                (**self).read_templated(uri, server, cx)
            }
        }
    )+};
}

forward_resource_set!(&T, Box<T>, Arc<T>);

macro_rules! tuple_resource_set {
    ($($member:ident),+) => {
        #[allow(non_snake_case)]
        impl<S: ?Sized, $($member: ResourceSet<S>),+> ResourceSet<S> for ($($member,)+) {
            fn resources(&self) -> Vec<Resource> {
                let ($($member,)+) = self;
                let mut all = Vec::new();
                $(all.extend($member.resources());)+
                all
            }

            fn resource_templates(&self) -> Vec<ResourceTemplate> {
                let ($($member,)+) = self;
                let mut all = Vec::new();
                $(all.extend($member.resource_templates());)+
                all
            }

            fn read_exact<'a>(
                &'a self,
                uri: &'a str,
                server: &'a S,
                cx: &'a Context,
            ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>> {
                let ($($member,)+) = self;
                None $(.or_else(|| $member.read_exact(uri, server, cx)))+
            }

            fn read_templated<'a>(
                &'a self,
                uri: &'a str,
                server: &'a S,
                cx: &'a Context,
            ) -> Option<BoxFuture<'a, Result<ResourceOutput, ErrorObject>>> {
                let ($($member,)+) = self;
                None $(.or_else(|| $member.read_templated(uri, server, cx)))+
            }
        }
    };
}

tuple_resource_set!(A);
tuple_resource_set!(A, B);
tuple_resource_set!(A, B, C);
tuple_resource_set!(A, B, C, D);

/// Groups `#[resource]` functions into a [`ResourceList`], checking at
/// compile time that no two have the same URI or template text.
///
/// Each argument is the path of a function marked `#[resource]`. The list
/// serves any server type; it is inferred from where the list is used.
///
/// ```
/// use mcp_server::resource::{ResourceList, ResourceSet};
/// use mcp_server::{resource, resource_set};
///
/// /// The readme.
/// #[resource("docs://readme")]
/// fn readme() -> String {
///     "Read me first.".to_owned()
/// }
///
/// /// One chapter.
/// #[resource("docs://chapters/{number}")]
/// fn chapter(number: u32) -> String {
///     format!("Chapter {number}.")
/// }
///
/// struct Server;
/// let set: ResourceList<Server> = resource_set![readme, chapter];
/// assert_eq!(set.resources()[0].uri, "docs://readme");
/// assert_eq!(set.resource_templates()[0].uri_template, "docs://chapters/{number}");
/// ```
#[macro_export]
macro_rules! resource_set {
    ($($handler:path),* $(,)?) => {{
        const _: () = $crate::__private::resource::assert_unique_resource_uris(&[
            $(<$handler>::__MCP_RESOURCE.uri),*
        ]);
        $crate::resource::ResourceList::new()
            $(.__with(<$handler as ::core::default::Default>::default()))*
    }};
}

/// Support for the code `#[resource]` and `#[resources]` generate; not a
/// stable API.
#[doc(hidden)]
pub mod __macro_support {
    use std::collections::BTreeMap;
    use std::sync::OnceLock;

    use mcp_types::v2026_07_28::{ReadResourceResultContentsItem, Resource, ResourceTemplate};

    pub use crate::prompt::__macro_support::{const_str_eq, has_duplicates, Arguments};
    use crate::resource::ResourceOutput;
    use crate::uri_template::UriTemplate;
    use crate::ErrorObject;

    /// A resource or template definition the macros can write as a
    /// constant.
    #[derive(Debug)]
    pub struct ResourceSpec {
        /// The URI, or the template text.
        pub uri: &'static str,
        /// The wire name.
        pub name: &'static str,
        /// `title`.
        pub title: Option<&'static str>,
        /// `description`, from the doc comment.
        pub description: Option<&'static str>,
        /// `mimeType`.
        pub mime_type: Option<&'static str>,
        /// `icons[].src`.
        pub icons: &'static [&'static str],
    }

    impl ResourceSpec {
        /// The definition as a fixed resource.
        pub fn resource(&self) -> Resource {
            Resource {
                meta: None,
                annotations: None,
                description: self.description.map(str::to_owned),
                icons: crate::prompt::__macro_support::icons(self.icons),
                mime_type: self.mime_type.map(str::to_owned),
                name: self.name.to_owned(),
                size: None,
                title: self.title.map(str::to_owned),
                uri: self.uri.to_owned(),
                extra: serde_json::Map::new(),
            }
        }

        /// The definition as a template.
        pub fn template(&self) -> ResourceTemplate {
            ResourceTemplate {
                meta: None,
                annotations: None,
                description: self.description.map(str::to_owned),
                icons: crate::prompt::__macro_support::icons(self.icons),
                mime_type: self.mime_type.map(str::to_owned),
                name: self.name.to_owned(),
                title: self.title.map(str::to_owned),
                uri_template: self.uri.to_owned(),
                extra: serde_json::Map::new(),
            }
        }
    }

    /// A template parsed once, on first use, from text the macro already
    /// checked.
    #[derive(Debug)]
    pub struct StaticTemplate {
        source: &'static str,
        parsed: OnceLock<Option<UriTemplate>>,
    }

    impl StaticTemplate {
        /// A template for `source`, not parsed yet.
        pub const fn new(source: &'static str) -> Self {
            StaticTemplate {
                source,
                parsed: OnceLock::new(),
            }
        }

        /// The variables of `uri` if it matches.
        pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
            self.parsed
                .get_or_init(|| UriTemplate::parse(self.source).ok())
                .as_ref()?
                .matches(uri)
        }
    }

    /// Fails compilation (as a `const` item) when two URIs are equal.
    pub const fn assert_unique_resource_uris(uris: &[&str]) {
        if has_duplicates(uris) {
            panic!("two resources in `resource_set!` have the same URI or template");
        }
    }

    /// Gives the entries for the requested URI that have no MIME type the
    /// declared one.
    ///
    /// # Errors
    ///
    /// `result`'s error, unchanged.
    pub fn finish(
        result: Result<ResourceOutput, ErrorObject>,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ResourceOutput, ErrorObject> {
        let Some(mime_type) = mime_type else {
            return result;
        };
        let Ok(ResourceOutput::Complete(mut read)) = result else {
            return result;
        };
        for item in &mut read.contents {
            let (item_uri, slot) = match item {
                ReadResourceResultContentsItem::Text(text) => (&text.uri, &mut text.mime_type),
                ReadResourceResultContentsItem::Blob(blob) => (&blob.uri, &mut blob.mime_type),
            };
            if item_uri == uri && slot.is_none() {
                *slot = Some(mime_type.to_owned());
            }
        }
        Ok(ResourceOutput::Complete(read))
    }
}
