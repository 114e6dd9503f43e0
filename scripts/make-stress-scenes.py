#!/usr/bin/env python3
"""Writes the stress scenes `keel-viewer --benchmark` is measured on:
cubes in a grid, one in a hundred orbiting its place (1% moving).

    assets/stress/block.ron       100 cubes (10 x 10, 2 m apart), one orbiting
    assets/stress/slab.ron        100 blocks: 10,000 cubes
    assets/stress/cubes_100k.ron  10 slabs stacked: 100,000 cubes
    assets/stress/cubes_1m.ron    100 slabs (10 stacks of 10): 1,000,000 cubes

Prefabs nest, so the files stay small and the editor opens them as any scene.
Run from the repository root; the output is deterministic.
"""

import os

ENVIRONMENT = """    environment: (
        clear_color: (0.33245158, 0.5711249, 0.79129803),
        ambient: (0.06, 0.07, 0.09),
        shadows: (enabled: false, cascades: 3, distance: 80.0, resolution: 2048, depth_bias: 1.0, normal_offset: 1.5),
        post: (exposure: 0.0, tonemapper: AcesFitted, bloom: false, bloom_threshold: 1.0, bloom_intensity: 0.25),
    ),"""
IDENTITY = "rotation: (0.0, 0.0, 0.0, 1.0), scale: (1.0, 1.0, 1.0)"


def node(name, at, extra="", parent=None):
    p = f"parent: {parent}, " if parent is not None else ""
    return (f"        (name: \"{name}\", {p}transform: (translation: ({at[0]:.1f}, {at[1]:.1f}, {at[2]:.1f}), "
            f"{IDENTITY}){extra}),")


def scene(nodes, camera=None):
    head = "(\n    version: 2,\n" + ENVIRONMENT + "\n"
    if camera:
        eye, target = camera
        head += (f"    camera: (position: ({eye[0]:.1f}, {eye[1]:.1f}, {eye[2]:.1f}), "
                 f"target: ({target[0]:.1f}, {target[1]:.1f}, {target[2]:.1f}), fov_y_degrees: 50.0),\n")
    return head + "    nodes: [\n" + "\n".join(nodes) + "\n    ],\n)\n"


def block():
    nodes = []
    for i in range(100):
        x, z = (i % 10) * 2.0, (i // 10) * 2.0
        shade = 0.25 + 0.5 * ((i * 37) % 100) / 100.0
        mesh = (f", mesh: (mesh: Cube, material: (base_color: ({shade:.2f}, 0.45, {1.0 - shade:.2f}, 1.0), "
                f"metallic: 0.0, roughness: 0.6))")
        if i == 55:
            mesh += ", orbit: (center: (10.0, 0.0, 10.0), radius: 0.8, rate: 2.0, angle: 0.0, face_forward: false)"
        nodes.append(node(f"cube_{i:02}", (x, 0.0, z), mesh))
    return scene(nodes)


def instances(prefab, count, place):
    return [node(f"{os.path.basename(prefab)[:-4]}_{i:03}", place(i), f", prefab: \"{prefab}\"")
            for i in range(count)]


def main():
    os.makedirs("assets/stress", exist_ok=True)
    sun = ("        (name: \"sun\", transform: (translation: (0.0, 0.0, 0.0), "
           "rotation: (0.10824097, 0.88894784, 0.3499135, -0.27498388), scale: (1.0, 1.0, 1.0)), "
           "light: (kind: Directional, color: (1.0, 0.95, 0.9), intensity: 2.6)),")
    files = {
        "assets/stress/block.ron": block(),
        "assets/stress/slab.ron": scene(
            instances("block.ron", 100, lambda i: ((i % 10) * 22.0, 0.0, (i // 10) * 22.0))),
        "assets/stress/cubes_100k.ron": scene(
            [sun] + instances("slab.ron", 10, lambda i: (0.0, i * 4.0, 0.0)),
            camera=((-60.0, 80.0, -60.0), (110.0, 10.0, 110.0))),
        "assets/stress/cubes_1m.ron": scene(
            [sun] + instances("slab.ron", 100,
                              lambda i: ((i % 10) * 222.0, (i // 10) * 4.0, 0.0)),
            camera=((-300.0, 400.0, -300.0), (1100.0, 20.0, 110.0))),
    }
    for path, text in files.items():
        with open(path, "w") as f:
            f.write(text)
        print(f"wrote {path} ({len(text)} bytes)")


if __name__ == "__main__":
    main()
