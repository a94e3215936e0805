//! A JS key provider (`getKey()` / `setKey(key)`) as a core [`KeyProvider`].
//! The core calls it from the libuv worker that opens the store; each call
//! is queued to the JS thread (threadsafe function) and the worker waits for
//! its return value. The callbacks must return synchronously (a Buffer or
//! null from `getKey`); a thrown exception becomes `KeyStoreUnavailable`.

use std::sync::mpsc;

use napi::bindgen_prelude::{Buffer, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Status, ValueType};
use sessiondb::{Error, KeyProvider, Result};

pub type GetKeyFn = ThreadsafeFunction<(), Option<Buffer>, (), Status, false>;
pub type SetKeyFn = ThreadsafeFunction<Buffer, Unknown<'static>, Buffer, Status, false>;

pub struct JsKeyProvider {
    pub get: GetKeyFn,
    pub set: SetKeyFn,
    pub backend: String,
}

impl JsKeyProvider {
    fn unavailable(&self, method: &str, e: napi::Error) -> Error {
        Error::KeyStoreUnavailable {
            backend: self.backend.clone(),
            reason: format!("{method}() threw: {}", e.reason),
            remedy: "fix the key provider".into(),
        }
    }
}

impl KeyProvider for JsKeyProvider {
    fn get_key(&self) -> Result<Option<Vec<u8>>> {
        let (tx, rx) = mpsc::channel();
        let status = self.get.call_with_return_value((), ThreadsafeFunctionCallMode::Blocking, move |ret, _env| {
            let _ = tx.send(ret.map(|b| b.map(|b| b.to_vec())));
            Ok(())
        });
        if status != Status::Ok {
            return Err(self.unavailable("getKey", napi::Error::new(status, "could not call the JS thread")));
        }
        match rx.recv() {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(self.unavailable("getKey", e)),
            Err(_) => Err(self.unavailable("getKey", napi::Error::from_reason("the callback never returned"))),
        }
    }

    fn set_key(&self, key: &[u8]) -> Result<()> {
        let (tx, rx) = mpsc::channel();
        let status = self.set.call_with_return_value(
            Buffer::from(key.to_vec()),
            ThreadsafeFunctionCallMode::Blocking,
            move |ret: napi::Result<Unknown<'_>>, _env| {
                let _ = tx.send(ret.map(|v| v.get_type().unwrap_or(ValueType::Undefined)));
                Ok(())
            },
        );
        if status != Status::Ok {
            return Err(self.unavailable("setKey", napi::Error::new(status, "could not call the JS thread")));
        }
        match rx.recv() {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(self.unavailable("setKey", e)),
            Err(_) => Err(self.unavailable("setKey", napi::Error::from_reason("the callback never returned"))),
        }
    }

    fn backend_name(&self) -> String {
        self.backend.clone()
    }
}
