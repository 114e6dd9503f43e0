//! One keyframe of a recording: the world of one step, split into its bulk
//! (bytes: the ranges that changed since the previous keyframe, XOR-ed and LZ4-compressed), its
//! component columns (shared with the previous keyframe when untouched) and a
//! clone of the small rest.

use std::sync::Arc;

use crate::bulk::{BulkError, BulkReader};
use crate::particles::ParticleSystem;
use crate::physics::Physics;
use crate::scene::{AnyColumn, Column, Components, RegisteredColumns, Scene};
use crate::systems::AppliedCommands;

/// Applies `m!` to the list of [`Components`] fields.
macro_rules! columns {
    ($m:ident) => {
        $m! { mesh, light, emitter, model, model_part, animator, skin, morph, prefab, prefab_part, unknown }
    };
}

macro_rules! shared_struct {
    ($($field:ident),*) => {
        /// A keyframe's component columns, each shared with the keyframe before it
        /// when the world did not touch it in between.
        #[derive(Clone)]
        pub(super) struct SharedComponents {
            $($field: Arc<Column<<Components as ColumnTypes>::$field>>,)*
            /// The registered components' columns, by name.
            registered: Vec<Arc<dyn AnyColumn>>,
        }
    };
}

/// Names the element type of each column (lets the macros spell `Column<T>`).
#[expect(
    non_camel_case_types,
    reason = "the associated types are named after the columns the macros spell"
)]
pub(super) trait ColumnTypes {
    type mesh;
    type light;
    type emitter;
    type model;
    type model_part;
    type animator;
    type skin;
    type morph;
    type prefab;
    type prefab_part;
    type unknown;
}

impl ColumnTypes for Components {
    type mesh = crate::scene::MeshRenderer;
    type light = crate::scene::Light;
    type emitter = crate::particles::Emitter;
    type model = crate::scene::ModelInstance;
    type model_part = crate::scene::ModelPart;
    type animator = crate::scene::Animator;
    type skin = crate::scene::Skin;
    type morph = crate::scene::MorphWeights;
    type prefab = crate::scene::PrefabInstance;
    type prefab_part = crate::scene::PrefabPart;
    type unknown = crate::scene::UnknownComponents;
}

columns!(shared_struct);

fn column_bytes<T>(column: &Column<T>) -> usize {
    column.len() * (size_of::<T>() + 12)
}

impl SharedComponents {
    /// Copies the columns of `components` that changed since `previous`
    /// (all of them without one); returns the bytes newly held.
    fn capture(components: &mut Components, previous: Option<&SharedComponents>) -> (Self, usize) {
        let mut fresh = 0;
        macro_rules! build {
            ($($field:ident),*) => {
                SharedComponents {
                    $($field: {
                        let column = &mut components.$field;
                        let shared = match previous {
                            Some(p) if !column.touched() => Arc::clone(&p.$field),
                            _ => {
                                fresh += column_bytes(column);
                                Arc::new(column.clone())
                            }
                        };
                        column.untouch();
                        shared
                    },)*
                    registered: Vec::new(),
                }
            };
        }
        let mut shared = columns!(build);
        for column in components.registered.iter_mut() {
            let kept = previous.and_then(|p| {
                p.registered
                    .iter()
                    .find(|c| c.value_type() == column.value_type())
            });
            shared.registered.push(match kept {
                Some(kept) if !column.touched() => Arc::clone(kept),
                _ => {
                    fresh += column.heap_bytes();
                    Arc::from(column.clone_column())
                }
            });
            column.untouch();
        }
        (shared, fresh)
    }

    /// The columns, copied out.
    fn to_components(&self) -> Components {
        macro_rules! build {
            ($($field:ident),*) => {
                Components {
                    $($field: (*self.$field).clone(),)*
                    registered: RegisteredColumns::from_columns(
                        self.registered.iter().map(|c| c.clone_column()).collect(),
                    ),
                }
            };
        }
        columns!(build)
    }

    /// Bytes held by columns no other keyframe shares.
    fn unshared_bytes(&self) -> usize {
        let mut total = 0;
        macro_rules! sum {
            ($($field:ident),*) => {
                $(if Arc::strong_count(&self.$field) == 1 {
                    total += column_bytes(&self.$field);
                })*
            };
        }
        columns!(sum);
        for column in &self.registered {
            if Arc::strong_count(column) == 1 {
                total += column.heap_bytes();
            }
        }
        total
    }
}

/// The bulk bytes of a keyframe as stored.
struct Packed {
    /// Length of the bulk once unpacked.
    raw_len: usize,
    /// A delta: the byte ranges that differ from the previous keyframe's bulk
    /// (in blocks of [`BLOCK`] bytes, adjacent ones merged), whose XOR against
    /// it is `data`; `None`: `data` is the whole bulk.
    ranges: Option<Vec<(u32, u32)>>,
    /// LZ4 block.
    data: Vec<u8>,
}

/// Granularity of a delta's changed ranges.
const BLOCK: usize = 64;

impl Packed {
    fn whole(raw: &[u8]) -> Packed {
        Packed {
            raw_len: raw.len(),
            ranges: None,
            data: lz4_flex::block::compress(raw),
        }
    }

    /// The ranges of `raw` that differ from `base` (past its end, all differ),
    /// XOR-ed against it and compressed. `scratch` holds the XOR meanwhile.
    fn delta(raw: &[u8], base: &[u8], scratch: &mut Vec<u8>) -> Packed {
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        scratch.clear();
        let common = raw.len().min(base.len());
        let mut at = 0;
        while at < raw.len() {
            let end = (at + BLOCK).min(raw.len());
            let same = end <= common && raw[at..end] == base[at..end];
            if !same {
                match ranges.last_mut() {
                    Some((start, len)) if (*start + *len) as usize == at => {
                        *len += (end - at) as u32;
                    }
                    _ => ranges.push((at as u32, (end - at) as u32)),
                }
                let from = scratch.len();
                scratch.extend_from_slice(&raw[at..end]);
                xor_into(&mut scratch[from..], &base[at.min(common)..end.min(common)]);
            }
            at = end;
        }
        Packed {
            raw_len: raw.len(),
            ranges: Some(ranges),
            data: lz4_flex::block::compress(scratch),
        }
    }

    fn bytes(&self) -> usize {
        self.data.len() + self.ranges.as_ref().map_or(0, |r| r.len() * 8)
    }
}

/// The world of one step.
pub(super) struct Keyframe {
    /// The step: the world as it is after that many fixed steps (and the edits
    /// made before the next one).
    pub step: u64,
    applied: AppliedCommands,
    scene: Scene,
    particles: ParticleSystem,
    physics: Physics,
    components: SharedComponents,
    packed: Packed,
    /// Bytes charged to the recording's budget when captured (columns shared
    /// with the previous keyframe were charged there).
    pub bytes: usize,
}

/// XORs `base` into the front of `bytes`.
fn xor_into(bytes: &mut [u8], base: &[u8]) {
    let n = bytes.len().min(base.len());
    for (b, a) in bytes[..n].iter_mut().zip(&base[..n]) {
        *b ^= a;
    }
}

/// What a keyframe captures of a [`Simulation`](super::Simulation).
#[derive(Debug)]
pub struct Captured<'a> {
    /// The scene (its bulk columns are written out, its components shared).
    pub scene: &'a mut Scene,
    /// The particle pool.
    pub particles: &'a ParticleSystem,
    /// The physics (cloned whole).
    pub physics: &'a Physics,
    /// Fixed steps run so far.
    pub step: u64,
    /// What the last step's commands did.
    pub applied: AppliedCommands,
}

/// A keyframe's state, put back by [`Simulation::restore`](super::Simulation::restore).
#[derive(Debug)]
pub struct Restored {
    /// The scene as it was.
    pub scene: Scene,
    /// The particle pool as it was.
    pub particles: ParticleSystem,
    /// The physics as it was.
    pub physics: Physics,
    /// Fixed steps run by then.
    pub step: u64,
    /// What that step's commands did.
    pub applied: AppliedCommands,
}

impl Keyframe {
    /// Captures `world` at its current step. `raw` receives the bulk; `base` is
    /// the previous keyframe's bulk to XOR against (`None`: stand alone).
    pub fn capture(
        world: Captured<'_>,
        previous: Option<&Keyframe>,
        base: Option<&[u8]>,
        raw: &mut Vec<u8>,
        scratch: &mut Vec<u8>,
    ) -> Keyframe {
        raw.clear();
        let scene = world.scene.save_state(raw);
        let particles = world.particles.save_state(raw);
        let (components, fresh) = SharedComponents::capture(
            world.scene.components_mut(),
            previous.map(|p| &p.components),
        );
        let packed = match base {
            Some(base) => Packed::delta(raw, base, scratch),
            None => Packed::whole(raw),
        };
        let physics = world.physics.clone();
        let bytes =
            packed.bytes() + fresh + scene.rest_bytes() + physics.bytes() + size_of::<Keyframe>();
        Keyframe {
            step: world.step,
            applied: world.applied,
            scene,
            particles,
            physics,
            components,
            packed,
            bytes,
        }
    }

    /// Whether the bulk needs the previous keyframe's to be read.
    pub fn is_delta(&self) -> bool {
        self.packed.ranges.is_some()
    }

    /// Unpacks the bulk into `out`; `base` is the previous keyframe's bulk when
    /// [`Keyframe::is_delta`].
    pub fn unpack(&self, base: Option<&[u8]>, out: &mut Vec<u8>) -> Result<(), BulkError> {
        let damaged = BulkError { column: 0 };
        let packed = &self.packed;
        let Some(ranges) = &packed.ranges else {
            out.clear();
            out.resize(packed.raw_len, 0);
            let n = lz4_flex::block::decompress_into(&packed.data, out).map_err(|_| damaged)?;
            return if n == packed.raw_len {
                Ok(())
            } else {
                Err(damaged)
            };
        };
        let base = base.ok_or(damaged)?;
        let changed: usize = ranges.iter().map(|&(_, len)| len as usize).sum();
        let xor = lz4_flex::block::decompress(&packed.data, changed).map_err(|_| damaged)?;
        if xor.len() != changed {
            return Err(damaged);
        }
        out.clear();
        out.extend_from_slice(&base[..base.len().min(packed.raw_len)]);
        out.resize(packed.raw_len, 0);
        let mut from = 0;
        for &(start, len) in ranges {
            let (start, len) = (start as usize, len as usize);
            let target = out.get_mut(start..start + len).ok_or(damaged)?;
            xor_into(target, &xor[from..from + len]);
            from += len;
        }
        Ok(())
    }

    /// Stores `raw` (this keyframe's bulk) standing alone: the keyframe it was a
    /// delta against is being dropped. Returns the stored sizes before and after.
    pub fn make_standalone(&mut self, raw: &[u8]) -> (usize, usize) {
        let old = self.packed.bytes();
        self.packed = Packed::whole(raw);
        (old, self.packed.bytes())
    }

    /// Bytes this keyframe still holds alone, for the budget when it is dropped
    /// (shared columns stay with the keyframes that share them).
    pub fn bytes_freed_by_drop(&self) -> usize {
        self.packed.bytes()
            + self.components.unshared_bytes()
            + self.scene.rest_bytes()
            + self.physics.bytes()
            + size_of::<Keyframe>()
    }

    /// Puts the keyframe's world into `world` (scene, particles, step counter);
    /// `raw` is its unpacked bulk. The octree is rebuilt.
    pub fn restore(&self, raw: &[u8]) -> Result<Restored, BulkError> {
        let mut bulk = BulkReader::new(raw);
        let scene = Scene::from_state(&self.scene, self.components.to_components(), &mut bulk)?;
        let particles = ParticleSystem::from_state(&self.particles, &mut bulk)?;
        if !bulk.is_done() {
            return Err(BulkError { column: usize::MAX });
        }
        Ok(Restored {
            scene,
            particles,
            physics: self.physics.clone(),
            step: self.step,
            applied: self.applied,
        })
    }
}
