use std::collections::HashMap;

use super::*;

/// A loader over `files` (name, text), counting the reads.
fn files<'a>(
    files: &'a [(&str, &str)],
    reads: &'a mut Vec<PathBuf>,
) -> impl FnMut(&Path) -> io::Result<String> + 'a {
    let files: HashMap<PathBuf, String> = files
        .iter()
        .map(|(name, text)| (PathBuf::from(name), (*text).to_string()))
        .collect();
    move |path| {
        reads.push(path.to_path_buf());
        files
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
}

fn compose_with(root: &str, pieces: &[(&str, &str)]) -> Result<Composed, ShaderError> {
    let mut reads = Vec::new();
    let mut load = files(pieces, &mut reads);
    compose(Path::new("s/main.wgsl"), root, &mut load)
}

/// Composes `root` (`s/main.wgsl`) over `pieces`: the text must be `text`,
/// and its lines must come from `origins` (file, line) in order.
fn assert_composes(root: &str, pieces: &[(&str, &str)], text: &str, origins: &[(&str, u32)]) {
    let composed = compose_with(root, pieces).unwrap();
    assert_eq!(composed.text(), text);
    let found: Vec<(&Path, u32)> = (1..=to_u32(origins.len()))
        .map(|l| composed.locate(l))
        .collect();
    let origins: Vec<(&Path, u32)> = origins.iter().map(|&(f, l)| (Path::new(f), l)).collect();
    assert_eq!(found, origins, "{text:?}");
}

#[test]
fn an_import_is_replaced_by_the_file_and_each_line_knows_where_it_came_from() {
    let (main, a) = ("s/main.wgsl", "s/a.wgsl");
    assert_composes(
        "// main\n#import \"a.wgsl\"\nfn main() {}\n",
        &[(a, "struct A {\n    x: f32,\n}\n")],
        "// main\nstruct A {\n    x: f32,\n}\nfn main() {}\n",
        &[(main, 1), (a, 1), (a, 2), (a, 3), (main, 3)],
    );
    let composed = compose_with("#import \"a.wgsl\"\n", &[(a, "")]).unwrap();
    assert_eq!(composed.files(), [PathBuf::from(main), PathBuf::from(a)]);
}

#[test]
fn text_without_imports_composes_to_itself_byte_for_byte() {
    for text in [
        "",
        "fn f() {}",
        "fn f() {}\r\n\r\nfn g() {}\r\n",
        "// # not an import\n",
    ] {
        assert_eq!(compose_with(text, &[]).unwrap().text(), text);
    }
}

#[test]
fn an_import_of_an_import_is_written_in() {
    let (b, c) = ("s/inner/b.wgsl", "s/c.wgsl");
    assert_composes(
        "#import \"a.wgsl\" // the frame\nfn main() {}\n",
        &[
            ("s/a.wgsl", "  #import \"inner/b.wgsl\"\nconst A = 1;\n"),
            (b, "#import \"../c.wgsl\"\nconst B = 2;\n"),
            (c, "const C = 3;\n"),
        ],
        "const C = 3;\nconst B = 2;\nconst A = 1;\nfn main() {}\n",
        &[(c, 1), (b, 2), ("s/a.wgsl", 2), ("s/main.wgsl", 2)],
    );
}

#[test]
fn a_last_line_without_its_newline_ends_there_even_when_it_is_an_import() {
    let (a, b) = ("s/a.wgsl", "s/b.wgsl");
    assert_composes(
        "#import \"a.wgsl\"\nfn main() {}\n",
        &[(a, "const A = 1;\n#import \"b.wgsl\""), (b, "const B = 2;")],
        "const A = 1;\nconst B = 2;\nfn main() {}\n",
        &[(a, 1), (b, 1), ("s/main.wgsl", 2)],
    );
    assert_composes(
        "#import \"b.wgsl\"\nfn main() {}\n",
        &[(b, "const B = 2;")],
        "const B = 2;\nfn main() {}\n",
        &[(b, 1), ("s/main.wgsl", 2)],
    );
}

#[test]
fn each_file_is_written_in_once() {
    // main imports a and b; b imports a again, and main a third time.
    let root = "#import \"a.wgsl\"\n#import \"b.wgsl\"\n#import \"./a.wgsl\"\nfn main() {}\n";
    let pieces = [
        ("s/a.wgsl", "const A = 1;\n"),
        ("s/b.wgsl", "#import \"a.wgsl\"\nconst B = 2;\n"),
    ];
    let mut reads = Vec::new();
    let composed = {
        let mut load = files(&pieces, &mut reads);
        compose(Path::new("s/main.wgsl"), root, &mut load).unwrap()
    };
    assert_eq!(
        composed.text(),
        "const A = 1;\nconst B = 2;\nfn main() {}\n"
    );
    assert_eq!(
        reads,
        [PathBuf::from("s/a.wgsl"), PathBuf::from("s/b.wgsl")]
    );
    assert_eq!(composed.locate(3), (Path::new("s/main.wgsl"), 4));
}

#[test]
fn a_circle_is_an_error_naming_its_files() {
    let pieces = [
        ("s/a.wgsl", "const A = 1;\n#import \"b.wgsl\"\n"),
        ("s/b.wgsl", "\n\n    #import \"a.wgsl\"\n"),
    ];
    let error = compose_with("#import \"a.wgsl\"\n", &pieces).unwrap_err();
    assert_eq!(
        (error.file.as_path(), error.line, error.column),
        (Path::new("s/b.wgsl"), 3, 13)
    );
    assert_eq!(
        error.message,
        "import circle: s/a.wgsl -> s/b.wgsl -> s/a.wgsl"
    );
    // A shader that imports itself.
    let error = compose_with("\n#import \"main.wgsl\"\n", &[]).unwrap_err();
    assert_eq!(
        (error.file.as_path(), error.line),
        (Path::new("s/main.wgsl"), 2)
    );
    assert_eq!(error.message, "import circle: s/main.wgsl -> s/main.wgsl");
}

#[test]
fn a_missing_file_is_named_at_the_importing_line_and_column() {
    let pieces = [("s/a.wgsl", "const A = 1;\n\n  #import \"gone.wgsl\"\n")];
    let error = compose_with("#import \"a.wgsl\"\n", &pieces).unwrap_err();
    assert_eq!(
        (error.file.as_path(), error.line, error.column),
        (Path::new("s/a.wgsl"), 3, 11)
    );
    assert!(error.message.contains("s/gone.wgsl"), "{error}");
    assert!(error.to_string().starts_with("s/a.wgsl:3:11: "), "{error}");
}

#[test]
fn a_malformed_import_line_is_an_error_at_its_place() {
    let cases = [
        ("#import a.wgsl\n", 9),
        ("#import \"a.wgsl\n", 9),
        ("#import \"a.wgsl\" fn f() {}\n", 18),
        ("  #import \"\"\n", 11),
        ("#imports \"a.wgsl\"\n", 8),
        ("#import\n", 8),
    ];
    for (line, column) in cases {
        let error = compose_with(line, &[("s/a.wgsl", "")]).unwrap_err();
        assert_eq!((error.line, error.column), (1, column), "{line:?}: {error}");
        assert_eq!(error.file, Path::new("s/main.wgsl"));
    }
}

#[test]
fn deep_imports_stop_with_an_error_instead_of_the_stack() {
    let names: Vec<String> = (0..40).map(|i| format!("s/{i}.wgsl")).collect();
    let texts: Vec<String> = (0..40)
        .map(|i| format!("#import \"{}.wgsl\"\n", i + 1))
        .collect();
    let pieces: Vec<(&str, &str)> = names
        .iter()
        .zip(&texts)
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let error = compose_with("#import \"0.wgsl\"\n", &pieces).unwrap_err();
    assert!(error.message.contains("deeper"), "{error}");
}

/// Parses `composed` with naga; the error placed where it came from.
fn naga_error(composed: &Composed) -> ShaderError {
    let text = composed.text();
    let e = naga::front::wgsl::parse_str(text).unwrap_err();
    composed.error(e.location(text), e.message().to_string())
}

#[test]
fn a_mistake_in_an_imported_file_is_named_at_that_files_own_line() {
    let root = "// main\n\n#import \"frame.wgsl\"\n\nfn main() -> f32 {\n    return 1.0;\n}\n";
    let frame = "#import \"lights.wgsl\"\nstruct Globals {\n    light: Light,\n}\n";
    let lights = "struct Light {\n    color: vec4<f32>,\n    range f32,\n}\n";
    let composed =
        compose_with(root, &[("s/frame.wgsl", frame), ("s/lights.wgsl", lights)]).unwrap();
    let error = naga_error(&composed);
    assert_eq!(
        (error.file.as_path(), error.line, error.column),
        (Path::new("s/lights.wgsl"), 3, 11),
        "{error}"
    );

    // Fixed there, a mistake in the shader's own text after the imports.
    let lights = "struct Light {\n    color: vec4<f32>,\n}\n";
    let root = root.replace("return 1.0;", "return 1.0 +;");
    let composed =
        compose_with(&root, &[("s/frame.wgsl", frame), ("s/lights.wgsl", lights)]).unwrap();
    let error = naga_error(&composed);
    assert_eq!(
        (error.file.as_path(), error.line),
        (Path::new("s/main.wgsl"), 6),
        "{error}"
    );
}

#[test]
fn a_place_past_the_end_is_past_the_end_of_the_shaders_own_file() {
    let root = "fn main() {\n#import \"a.wgsl\"\n";
    let composed = compose_with(root, &[("s/a.wgsl", "const A = 1;\nconst B = 2;\n")]).unwrap();
    let error = naga_error(&composed);
    assert_eq!(
        (error.file.as_path(), error.line),
        (Path::new("s/main.wgsl"), 3),
        "{error}"
    );
    assert_eq!(composed.locate(40), (Path::new("s/main.wgsl"), 39));
}

#[test]
fn imports_reach_follows_imports_through_others_and_passes_over_what_cannot_be_read() {
    let pieces = [
        (
            "s/main.wgsl",
            "#import \"gone.wgsl\"\n#import \"a.wgsl\"\n#import bad\n",
        ),
        ("s/a.wgsl", "#import \"b.wgsl\"\n#import \"main.wgsl\"\n"),
        ("s/b.wgsl", "const B = 1;\n"),
        ("s/other.wgsl", "const O = 1;\n"),
    ];
    let mut reads = Vec::new();
    let mut load = files(&pieces, &mut reads);
    let main = Path::new("s/main.wgsl");
    assert!(imports_reach(main, Path::new("s/b.wgsl"), &mut load));
    assert!(imports_reach(main, Path::new("s/./a.wgsl"), &mut load));
    assert!(imports_reach(main, Path::new("s/gone.wgsl"), &mut load));
    assert!(!imports_reach(main, Path::new("s/other.wgsl"), &mut load));
    assert!(!imports_reach(
        Path::new("s/b.wgsl"),
        Path::new("s/a.wgsl"),
        &mut load
    ));
    assert!(!imports_reach(
        Path::new("s/none.wgsl"),
        Path::new("s/a.wgsl"),
        &mut load
    ));
}

#[test]
fn the_embedded_pieces_are_found_by_their_names() {
    for (name, text) in EMBEDDED {
        assert_eq!(embedded(Path::new(name)).unwrap(), text);
        assert!(
            text.contains("#import"),
            "{name} notes the syntax at its top"
        );
    }
    let missing = embedded(Path::new("nothing.wgsl")).unwrap_err();
    assert_eq!(missing.kind(), io::ErrorKind::NotFound);
}
