//! Checking a parsed scene file's values before any of them reaches the
//! scene: every number of the camera, the environment, the transforms and the
//! components is finite and in its range, and a bad one is reported with the
//! file, line, column, node (or section) and dotted field name.
//!
//! The parser only knows types; these checks know meaning (a field of view
//! of NaN degrees parses, and then the viewer draws nothing).

use std::path::Path;

use glam::Vec3;

use crate::scene::MAX_CASCADES;
use crate::scene::{ComponentRegistry, NodeRecord};
use crate::validation::InvalidValue;

use crate::scene::{CameraSetup, Environment, NodeFieldError, SceneError, SettingError, Transform};

/// Where a checked value sits in the file.
#[derive(Clone, Copy)]
enum Place<'a> {
    Node { index: usize, name: &'a str },
    Section(&'static str),
}

/// Names the place and field of a bad value.
pub(super) struct Check<'a> {
    path: &'a Path,
    place: Place<'a>,
}

impl<'a> Check<'a> {
    /// Checks for the `index`-th node of the file.
    pub(super) fn node(path: &'a Path, index: usize, name: &'a str) -> Self {
        Self {
            path,
            place: Place::Node { index, name },
        }
    }

    /// Checks for a section of the file (`environment`, `camera`).
    pub(super) fn section(path: &'a Path, section: &'static str) -> Self {
        Self {
            path,
            place: Place::Section(section),
        }
    }

    pub(super) fn fail(
        &self,
        field: impl Into<std::borrow::Cow<'static, str>>,
        expected: impl Into<std::borrow::Cow<'static, str>>,
        found: String,
    ) -> SceneError {
        let path = self.path.to_path_buf();
        match self.place {
            Place::Node { index, name } => SceneError::InvalidField(Box::new(NodeFieldError {
                path,
                line: 0,
                column: 0,
                index: index as u32,
                node: name.to_string(),
                field: field.into(),
                expected: expected.into(),
                found,
            })),
            Place::Section(section) => SceneError::InvalidSetting(Box::new(SettingError {
                path,
                line: 0,
                column: 0,
                section,
                field: field.into(),
                expected: expected.into(),
                found,
            })),
        }
    }

    /// A component's rule, as the file's error at `field`.
    fn rule(&self, field: &'static str, rule: Result<(), InvalidValue>) -> Result<(), SceneError> {
        rule.map_err(|e| self.fail(field, e.expected, e.found))
    }

    fn finite(&self, field: &'static str, value: f32) -> Result<(), SceneError> {
        self.rule(field, InvalidValue::finite(field, value))
    }

    fn non_negative(&self, field: &'static str, value: f32) -> Result<(), SceneError> {
        self.rule(field, InvalidValue::non_negative(field, value))
    }

    fn positive(&self, field: &'static str, value: f32) -> Result<(), SceneError> {
        self.rule(field, InvalidValue::positive(field, value))
    }

    fn vec3(&self, field: &'static str, value: Vec3) -> Result<(), SceneError> {
        if value.is_finite() {
            Ok(())
        } else {
            Err(self.fail(field, "three finite numbers", format!("{value:?}")))
        }
    }

    /// A linear RGB colour: finite and not negative (above 1 is allowed: HDR).
    fn color(&self, field: &'static str, value: Vec3) -> Result<(), SceneError> {
        self.rule(field, InvalidValue::color(field, value))
    }

    /// Validates a transform and normalises its rotation (hand-written files rarely have unit quaternions).
    pub(super) fn transform(&self, t: &Transform) -> Result<Transform, SceneError> {
        self.vec3("transform.translation", t.translation)?;
        self.vec3("transform.scale", t.scale)?;
        if t.scale.abs().min_element() < 1e-12 {
            return Err(self.fail(
                "transform.scale",
                "non-zero scale on every axis (a zero scale cannot be inverted)",
                format!("{:?}", t.scale),
            ));
        }
        let length = t.rotation.length();
        if !t.rotation.is_finite() || length < 1e-6 {
            return Err(self.fail(
                "transform.rotation",
                "a non-zero quaternion (x, y, z, w)",
                format!("{:?}", t.rotation),
            ));
        }
        // Saved rotations are unit already: leave them bit for bit, so save/load is exact.
        if (length - 1.0).abs() < 1e-4 {
            return Ok(*t);
        }
        Ok(Transform {
            rotation: t.rotation / length,
            ..*t
        })
    }

    /// Checks every component of `record` (the model reference is checked when it loads).
    /// The animator of a record, once its node (and the model it plays) exists:
    /// the clip must be one of the model's, and the error lists them.
    pub(super) fn animator(
        &self,
        scene: &crate::scene::Scene,
        node: crate::scene::NodeId,
        record: &super::AnimatorRecord,
    ) -> Result<crate::scene::Animator, SceneError> {
        self.finite("animator.speed", record.speed)?;
        let Some(clips) = scene.animator_clips(node) else {
            return Err(self.fail(
                "animator",
                "a node with a `model` (or under one) whose clips it plays",
                "no model".into(),
            ));
        };
        if !clips.iter().any(|(name, _)| *name == record.clip) {
            let names: Vec<&str> = clips.iter().map(|(name, _)| name.as_str()).collect();
            let listed = if names.is_empty() {
                "the model has no clips".to_string()
            } else {
                format!("the model's clips are {}", names.join(", "))
            };
            return Err(self.fail(
                "animator.clip",
                "the name of one of the model's animation clips",
                format!("{:?} ({listed})", record.clip),
            ));
        }
        let mut animator = crate::scene::Animator::new(record.clip.clone());
        animator.speed = record.speed;
        animator.mode = record.mode;
        Ok(animator)
    }

    /// Components the registry has no type for: refused, naming the ones it
    /// has, unless the registry keeps them (an editor's does).
    pub(super) fn unknown(
        &self,
        record: &NodeRecord,
        registry: &ComponentRegistry,
    ) -> Result<(), SceneError> {
        match record.unknown.0.first() {
            Some((name, raw)) if !registry.keeps_unknown() => {
                let names: Vec<&str> = registry.names().collect();
                Err(self.fail(
                    *name,
                    format!("a registered component ({})", names.join(", ")),
                    format!("`{name}: {}`", raw.get_ron().trim()),
                ))
            }
            _ => Ok(()),
        }
    }

    /// Checks every reference `record`'s components hold against a list of
    /// `count` nodes: a place in it or a path; `prefix` goes before the
    /// field's name (`overrides.scarecrow.` for an override).
    pub(super) fn refs(
        &self,
        prefix: &str,
        record: &NodeRecord,
        count: usize,
    ) -> Result<(), SceneError> {
        for component in &record.components {
            let value = component.reflect().as_partial_reflect();
            if let Some((field, found)) = crate::scene::node_ref::bad_written_ref(value, count) {
                let expected = match count {
                    0 => {
                        "a path (`Path(\"harbour/ship\")`): the list has no nodes to name by place"
                            .to_string()
                    }
                    n => format!(
                        "a node of the list by its place, `Node(0)` to `Node({})`, or by its path \
                         (`Path(\"harbour/ship\")`); a file cannot hold a run's handle",
                        n - 1
                    ),
                };
                return Err(self.fail(
                    format!("{prefix}{}{field}", component.name()),
                    expected,
                    found,
                ));
            }
        }
        Ok(())
    }

    pub(super) fn components(&self, record: &NodeRecord) -> Result<(), SceneError> {
        for component in &record.components {
            if let Err(invalid) = component.validate() {
                let field = format!("{}.{}", component.name(), invalid.field);
                return Err(self.fail(field, invalid.expected, invalid.found));
            }
        }
        if let Some(mesh) = &record.mesh {
            mesh.material.validate().map_err(|e| {
                self.fail(format!("mesh.material.{}", e.field), e.expected, e.found)
            })?;
        }
        if let Some(light) = &record.light {
            light
                .validate()
                .map_err(|e| self.fail(format!("light.{}", e.field), e.expected, e.found))?;
        }
        if let Some(emitter) = &record.emitter {
            emitter.validate().map_err(|error| {
                self.fail(
                    format!("emitter.{}", error.field()),
                    "a valid emitter parameter",
                    error.to_string(),
                )
            })?;
        }
        Ok(())
    }
}

/// Checks the file's `camera` section.
pub(super) fn camera(path: &Path, camera: &CameraSetup) -> Result<(), SceneError> {
    let check = Check::section(path, "camera");
    check.vec3("position", camera.position)?;
    check.vec3("target", camera.target)?;
    if camera.position.distance_squared(camera.target) < 1e-12 {
        return Err(check.fail(
            "target",
            "a point other than the camera's position (the view direction is undefined)",
            format!("{:?}", camera.target),
        ));
    }
    let fov = camera.fov_y_degrees;
    if !(fov > 0.0 && fov < 180.0) {
        return Err(check.fail(
            "fov_y_degrees",
            "a number of degrees greater than 0 and less than 180",
            fov.to_string(),
        ));
    }
    Ok(())
}

impl Environment {
    /// Checks every value as a scene file's `environment` section would be
    /// checked (editors validate an edit before applying it).
    ///
    /// # Errors
    /// [`SceneError::InvalidSetting`] naming the field and what it expects.
    pub fn validate(&self) -> Result<(), SceneError> {
        environment(Path::new("(environment)"), self)
    }
}

/// Checks the file's `environment` section.
pub(super) fn environment(path: &Path, environment: &Environment) -> Result<(), SceneError> {
    let check = Check::section(path, "environment");
    check.color("clear_color", environment.clear_color)?;
    check.color("ambient", environment.ambient)?;
    let shadows = &environment.shadows;
    if !(1..=MAX_CASCADES as u32).contains(&shadows.cascades) {
        return Err(check.fail(
            "shadows.cascades",
            "a whole number from 1 to 4",
            shadows.cascades.to_string(),
        ));
    }
    if !(256..=4096).contains(&shadows.resolution) {
        return Err(check.fail(
            "shadows.resolution",
            "a whole number of texels from 256 to 4096",
            shadows.resolution.to_string(),
        ));
    }
    check.positive("shadows.distance", shadows.distance)?;
    check.non_negative("shadows.depth_bias", shadows.depth_bias)?;
    check.non_negative("shadows.normal_offset", shadows.normal_offset)?;
    let post = &environment.post;
    if !(post.exposure.is_finite() && post.exposure.abs() <= 16.0) {
        return Err(check.fail(
            "post.exposure",
            "a number of stops from -16 to 16",
            post.exposure.to_string(),
        ));
    }
    check.non_negative("post.bloom_threshold", post.bloom_threshold)?;
    check.non_negative("post.bloom_intensity", post.bloom_intensity)
}

/// Where the field a parse error names as unknown (```unknown field `x` ```,
/// ron's ```Unexpected field named `x` ```) is written: the last `x:` at or
/// before the parser's `line` and `column` (1-based), which is past it when
/// the value's own type did not refuse it. `None` when the message names no
/// field or the text has no such key.
pub(super) fn unknown_field_at(
    text: &str,
    line: usize,
    column: usize,
    message: &str,
) -> Option<(usize, usize)> {
    let lowered = message.to_ascii_lowercase();
    let at = ["unknown field", "unexpected field"]
        .iter()
        .find_map(|phrase| lowered.find(phrase))?;
    let rest = &message[at..];
    let start = rest.find('`')? + 1;
    let len = rest[start..].find('`')?;
    let field = rest[start..start + len].rsplit('.').next()?;
    if field.is_empty() {
        return None;
    }
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let offset = text[line_start..]
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(i, _)| line_start + i);
    let bytes = text.as_bytes();
    let mut end = offset.min(text.len());
    while let Some(found) = text[..end].rfind(field) {
        let before_ok = found == 0 || !is_ident_byte(bytes[found - 1]);
        let after = text[found + field.len()..].trim_start();
        if before_ok && after.starts_with(':') {
            let before = &text[..found];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            return Some((line, column));
        }
        end = found;
    }
    None
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Fills in the line and column of a field error from the source text.
pub(super) fn locate(mut error: SceneError, text: &str) -> SceneError {
    let range = match &error {
        SceneError::InvalidField(e) => {
            node_range(text, e.index as usize).map(|r| (r, e.field.as_ref()))
        }
        SceneError::InvalidSetting(e) => {
            section_range(text, e.section).map(|r| (r, e.field.as_ref()))
        }
        _ => return error,
    };
    let offset = range.map_or(0, |((start, end), field)| key_path(text, start, end, field));
    let before = &text[..offset];
    let (found_line, found_column) = (
        before.matches('\n').count() as u32 + 1,
        (before.len() - before.rfind('\n').map_or(0, |i| i + 1)) as u32 + 1,
    );
    match &mut error {
        SceneError::InvalidField(e) => (e.line, e.column) = (found_line, found_column),
        SceneError::InvalidSetting(e) => (e.line, e.column) = (found_line, found_column),
        _ => {}
    }
    error
}

/// Offset of the dotted `field` (`oscillate.axis`) within `text[start..end]`:
/// each part is looked for after the one before, so `axis` is the oscillator's
/// and not the spin's. Stops at the last part found (at `start` if none is).
fn key_path(text: &str, start: usize, end: usize, field: &str) -> usize {
    let mut at = start;
    let mut from = start;
    for part in field.split('.') {
        match find_key(text, from, end, part) {
            Some(found) => {
                at = found;
                from = found + part.len();
            }
            None => break,
        }
    }
    at
}

/// The byte range of the top-level `section: (...)`.
fn section_range(text: &str, section: &str) -> Option<(usize, usize)> {
    let start = find_key(text, 0, text.len(), section)?;
    let open = start + text[start..].find('(')?;
    Some((start, closing(text.as_bytes(), open).unwrap_or(text.len())))
}

/// Position of the bracket closing the one at `open`.
fn closing(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The byte range of the `index`-th node of the `nodes` list, from its
/// opening bracket to its closing one.
///
/// A small scanner over RON's brackets, skipping strings and comments: the text
/// has parsed already, so its brackets balance.
fn node_range(text: &str, index: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let nodes_key = find_key(text, 0, text.len(), "nodes")?;
    let list = nodes_key + text[nodes_key..].find('[')?;
    let (mut depth, mut count, mut i) = (0usize, 0usize, list + 1);
    let mut node_start = None;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += text[i..].find('\n').unwrap_or(text.len() - i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += text[i..].find("*/").map_or(text.len() - i, |e| e + 1);
            }
            b'(' | b'[' | b'{' => {
                if depth == 0 {
                    if count == index {
                        node_start = Some(i);
                    }
                    count += 1;
                }
                depth += 1;
            }
            b')' | b']' | b'}' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                if depth == 0
                    && let Some(start) = node_start
                {
                    return Some((start, i));
                }
            }
            _ => {}
        }
        i += 1;
    }
    node_start.map(|start| (start, text.len()))
}

fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i
}

/// First `key` followed by `:` within `text[start..end]`, as a whole word outside strings.
fn find_key(text: &str, start: usize, end: usize, key: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = start;
    while i < end {
        if bytes[i] == b'"' {
            i = skip_string(bytes, i) + 1;
            continue;
        }
        // Bytes, not `text[i..]`: `i` may fall inside a multi-byte character of a comment.
        if bytes[i..].starts_with(key.as_bytes())
            && (i == 0 || !word(bytes[i - 1]))
            && text[i + key.len()..].trim_start().starts_with(':')
        {
            return Some(i);
        }
        i += 1;
    }
    None
}
