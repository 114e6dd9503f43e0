#!/usr/bin/env bash
# Keel against Bevy 0.20 on the same data: builds the peers crate (its own
# workspace, outside Keel's build and `cargo test`) and prints the tables the
# README shows: three processes on every core, then three on one thread,
# 10 rounds a row each (src/main.rs says what each row times and checks).
# Takes minutes cold (Bevy's ECS, transform, app, asset, time and animation
# crates build with it: over ten on two cores), and about as long to run.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --quiet
exec target/release/keel-peers
