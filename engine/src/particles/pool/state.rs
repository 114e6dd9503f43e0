//! The pool as a recording keeps it: the live range of its columns as bytes,
//! its capacity and counters in a clone. Dead slots are not kept (a spawn
//! writes every column of the slots it takes before anything reads them; they
//! come back as zeros), nor are the scratch columns (eviction, expired), which
//! every update rewrites before reading.

use glam::Vec3;

use super::{BlendMode, MAX_POOL_CAPACITY, ParticlePool};
use crate::bulk::{BulkError, BulkReader, BulkWriter};

impl ParticlePool {
    /// Writes the live columns to `out` and returns the pool without them.
    pub(crate) fn save_state(&self, out: &mut Vec<u8>) -> ParticlePool {
        let mut w = BulkWriter::new(out);
        let n = self.alive;
        w.value(self.capacity() as u64);
        w.pod(&self.position[..n]);
        w.pod(&self.velocity[..n]);
        w.pod(&self.age[..n]);
        w.pod(&self.lifetime[..n]);
        w.pod(&self.color[..n]);
        w.pod(&self.size[..n]);
        w.pod(&self.owner[..n]);
        w.each(&self.blend[..n], 1, |o, b| {
            o.push(u8::from(*b == BlendMode::Additive));
        });
        ParticlePool {
            position: Vec::new(),
            velocity: Vec::new(),
            age: Vec::new(),
            lifetime: Vec::new(),
            color: Vec::new(),
            size: Vec::new(),
            owner: Vec::new(),
            blend: Vec::new(),
            eviction: Vec::new(),
            expired: Vec::new(),
            ..*self
        }
    }

    /// The pool [`ParticlePool::save_state`] split, put back together.
    pub(crate) fn from_state(
        rest: &ParticlePool,
        bulk: &mut BulkReader<'_>,
    ) -> Result<ParticlePool, BulkError> {
        let capacity = bulk.value::<u64>()?;
        let mut pool = ParticlePool {
            position: bulk.pod()?,
            velocity: bulk.pod()?,
            age: bulk.pod()?,
            lifetime: bulk.pod()?,
            color: bulk.pod()?,
            size: bulk.pod()?,
            owner: bulk.pod()?,
            blend: bulk.each(1, |b| {
                if b[0] == 1 {
                    BlendMode::Additive
                } else {
                    BlendMode::Alpha
                }
            })?,
            eviction: Vec::new(),
            expired: Vec::new(),
            ..*rest
        };
        let lengths = [
            pool.position.len(),
            pool.velocity.len(),
            pool.age.len(),
            pool.lifetime.len(),
            pool.color.len(),
            pool.size.len(),
            pool.owner.len(),
            pool.blend.len(),
        ];
        let capacity = usize::try_from(capacity).unwrap_or(usize::MAX);
        if lengths.iter().any(|&l| l != pool.alive)
            || capacity < pool.alive
            || capacity > MAX_POOL_CAPACITY as usize
        {
            return Err(BulkError { column: 0 });
        }
        // Dead slots come back as zeros, as `grow_to` makes them.
        pool.position.resize(capacity, Vec3::ZERO);
        pool.velocity.resize(capacity, Vec3::ZERO);
        pool.age.resize(capacity, 0.0);
        pool.lifetime.resize(capacity, 0.0);
        pool.color.resize(capacity, [0; 4]);
        pool.size.resize(capacity, 0.0);
        pool.owner.resize(capacity, 0);
        pool.blend.resize(capacity, BlendMode::Alpha);
        pool.eviction.reserve_exact(capacity);
        pool.expired.resize(capacity, 0);
        Ok(pool)
    }
}
