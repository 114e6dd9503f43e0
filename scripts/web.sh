#!/usr/bin/env bash
# Builds a web page of the demo scene, of the harbour game or of any game
# crate, and serves it.
#
#   scripts/web.sh [demo|harbour|PATH_TO_GAME_CRATE] [--out DIR] [--port N] [--no-serve]
#
# A game crate's page is its library (with `keel_player::web_page!`) built as
# a cdylib for wasm32, titled with the crate's description (or name), with
# the crate's `assets/` folder and the scenes (`*.ron`) beside its Cargo.toml.
# The page (index.html, the wasm, its JS glue, the game's files and the
# list of them, files.txt) lands in target/web/PAGE (the crate's target
# folder, PAGE its folder's name; or DIR) and works from any static file
# server. Installs what it needs: the wasm32 target, the wasm-bindgen CLI of
# the version the game's Cargo.lock holds; wasm-opt (binaryen) is used where
# installed.
set -euo pipefail
keel=$(cd "$(dirname "$0")/.." && pwd)
page=demo
out=""
port=8000
serve=1
usage="usage: scripts/web.sh [demo|harbour|PATH_TO_GAME_CRATE] [--out DIR] [--port N] [--no-serve]"
while (($#)); do
    case "$1" in
        demo) page=demo ;;
        harbour) page=$keel/games/harbour ;;
        --out) out=$2; shift ;;
        --port) port=$2; shift ;;
        --no-serve) serve=0 ;;
        -*) echo "$usage" >&2; exit 2 ;;
        *)
            if [ ! -f "$1/Cargo.toml" ]; then
                echo "scripts/web.sh: $1 is no crate (no Cargo.toml there)" >&2
                echo "$usage" >&2
                exit 2
            fi
            page=$(cd "$1" && pwd) ;;
    esac
    shift
done
cd "$keel"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown
fi

if [ "$page" = demo ]; then
    cargo rustc -p keel-player --lib --release --target wasm32-unknown-unknown \
        --features web-demo --crate-type cdylib
    target=${CARGO_TARGET_DIR:-target}
    name=keel_player
    files=(assets)
    title="Keel: the demo scene"
    lock=Cargo.lock
    out=${out:-$target/web/demo}
else
    # The crate's package, library and target folder, as Cargo sees them.
    read -r package name target description < <(
        cargo metadata --format-version 1 --no-deps --manifest-path "$page/Cargo.toml" |
        python3 -c '
import json, os, sys
meta = json.load(sys.stdin)
manifest = os.path.realpath(sys.argv[1])
package = next(p for p in meta["packages"] if os.path.realpath(p["manifest_path"]) == manifest)
lib = next((t for t in package["targets"] if set(t["kind"]) & {"lib", "rlib", "cdylib"}), None)
if lib is None:
    sys.exit(f"{manifest}: the game has no library (src/lib.rs) to build its page from")
print(package["name"], lib["name"].replace("-", "_"), meta["target_directory"],
      (package.get("description") or package["name"]).replace("\n", " "))
' "$page/Cargo.toml")
    cargo rustc --manifest-path "$page/Cargo.toml" --lib --release \
        --target wasm32-unknown-unknown --crate-type cdylib
    lock=$(cargo metadata --format-version 1 --no-deps --manifest-path "$page/Cargo.toml" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["workspace_root"])')/Cargo.lock
    files=()
    if [ -d "$page/assets" ]; then files+=("$page/assets"); fi
    for scene in "$page"/*.ron; do
        if [ -f "$scene" ]; then files+=("$scene"); fi
    done
    title=$description
    out=${out:-$target/web/$(basename "$page")}
    echo "page of $package ($name.wasm)"
fi
wasm=$target/wasm32-unknown-unknown/release/$name.wasm

version=$(grep -A1 '^name = "wasm-bindgen"$' "$lock" | sed -n 's/^version = "\(.*\)"/\1/p')
if ! wasm-bindgen --version 2>/dev/null | grep -q " $version\b"; then
    echo "installing wasm-bindgen-cli $version"
    cargo install wasm-bindgen-cli --version "$version"
fi

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
# The page's build, as a native player names its own (its name and a hash of
# what runs): recordings made in the page carry it.
build="$name.wasm+$(sha256sum "$out/keel_bg.wasm" | cut -c1-16)"
python3 - "$keel/player/web/index.html" "$out/index.html" "$title" "$build" <<'END'
import html, sys
source, target, title, build = sys.argv[1:]
text = open(source).read().replace("TITLE", html.escape(title)).replace("BUILD", html.escape(build))
open(target, "w").write(text)
END
for file in "${files[@]}"; do cp -r "$file" "$out/"; done
# The list the web player fetches (player/src/web.rs, FILE_LIST).
(cd "$out" && find . -type f ! -name index.html ! -name files.txt ! -name 'keel*' | sed 's|^\./||' | LC_ALL=C sort > files.txt)

size=$(stat -c %s "$out/keel_bg.wasm")
gz=$(gzip -9 -c "$out/keel_bg.wasm" | wc -c)
echo "page: $out ($build; wasm $((size / 1024)) KiB, $((gz / 1024)) KiB gzipped)"
if ((serve)); then
    echo "serving on http://localhost:$port/ (Ctrl-C stops)"
    exec python3 -m http.server --bind 127.0.0.1 --directory "$out" "$port"
fi
