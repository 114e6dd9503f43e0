#!/usr/bin/env bash
# Builds a web page of the demo scene or of the harbour game, and serves it.
#
#   scripts/web.sh [demo|harbour] [--out DIR] [--port N] [--no-serve]
#
# The page (index.html, the wasm, its JS glue, the game's assets and the
# list of them, files.txt) lands in target/web/PAGE (or DIR) and works from
# any static file server. Installs what it needs: the wasm32 target, the
# wasm-bindgen CLI of the version Cargo.lock holds; wasm-opt (binaryen) is
# used where installed.
set -euo pipefail
cd "$(dirname "$0")/.."

page=demo
out=""
port=8000
serve=1
while (($#)); do
    case "$1" in
        demo|harbour) page=$1 ;;
        --out) out=$2; shift ;;
        --port) port=$2; shift ;;
        --no-serve) serve=0 ;;
        *) echo "usage: scripts/web.sh [demo|harbour] [--out DIR] [--port N] [--no-serve]" >&2; exit 2 ;;
    esac
    shift
done
target=${CARGO_TARGET_DIR:-target}
out=${out:-$target/web/$page}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown
fi
version=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
if ! wasm-bindgen --version 2>/dev/null | grep -q " $version\b"; then
    echo "installing wasm-bindgen-cli $version"
    cargo install wasm-bindgen-cli --version "$version"
fi

case $page in
    demo)
        cargo rustc -p keel-player --lib --release --target wasm32-unknown-unknown \
            --features web-demo --crate-type cdylib
        wasm=$target/wasm32-unknown-unknown/release/keel_player.wasm
        assets=assets
        title="Keel: the demo scene"
        ;;
    harbour)
        cargo rustc -p keel-harbour --lib --release --target wasm32-unknown-unknown \
            --crate-type cdylib
        wasm=$target/wasm32-unknown-unknown/release/harbour.wasm
        assets=games/harbour/assets
        title="Harbour: a game made with Keel"
        ;;
esac

rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name keel "$wasm"
# wasm-opt shrinks the module where binaryen is new enough for what Rust
# emits (reference types and the rest); Debian 12's binaryen 108 breaks the
# module, so older ones are skipped.
opt=$(wasm-opt --version 2>/dev/null | sed -n 's/.*version \([0-9]*\).*/\1/p' || true)
if [ -n "$opt" ] && [ "$opt" -ge 116 ]; then
    wasm-opt -Oz --enable-reference-types --enable-bulk-memory --enable-mutable-globals \
        --enable-sign-ext --enable-nontrapping-float-to-int --enable-multivalue \
        "$out/keel_bg.wasm" -o "$out/keel_bg.wasm"
elif [ -n "$opt" ]; then
    echo "wasm-opt $opt is older than 116 and would break this module: not used"
fi
sed "s|TITLE|$title|" player/web/index.html > "$out/index.html"
cp -r "$assets" "$out/assets"
# The list the web player fetches (player/src/web.rs, FILE_LIST).
(cd "$out" && find assets -type f | LC_ALL=C sort > files.txt)

size=$(stat -c %s "$out/keel_bg.wasm")
gz=$(gzip -9 -c "$out/keel_bg.wasm" | wc -c)
echo "page: $out (wasm $((size / 1024)) KiB, $((gz / 1024)) KiB gzipped)"
if ((serve)); then
    echo "serving on http://localhost:$port/ (Ctrl-C stops)"
    exec python3 -m http.server --bind 127.0.0.1 --directory "$out" "$port"
fi
