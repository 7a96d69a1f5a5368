//! Cache hints of the six cacheable 2026-07-28 results.
//!
//! [`DiscoverResult`], [`ListToolsResult`], [`ListPromptsResult`],
//! [`ListResourcesResult`], [`ListResourceTemplatesResult`] and
//! [`ReadResourceResult`] carry `ttlMs` (how long the result stays fresh)
//! and `cacheScope` (who may share a cached copy). The [`Cacheable`] trait
//! reads both with the defaults the protocol prescribes for values that are
//! missing, as they are from legacy servers.
//!
//! What the trait does not decide, because it needs the request: a cache
//! key is the method plus every parameter that shapes the result, and the
//! result of a retry that carried `inputResponses` or `requestState` is
//! never cached. An [`InputRequiredResult`](crate::v2026_07_28::InputRequiredResult)
//! is never cached either, which the types already ensure: it does not
//! implement [`Cacheable`].

use std::time::Duration;

use crate::v2026_07_28::{
    CacheScope, DiscoverResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, ReadResourceResult,
};

/// A result that carries cache hints.
pub trait Cacheable {
    /// The raw `ttlMs`, as received.
    fn raw_ttl_ms(&self) -> Option<i64>;

    /// The raw `cacheScope`, as received.
    fn raw_cache_scope(&self) -> Option<CacheScope>;

    /// How many milliseconds the result stays fresh after it was received.
    /// A missing or negative `ttlMs` reads as 0: stale at once.
    fn ttl_ms(&self) -> u64 {
        self.raw_ttl_ms()
            .and_then(|ms| u64::try_from(ms).ok())
            .unwrap_or(0)
    }

    /// [`Cacheable::ttl_ms`] as a [`Duration`].
    fn ttl(&self) -> Duration {
        Duration::from_millis(self.ttl_ms())
    }

    /// Who may share a cached copy.
    ///
    /// A missing `cacheScope` reads as [`CacheScope::Private`]. That is the
    /// safe default: treating a public result as private only costs a
    /// cache miss in another authorization context, while treating a
    /// private result as public could hand one user's data to another.
    fn cache_scope(&self) -> CacheScope {
        self.raw_cache_scope().unwrap_or(CacheScope::Private)
    }

    /// Whether a copy received `age` ago is still fresh: `age < ttl`.
    /// With a TTL of 0 nothing is ever fresh.
    fn is_fresh(&self, age: Duration) -> bool {
        age < self.ttl()
    }
}

macro_rules! cacheable {
    ($($ty:ty),* $(,)?) => {$(
        impl Cacheable for $ty {
            fn raw_ttl_ms(&self) -> Option<i64> {
                self.ttl_ms
            }

            fn raw_cache_scope(&self) -> Option<CacheScope> {
                self.cache_scope
            }
        }
    )*};
}

cacheable!(
    DiscoverResult,
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
);

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support;

    fn tools(extra: serde_json::Value) -> ListToolsResult {
        let mut value = json!({"resultType": "complete", "tools": []});
        if let (Some(obj), Some(extra)) = (value.as_object_mut(), extra.as_object()) {
            obj.extend(extra.clone());
        }
        serde_json::from_value(value).expect("ListToolsResult")
    }

    #[test]
    fn present_hints_are_read() {
        let r = tools(json!({"ttlMs": 1500, "cacheScope": "public"}));
        assert_eq!(r.ttl_ms(), 1500);
        assert_eq!(r.ttl(), Duration::from_millis(1500));
        assert_eq!(r.cache_scope(), CacheScope::Public);
        assert!(r.is_fresh(Duration::from_millis(1499)));
        assert!(!r.is_fresh(Duration::from_millis(1500)));
    }

    #[test]
    fn missing_hints_default_to_stale_and_private() {
        let r = tools(json!({}));
        assert_eq!(r.raw_ttl_ms(), None);
        assert_eq!(r.ttl_ms(), 0);
        assert_eq!(r.cache_scope(), CacheScope::Private);
        assert!(!r.is_fresh(Duration::ZERO));
    }

    #[test]
    fn negative_ttl_reads_as_zero() {
        let r = tools(json!({"ttlMs": -5, "cacheScope": "private"}));
        assert_eq!(r.raw_ttl_ms(), Some(-5));
        assert_eq!(r.ttl_ms(), 0);
    }

    fn assert_cacheable<T: Cacheable>() {}

    #[test]
    fn the_six_results_are_cacheable() {
        assert_cacheable::<DiscoverResult>();
        assert_cacheable::<ListToolsResult>();
        assert_cacheable::<ListPromptsResult>();
        assert_cacheable::<ListResourcesResult>();
        assert_cacheable::<ListResourceTemplatesResult>();
        assert_cacheable::<ReadResourceResult>();
    }

    /// The schema's cacheable results are exactly the ones implemented
    /// here: those whose definition has both `ttlMs` and `cacheScope`.
    #[test]
    fn schema_agrees_on_the_cacheable_set() {
        let schema = test_support::schema("2026-07-28");
        let mut found: Vec<&str> = test_support::defs(&schema)
            .filter(|(name, def)| {
                *name != "CacheableResult"
                    && def["properties"].get("ttlMs").is_some()
                    && def["properties"].get("cacheScope").is_some()
            })
            .map(|(name, _)| name)
            .collect();
        found.sort_unstable();
        assert_eq!(
            found,
            [
                "DiscoverResult",
                "ListPromptsResult",
                "ListResourceTemplatesResult",
                "ListResourcesResult",
                "ListToolsResult",
                "ReadResourceResult",
            ]
        );
    }

    /// The corpus example with a TTL reads back through the trait.
    #[test]
    fn spec_examples_read() {
        for (name, value) in test_support::examples("ListToolsResult") {
            let r: ListToolsResult =
                serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let expected = value["ttlMs"].as_u64().unwrap_or(0);
            assert_eq!(r.ttl_ms(), expected, "{name}");
        }
    }
}
