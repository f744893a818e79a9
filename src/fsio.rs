//! Writing files safely: every file lockreplay writes (exports, reports,
//! pictures, simulated logs) goes through here, so that a failure never
//! leaves a partial file and an input is never written over.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// then a rename. A failure leaves no partial file at `path`. Refuses to
/// write over any of `inputs`.
///
/// # Errors
/// I/O failures, or `path` being one of the inputs.
pub fn write_atomic(path: &Path, bytes: &[u8], inputs: &[PathBuf]) -> anyhow::Result<()> {
    write_atomic_with(path, inputs, |w| {
        w.write_all(bytes)
            .with_context(|| format!("cannot write {}", path.display()))
    })
}

/// Like [`write_atomic`] for output made piece by piece: `write` streams it
/// into a buffered temporary file in the same folder, which then replaces
/// `path`. When `write` fails, nothing is left at `path` and its error is
/// returned as it is.
///
/// # Errors
/// The error of `write`, I/O failures, or `path` being one of the inputs.
pub fn write_atomic_with<T>(
    path: &Path,
    inputs: &[PathBuf],
    write: impl FnOnce(&mut BufWriter<&mut std::fs::File>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    for input in inputs {
        if std::fs::canonicalize(input).is_ok_and(|i| i == target) {
            bail!("refusing to write over the input file {}", input.display());
        }
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    // A temporary file is private (0600); an export is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut buffered = BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
    let written = write(&mut buffered)?;
    buffered
        .flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    drop(buffered);
    tmp.as_file()
        .sync_all()
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(written)
}
