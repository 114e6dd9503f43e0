#!/usr/bin/env bash
# Keel against Bevy 0.20 on the same data, in one run: builds the peers crate
# (its own workspace, outside Keel's build and `cargo test`) and prints the
# table the README shows. Takes minutes cold (Bevy's ECS, transform, app,
# asset, time and animation crates build with it: over ten on two cores).
set -euo pipefail
cd "$(dirname "$0")"
cargo run --release --quiet
