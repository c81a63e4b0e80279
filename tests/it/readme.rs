//! The README's recipes cannot rot: every `humanoid …` line in README.md's ```` ```sh ````
//! blocks (the recipes, the install block) is run by the built binary in a temporary folder
//! where each file name the README uses exists, and must exit 0 and write the output it names.
//!
//! [`FILES`] maps each README file name to a real file: a corpus file (`../shared/corpus`) or
//! the folder `humanoid demo` writes. A name the README uses that is neither in the table nor
//! written by an earlier line fails the test, saying so, so a new recipe cannot be skipped
//! silently; that check needs no corpus and runs in plain `cargo test`. Running the lines needs
//! the corpus: `cargo test --features corpus --test it readme` (the binary is `HUMANOID_BIN`
//! when set, as in the conversion matrix, else this build's).
//!
//! Not run: lines that do not start with `humanoid ` (`cargo …`, which `.ci/run` runs itself,
//! and `pip …`), and the ```` ```python ```` block: the Python package has its own tests
//! (`python/tests`). A `preview` line is skipped, with a note, when the binary was built without
//! the `preview` feature or the machine has no GPU renderer at all (not even Mesa's software
//! one); `--skeleton-only` lines need neither.
#![cfg_attr(not(feature = "corpus"), allow(dead_code))]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a file name the README uses comes from.
enum Source {
    /// A corpus file, relative to `../shared/corpus`.
    Corpus(&'static str),
    /// A folder of corpus files (copied side by side).
    CorpusFolder(&'static [&'static str]),
    /// The folder `humanoid demo -o NAME` writes (mannequin.glb, mannequin_ext_clips.glb,
    /// preview/*.gif).
    Demo,
}

/// Every file or folder name the README's commands read, and the real file behind it. A name
/// ending in `/` is a folder: `NAME/anything` in the README is inside it.
const FILES: &[(&str, Source)] = &[
    // A VRM 0.x model: skinned, MToon materials, CC BY licence (its migration is the recipe).
    ("old.vrm", Source::Corpus("vrm/Godette_vrm_v4.vrm")),
    // A VRM 1.0 model (the Blender add-on's debug robot; three-vrm's oracle model).
    ("hero.vrm", Source::Corpus("vrm/debug_robot.vrm")),
    // An animated FBX humanoid. The corpus has no Mixamo FBX (its MANIFEST: Blender makes one
    // on the fly from Soldier.glb); Maya's Kenney character (HumanIK names, a take) stands in.
    (
        "walk.fbx",
        Source::Corpus("fbx/maya_kenney_character_7700_binary.fbx"),
    ),
    // CMU motion capture, "Start Walk Stop" (3dsMax-friendly BVH).
    ("walk.bvh", Source::Corpus("bvh/cmu_131_01_3dsmax.bvh")),
    // An H-Anim 2.0 figure in X3D XML: skin, displacer, a kick clip.
    ("kick.x3d", Source::Corpus("hanim/JoeKick.x3d")),
    // A Mixamo rig as GLB (arms down: --normalize has work to do).
    ("rig.glb", Source::Corpus("gltf/Soldier.glb")),
    // A folder of motions: two BVH flavours and an FBX take.
    (
        "moves/",
        Source::CorpusFolder(&[
            "bvh/mocapbank_walk.bvh",
            "bvh/mixamo_freebvh.bvh",
            "fbx/maya_kenney_character_7700_binary.fbx",
        ]),
    ),
    // A folder of VRM 0.x models.
    (
        "avatars/",
        Source::CorpusFolder(&[
            "vrm/Godette_vrm_v4.vrm",
            "vrm/sphere.vrm",
            "vrm/EmissionMigration_v0.106.0.vrm",
        ]),
    ),
    // What the README's first command writes.
    ("humanoid-demo/", Source::Demo),
];

/// Flags followed by a value (so the value is not taken for a positional argument).
const VALUE_FLAGS: &[&str] = &[
    "-o",
    "--out",
    "--output-dir",
    "--to",
    "--onto",
    "--anim",
    "--compare",
    "--clip",
    "--time",
    "--times",
    "--uniform",
    "--view",
    "--size",
    "--frames",
    "--fps",
    "--backend",
    "--map",
    "--mappings",
    "--vrm-name",
    "--vrm-author",
    "--vrm-license-url",
    "--bvh-scale",
    "--bvh-order",
    "--bvh-units",
    "--rest",
    "--as",
    "--contacts",
    "--vt-mode",
    "-j",
    "--jobs",
];

/// Flags whose value is what the command writes.
const OUTPUT_FLAGS: &[&str] = &["-o", "--out", "--output-dir"];

/// Extensions that make an argument a file name.
const FILE_EXTENSIONS: &[&str] = &[
    "glb", "gltf", "bin", "vrm", "vrma", "x3d", "x3dv", "wrl", "bvh", "fbx", "tres", "import",
    "toml", "png", "jpg", "gif", "json",
];

/// One `humanoid …` line of the README.
#[derive(Debug)]
struct Recipe {
    /// The line as the README shows it (continuations joined).
    line: String,
    /// The arguments after `humanoid`.
    args: Vec<String>,
    /// File names it reads.
    inputs: Vec<String>,
    /// File names it writes.
    outputs: Vec<String>,
}

impl Recipe {
    fn subcommand(&self) -> &str {
        self.args.first().map_or("", String::as_str)
    }
}

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&path).expect("read README.md")
}

/// The `humanoid …` lines of the text's sh blocks, in order: `\` continuations joined, comments
/// dropped.
fn recipes(markdown: &str) -> Vec<Recipe> {
    let mut lines = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for raw in markdown.lines() {
        let trimmed = raw.trim();
        if let Some(info) = trimmed.strip_prefix("```") {
            if in_block {
                in_block = false;
                assert!(
                    pending.is_empty(),
                    "README.md: a sh block ends in a `\\` continuation: {pending}"
                );
            } else {
                in_block = matches!(info.trim(), "sh" | "bash" | "shell");
            }
            continue;
        }
        if !in_block {
            continue;
        }
        let text = strip_comment(raw);
        if let Some(head) = text.trim_end().strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(&text);
        let line = std::mem::take(&mut pending).trim().to_owned();
        if line.starts_with("humanoid ") || line == "humanoid" {
            lines.push(line);
        }
    }
    lines.into_iter().map(|line| parse(&line)).collect()
}

/// The line up to a `#` that starts a word outside quotes.
fn strip_comment(line: &str) -> String {
    let mut quote = None;
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if previous.is_whitespace() => return line[..i].to_owned(),
            _ => {}
        }
        previous = c;
    }
    line.to_owned()
}

/// Shell words: whitespace-separated, '…' and "…" quoting; refuses what needs a shell.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, '|' | '>' | '<' | ';' | '&' | '$' | '`') => panic!(
                "README.md: `{line}` uses shell syntax ({c:?}); recipes are single commands \
                 (tests/it/readme.rs runs them without a shell)"
            ),
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    assert!(quote.is_none(), "README.md: unclosed quote in `{line}`");
    if in_word {
        words.push(word);
    }
    words
}

/// Whether an argument names a file or folder.
fn is_path(arg: &str) -> bool {
    if arg.starts_with('-') || arg.contains("://") {
        return false;
    }
    arg.contains('/')
        || Path::new(arg)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| FILE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Splits a line into its arguments, what it reads and what it writes.
fn parse(line: &str) -> Recipe {
    let all = words(line);
    let args: Vec<String> = all[1..].to_vec();
    let mut positionals = Vec::new();
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    let mut i = 1; // args[0] is the subcommand
    while i < args.len() {
        let arg = &args[i];
        if arg.starts_with('-') {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) => (flag, Some(value.to_owned())),
                None => (arg.as_str(), None),
            };
            let value = match inline {
                Some(value) => Some(value),
                None if VALUE_FLAGS.contains(&flag) => {
                    i += 1;
                    Some(
                        args.get(i)
                            .unwrap_or_else(|| panic!("README.md: `{line}`: {flag} has no value"))
                            .clone(),
                    )
                }
                None => None,
            };
            if let Some(value) = value {
                if OUTPUT_FLAGS.contains(&flag) {
                    outputs.push(value);
                } else if is_path(&value) {
                    inputs.push(value);
                }
            }
        } else {
            positionals.push(arg.clone());
        }
        i += 1;
    }
    // `convert IN OUT`: the second of two paths is written.
    if args.first().is_some_and(|a| a == "convert") && outputs.is_empty() && positionals.len() == 2
    {
        outputs.push(positionals.pop().unwrap_or_default());
    }
    inputs.extend(positionals.into_iter().filter(|p| is_path(p)));
    Recipe {
        line: line.to_owned(),
        args,
        inputs,
        outputs,
    }
}

/// The table entry that provides `name`: the name itself, or the folder it is inside.
fn table_entry(name: &str) -> Option<&'static (&'static str, Source)> {
    FILES
        .iter()
        .find(|(key, _)| *key == name || (key.ends_with('/') && name.starts_with(key)))
        .or_else(|| {
            FILES
                .iter()
                .find(|(key, _)| key.strip_suffix('/') == Some(name))
        })
}

/// Whether `name` is, or is inside, something an earlier line wrote.
fn written_before(name: &str, written: &BTreeSet<String>) -> bool {
    written.iter().any(|out| {
        let folder = out.trim_end_matches('/');
        name == out
            || name.trim_end_matches('/') == folder
            || name.starts_with(&format!("{folder}/"))
    })
}

/// The README's lines, checked: every file each one reads is in [`FILES`] or written by an
/// earlier line. Panics naming every file that is neither.
fn checked_recipes() -> Vec<Recipe> {
    let recipes = recipes(&readme());
    assert!(
        recipes.len() >= 10,
        "README.md shows {} `humanoid` commands in sh blocks; the recipes section should hold \
         more (is the fence still ```sh?)",
        recipes.len()
    );
    let mut written = BTreeSet::new();
    let mut missing = Vec::new();
    for recipe in &recipes {
        for input in &recipe.inputs {
            if table_entry(input).is_none() && !written_before(input, &written) {
                missing.push(format!("`{input}` (in `{}`)", recipe.line));
            }
        }
        written.extend(recipe.outputs.iter().cloned());
    }
    assert!(
        missing.is_empty(),
        "README.md uses file names that tests/it/readme.rs's FILES table does not map to a real \
         file (a corpus file or the demo), so their recipes cannot be run: add them to FILES:\n  {}",
        missing.join("\n  ")
    );
    let unused: Vec<&str> = FILES
        .iter()
        .map(|(key, _)| *key)
        .filter(|key| {
            !recipes
                .iter()
                .flat_map(|r| &r.inputs)
                .any(|input| table_entry(input).is_some_and(|(k, _)| k == key))
        })
        .collect();
    if !unused.is_empty() {
        eprintln!("note: FILES entries no README command reads: {unused:?}");
    }
    recipes
}

#[test]
fn every_file_the_readme_reads_is_in_the_table() {
    let recipes = checked_recipes();
    // The recipes the issue asks for are there.
    for wanted in [
        "--to vrm1",
        "retarget walk.fbx --onto hero.vrm -o walk.vrma",
        "retarget moves/",
        "map rig.glb --explain",
        "inspect",
        "validate",
        "preview",
    ] {
        assert!(
            recipes.iter().any(|r| r.line.contains(wanted)),
            "README.md has no recipe with `{wanted}`"
        );
    }
}

#[test]
fn the_parser_reads_what_a_line_reads_and_writes() {
    let r = parse("humanoid convert old.vrm new.vrm --to vrm1");
    assert_eq!(
        (r.inputs, r.outputs),
        (vec!["old.vrm".into()], vec!["new.vrm".into()])
    );
    let r = parse("humanoid retarget moves/ --onto hero.vrm -o clips/ --to vrma -j 2");
    assert_eq!(r.inputs, ["hero.vrm", "moves/"]);
    assert_eq!(r.outputs, ["clips/"]);
    let r = parse("humanoid preview hero.vrm --anim=walk.vrma -o 'a b.gif' --time 0.5");
    assert_eq!(r.inputs, ["walk.vrma", "hero.vrm"]);
    assert_eq!(r.outputs, ["a b.gif"]);
    let md = "```sh\nhumanoid map rig.glb \\\n  --explain   # why\ncargo test\n```\n\
              ```python\nhumanoid.read('x.glb')\n```\n";
    let lines: Vec<String> = recipes(md).into_iter().map(|r| r.line).collect();
    assert_eq!(lines, ["humanoid map rig.glb    --explain"]);
    assert!(table_entry("humanoid-demo/mannequin.glb").is_some());
    assert!(table_entry("nowhere.glb").is_none());
}

/// The binary to run: `HUMANOID_BIN`, else this test build's.
fn binary() -> PathBuf {
    std::env::var_os("HUMANOID_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_humanoid")),
        PathBuf::from,
    )
}

/// Puts every [`FILES`] entry into `dir`.
fn materialise(dir: &Path) {
    let corpus = crate::util::shared().join("corpus");
    assert!(
        corpus.is_dir(),
        "{} is missing: the README recipes run on the shared corpus",
        corpus.display()
    );
    let copy = |from: &str, to: &Path| {
        let source = corpus.join(from);
        std::fs::copy(&source, to)
            .unwrap_or_else(|e| panic!("copy {} to {}: {e}", source.display(), to.display()));
    };
    for (name, source) in FILES {
        let target = dir.join(name.trim_end_matches('/'));
        match source {
            Source::Corpus(from) => copy(from, &target),
            Source::CorpusFolder(files) => {
                std::fs::create_dir_all(&target).unwrap();
                for from in *files {
                    let file = Path::new(from).file_name().unwrap();
                    copy(from, &target.join(file));
                }
            }
            Source::Demo => {
                let run = Command::new(binary())
                    .args(["demo", "-o"])
                    .arg(&target)
                    .output()
                    .expect("run humanoid demo");
                assert!(
                    run.status.success(),
                    "humanoid demo: {}",
                    String::from_utf8_lossy(&run.stderr)
                );
            }
        }
    }
}

/// Whether `path` holds something: a non-empty file, or a folder with an entry.
fn holds_something(path: &Path) -> bool {
    if path.is_dir() {
        std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_some())
    } else {
        path.metadata().is_ok_and(|m| m.is_file() && m.len() > 0)
    }
}

#[cfg(feature = "corpus")]
#[test]
fn the_readme_recipes_run() {
    let recipes = checked_recipes();
    let dir = crate::util::temp_dir();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    materialise(&work);
    let runtime = dir.path().join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();

    let help = Command::new(binary()).arg("--help").output().unwrap();
    let has_preview = String::from_utf8_lossy(&help.stdout)
        .lines()
        .any(|l| l.trim_start().starts_with("preview "));

    let mut failures = Vec::new();
    let mut ran = 0;
    for recipe in &recipes {
        if recipe.subcommand() == "preview" && !has_preview {
            eprintln!(
                "skipped (built without the preview feature): {}",
                recipe.line
            );
            continue;
        }
        let run = Command::new(binary())
            .args(&recipe.args)
            .current_dir(&work)
            .env("XDG_RUNTIME_DIR", &runtime)
            .output()
            .expect("run humanoid");
        let stderr = String::from_utf8_lossy(&run.stderr);
        if !run.status.success() {
            if recipe.subcommand() == "preview" && stderr.contains("no GPU renderer available") {
                eprintln!("skipped (no GPU renderer on this machine): {}", recipe.line);
                continue;
            }
            failures.push(format!(
                "`{}` exited {:?}:\n{}{}",
                recipe.line,
                run.status.code(),
                String::from_utf8_lossy(&run.stdout),
                stderr
            ));
            continue;
        }
        ran += 1;
        for output in &recipe.outputs {
            if !holds_something(&work.join(output)) {
                failures.push(format!(
                    "`{}` exited 0 but did not write {output}",
                    recipe.line
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "README recipes failed (in {}):\n\n{}",
        work.display(),
        failures.join("\n\n")
    );
    eprintln!("{ran} README commands ran and wrote what they name");
}
