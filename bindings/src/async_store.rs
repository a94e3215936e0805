//! The Kotlin `suspend` and Swift `async` API, from uniffi's own async
//! export (`pub async fn` in `#[uniffi::export]`): uniffi writes each one
//! as a Kotlin `suspend fun` and a Swift `async` function, and the host's
//! coroutine or task waits on it without holding a thread.
//!
//! * [`AsyncSessionStore`] (the same name in Kotlin and Swift): every
//!   [`SessionStore`] method and constructor
//!   under the same name, parameters, defaults, result and errors; the
//!   field accessors (`path`, `instanceId`, `keyBackend`, `isClosed`,
//!   `openRecoveryReport`) stay plain calls.
//! * [`SessionDbAsync`] (Kotlin `SessionDbSuspending()`, Swift
//!   `SessionDbAsync()`): the module functions that read files or run a
//!   cipher or HMAC (`#[bridge(blocking)]` in bridge/api.rs).
//!
//! The twins of the methods and functions of bridge/api.rs are generated
//! (bridge/generated/uniffi/methods.rs); the constructors' twins come from
//! [`with_async_twins!`], `importPaths`'s is in `portable.rs`.
//!
//! **Where the work runs.** The Rust future runs no runtime of its own: it
//! hands the blocking call (SQLite, the keyring or a host `KeyProvider`,
//! AES-GCM) to the `blocking` crate's thread pool (threads named
//! `blocking-N`, at most 500, idle ones exit) and completes when that call
//! returns, waking the host's continuation (uniffi's poll/wake protocol).
//!
//! **Cancellation.** Every core call is one transaction, so a cancelled
//! call has either landed whole or not at all, never half. Kotlin: a
//! cancelled coroutine throws `CancellationException` at once and uniffi
//! frees the future; a call that had not started on the pool is dropped
//! unrun, one already running finishes (commits or rolls back) and its
//! result is discarded. Swift: uniffi's continuation ignores task
//! cancellation, so the call completes and returns its result.
//! Whether a cancelled write landed is read back, or the write is retried
//! with the same idempotency key or `event_id`, which never applies twice.

use std::sync::Arc;

use crate::store::SessionStore;

/// A [`SessionStore`] with `suspend` (Kotlin) / `async` (Swift) methods:
/// the same handle, thread-safe,
/// callable from several coroutines or tasks at once. Kotlin: `close()`
/// frees the native handle (uniffi's `AutoCloseable`) and `closeStore()`
/// closes the store, as on `SessionStore`.
#[derive(uniffi::Object)]
pub struct AsyncSessionStore {
    pub(crate) store: Arc<SessionStore>,
}

#[uniffi::export]
impl AsyncSessionStore {
    /// The `suspend`/`async` methods of `store` (Kotlin
    /// `AsyncSessionStore(store)`, Swift `AsyncSessionStore(store:)`).
    #[uniffi::constructor]
    pub fn new(store: Arc<SessionStore>) -> Arc<Self> {
        Arc::new(Self { store })
    }

    /// The blocking store this wraps (the same handle, still usable directly).
    pub fn store(&self) -> Arc<SessionStore> {
        Arc::clone(&self.store)
    }
}

/// The `suspend`/`async` module functions (Kotlin `SessionDbSuspending()`,
/// Swift `SessionDbAsync()`): uniffi has no static functions, so they are
/// methods of this stateless object.
#[derive(uniffi::Object)]
pub struct SessionDbAsync;

#[uniffi::export]
impl SessionDbAsync {
    /// The module functions' `suspend`/`async` variants.
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Self)
    }
}

/// Runs `call` whole on the `blocking` thread pool; resolves to its result.
/// Dropped before the pool starts it, it never runs; dropped while it runs,
/// it finishes and its result is discarded (see the module docs).
pub(crate) async fn offload<T: Send + 'static>(call: impl FnOnce() -> T + Send + 'static) -> T {
    blocking::unblock(call).await
}

/// Declares `SessionStore` constructors as written (docs, `#[uniffi::...]`
/// attributes, parameters, body) and, with the same attributes and
/// parameters, their `async` twins on [`AsyncSessionStore`], which run the
/// blocking constructor through [`offload`].
macro_rules! with_async_twins {
    ($($(#[$($attr:tt)*])* pub fn $name:ident($($p:ident: $t:ty),* $(,)?) -> Result<Arc<Self>> { $($body:tt)* })*) => {
        #[uniffi::export]
        impl SessionStore {
            $($(#[$($attr)*])* pub fn $name($($p: $t),*) -> Result<Arc<Self>> { $($body)* })*
        }

        #[uniffi::export]
        impl AsyncSessionStore {
            $($(#[$($attr)*])* pub async fn $name($($p: $t),*) -> Result<Arc<Self>> {
                let store = crate::async_store::offload(move || SessionStore::$name($($p),*)).await?;
                Ok(Arc::new(Self { store }))
            })*
        }
    };
}
pub(crate) use with_async_twins;
