//! The pool as a recording keeps it: its columns as bytes (every slot, so a
//! restored pool is the same bits dead or alive), its counters in a clone.
//! Scratch columns (eviction, expired) are not kept: every update rewrites
//! them before reading.

use super::{BlendMode, ParticlePool};
use crate::record::bulk::{BulkError, BulkReader, BulkWriter};

impl ParticlePool {
    /// Writes the columns to `out` and returns the pool without them.
    pub(crate) fn save_state(&self, out: &mut Vec<u8>) -> ParticlePool {
        let mut w = BulkWriter::new(out);
        w.pod(&self.position);
        w.pod(&self.velocity);
        w.pod(&self.age);
        w.pod(&self.lifetime);
        w.pod(&self.color);
        w.pod(&self.size);
        w.pod(&self.owner);
        w.each(&self.blend, 1, |o, b| {
            o.push(u8::from(*b == BlendMode::Additive))
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
        let n = pool.age.len();
        let lengths = [
            pool.position.len(),
            pool.velocity.len(),
            pool.lifetime.len(),
            pool.color.len(),
            pool.size.len(),
            pool.owner.len(),
            pool.blend.len(),
        ];
        if lengths.iter().any(|&l| l != n) || pool.alive > n {
            return Err(BulkError { column: 0 });
        }
        pool.eviction.reserve_exact(n);
        pool.expired.resize(n, 0);
        Ok(pool)
    }
}
