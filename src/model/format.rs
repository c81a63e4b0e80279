//! [`Format`]: the registry of the formats the tool names, and the one table of the
//! extensions that pick them for input ([`Format::for_input`]) and output
//! ([`Format::for_output`]). A character carries it as the tag of where it came from; the model
//! attaches no format behaviour to it.

use std::fmt;
use std::path::Path;

use crate::error::Error;

/// Every format the tool names. The `--to` names are fixed for good: `glb`, `gltf`, `vrm1`,
/// `vrm0`, `vrma`, `x3d`, `x3dv`, `wrl`, `bvh`, `godot-bonemap`, `godot-profile`.
///
/// ```
/// use humanoid::formats::Format;
/// assert_eq!("x3dv".parse::<Format>().unwrap(), Format::X3dv);
/// assert_eq!(Format::X3dv.name(), "x3dv");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Binary glTF 2.0.
    Glb,
    /// JSON glTF 2.0 with `data:` URIs or external buffers.
    Gltf,
    /// VRM 1.0 (`VRMC_vrm`).
    Vrm1,
    /// VRM 0.x (`VRM`).
    Vrm0,
    /// VRM animation (`VRMC_vrm_animation`).
    Vrma,
    /// H-Anim 2.0 in X3D XML.
    X3d,
    /// H-Anim 2.0 in ClassicVRML.
    X3dv,
    /// H-Anim 1.1 in VRML97.
    Wrl,
    /// Biovision hierarchy motion capture.
    Bvh,
    /// Godot `BoneMap` resource (`.tres`).
    GodotBoneMap,
    /// Godot `SkeletonProfileHumanoid` resource (`.tres`).
    GodotProfile,
    /// Autodesk FBX, ASCII or binary (read only).
    Fbx,
}

impl Format {
    /// Every format, in `--to` listing order.
    pub const ALL: [Format; 12] = [
        Format::Glb,
        Format::Gltf,
        Format::Vrm1,
        Format::Vrm0,
        Format::Vrma,
        Format::X3d,
        Format::X3dv,
        Format::Wrl,
        Format::Bvh,
        Format::GodotBoneMap,
        Format::GodotProfile,
        Format::Fbx,
    ];

    /// The `--to` name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Glb => "glb",
            Format::Gltf => "gltf",
            Format::Vrm1 => "vrm1",
            Format::Vrm0 => "vrm0",
            Format::Vrma => "vrma",
            Format::X3d => "x3d",
            Format::X3dv => "x3dv",
            Format::Wrl => "wrl",
            Format::Bvh => "bvh",
            Format::GodotBoneMap => "godot-bonemap",
            Format::GodotProfile => "godot-profile",
            Format::Fbx => "fbx",
        }
    }

    /// The file extension an output of this format takes (`vrm` for both VRM versions,
    /// `tres` for both Godot resources).
    ///
    /// ```
    /// use humanoid::formats::Format;
    /// assert_eq!(Format::Vrm0.extension(), "vrm");
    /// assert_eq!(Format::GodotProfile.extension(), "tres");
    /// ```
    pub fn extension(self) -> &'static str {
        match self {
            Format::Vrm1 | Format::Vrm0 => "vrm",
            Format::GodotBoneMap | Format::GodotProfile => "tres",
            other => other.name(),
        }
    }

    /// Whether this format is a glTF container (glTF, GLB, VRM, VRMA).
    pub fn is_gltf_family(self) -> bool {
        matches!(
            self,
            Format::Glb | Format::Gltf | Format::Vrm1 | Format::Vrm0 | Format::Vrma
        )
    }

    /// Whether this format is an H-Anim encoding (X3D XML, ClassicVRML, VRML97).
    pub fn is_hanim(self) -> bool {
        matches!(self, Format::X3d | Format::X3dv | Format::Wrl)
    }

    /// Whether an adapter can write this format yet.
    pub const fn can_write(self) -> bool {
        matches!(
            self,
            Format::Glb
                | Format::Gltf
                | Format::Vrm1
                | Format::Vrm0
                | Format::Vrma
                | Format::Bvh
                | Format::X3d
                | Format::X3dv
                | Format::Wrl
                | Format::GodotBoneMap
                | Format::GodotProfile
        )
    }

    /// Why this format cannot be an output (`None` when it can): names the formats we write.
    ///
    /// ```
    /// use humanoid::formats::Format;
    /// let why = Format::Fbx.refuse_output().unwrap().to_string();
    /// assert!(why.contains("read only") && why.contains("glb, gltf, vrm1"), "{why}");
    /// assert!(Format::Glb.refuse_output().is_none());
    /// ```
    pub fn refuse_output(self) -> Option<Error> {
        if self.can_write() {
            return None;
        }
        let writable: Vec<&str> = Format::ALL
            .into_iter()
            .filter(|f| f.can_write())
            .map(Format::name)
            .collect();
        Some(Error::unsupported(format!(
            "{} is read only: humanoid reads it but does not write it; write one of {} (--to)",
            self.name(),
            writable.join(", ")
        )))
    }

    /// The format of an input file, from its extension (glTF family: refined from the content by
    /// the glTF reader).
    ///
    /// # Errors
    /// An extension no format claims.
    pub fn for_input(path: &Path) -> Result<Format, Error> {
        let extension = |p: &Path| {
            p.extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase()
        };
        let mut ext = extension(path);
        if ext == "gz" {
            // `.x3d.gz`, `.x3dv.gz`, `.wrl.gz`: H-Anim, gzip-compressed (the reader gunzips).
            let inner = extension(Path::new(path.file_stem().unwrap_or_default()));
            if matches!(inner.as_str(), "x3d" | "x3dv" | "wrl") {
                ext = inner;
            }
        }
        Ok(match ext.as_str() {
            "x3dz" => Format::X3d,
            "x3dvz" => Format::X3dv,
            "wrz" => Format::Wrl,
            "glb" => Format::Glb,
            "gltf" => Format::Gltf,
            "vrm" => Format::Vrm1,
            "vrma" => Format::Vrma,
            "x3d" => Format::X3d,
            "x3dv" => Format::X3dv,
            "wrl" => Format::Wrl,
            "bvh" => Format::Bvh,
            "fbx" => Format::Fbx,
            "tres" | "import" => Format::GodotBoneMap,
            _ if path.is_dir() => {
                return Err(Error::invalid_coded(
                    "INPUT_NOT_A_FILE",
                    path,
                    crate::error::Location::File,
                    "this is a folder, not a regular file: give the path of a file",
                ))
            }
            _ => {
                return Err(Error::unsupported(format!(
                    "{}: unknown input format {ext:?} (known: .glb .gltf .vrm .vrma .x3d .x3dv .wrl (also gzip-compressed: .x3dz .x3dvz .wrz .x3d.gz .x3dv.gz .wrl.gz) .bvh .fbx .tres .import)",
                    path.display()
                )))
            }
        })
    }

    /// The output format an output path implies, following the rules of `convert`:
    /// `.glb`, `.gltf`, `.vrma`, `.x3d`, `.x3dv` (H-Anim 2.0), `.wrl` (VRML97 H-Anim 1.1) and
    /// `.bvh` decide by themselves; `.vrm` keeps the input's VRM version (`input_vrm`), else
    /// VRM 1.0; `.tres` is ambiguous and needs `--to`.
    ///
    /// # Errors
    /// An unknown or ambiguous extension.
    pub fn for_output(path: &Path, input_vrm: Option<Format>) -> Result<Format, Error> {
        let ext = extension(path);
        Ok(match ext.as_str() {
            "glb" => Format::Glb,
            "gltf" => Format::Gltf,
            "vrma" => Format::Vrma,
            "x3d" => Format::X3d,
            "x3dv" => Format::X3dv,
            "wrl" => Format::Wrl,
            "bvh" => Format::Bvh,
            // Read only: refused here, naming the formats we write.
            "fbx" => match Format::Fbx.refuse_output() {
                Some(refused) => return Err(refused),
                None => Format::Fbx,
            },
            "vrm" => input_vrm.unwrap_or(Format::Vrm1),
            "tres" => {
                return Err(Error::unsupported(format!(
                    "{}: a .tres file can hold a Godot BoneMap or a SkeletonProfileHumanoid: \
                     say which with --to godot-bonemap or --to godot-profile",
                    path.display()
                )))
            }
            other => {
                return Err(Error::unsupported(format!(
                    "{}: cannot tell the output format from the extension {:?}: use --to with one of {}",
                    path.display(),
                    other,
                    names()
                )))
            }
        })
    }
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The names of the formats we write (FBX, read only, is not offered).
fn names() -> String {
    Format::ALL
        .into_iter()
        .filter(|f| f.can_write())
        .map(Format::name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                Error::unsupported(format!("unknown format {s:?}: expected one of {}", names()))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for format in Format::ALL {
            assert_eq!(format.name().parse::<Format>().unwrap(), format);
        }
        assert!("obj".parse::<Format>().is_err());
    }

    /// An output whose extension names no format lists the formats `--to` takes, which are
    /// those we write: not FBX.
    #[test]
    fn an_unknown_output_extension_lists_only_what_we_write() {
        let message = Format::for_output(Path::new("out.obj"), None)
            .unwrap_err()
            .to_string();
        assert!(message.contains("glb, gltf"), "{message}");
        assert!(!message.contains("fbx"), "{message}");
    }

    #[test]
    fn output_extension_decides() {
        let f = |p: &str, vrm| Format::for_output(Path::new(p), vrm);
        assert_eq!(f("a.GLB", None).unwrap(), Format::Glb);
        assert_eq!(f("a.x3dv", None).unwrap(), Format::X3dv);
        assert_eq!(f("a.wrl", None).unwrap(), Format::Wrl);
        assert_eq!(f("a.vrm", None).unwrap(), Format::Vrm1);
        assert_eq!(f("a.vrm", Some(Format::Vrm0)).unwrap(), Format::Vrm0);
        let tres = f("a.tres", None).unwrap_err().to_string();
        assert!(tres.contains("--to godot-bonemap"), "{tres}");
        assert!(f("a.fbx", None).is_err());
    }
}
