//! Drawing new particles: the velocities and lifetimes of a run of spawns,
//! from an emitter's cone, speed and lifetime ranges and its generator.
//!
//! [`Emitter::take`](super::Emitter::take) hands out a [`Sampler`]: the
//! generator's draws for its next particles, which any thread can turn into
//! velocities and lifetimes (the generator skips ahead in O(1)). A batch of
//! [`SAMPLE_BATCH`] draws its random numbers first and then its directions,
//! which vectorises; long runs are split across rayon's workers, with an AVX2
//! build where the CPU has it (same bits).

use glam::{Mat3A, Vec3, Vec3A};

use super::FloatRange;
use crate::rng::SplitMix64;

/// Random draws of 64 bits each new particle takes.
pub(super) const DRAWS_PER_PARTICLE: u64 = 2;

/// New particles per worker at the least when [`Emitter::sample_into`](super::Emitter::sample_into) or [`Sampler::fill_runs`]
/// split a batch: waking a sleeping worker costs tens of microseconds, the time to draw a few
/// thousand particles.
pub const PARALLEL_SAMPLES: usize = 8192;

/// The draws of a run of new particles taken from an emitter ([`Emitter::take`](super::Emitter::take)).
#[derive(Clone, Copy, Debug)]
pub struct Sampler {
    pub(super) draw: Draw,
    pub(super) rng: SplitMix64,
    pub(super) count: usize,
}

impl Sampler {
    /// A run of no particles.
    pub const EMPTY: Self = Self {
        draw: Draw {
            cone: Cone {
                cap_height: 0.0,
                basis: Mat3A::IDENTITY,
                rotation_only: true,
            },
            speed: FloatRange { min: 0.0, max: 0.0 },
            lifetime: FloatRange { min: 0.0, max: 0.0 },
        },
        rng: SplitMix64::new(0),
        count: 0,
    };

    /// Particles the run holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the run holds no particle.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Writes the run's velocities and lifetimes into the first [`Sampler::len`] slots of each
    /// slice (fewer if a slice is shorter).
    pub fn fill(&self, velocity: &mut [Vec3], lifetime: &mut [f32]) {
        let n = self.count.min(velocity.len()).min(lifetime.len());
        self.draw
            .fill(self.rng, &mut velocity[..n], &mut lifetime[..n]);
    }

    /// Writes consecutive runs: the first into the first slots of the slices, the next after
    /// it, and so on. Runs are shared out between rayon's workers by their particle counts (a
    /// long run is split), so a step's emitters draw their particles in one hand-over. What
    /// does not fit the shorter slice is not written.
    pub fn fill_runs(runs: &[Sampler], velocity: &mut [Vec3], lifetime: &mut [f32]) {
        let total: usize = runs.iter().map(|r| r.count).sum();
        if runs.len() > 1 && total >= 2 * PARALLEL_SAMPLES {
            // The first runs holding (about) half the particles, at least one.
            let mut split = 1;
            let mut first = runs[0].count;
            while split < runs.len() - 1 && first + runs[split].count <= total / 2 {
                first += runs[split].count;
                split += 1;
            }
            let first = first.min(velocity.len()).min(lifetime.len());
            let (v_first, v_rest) = velocity.split_at_mut(first);
            let (l_first, l_rest) = lifetime.split_at_mut(first);
            rayon::join(
                || Self::fill_runs(&runs[..split], v_first, l_first),
                || Self::fill_runs(&runs[split..], v_rest, l_rest),
            );
            return;
        }
        let room = velocity.len().min(lifetime.len());
        let mut start = 0;
        for run in runs {
            let end = (start + run.count).min(room);
            run.fill(&mut velocity[start..end], &mut lifetime[start..end]);
            start = end;
        }
    }
}

/// What drawing a new particle's velocity and lifetime reads from its emitter.
#[derive(Clone, Copy, Debug)]
pub(super) struct Draw {
    pub(super) cone: Cone,
    pub(super) speed: FloatRange,
    pub(super) lifetime: FloatRange,
}

impl Draw {
    /// Fills `velocity` and `lifetime` (the same length) with the particles drawn from `rng`
    /// on, halves of a long batch on different threads.
    fn fill(&self, rng: SplitMix64, velocity: &mut [Vec3], lifetime: &mut [f32]) {
        if velocity.len() >= 2 * PARALLEL_SAMPLES {
            let mid = (velocity.len() / 2).next_multiple_of(SAMPLE_BATCH);
            let (v_first, v_rest) = velocity.split_at_mut(mid);
            let (l_first, l_rest) = lifetime.split_at_mut(mid);
            let mut later = rng;
            later.skip(DRAWS_PER_PARTICLE * mid as u64);
            rayon::join(
                || self.fill(rng, v_first, l_first),
                || self.fill(later, v_rest, l_rest),
            );
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            #[expect(unsafe_code, reason = "calling a #[target_feature] function")]
            // SAFETY: the CPU running this supports AVX2, just checked.
            unsafe {
                self.batches_avx2(rng, velocity, lifetime);
            }
            return;
        }
        self.batches(rng, velocity, lifetime);
    }

    /// [`Draw::batches`] compiled for AVX2: the 64-bit multiplications of the generator, which
    /// SSE2 builds from three narrower ones on two lanes, run on four. No fused multiply-add,
    /// so every result is the same bits as the baseline build.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn batches_avx2(&self, rng: SplitMix64, velocity: &mut [Vec3], lifetime: &mut [f32]) {
        self.batches(rng, velocity, lifetime);
    }

    /// Fills `velocity` and `lifetime` on this thread, [`SAMPLE_BATCH`] particles at a time.
    #[inline(always)]
    fn batches(&self, mut rng: SplitMix64, velocity: &mut [Vec3], lifetime: &mut [f32]) {
        for (velocity, lifetime) in velocity
            .chunks_mut(SAMPLE_BATCH)
            .zip(lifetime.chunks_mut(SAMPLE_BATCH))
        {
            self.batch(&mut rng, velocity, lifetime);
        }
    }

    /// The sampling both public paths share: fills up to [`SAMPLE_BATCH`] velocities and
    /// lifetimes (as many as the shorter slice holds).
    #[inline(always)]
    pub(super) fn batch(&self, rng: &mut SplitMix64, velocity: &mut [Vec3], lifetime: &mut [f32]) {
        let n = velocity.len().min(lifetime.len()).min(SAMPLE_BATCH);
        let (speed_range, life_range, cone) = (self.speed, self.lifetime, &self.cone);
        let mut turn = [0u32; SAMPLE_BATCH];
        let mut height = [0.0f32; SAMPLE_BATCH];
        let mut speed = [0.0f32; SAMPLE_BATCH];
        let mut life = [0.0f32; SAMPLE_BATCH];
        let mut local = [[0.0f32; 3]; SAMPLE_BATCH];
        for j in 0..n {
            let (a, b) = (rng.next_u64(), rng.next_u64());
            turn[j] = (a >> 40) as u32;
            height[j] = unit_f32(a >> 16);
            speed[j] = unit_f32(b >> 40);
            life[j] = unit_f32(b >> 16);
        }
        // Uniform over the spherical cap: cos(theta) uniform in [cos(cone), 1], so
        // 1 - cos(theta) = height * cap_height and sin(theta) = sqrt(h * (2 - h)).
        for ((dir, &turn), &height) in local.iter_mut().zip(&turn).zip(&height) {
            let (sin_phi, cos_phi) = sin_cos_turn(turn);
            let h = height * cone.cap_height;
            let sin_theta = (h * (2.0 - h)).max(0.0).sqrt();
            *dir = [cos_phi * sin_theta, 1.0 - h, sin_phi * sin_theta];
        }
        for ((v, local), &speed) in velocity[..n].iter_mut().zip(&local).zip(&speed) {
            let local = Vec3A::from_array(*local);
            let mut direction = cone.basis * local;
            if !cone.rotation_only {
                direction = direction.normalize_or(local);
            }
            *v = Vec3::from(direction) * speed_range.lerp(speed);
        }
        for (l, &u) in lifetime[..n].iter_mut().zip(&life) {
            *l = life_range.lerp(u);
        }
    }
}

/// The emission cone of one [`Emitter`](crate::particles::Emitter) under one world transform.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cone {
    /// `1 - cos(cone angle)`: the height of the spherical cap directions are drawn from.
    pub(super) cap_height: f32,
    pub(super) basis: Mat3A,
    pub(super) rotation_only: bool,
}

/// Particles whose random numbers and directions [`Emitter::sample_particles`](super::Emitter::sample_particles) computes together.
pub const SAMPLE_BATCH: usize = 64;

/// The low 24 bits of `bits` as a float uniform in `[0, 1)`.
#[inline(always)]
fn unit_f32(bits: u64) -> f32 {
    (bits & 0xFF_FFFF) as f32 * (1.0 / 16_777_216.0)
}

/// Sine and cosine of `turn / 2^24` of a full turn (`turn` below 2^24), from polynomials on the
/// nearest quarter turn: accurate to about 2e-7 and made of plain arithmetic, so it vectorises
/// and rounds the same everywhere.
#[inline(always)]
fn sin_cos_turn(turn: u32) -> (f32, f32) {
    const QUARTER: u32 = 1 << 22;
    let quadrant = (turn + QUARTER / 2) / QUARTER;
    let rest = turn as i32 - (quadrant * QUARTER) as i32;
    let x = rest as f32 * (std::f32::consts::TAU / 16_777_216.0);
    let x2 = x * x;
    let sin = x * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 - x2 * (1.0 / 5040.0))));
    let cos = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24.0 + x2 * (-1.0 / 720.0 + x2 * (1.0 / 40320.0))));
    let (sin, cos) = if quadrant & 1 == 1 {
        (cos, -sin)
    } else {
        (sin, cos)
    };
    if quadrant & 2 == 2 {
        (-sin, -cos)
    } else {
        (sin, cos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sin_cos_turn_matches_the_library() {
        for k in 0..=20_000u32 {
            let turn = (k * 838) & 0xFF_FFFF;
            let angle = f64::from(turn) / 16_777_216.0 * std::f64::consts::TAU;
            let (sin, cos) = sin_cos_turn(turn);
            assert!(
                (f64::from(sin) - libm::sin(angle)).abs() < 5e-7,
                "sin at {angle}"
            );
            assert!(
                (f64::from(cos) - libm::cos(angle)).abs() < 5e-7,
                "cos at {angle}"
            );
        }
    }
}
