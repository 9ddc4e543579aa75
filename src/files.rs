//! Files written safely, whatever was planted in the folder: a new file is
//! created new (`O_EXCL`, with a random name when temporary), never opened
//! through a link; a file put in place of another keeps the mode of the one
//! it replaces; a file read back from a folder of ours is opened only when
//! it is a plain file, not a link. A leaf: it imports nothing of the crate.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A name no one can guess before the run: 128 bits from the standard
/// library's per-process random keys.
pub fn random_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut name = String::with_capacity(32);
    for salt in [1u64, 2] {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(salt);
        name.push_str(&format!("{:016x}", hasher.finish()));
    }
    name
}

/// Creates `path` new: fails when anything is there, a link included
/// (`O_CREAT | O_EXCL` does not follow a link, dangling or not).
pub fn create_new(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// Opens `path` for reading only when it is a plain file, not a link.
pub fn open_plain(path: &Path) -> std::io::Result<File> {
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.file_type().is_file() {
        return Err(std::io::Error::other(format!(
            "{} is not a plain file (a link or a folder): not read",
            path.display()
        )));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Between the look and the open, a link put in its place is refused too.
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// Whether `path` is a link (dangling or not).
pub fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// A temporary file created new beside `path` (in its folder, so that a
/// rename puts it in place), with a random name.
pub fn temporary_beside(path: &Path) -> std::io::Result<(File, PathBuf)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut last = None;
    for _ in 0..8 {
        let temporary = dir.join(format!(".{name}.edgeaudit-{}.part", random_name()));
        match create_new(&temporary) {
            Ok(file) => return Ok((file, temporary)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no temporary name was free")))
}

/// Puts the written `temporary` in place of `path`: with the mode of the
/// plain file it replaces, if any (a 0600 file stays 0600), then renamed
/// over it (a link at `path` is replaced, never written through).
pub fn put_in_place(temporary: &Path, file: &File, path: &Path) -> std::io::Result<()> {
    if let Ok(meta) = std::fs::symlink_metadata(path)
        && meta.file_type().is_file()
    {
        file.set_permissions(meta.permissions())?;
    }
    file.sync_all()?;
    std::fs::rename(temporary, path)
}

/// Writes `bytes` to `path` so that it holds either its earlier content or
/// all of the new one (see [`temporary_beside`], [`put_in_place`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (mut file, temporary) = temporary_beside(path)?;
    let written = file.write_all(bytes).and_then(|()| put_in_place(&temporary, &file, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Writes a new file at `path` in a folder of ours: whatever is there (a
/// file of an earlier run, or a link planted in its place) is removed first,
/// and the file is created new.
pub fn replace_in_own_folder(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    create_new(path)?.write_all(bytes)
}

/// A file named on the command line (`--output`, `--format X=FILE`), being
/// written: into a temporary file beside it, put in place by [`commit`]
/// (so a link planted at the name is replaced, never written through, and
/// a file replaced keeps its mode). A device or a pipe (`/dev/stdout`, a
/// FIFO) is written as it is. Dropped uncommitted, the temporary file goes.
///
/// [`commit`]: Output::commit
pub struct Output {
    file: File,
    temporary: Option<PathBuf>,
    path: PathBuf,
}

impl Output {
    pub fn create(path: &Path) -> std::io::Result<Output> {
        // A device or a pipe, named or through a link (`/dev/stdout` is a link
        // to one): written as it is. A link to a file is replaced, not followed.
        let special = std::fs::metadata(path).is_ok_and(|m| {
            let t = m.file_type();
            !t.is_file() && !t.is_dir()
        });
        if special {
            let file = OpenOptions::new().write(true).open(path)?;
            return Ok(Output {
                file,
                temporary: None,
                path: path.to_path_buf(),
            });
        }
        let (file, temporary) = temporary_beside(path)?;
        Ok(Output {
            file,
            temporary: Some(temporary),
            path: path.to_path_buf(),
        })
    }

    /// Puts the file in place.
    pub fn commit(mut self) -> std::io::Result<()> {
        self.file.flush()?;
        match self.temporary.take() {
            Some(temporary) => {
                let placed = put_in_place(&temporary, &self.file, &self.path);
                if placed.is_err() {
                    let _ = std::fs::remove_file(&temporary);
                }
                placed
            }
            None => Ok(()),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(temporary) = &self.temporary {
            let _ = std::fs::remove_file(temporary);
        }
    }
}

/// Writes `bytes` to a file named on the command line (see [`Output`]).
pub fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut out = Output::create(path)?;
    out.write_all(bytes)?;
    out.commit()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("edgeaudit-files-{}-{}", std::process::id(), random_name()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn nothing_is_written_through_a_planted_link() {
        let dir = dir();
        let target = dir.join("target");
        std::fs::write(&target, "keep").unwrap();
        symlink(&target, dir.join("page.json")).unwrap();
        assert!(create_new(&dir.join("page.json")).is_err(), "a link is something there");
        replace_in_own_folder(&dir.join("page.json"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert!(!is_link(&dir.join("page.json")));
        symlink(&target, dir.join("link")).unwrap();
        assert!(open_plain(&dir.join("link")).is_err());
        assert!(open_plain(&dir.join("page.json")).is_ok());
        // A link at the output is replaced by the file, its target untouched.
        write_atomically(&dir.join("link"), b"bundle").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(dir.join("link")).unwrap(), "bundle");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_output_replaces_a_link_and_writes_a_pipe_as_it_is() {
        let dir = dir();
        let target = dir.join("bashrc");
        std::fs::write(&target, "keep").unwrap();
        symlink(&target, dir.join("report.sarif")).unwrap();
        write_output(&dir.join("report.sarif"), b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(dir.join("report.sarif")).unwrap(), "{}");
        // Dropped before it is committed: nothing is left, nothing replaced.
        let out = Output::create(&dir.join("report.sarif")).unwrap();
        drop(out);
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        write_output(Path::new("/dev/null"), b"x").unwrap();
        // A link to a device (as /dev/stdout is) is written through.
        symlink("/dev/null", dir.join("out")).unwrap();
        write_output(&dir.join("out"), b"x").unwrap();
        assert!(is_link(&dir.join("out")), "the link to the device stays");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_replaced_file_keeps_its_mode_and_temporaries_differ() {
        let dir = dir();
        let out = dir.join("bundle.json");
        std::fs::write(&out, "old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomically(&out, b"new").unwrap();
        assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
        let (_, a) = temporary_beside(&out).unwrap();
        let (_, b) = temporary_beside(&out).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.parent(), out.parent());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
