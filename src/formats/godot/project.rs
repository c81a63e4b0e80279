//! Where a Godot file points: `res://` paths resolve against the project folder (the nearest
//! folder above the file that holds `project.godot`), `uid://` ids by the `uid="…"` of the
//! project's text resources and the `.uid` files beside scripts, relative paths against the
//! referring file's folder.
//!
//! The `uid://` search reads only the first line of each `.tres`/`.tscn` and each `.uid`
//! file, skips hidden folders (`.godot`, `.git`) and stops after [`MAX_SCAN`] entries.
//!
//! ```
//! use std::path::Path;
//! use humanoid::formats::godot::project::Project;
//! let project = Project::new(Path::new("/games/hero"));
//! let file = project.resolve("res://rigs/profile.tres", Path::new("/games/hero/maps/a.tres"))?;
//! assert_eq!(file, Path::new("/games/hero/rigs/profile.tres"));
//! assert!(project.resolve("res://../secret", Path::new("/games/hero/a.tres")).is_err());
//! # Ok::<(), humanoid::Error>(())
//! ```

use std::path::{Component, Path, PathBuf};

use super::parse::MAX_TEXT;
use crate::error::Error;

/// Directory entries the `uid://` search looks at before giving up.
pub const MAX_SCAN: usize = 50_000;

/// Reads a text file, refusing one larger than [`MAX_TEXT`] before reading it.
///
/// # Errors
/// The file cannot be read, is too large, or is not UTF-8.
pub fn read_text(path: &Path) -> Result<String, Error> {
    let limit = crate::io::Limits::get().text_bytes.min(MAX_TEXT as u64);
    crate::io::input::read_text(path, limit, "a Godot text file")
}

/// A Godot project: the folder `res://` stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    root: PathBuf,
}

impl Project {
    /// The project rooted at `root`.
    pub fn new(root: &Path) -> Project {
        Project {
            root: root.to_path_buf(),
        }
    }

    /// The project a file belongs to: the nearest folder at or above the file's folder that
    /// holds `project.godot`.
    pub fn find(file: &Path) -> Option<Project> {
        let start = file.parent().unwrap_or(file);
        let start = if start.as_os_str().is_empty() {
            Path::new(".")
        } else {
            start
        };
        let absolute = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
        absolute
            .ancestors()
            .find(|dir| dir.join("project.godot").is_file())
            .map(Project::new)
    }

    /// The project folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file a `res://` path or a path relative to `from` (the referring file) names.
    ///
    /// # Errors
    /// A path that climbs out of the project (`..` past its root), or a `uid://` (see
    /// [`Project::find_uid`]).
    pub fn resolve(&self, path: &str, from: &Path) -> Result<PathBuf, Error> {
        if let Some(inner) = path.strip_prefix("res://") {
            return join_inside(&self.root, inner).ok_or_else(|| {
                Error::unsupported(format!(
                    "{}: {path:?} climbs out of the project folder {}",
                    from.display(),
                    self.root.display()
                ))
            });
        }
        resolve_relative(path, from)
    }

    /// The project file whose uid is `uid` (`uid://…`): a `.tres`/`.tscn` whose header says
    /// `uid="…"`, or the file beside a `.uid` file holding it.
    pub fn find_uid(&self, uid: &str) -> Option<PathBuf> {
        let mut seen = 0usize;
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > MAX_SCAN {
                    return None;
                }
                let path = entry.path();
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    if !name.starts_with('.') {
                        stack.push(path);
                    }
                    continue;
                }
                if let Some(stem) = name.strip_suffix(".uid") {
                    if first_line(&path).is_some_and(|l| l.trim() == uid) {
                        return Some(path.with_file_name(stem));
                    }
                } else if (name.ends_with(".tres") || name.ends_with(".tscn"))
                    && first_line(&path).is_some_and(|l| header_has_uid(&l, uid))
                {
                    return Some(path);
                }
            }
        }
        None
    }
}

/// A path that is not `res://`: relative to the referring file's folder. An absolute path is
/// refused: a file's links stay inside its project (see [`confine`]).
///
/// # Errors
/// A `uid://` or other `scheme://` path, or an absolute path.
pub fn resolve_relative(path: &str, from: &Path) -> Result<PathBuf, Error> {
    if path.contains("://") {
        return Err(Error::unsupported(format!(
            "{}: cannot resolve {path:?} without the project (no project.godot above the file)",
            from.display()
        )));
    }
    if Path::new(path).has_root() || path.starts_with(['/', '\\']) || path.get(1..2) == Some(":") {
        return Err(Error::unsupported(format!(
            "{}: {path:?} is an absolute path: a Godot file links to files of its project only, by res:// or a relative path",
            from.display()
        )));
    }
    let base = from.parent().unwrap_or(Path::new(""));
    Ok(base.join(path))
}

/// The folder a file's links may reach: its project's folder (see [`Project::find`]), or the
/// file's own folder when no `project.godot` lies above it.
pub fn allowed_root(from: &Path) -> PathBuf {
    if let Some(project) = Project::find(from) {
        return project.root;
    }
    match from.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `file`, when it lies inside `root` once `..` and symbolic links are followed: a link in a
/// Godot file (`res://`, relative, `uid://`) never reads outside the project. A file that does
/// not exist is returned as it is (the caller reports it missing; nothing is read).
///
/// ```
/// use humanoid::formats::godot::project::confine;
/// let dir = tempfile::tempdir()?;
/// let project = dir.path().join("game");
/// std::fs::create_dir(&project)?;
/// std::fs::write(project.join("a.tres"), "[gd_resource]")?;
/// std::fs::write(dir.path().join("secret.tres"), "[gd_resource]")?;
/// assert!(confine(&project.join("a.tres"), &project).is_ok());
/// assert!(confine(&project.join("../secret.tres"), &project).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// A message naming where the file really lies.
pub fn confine(file: &Path, root: &Path) -> Result<PathBuf, String> {
    let Ok(real) = file.canonicalize() else {
        return Ok(file.to_path_buf());
    };
    let base = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if real.starts_with(&base) {
        return Ok(file.to_path_buf());
    }
    Err(format!(
        "it leads outside the project folder {} (to {}): a Godot file links to files of its project only",
        base.display(),
        real.display()
    ))
}

/// `root/inner`, refusing an `inner` that climbs above `root`.
fn join_inside(root: &Path, inner: &str) -> Option<PathBuf> {
    let mut out = root.to_path_buf();
    let mut depth = 0usize;
    for component in Path::new(inner).components() {
        match component {
            Component::Normal(part) => {
                out.push(part);
                depth += 1;
            }
            Component::CurDir => {}
            Component::ParentDir => {
                depth = depth.checked_sub(1)?;
                out.pop();
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// The first line of a file, reading at most 4 KiB.
fn first_line(path: &Path) -> Option<String> {
    use std::io::Read;
    let (file, _) = crate::io::input::open(path).ok()?;
    let mut buffer = Vec::with_capacity(4096);
    file.take(4096).read_to_end(&mut buffer).ok()?;
    let text = String::from_utf8_lossy(&buffer);
    text.lines().next().map(str::to_owned)
}

fn header_has_uid(line: &str, uid: &str) -> bool {
    line.starts_with("[gd_") && line.contains(&format!("uid=\"{uid}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn res_paths_stay_inside_the_project() {
        let p = Project::new(Path::new("/p"));
        let from = Path::new("/p/a/b.tres");
        assert_eq!(
            p.resolve("res://x/y.tres", from).unwrap(),
            Path::new("/p/x/y.tres")
        );
        assert_eq!(
            p.resolve("res://x/../y.tres", from).unwrap(),
            Path::new("/p/y.tres")
        );
        assert!(p.resolve("res://../y.tres", from).is_err());
        assert_eq!(p.resolve("c.tres", from).unwrap(), Path::new("/p/a/c.tres"));
        assert!(resolve_relative("uid://abc", from).is_err());
    }

    #[test]
    fn uids_are_found_in_headers_and_uid_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("project.godot"), "config_version=5\n").unwrap();
        std::fs::create_dir_all(dir.path().join("rigs/.hidden")).unwrap();
        std::fs::write(
            dir.path().join("rigs/p.tres"),
            "[gd_resource type=\"SkeletonProfile\" format=3 uid=\"uid://p1\"]\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("rigs/.hidden/q.tres"),
            "[gd_resource type=\"SkeletonProfile\" format=3 uid=\"uid://q1\"]\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("s.gd.uid"), "uid://s1\n").unwrap();
        let inner = dir.path().join("rigs/map.tres");
        let project = Project::find(&inner).unwrap();
        assert_eq!(
            project.root(),
            std::fs::canonicalize(dir.path()).unwrap().as_path()
        );
        assert_eq!(
            project.find_uid("uid://p1"),
            Some(project.root().join("rigs/p.tres"))
        );
        assert_eq!(
            project.find_uid("uid://s1"),
            Some(project.root().join("s.gd"))
        );
        assert_eq!(project.find_uid("uid://q1"), None);
        assert_eq!(project.find_uid("uid://none"), None);
    }
}
