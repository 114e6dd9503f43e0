//! glTF 2.0 import (`.gltf` with external or embedded buffers, and `.glb`).
