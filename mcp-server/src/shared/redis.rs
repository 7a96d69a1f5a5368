//! [`RedisShared`]: a [`SharedStore`] in Redis. Each value is one string
//! key under the store's prefix whose expiry is the value's lifetime; the
//! conditional writes are `SET NX PX` and two small Lua scripts that
//! compare before they write.

use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::AsyncCommands as _;

use super::{SharedError, SharedStore};
use crate::BoxFuture;

/// Puts `ARGV[2]` under `KEYS[1]`, keeping its expiry, if it still holds
/// `ARGV[1]`; 1 if it did, 0 if not. The task store's compare-and-set too.
pub(crate) const REPLACE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0
";

/// Deletes `KEYS[1]` if it still holds `ARGV[1]`.
const REMOVE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
";

/// The largest value read back, in bytes: values are what this server
/// wrote, but the database is shared.
const MAX_VALUE_BYTES: usize = 16 * 1024 * 1024;

/// A [`SharedStore`] in Redis: each value one key under the prefix, expiring
/// with the value; the conditional writes are `SET NX PX` and Lua scripts
/// that compare before they write.
#[derive(Clone)]
pub struct RedisShared {
    connection: ConnectionManager,
    prefix: String,
    replace: redis::Script,
    remove: redis::Script,
}

impl std::fmt::Debug for RedisShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password: it is not kept, so not shown.
        f.debug_struct("RedisShared")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn backend(error: impl std::fmt::Display) -> SharedError {
    SharedError::Backend(error.to_string())
}

/// How long connecting to Redis may take, each attempt.
pub(crate) const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// How long one command may wait for Redis's answer.
pub(crate) const RESPONSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// A connection to Redis that never hangs on an outage: each connection
/// attempt gives up after [`CONNECT_TIMEOUT`], each command after
/// [`RESPONSE_TIMEOUT`], and a lost connection is made again with one
/// retry, 100 ms apart, before a request fails (redis-rs's defaults are no
/// timeouts and six retries backing off to 3.2 s: a request waited 9 s
/// for a Redis that was gone). A request made while Redis is cut off thus
/// fails within about three seconds with the store's error, which the
/// server answers as a JSON-RPC internal error a client may retry, and the
/// next request tries again.
pub(crate) async fn connection(client: redis::Client) -> redis::RedisResult<ConnectionManager> {
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_response_timeout(Some(RESPONSE_TIMEOUT))
        .set_number_of_retries(1)
        .set_max_delay(std::time::Duration::from_millis(500));
    ConnectionManager::new_with_config(client, config).await
}

impl RedisShared {
    /// Connects to the Redis at `url` (`redis://[:password@]host:port/db`),
    /// with every key under `prefix` (such as `mcp:shared:`), so that
    /// several servers can share one database. Call it inside a Tokio
    /// runtime.
    ///
    /// # Errors
    ///
    /// [`SharedError::Backend`] when the URL is not one, or Redis cannot be
    /// reached.
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, SharedError> {
        let client = redis::Client::open(url).map_err(backend)?;
        let connection = connection(client).await.map_err(backend)?;
        Ok(RedisShared {
            connection,
            prefix: prefix.to_owned(),
            replace: redis::Script::new(REPLACE),
            remove: redis::Script::new(REMOVE),
        })
    }

    fn key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    async fn compare_and(
        &self,
        script: &redis::Script,
        key: &str,
        args: &[&[u8]],
    ) -> Result<bool, SharedError> {
        let mut invocation = script.key(self.key(key));
        for arg in args {
            invocation.arg(*arg);
        }
        let mut connection = self.connection.clone();
        let done: i64 = invocation
            .invoke_async(&mut connection)
            .await
            .map_err(backend)?;
        Ok(done == 1)
    }
}

impl SharedStore for RedisShared {
    fn insert_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, SharedError>> {
        Box::pin(async move {
            let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            let mut connection = self.connection.clone();
            let written: Option<String> = redis::cmd("SET")
                .arg(self.key(key))
                .arg(value)
                .arg("NX")
                .arg("PX")
                .arg(ms)
                .query_async(&mut connection)
                .await
                .map_err(backend)?;
            Ok(written.is_some())
        })
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, SharedError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let value: Option<Vec<u8>> = connection.get(self.key(key)).await.map_err(backend)?;
            match value {
                Some(value) if value.len() > MAX_VALUE_BYTES => {
                    Err(backend(format!("the value under `{key}` is too large")))
                }
                value => Ok(value),
            }
        })
    }

    fn replace<'a>(
        &'a self,
        key: &'a str,
        old: &'a [u8],
        new: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, SharedError>> {
        Box::pin(async move { self.compare_and(&self.replace, key, &[old, new]).await })
    }

    fn remove<'a>(
        &'a self,
        key: &'a str,
        old: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, SharedError>> {
        Box::pin(async move { self.compare_and(&self.remove, key, &[old]).await })
    }
}
