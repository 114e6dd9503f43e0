#!/usr/bin/env bash
# The web player's tests: builds the demo and harbour pages (scripts/web.sh)
# and plays them in headless Chromium (scripts/web_check.py). The demo page's
# pixels must match the native viewer's render of the same scene and step;
# a missing file, a broken scene and a browser without WebGPU must each be
# a readable message in the page. Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh   # chromium

out=${CARGO_TARGET_DIR:-target}/web
bash scripts/web.sh demo --no-serve
bash scripts/web.sh harbour --no-serve

echo "-- the demo page draws what the native viewer draws"
cargo run --bin keel-viewer -- assets/scenes/demo.ron --headless --frames 2 --size 640x360 \
    --screenshot "$out/demo-native.png"
timeout 300 python3 scripts/web_check.py "$out/demo" --path "?frames=2" --expect-frame --seconds 2 \
    --screenshot "$out/demo-web.png" --compare "$out/demo-native.png"

echo "-- the harbour page plays: W held sails the ship through buoys, the HUD counts them"
timeout 300 python3 scripts/web_check.py "$out/harbour" --expect-frame --hold KeyW --seconds 20 \
    --expect-hud "Score [1-9]" --screenshot "$out/harbour-web.png"

echo "-- a browser without WebGPU is told so"
timeout 300 python3 scripts/web_check.py "$out/demo" --no-webgpu --expect-message "needs WebGPU"

echo "-- a file the server does not give names its URL and status"
rm -rf "$out/missing" && cp -r "$out/demo" "$out/missing"
rm "$out/missing/assets/scenes/demo.ron"
timeout 300 python3 scripts/web_check.py "$out/missing" --expect-message "assets/scenes/demo.ron: the server answered HTTP 404"

echo "-- a broken scene names its line and field"
rm -rf "$out/broken" && cp -r "$out/demo" "$out/broken"
printf '(version: 2, nodes: [(name: "a", bogus: 3)])' > "$out/broken/assets/scenes/demo.ron"
timeout 300 python3 scripts/web_check.py "$out/broken" --expect-message "demo.ron:1:34: node 0 (\`a\`), field \`bogus\`"
