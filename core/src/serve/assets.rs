//! The page: three static files compiled into the binary (`include_str!`
//! of `core/src/serve/assets/`), so nothing is fetched from another host
//! and nothing is written anywhere. No framework: `app.js` builds the
//! document with `createElement` and `textContent` only.

/// One static file.
#[derive(Debug, Clone, Copy)]
pub struct Asset {
    /// The `Content-Type` it is served with.
    pub content_type: &'static str,
    /// Its text.
    pub body: &'static str,
}

/// The shell page (loads `/app.css` and `/app.js`, no inline script or style).
pub const INDEX_HTML: &str = include_str!("assets/index.html");
/// The page's script.
pub const APP_JS: &str = include_str!("assets/app.js");
/// The page's style sheet.
pub const APP_CSS: &str = include_str!("assets/app.css");
/// The tab icon.
pub const FAVICON_SVG: &str = include_str!("assets/favicon.svg");

/// The asset served at `path`, if any.
pub fn get(path: &str) -> Option<Asset> {
    let (content_type, body) = match path {
        "/" | "/index.html" => ("text/html; charset=utf-8", INDEX_HTML),
        "/app.js" => ("text/javascript; charset=utf-8", APP_JS),
        "/app.css" => ("text/css; charset=utf-8", APP_CSS),
        "/favicon.svg" => ("image/svg+xml", FAVICON_SVG),
        _ => return None,
    };
    Some(Asset { content_type, body })
}
