#!/usr/bin/env bash
# System packages the tests need: Mesa's software GPU (GL/EGL and Vulkan) and
# the X libraries winit loads, plus Xvfb for real-window tests.
# libudev-dev and pkg-config build gilrs for the optional `gamepads` feature;
# chromium plays the web pages in the browser tests (scripts/web_test.sh).
# Idempotent: does nothing when everything is there already.
set -euo pipefail

packages=(mesa-vulkan-drivers libvulkan1 libegl1 libgl1-mesa-dri libgles2
          xvfb xauth libx11-6 libxcursor1 libxrandr2 libxi6 libx11-xcb1
          libxkbcommon0 libxkbcommon-x11-0 libwayland-client0
          libudev-dev pkg-config chromium)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The browser target, which CI type-checks the engine, the player and the
# harbour game for (so the web build cannot rot).
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown
fi
