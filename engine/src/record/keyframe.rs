//! One keyframe of a recording: the world of one step, split into its bulk
//! (bytes, XOR-ed against the previous keyframe and LZ4-compressed), its
//! component columns (shared with the previous keyframe when untouched) and a
//! clone of the small rest.

use std::sync::Arc;

use crate::particles::ParticleSystem;
use crate::record::bulk::{BulkError, BulkReader};
use crate::scene::{Column, Components, Scene};
use crate::systems::Applied;
use crate::world::World;

/// Applies `m!` to the list of [`Components`] fields.
macro_rules! columns {
    ($m:ident) => {
        $m! { spin, oscillate, orbit, mesh, light, emitter, model, model_part }
    };
}

macro_rules! shared_struct {
    ($($field:ident),*) => {
        /// A keyframe's component columns, each shared with the keyframe before it
        /// when the world did not touch it in between.
        #[derive(Clone)]
        pub(super) struct SharedComponents {
            $($field: Arc<Column<<Components as ColumnTypes>::$field>>,)*
        }
    };
}

/// Names the element type of each column (lets the macros spell `Column<T>`).
#[allow(non_camel_case_types)]
pub(super) trait ColumnTypes {
    type spin;
    type oscillate;
    type orbit;
    type mesh;
    type light;
    type emitter;
    type model;
    type model_part;
}

impl ColumnTypes for Components {
    type spin = crate::scene::Spin;
    type oscillate = crate::scene::Oscillate;
    type orbit = crate::scene::Orbit;
    type mesh = crate::scene::MeshRenderer;
    type light = crate::scene::Light;
    type emitter = crate::particles::Emitter;
    type model = crate::scene::ModelInstance;
    type model_part = crate::scene::ModelPart;
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
                }
            };
        }
        let shared = columns!(build);
        (shared, fresh)
    }

    /// The columns, copied out.
    fn to_components(&self) -> Components {
        macro_rules! build {
            ($($field:ident),*) => {
                Components { $($field: (*self.$field).clone(),)* }
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
        total
    }
}

/// The bulk bytes of a keyframe as stored.
struct Packed {
    /// Length of the bulk once unpacked.
    raw_len: usize,
    /// XOR-ed against the previous keyframe's bulk (else stands alone).
    delta: bool,
    /// LZ4 block.
    data: Vec<u8>,
}

/// The world of one step.
pub(super) struct Keyframe {
    /// The step: the world as it is after that many fixed steps (and the edits
    /// made before the next one).
    pub step: u64,
    applied: Applied,
    scene: Scene,
    particles: ParticleSystem,
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

impl Keyframe {
    /// Captures `world` at its current step. `raw` receives the bulk; `base` is
    /// the previous keyframe's bulk to XOR against (`None`: stand alone).
    pub fn capture(
        world: &mut World,
        previous: Option<&Keyframe>,
        base: Option<&[u8]>,
        raw: &mut Vec<u8>,
        scratch: &mut Vec<u8>,
    ) -> Keyframe {
        raw.clear();
        let scene = world.scene.save_state(raw);
        let particles = world.particles.save_state(raw);
        let (components, fresh) =
            SharedComponents::capture(&mut world.scene.components, previous.map(|p| &p.components));
        let packed = match base {
            Some(base) => {
                scratch.clear();
                scratch.extend_from_slice(raw);
                xor_into(scratch, base);
                Packed {
                    raw_len: raw.len(),
                    delta: true,
                    data: lz4_flex::block::compress(scratch),
                }
            }
            None => Packed {
                raw_len: raw.len(),
                delta: false,
                data: lz4_flex::block::compress(raw),
            },
        };
        let bytes = packed.data.len() + fresh + scene.rest_bytes() + size_of::<Keyframe>();
        Keyframe {
            step: world.systems.steps(),
            applied: world.systems.last_applied(),
            scene,
            particles,
            components,
            packed,
            bytes,
        }
    }

    /// Whether the bulk needs the previous keyframe's to be read.
    pub fn is_delta(&self) -> bool {
        self.packed.delta
    }

    /// Unpacks the bulk into `out`; `base` is the previous keyframe's bulk when
    /// [`Keyframe::is_delta`].
    pub fn unpack(&self, base: Option<&[u8]>, out: &mut Vec<u8>) -> Result<(), BulkError> {
        out.clear();
        out.resize(self.packed.raw_len, 0);
        let n = lz4_flex::block::decompress_into(&self.packed.data, out)
            .map_err(|_| BulkError { column: 0 })?;
        if n != self.packed.raw_len {
            return Err(BulkError { column: 0 });
        }
        if self.packed.delta {
            xor_into(out, base.ok_or(BulkError { column: 0 })?);
        }
        Ok(())
    }

    /// Stores `raw` (this keyframe's bulk) standing alone: the keyframe it was a
    /// delta against is being dropped. Returns the stored sizes before and after.
    pub fn make_standalone(&mut self, raw: &[u8]) -> (usize, usize) {
        let old = self.packed.data.len();
        self.packed = Packed {
            raw_len: raw.len(),
            delta: false,
            data: lz4_flex::block::compress(raw),
        };
        (old, self.packed.data.len())
    }

    /// Bytes this keyframe still holds alone, for the budget when it is dropped
    /// (shared columns stay with the keyframes that share them).
    pub fn bytes_freed_by_drop(&self) -> usize {
        self.packed.data.len()
            + self.components.unshared_bytes()
            + self.scene.rest_bytes()
            + size_of::<Keyframe>()
    }

    /// Puts the keyframe's world into `world` (scene, particles, step counter);
    /// `raw` is its unpacked bulk. The octree is rebuilt.
    pub fn restore(&self, raw: &[u8], world: &mut World) -> Result<(), BulkError> {
        let mut bulk = BulkReader::new(raw);
        let scene = Scene::from_state(&self.scene, self.components.to_components(), &mut bulk)?;
        let particles = ParticleSystem::from_state(&self.particles, &mut bulk)?;
        if !bulk.is_done() {
            return Err(BulkError { column: usize::MAX });
        }
        world.scene = scene;
        world.particles = particles;
        world.systems.set_steps(self.step, self.applied);
        world.index.rebuild(&mut world.scene);
        Ok(())
    }
}
