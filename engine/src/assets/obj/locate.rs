//! Finding the line behind one of `tobj`'s errors (it reports only the
//! kind), and the check that keeps `tobj` from panicking on a short colour.

use tobj::LoadError;

/// The lines of `text`, numbered from 1, with their first word and the rest.
fn lines(text: &[u8]) -> impl Iterator<Item = (usize, &str, &str)> {
    text.split(|&b| b == b'\n').enumerate().map(|(i, line)| {
        let line = std::str::from_utf8(line).unwrap_or("").trim();
        let (key, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        (i + 1, key, rest.trim())
    })
}

/// The first line whose first word is one of `keys` and whose rest is `name`
/// (a `mtllib`, `newmtl` or map line).
pub(super) fn naming_line(text: &[u8], keys: &[&str], name: &str) -> Option<usize> {
    lines(text)
        .find(|&(_, key, rest)| keys.contains(&key) && rest == name.trim())
        .map(|(line, _, _)| line)
}

/// What went wrong, said as what was expected.
pub(super) fn message(error: &LoadError) -> String {
    match error {
        LoadError::PositionParseError => {
            "expected `v x y z` with three numbers (then a w or an r g b)".into()
        }
        LoadError::ScalingByZeroError => "expected a w other than 0 after `v x y z`".into(),
        LoadError::ColorParseError => "expected `v x y z r g b`: three colour numbers".into(),
        LoadError::NormalParseError => "expected `vn x y z` with three numbers".into(),
        LoadError::TexcoordParseError => "expected `vt u v` with two numbers".into(),
        LoadError::FaceParseError
        | LoadError::FaceVertexOutOfBounds
        | LoadError::FaceTexCoordOutOfBounds
        | LoadError::FaceNormalOutOfBounds
        | LoadError::FaceColorOutOfBounds => {
            "expected a face `f v/vt/vn ...` whose indices name a vertex, texture coordinate and normal written before it".into()
        }
        LoadError::MaterialParseError => {
            "expected a material line: `Kd r g b` three numbers, `Ns`/`d`/`Ni` a number, a map a file name, `usemtl` a name".into()
        }
        LoadError::InvalidObjectName => "expected a name after `newmtl`".into(),
        LoadError::ReadError => "expected UTF-8 text".into(),
        other => other.to_string(),
    }
}

fn numbers(rest: &str, at_least: usize) -> bool {
    let words: Vec<&str> = rest.split_whitespace().collect();
    words.len() >= at_least
        && words
            .iter()
            .take(at_least)
            .all(|w| w.parse::<f32>().is_ok())
}

/// Counts of what the lines before have written, for relative and absolute
/// face indices.
#[derive(Default)]
struct Written {
    positions: usize,
    texcoords: usize,
    normals: usize,
}

impl Written {
    /// Counts a line whose first word is `key`.
    fn count(&mut self, key: &str) {
        match key {
            "v" => self.positions += 1,
            "vt" => self.texcoords += 1,
            "vn" => self.normals += 1,
            _ => {}
        }
    }

    /// Whether every corner of a face line names data written before it.
    fn face_ok(&self, rest: &str) -> bool {
        let in_range = |word: &str, count: usize| {
            word.is_empty()
                || word.parse::<i64>().is_ok_and(|i| {
                    let count = i64::try_from(count).unwrap_or(i64::MAX);
                    (i >= 1 && i <= count) || (i < 0 && -i <= count)
                })
        };
        let corners: Vec<&str> = rest.split_whitespace().collect();
        !corners.is_empty()
            && corners.iter().all(|corner| {
                let parts: Vec<&str> = corner.split('/').collect();
                parts.len() <= 3
                    && !parts[0].is_empty()
                    && in_range(parts[0], self.positions)
                    && parts.get(1).is_none_or(|t| in_range(t, self.texcoords))
                    && parts.get(2).is_none_or(|n| in_range(n, self.normals))
            })
    }
}

/// The first line of `text` that gives `error`, where it can be told.
pub(super) fn error_line(text: &[u8], error: &LoadError) -> Option<usize> {
    if matches!(error, LoadError::ReadError) {
        return text
            .split(|&b| b == b'\n')
            .position(|line| std::str::from_utf8(line).is_err())
            .map(|i| i + 1);
    }
    let mut written = Written::default();
    for (line, key, rest) in lines(text) {
        let words = rest.split_whitespace().count();
        let bad = match (error, key) {
            (LoadError::PositionParseError, "v") => !numbers(rest, 3),
            (LoadError::ColorParseError, "v") => words == 5 || words > 6,
            (LoadError::ScalingByZeroError, "v") => {
                words == 4
                    && rest
                        .split_whitespace()
                        .nth(3)
                        .and_then(|w| w.parse::<f32>().ok())
                        == Some(0.0)
            }
            (LoadError::NormalParseError, "vn") => !numbers(rest, 3),
            (LoadError::TexcoordParseError, "vt") => !numbers(rest, 2),
            (
                LoadError::FaceParseError
                | LoadError::FaceVertexOutOfBounds
                | LoadError::FaceTexCoordOutOfBounds
                | LoadError::FaceNormalOutOfBounds
                | LoadError::FaceColorOutOfBounds,
                "f",
            ) => !written.face_ok(rest),
            (LoadError::MaterialParseError, _) => !material_line_ok(key, rest),
            (LoadError::InvalidObjectName, "newmtl") => rest.is_empty(),
            _ => false,
        };
        if bad {
            return Some(line);
        }
        written.count(key);
    }
    None
}

/// The first face line of `text` naming a position, texture coordinate or
/// normal that no line before it wrote. `tobj` checks only the positions
/// itself: a `vt` or `vn` index in a file with none of them it ignores.
pub(super) fn bad_face(text: &[u8]) -> Option<usize> {
    let mut written = Written::default();
    for (line, key, rest) in lines(text) {
        if key == "f" && !written.face_ok(rest) {
            return Some(line);
        }
        written.count(key);
    }
    None
}

/// Whether an MTL (or `usemtl`) line reads as `tobj` expects.
fn material_line_ok(key: &str, rest: &str) -> bool {
    match key {
        "Ka" | "Kd" | "Ks" | "Ke" => numbers(rest, 3),
        "Ns" | "Ni" | "d" => numbers(rest, 1),
        "usemtl" | "map_Ka" | "map_Kd" | "map_Ks" | "map_Bump" | "map_bump" | "map_Ns"
        | "map_ns" | "map_NS" | "bump" | "map_d" => !rest.is_empty(),
        _ => true,
    }
}

/// The first line of a material library that `tobj` would panic on (a
/// colour with fewer than three numbers), refused before it reads it.
pub(super) fn short_colour(text: &[u8]) -> Option<usize> {
    lines(text)
        .find(|&(_, key, rest)| matches!(key, "Ka" | "Kd" | "Ks" | "Ke") && !numbers(rest, 3))
        .map(|(line, _, _)| line)
}
