//! One module per command that has more than a few lines; each declares
//! its clap arguments and a `run` (main.rs only dispatches).

pub mod export;
pub mod import;
pub mod key;
pub mod list;
pub mod search;
pub mod serve;
pub mod show;
pub mod window;
