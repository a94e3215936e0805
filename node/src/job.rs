//! One generic libuv-pool task: every disk or crypto call runs as
//! `AsyncTask<Job<T>>`, so the JS thread only converts values. A panic in
//! the core becomes a rejected promise, never an abort of the host.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::{AsyncTask, ToNapiValue, TypeName};
use napi::{Env, Task};

type Work<T> = Box<dyn FnOnce() -> napi::Result<T> + Send>;

pub struct Job<T: Send + 'static> {
    work: Option<Work<T>>,
}

impl<T> Task for Job<T>
where
    T: ToNapiValue + TypeName + Send + 'static,
{
    type Output = T;
    type JsValue = T;

    fn compute(&mut self) -> napi::Result<T> {
        let work = self.work.take().ok_or_else(|| napi::Error::from_reason("sessiondb task ran twice"))?;
        match catch_unwind(AssertUnwindSafe(work)) {
            Ok(r) => r,
            Err(_) => Err(napi::Error::from_reason("sessiondb: internal panic in the native core (please report it)")),
        }
    }

    fn resolve(&mut self, _env: Env, output: T) -> napi::Result<T> {
        Ok(output)
    }
}

/// Run `f` (a core call) on the libuv pool; the core error is mapped.
pub fn job<T, F>(f: F) -> AsyncTask<Job<T>>
where
    T: ToNapiValue + TypeName + Send + 'static,
    F: FnOnce() -> sessiondb::Result<T> + Send + 'static,
{
    AsyncTask::new(Job { work: Some(Box::new(move || crate::errors::r(f()))) })
}

/// [`job`] under `turn` (taken on the JS thread when the call was made):
/// the append it makes joins the store's commit queue after those of every
/// call made before it (`#[bridge(ordered)]`; `sessiondb::AppendTurn`).
/// libuv's pool runs jobs in the order they were queued, so every earlier
/// turn reaches its append.
pub fn job_in_turn<T, F>(turn: sessiondb::AppendTurn, f: F) -> AsyncTask<Job<T>>
where
    T: ToNapiValue + TypeName + Send + 'static,
    F: FnOnce() -> sessiondb::Result<T> + Send + 'static,
{
    job(move || turn.run(f))
}
