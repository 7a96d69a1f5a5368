//! The handler sets of the server's own type, found without a builder call
//! for each.
//!
//! A type can carry `#[tools]`, `#[prompts]` and `#[resources]` blocks,
//! each expanded on its own, and a generic builder cannot ask whether its
//! type has the other two: Rust has no trait test in generic code. The
//! expansion of each block can, since there the type is concrete: it
//! probes the type for all three traits (method resolution prefers the
//! probe whose bounds hold, see [`Probe`]) and hands the builder an
//! [`OwnSets`]. Whichever of [`ServerBuilder::tools`],
//! [`ServerBuilder::prompts`] or [`ServerBuilder::resources`] runs first
//! keeps it, and [`ServerBuilder::build`] serves each set the builder was
//! not given explicitly.
//!
//! A generic block is not probed (its type is not concrete, and the probe
//! would need bounds such as `'static` that the block may lack); its sets
//! are served by their own builder calls.

use std::marker::PhantomData;

use super::ServerBuilder;
use crate::prompt::PromptSet;
use crate::resource::ResourceSet;
use crate::tool::ToolSet;

/// Adds one set of the state to a builder.
type Register<S> = fn(&mut ServerBuilder<S>);

/// The sets a server type `S` has, each as the function that serves it.
/// Made by the expansion of the set macros; hand-written impls of the set
/// traits report none.
#[doc(hidden)]
pub struct OwnSets<S> {
    pub(crate) tools: Option<Register<S>>,
    pub(crate) prompts: Option<Register<S>>,
    pub(crate) resources: Option<Register<S>>,
}

impl<S> OwnSets<S> {
    /// No sets.
    pub const NONE: OwnSets<S> = OwnSets {
        tools: None,
        prompts: None,
        resources: None,
    };

    /// What three probes found.
    pub fn new(
        tools: Option<Register<S>>,
        prompts: Option<Register<S>>,
        resources: Option<Register<S>>,
    ) -> Self {
        OwnSets {
            tools,
            prompts,
            resources,
        }
    }
}

impl<S> std::fmt::Debug for OwnSets<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnSets")
            .field("tools", &self.tools.is_some())
            .field("prompts", &self.prompts.is_some())
            .field("resources", &self.resources.is_some())
            .finish()
    }
}

/// Asks whether `S` implements a set trait: `(&&Probe::<S>::new()).__tools()`
/// finds [`Found`]'s method, implemented on `&Probe<S>` where the bound
/// holds, before [`Missing`]'s, implemented on `Probe<S>`, one
/// dereference further. Only meaningful where `S` is a concrete type.
#[doc(hidden)]
pub struct Probe<S>(PhantomData<fn() -> S>);

impl<S> Probe<S> {
    /// The probe.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<S> std::fmt::Debug for Probe<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Probe")
    }
}

/// The probes that find a set; see [`Probe`].
#[doc(hidden)]
pub trait FoundTools<S> {
    /// Serves `S`'s tools.
    fn __tools(&self) -> Option<Register<S>>;
}

/// The probes that find a set; see [`Probe`].
#[doc(hidden)]
pub trait FoundPrompts<S> {
    /// Serves `S`'s prompts.
    fn __prompts(&self) -> Option<Register<S>>;
}

/// The probes that find a set; see [`Probe`].
#[doc(hidden)]
pub trait FoundResources<S> {
    /// Serves `S`'s resources.
    fn __resources(&self) -> Option<Register<S>>;
}

impl<S: ToolSet + Send + Sync + 'static> FoundTools<S> for &Probe<S> {
    fn __tools(&self) -> Option<Register<S>> {
        Some(|builder| builder.add_own_tools())
    }
}

impl<S: PromptSet<S> + Send + Sync + 'static> FoundPrompts<S> for &Probe<S> {
    fn __prompts(&self) -> Option<Register<S>> {
        Some(|builder| builder.set_own_prompts())
    }
}

impl<S: ResourceSet<S> + Send + Sync + 'static> FoundResources<S> for &Probe<S> {
    fn __resources(&self) -> Option<Register<S>> {
        Some(|builder| builder.set_own_resources())
    }
}

/// The fallback probes, which find nothing; see [`Probe`].
#[doc(hidden)]
pub trait Missing<S> {
    /// No tools.
    fn __tools(&self) -> Option<Register<S>> {
        None
    }
    /// No prompts.
    fn __prompts(&self) -> Option<Register<S>> {
        None
    }
    /// No resources.
    fn __resources(&self) -> Option<Register<S>> {
        None
    }
}

impl<S> Missing<S> for Probe<S> {}
