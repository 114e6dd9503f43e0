#!/usr/bin/env bash
# The web player's tests: builds the demo and harbour pages and the README's
# game's (scripts/web.sh, a crate by its path) and plays them in headless
# Chromium (scripts/web_check.py), whose server fails on any request it
# refuses (a favicon's 404 too). The demo page's
# pixels must match the native viewer's render of the same scene and step
# (and the committed goldens); runs recorded in a page must replay
# identical natively, and native recordings identical in a page; a missing
# file, a broken scene, a browser without WebGPU, a page over plain HTTP away
# from localhost and a page opened from file:// must each be a readable
# message in the page. Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh   # chromium

out=${CARGO_TARGET_DIR:-target}/web
bash scripts/web.sh demo --no-serve
bash scripts/web.sh harbour --no-serve
bash scripts/web.sh games/readme --no-serve

echo "-- the demo page draws what the native viewer draws"
cargo run --bin keel-viewer -- assets/scenes/demo.ron --headless --frames 2 --size 640x360 \
    --screenshot "$out/demo-native.png"
timeout 300 python3 scripts/web_check.py "$out/demo" --path "?frames=2" --expect-frame --seconds 2 \
    --screenshot "$out/demo-web.png" --compare "$out/demo-native.png"
# The images looked at and committed (tests/golden/web_demo_*.png): the page
# against the native viewer's golden, so both drifting together shows too.
python3 scripts/web_check.py --images "$out/demo-web.png" tests/golden/web_demo_native.png
python3 scripts/web_check.py --images "$out/demo-web.png" tests/golden/web_demo_web.png
python3 scripts/web_check.py --images "$out/demo-native.png" tests/golden/web_demo_native.png

echo "-- a run played in the demo page replays identical natively"
timeout 300 python3 scripts/web_check.py "$out/demo" --expect-frame --seconds 8 \
    --save-recording "$out/demo-web.ron"
cargo run --bin keel-viewer -- --replay "$out/demo-web.ron" assets/scenes/demo.ron

echo "-- a native run of the demo replays identical in the page"
cargo run --bin keel-viewer -- assets/scenes/demo.ron --record "$out/demo/native.ron" --steps 600
timeout 300 python3 scripts/web_check.py "$out/demo" --path "?replay=native.ron" \
    --expect-replay "^identical: 600 steps"

echo "-- the crate pile (bodies, contacts, sleep) ends the same in the page and natively"
cargo run --bin keel-viewer -- assets/scenes/physics.ron --record "$out/demo/physics-native.ron" --steps 600
timeout 300 python3 scripts/web_check.py "$out/demo" \
    --path "?scene=assets/scenes/physics.ron&replay=physics-native.ron" \
    --expect-replay "^identical: 600 steps"
timeout 300 python3 scripts/web_check.py "$out/demo" --path "?scene=assets/scenes/physics.ron" \
    --expect-frame --seconds 8 --save-recording "$out/physics-web.ron"
cargo run --bin keel-viewer -- --replay "$out/physics-web.ron" assets/scenes/physics.ron

echo "-- the harbour page plays: W held sails the ship through buoys, the HUD counts them;"
echo "   the run replays identical natively and ends with the same HUD"
timeout 300 python3 scripts/web_check.py "$out/harbour" --expect-frame --hold KeyW --seconds 20 \
    --expect-hud "Score [1-9]" --screenshot "$out/harbour-web.png" \
    --save-recording "$out/harbour-web.ron" | tee "$out/harbour-web.log"
cargo run -p keel-harbour --bin harbour -- --replay "$out/harbour-web.ron" \
    games/harbour/assets/harbour.ron | tee "$out/harbour-native.log"
# The page names its build (the module's name and hash), and the replay says
# where each side ran rather than blaming an unknown build.
grep -q '^recorded in a web page by harbour.wasm+[0-9a-f]\{16\}; this is harbour+' "$out/harbour-native.log" || {
    echo "the native replay did not name the page's build" >&2; exit 1; }
if grep -q 'another build\|unknown' "$out/harbour-native.log"; then
    echo "the native replay blamed another or an unknown build" >&2; exit 1
fi
web_hud=$(grep '^hud:' "$out/harbour-web.log")
native_hud=$(grep '^hud:' "$out/harbour-native.log")
if [ "$web_hud" != "$native_hud" ]; then
    echo "the page showed '$web_hud', its native replay '$native_hud'" >&2
    exit 1
fi

echo "-- the same input played natively replays identical in the harbour page"
cargo run -p keel-harbour --bin harbour -- --record "$out/harbour/native.ron" \
    --input-of "$out/harbour-web.ron" games/harbour/assets/harbour.ron
timeout 300 python3 scripts/web_check.py "$out/harbour" --path "?replay=native.ron" \
    --expect-replay "^identical: " --expect-replay-hud "$native_hud" \
    --expect-replay "^recorded natively by harbour\+[0-9a-f]{16}; this is harbour\.wasm\+"

echo "-- the README's game builds its page from its crate's path, and it plays"
timeout 300 python3 scripts/web_check.py "$out/readme" --expect-frame --seconds 2 \
    --save-recording "$out/readme-web.ron"

echo "-- a browser without WebGPU is told so"
timeout 300 python3 scripts/web_check.py "$out/demo" --no-webgpu --expect-message "needs WebGPU" \
    --expect-save-hidden

echo "-- a page over plain HTTP away from localhost is told it needs HTTPS or localhost"
timeout 300 python3 scripts/web_check.py "$out/demo" --insecure --expect-message "over HTTPS or from localhost" \
    --expect-save-hidden

echo "-- a page opened from file:// says it must be served, and how"
timeout 300 python3 scripts/web_check.py "$out/demo" --file --expect-message "python3 -m http.server"

echo "-- a file the server does not give names its URL and status"
rm -rf "$out/missing" && cp -r "$out/demo" "$out/missing"
rm "$out/missing/assets/scenes/demo.ron"
timeout 300 python3 scripts/web_check.py "$out/missing" --expect-404 assets/scenes/demo.ron \
    --expect-message "assets/scenes/demo.ron: the server answered HTTP 404" --expect-save-hidden

echo "-- a broken scene names its line and field"
rm -rf "$out/broken" && cp -r "$out/demo" "$out/broken"
printf '(version: 2, nodes: [(name: "a", bogus: 3)])' > "$out/broken/assets/scenes/demo.ron"
timeout 300 python3 scripts/web_check.py "$out/broken" --expect-message "demo.ron:1:34: node 0 (\`a\`), field \`bogus\`"
