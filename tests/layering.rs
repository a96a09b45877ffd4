//! docs/design.md and the code agree: the table of modules there says what each
//! module of `src/` imports from the crate, and here every module's code (tests left
//! out) is read for its references to other modules, directly (`crate::fork::epoch`,
//! `use crate::{fork, system_clock}`) or through the crate root's re-exports
//! (`crate::DefaultRng` is `default_rng`'s). Each module must import exactly what the
//! table says, every module must be in the table, and the imports the table lists
//! must form layers: no module reaches itself again through them (issue 38: six files
//! of the core imported each other in a circle).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

type Graph = BTreeMap<String, BTreeSet<String>>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The table of docs/design.md: each module (a row may name several) and what it
/// imports (the backticked names of the last column; "nothing" is none).
fn design() -> Graph {
    let text = fs::read_to_string(root().join("docs/design.md")).expect("docs/design.md");
    let ticked = Regex::new("`([a-z_:]+)`").unwrap();
    let mut graph = Graph::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("| module | owns | imports |") {
            in_table = true;
            continue;
        }
        if !in_table || line.starts_with("| ---") {
            continue;
        }
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
        assert_eq!(cells.len(), 3, "a row of three cells: {line}");
        let imports: BTreeSet<String> = ticked
            .captures_iter(cells[2])
            .map(|c| c[1].to_owned())
            .collect();
        for m in ticked.captures_iter(cells[0]) {
            graph.insert(m[1].to_owned(), imports.clone());
        }
    }
    assert!(!graph.is_empty(), "no module table in docs/design.md");
    graph
}

/// The module a source file belongs to, by its path under `src/`: the integrations
/// (`external.rs` and `external/`) are one, but for the SQL type of the diesel
/// support, which the ID type's derive names.
fn module_of(relative: &Path) -> String {
    let path = relative.with_extension("");
    let path = path.to_string_lossy().replace('\\', "/");
    if path == "external/diesel_support/sql_types" {
        "external::diesel_support::sql_types".to_owned()
    } else if path == "external" || path.starts_with("external/") {
        "external".to_owned()
    } else {
        path
    }
}

/// The code of a file without its tests (a `mod tests` at its end) and without
/// comments.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// What the crate root re-exports, by name: the module each name comes from.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let group = Regex::new(r"pub use ([a-z_]+)(::[a-z_:]+)?::\{([^}]*)\};").unwrap();
    let single =
        Regex::new(r"pub use ([a-z_]+)(::[a-z_:]+)?::([A-Za-z0-9_]+)( as ([A-Za-z0-9_]+))?;")
            .unwrap();
    let mut names = BTreeMap::new();
    for c in group.captures_iter(lib) {
        for name in c[3].split(',').map(str::trim).filter(|n| !n.is_empty()) {
            names.insert(name.to_owned(), c[1].to_owned());
        }
    }
    for c in single.captures_iter(lib) {
        let name = c.get(5).map_or(&c[3], |m| m.as_str());
        names.insert(name.to_owned(), c[1].to_owned());
    }
    names
}

/// The modules each module's code refers to.
fn code_graph() -> Graph {
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let names = reexports(&lib);
    let path = Regex::new(r"crate::([A-Za-z0-9_]+)(::[A-Za-z0-9_]+)?").unwrap();
    let group = Regex::new(r"use crate::\{([^;]*)\};").unwrap();
    let mut graph = Graph::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        if relative == Path::new("lib.rs") || relative.file_name().is_some_and(|n| n == "tests.rs")
        {
            continue; // the root (declares the modules, re-exports them), and tests
        }
        let module = module_of(relative);
        let code = code(&file);
        let mut first: Vec<(String, Option<String>)> = path
            .captures_iter(&code)
            .map(|c| {
                (
                    c[1].to_owned(),
                    c.get(2).map(|m| m.as_str()[2..].to_owned()),
                )
            })
            .collect();
        for c in group.captures_iter(&code) {
            for part in c[1].split(',') {
                let mut segments = part.trim().split("::");
                if let Some(name) = segments.next().filter(|n| !n.is_empty()) {
                    let name = name.trim_start_matches('{').trim();
                    first.push((name.to_owned(), segments.next().map(str::to_owned)));
                }
            }
        }
        let imports = graph.entry(module.clone()).or_default();
        for (name, next) in first {
            let target = match (name.as_str(), next.as_deref()) {
                // Defined in the crate root itself (a macro, the hidden test API).
                ("run_at_load" | "__private", _) => continue,
                ("diesel", Some("sql_types")) => "external::diesel_support::sql_types".to_owned(),
                _ => match names.get(&name) {
                    Some(m) => m.clone(),
                    None => name.clone(),
                },
            };
            if target != module {
                imports.insert(target);
            }
        }
    }
    graph
}

#[test]
fn every_module_imports_what_docs_design_md_says() {
    let design = design();
    let code = code_graph();
    let mut problems = Vec::new();
    for (module, imports) in &code {
        match design.get(module) {
            None => problems.push(format!("`{module}` is not in the table of docs/design.md")),
            Some(said) if said != imports => problems.push(format!(
                "`{module}` imports {imports:?}; docs/design.md says {said:?}"
            )),
            Some(_) => {}
        }
    }
    for module in design.keys() {
        if !code.contains_key(module) {
            problems.push(format!(
                "docs/design.md names `{module}`, which src/ does not have"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A circle of imports in `graph`, as the modules along it, if there is one.
fn circle(graph: &Graph) -> Option<String> {
    // Depth-first, with the path so far: a module met again on its own path closes
    // a circle.
    fn visit(
        graph: &Graph,
        module: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<String> {
        if let Some(at) = path.iter().position(|m| m == module) {
            return Some(format!("{} -> {module}", path[at..].join(" -> ")));
        }
        if !done.insert(module.to_owned()) {
            return None;
        }
        path.push(module.to_owned());
        for next in graph.get(module).into_iter().flatten() {
            if let Some(found) = visit(graph, next, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|module| visit(graph, module, &mut Vec::new(), &mut done))
}

#[test]
fn the_imports_of_docs_design_md_form_layers() {
    assert_eq!(circle(&design()), None);
}

/// The checks above can fail: the code's references are found (also through the
/// crate root's re-exports), and a circle is caught.
#[test]
fn the_checks_find_imports_and_circles() {
    let code = code_graph();
    let generator = &code["generator"];
    // `crate::rules::State`, `crate::fork::epoch()`, `crate::DefaultRng`.
    for expected in ["rules", "fork", "default_rng"] {
        assert!(
            generator.contains(expected),
            "{expected} not in {generator:?}"
        );
    }
    let mut graph = Graph::new();
    graph.insert("a".into(), ["b".into()].into());
    graph.insert("b".into(), ["c".into()].into());
    graph.insert("c".into(), ["a".into()].into());
    assert_eq!(circle(&graph).as_deref(), Some("a -> b -> c -> a"));
    graph.get_mut("c").unwrap().clear();
    assert_eq!(circle(&graph), None);
}
