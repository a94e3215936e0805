//! Portable sessions (seed 002; DESIGN.md "Portable sessions"): the import
//! with a progress listener, a foreign callback trait the bridge generator
//! has no rule for. The rest (thClaws read and write, export, fork,
//! resolve, list) is declared in bridge/api.rs and generated.

use std::path::PathBuf;
use std::sync::Arc;

use sessiondb::portable as core_pt;

use crate::async_store::{offload, AsyncSessionStore};
use crate::error::Result;
use crate::records::{Conv, FileImport};
use crate::store::SessionStore;

/// Progress of `importPaths`, implemented by the host (e.g. a progress bar).
#[uniffi::export(with_foreign)]
pub trait ImportProgressListener: Send + Sync {
    /// Called after each file: files finished of the total, bytes of finished files of the total.
    fn on_progress(&self, files_done: u64, files_total: u64, bytes_done: u64, bytes_total: u64);
}

#[uniffi::export]
impl SessionStore {
    /// Import every session file under `paths` (files or directory trees;
    /// `*.jsonl` inside directories), one report per file in walk order;
    /// `progress` is called after each file. Problems with one file are in
    /// its report and the rest go on; a given path that cannot be read or
    /// walked at all is a report of that path with status `Failed` (the
    /// message names the path).
    #[uniffi::method(default(progress = None))]
    pub fn import_paths(
        &self,
        paths: Vec<String>,
        progress: Option<Arc<dyn ImportProgressListener>>,
    ) -> Result<Vec<FileImport>> {
        let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
        let mut report = |p: core_pt::ImportProgress| {
            if let Some(l) = &progress {
                l.on_progress(
                    p.files_done as u64,
                    p.files_total as u64,
                    p.bytes_done,
                    p.bytes_total,
                );
            }
        };
        Ok(core_pt::import_paths(self.core(), &paths, &mut report)?
            .files
            .conv())
    }
}

#[uniffi::export]
impl AsyncSessionStore {
    /// `importPaths` (above) run on the blocking pool: `progress` is called
    /// from a pool thread.
    #[uniffi::method(default(progress = None))]
    pub async fn import_paths(
        &self,
        paths: Vec<String>,
        progress: Option<Arc<dyn ImportProgressListener>>,
    ) -> Result<Vec<FileImport>> {
        let s = Arc::clone(&self.store);
        offload(move || s.import_paths(paths, progress)).await
    }
}
