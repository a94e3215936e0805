//! `export -o FILE`: the file is created private, and a failed export
//! leaves nothing half-written behind.

use std::path::Path;

use sessiondb::privacy::RedactionReport;
use sessiondb::{ErrorKind, SessionStore};

use crate::output::shown_path;
use crate::Failure;

/// `export -o FILE` where FILE exists and `--force` is absent.
pub(crate) fn export_exists(output: &Path) -> Failure {
    Failure::new(
        ErrorKind::Conflict,
        format!("{} already exists; nothing was written (`--force` replaces it)", shown_path(output)),
    )
}

/// Export into `output`, a new file of mode 0600 on Unix (it holds the
/// session in plaintext). Without `force` the file is created only if absent
/// (`O_EXCL`, so a file that appears meanwhile is not overwritten either) and
/// removed again if the export fails; with `force` the export goes to a
/// temporary file beside it, renamed over it once complete, so a failed
/// export leaves the old file as it was.
pub(crate) fn export_to_file(
    s: &SessionStore,
    id: &str,
    output: &Path,
    force: bool,
    format: ExportFormat,
    redact: bool,
) -> Result<(u64, RedactionReport), Failure> {
    use std::fs::OpenOptions as FileOptions;
    let io = |step: &'static str| move |e: std::io::Error| sessiondb::Error::io(step, e);
    let target = if force {
        let name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        output.with_file_name(format!(".{name}.sessiondb-export-{}.tmp", std::process::id()))
    } else {
        output.to_path_buf()
    };
    let mut options = FileOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = match options.open(&target) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && !force => return Err(export_exists(output)),
        Err(e) => return Err(io("creating the export file")(e).into()),
    };
    let written = export_to(s, id, format, redact, std::io::BufWriter::new(file)).and_then(|rep| {
        if force {
            std::fs::rename(&target, output).map_err(io("replacing the export file"))?;
        }
        Ok(rep)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&target);
    }
    written
}

/// `export --format`: the core's [`sessiondb::portable::ExportFormat`]
/// under the CLI's names.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ExportFormat {
    /// thClaws JSONL (what thClaws reads; `import` reads it back).
    Thclaws,
    /// Markdown for people (redacted unless --no-redact).
    #[value(alias = "md")]
    Markdown,
    /// The neutral model as one JSON document (pretty-printed).
    Json,
}

impl From<ExportFormat> for sessiondb::portable::ExportFormat {
    fn from(f: ExportFormat) -> Self {
        match f {
            ExportFormat::Thclaws => Self::Thclaws,
            ExportFormat::Markdown => Self::Markdown,
            ExportFormat::Json => Self::Json,
        }
    }
}

/// Write session `id` as `format` to `out`, redacting when `redact`;
/// returns the bytes written and the redaction counts.
pub(crate) fn export_to<W: std::io::Write>(s: &SessionStore, id: &str, format: ExportFormat, redact: bool, out: W) -> Result<(u64, RedactionReport), Failure> {
    Ok(sessiondb::portable::export_session(s, id, format.into(), Some(redact), out)?)
}
