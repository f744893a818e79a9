//! Writing files safely: every file lockreplay writes (exports, reports,
//! pictures, simulated logs) goes through here, so that a failure never
//! leaves a partial file and an input is never written over.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Whether `path` may be written by an export: refused when it is one of
/// `inputs` (by path, through a link, or as the same device and inode: a hard
/// link), when an input beside it is named like its temporary files
/// ([`temp_prefix`]: a stale one would be removed, as the report folder's
/// are refused for the same reason), or when something other than a regular
/// file is there (a character device such as `/dev/null`, a FIFO, a socket,
/// a folder): the atomic write would replace that node with a regular file.
/// A missing path is a new name and fine.
///
/// # Errors
/// Says which input or which kind of file is in the way.
pub fn check_output(path: &Path, inputs: &[PathBuf]) -> anyhow::Result<()> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let target_meta = std::fs::metadata(path).ok();
    if let Some(input) = inputs.iter().find(|i| named_like_a_temporary(path, i)) {
        bail!(
            "refusing to write {}: the input {} is named like its temporary files; rename it or name another file",
            path.display(),
            input.display()
        );
    }
    for input in inputs {
        if std::fs::canonicalize(input).is_ok_and(|i| i == target) {
            bail!("refusing to write over the input file {}", input.display());
        }
        if let (Some(t), Ok(i)) = (&target_meta, std::fs::metadata(input))
            && same_file(t, &i)
        {
            bail!(
                "refusing to write over the input file {} ({} is the same file)",
                input.display(),
                path.display()
            );
        }
    }
    if let Some(meta) = &target_meta
        && !meta.is_file()
    {
        bail!(
            "refusing to write {}: it is {}, not a regular file",
            path.display(),
            file_kind(meta)
        );
    }
    Ok(())
}

/// Whether `input` sits in the folder of `output` (resolved, so a link to
/// either counts) under a name of `output`'s temporary files
/// (`.NAME.lockreplay-`).
fn named_like_a_temporary(output: &Path, input: &Path) -> bool {
    let (Some(name), Some(input_name)) = (output.file_name(), input.file_name()) else {
        return false;
    };
    let ours = format!(".{}.lockreplay-", name.to_string_lossy());
    if !input_name.to_string_lossy().starts_with(&ours) {
        return false;
    }
    let folder = |p: &Path| {
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
        std::fs::canonicalize(parent.unwrap_or(Path::new("."))).ok()
    };
    folder(output).is_some_and(|o| folder(input).is_some_and(|i| i == o))
}

/// The start of the names of our temporary files and folders for an output
/// called `name`: `.NAME.lockreplay-PID-`, so that one left by a run killed
/// with `kill -9` can be told from one in use and removed by the next run.
pub fn temp_prefix(name: &str) -> String {
    format!(".{name}.lockreplay-{}-", std::process::id())
}

/// Removes the temporary files and folders of ours for an output called
/// `name` in `dir` ([`temp_prefix`]) whose process is gone; never one of
/// `inputs` (a file may be named like a temporary of ours, and be read).
pub fn remove_stale_temporaries(dir: &Path, name: &str, inputs: &[PathBuf]) {
    let start = format!(".{name}.lockreplay-");
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.filter_map(|e| e.ok()) {
        let file_name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = file_name.strip_prefix(&start) else {
            continue;
        };
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if pid.is_none_or(|p| p == std::process::id() || !process_is_gone(p))
            || is_input(&e.path(), inputs)
        {
            continue;
        }
        let _ = match e.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(e.path()),
            Ok(t) if t.is_file() => std::fs::remove_file(e.path()),
            _ => Ok(()),
        };
    }
}

/// Whether `path` is one of `inputs` or holds one (by path, through a
/// link, or as the same file).
fn is_input(path: &Path, inputs: &[PathBuf]) -> bool {
    let canon = std::fs::canonicalize(path).ok();
    let meta = std::fs::metadata(path).ok();
    inputs.iter().any(|i| {
        let ci = std::fs::canonicalize(i).ok();
        ci.as_ref()
            .zip(canon.as_ref())
            .is_some_and(|(ci, c)| ci == c || ci.starts_with(c))
            || meta
                .as_ref()
                .zip(std::fs::metadata(i).ok())
                .is_some_and(|(m, im)| same_file(m, &im))
    })
}

/// Whether no process `pid` runs (Linux: `/proc`); elsewhere unknown, so
/// never said.
fn process_is_gone(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        !Path::new("/proc").join(pid.to_string()).exists()
    } else {
        false
    }
}

/// Whether two metadata are of one file (device and inode on Unix).
#[cfg(unix)]
pub fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether two metadata are of one file (never known off Unix).
#[cfg(not(unix))]
pub fn same_file(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    false
}

/// What kind of file `meta` describes, in words for an error.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    if meta.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder
/// ([`temp_prefix`]; stale ones of killed runs removed first), then a
/// rename. A failure leaves no partial file at `path`. Refuses to write over
/// any of `inputs`.
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
/// The error of `write`, I/O failures, or `path` being one of the inputs or
/// not a regular file ([`check_output`]).
pub fn write_atomic_with<T>(
    path: &Path,
    inputs: &[PathBuf],
    write: impl FnOnce(&mut BufWriter<&mut std::fs::File>) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    check_output(path, inputs)?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    remove_stale_temporaries(dir, &name, inputs);
    let mut tmp = tempfile::Builder::new()
        .prefix(&temp_prefix(&name))
        .tempfile_in(dir)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_and_left_a_device() {
        use std::os::unix::fs::FileTypeExt;
        let err = write_atomic(Path::new("/dev/null"), b"x", &[]).expect_err("refused");
        assert!(format!("{err:#}").contains("character device"), "{err:#}");
        let meta = std::fs::metadata("/dev/null").expect("still there");
        assert!(meta.file_type().is_char_device());
    }

    /// An input named like a temporary of a killed run is never removed by
    /// a write next to it: the write is refused before anything is
    /// touched, and any other output name is written beside it.
    #[test]
    fn an_input_named_like_a_stale_temporary_is_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = dir.path().join(".out.png.lockreplay-4194303-x1Y2z3");
        std::fs::write(&input, b"a log").expect("write");
        let inputs = [input.clone()];
        let err = write_atomic(&dir.path().join("out.png"), b"png", &inputs).expect_err("refused");
        assert!(
            format!("{err:#}").contains("named like its temporary"),
            "{err:#}"
        );
        assert!(!dir.path().join("out.png").exists());
        write_atomic(&dir.path().join("other.png"), b"png", &inputs).expect("write");
        assert_eq!(std::fs::read(&input).expect("still there"), b"a log");
    }

    #[test]
    fn a_stale_temporary_file_of_a_killed_run_is_removed() {
        let dir = tempfile::tempdir().expect("tempdir");
        // pid 4194303 is above any pid handed out by default.
        let stale = dir.path().join(".out.png.lockreplay-4194303-x1Y2z3");
        let other = dir.path().join(".out.png.lockreplay-notapid");
        std::fs::write(&stale, b"half a picture").expect("write");
        std::fs::write(&other, b"not ours").expect("write");
        write_atomic(&dir.path().join("out.png"), b"png", &[]).expect("write");
        assert!(!stale.exists(), "the killed run's temporary file is gone");
        assert!(other.exists(), "a name without a pid is left alone");
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".out.png.lockreplay-notapid", "out.png"]);
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = write_atomic(dir.path(), b"x", &[]).expect_err("refused");
        assert!(format!("{err:#}").contains("a folder"), "{err:#}");
    }

    #[cfg(unix)]
    #[test]
    fn a_hard_link_to_an_input_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = dir.path().join("in.jsonl");
        std::fs::write(&input, b"{}\n").expect("write");
        let link = dir.path().join("out.png");
        std::fs::hard_link(&input, &link).expect("link");
        let err = write_atomic(&link, b"png", std::slice::from_ref(&input)).expect_err("refused");
        assert!(format!("{err:#}").contains("same file"), "{err:#}");
        assert_eq!(std::fs::read(&input).expect("read"), b"{}\n");
    }
}
