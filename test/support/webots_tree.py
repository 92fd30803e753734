"""A PROTO tree for tests of remote Webots PROTOs, served from localhost: ``Rover.proto`` (a
JavaScript template) with a nested EXTERNPROTO by relative path (``Wheel.proto``) and one by URL
(``Scanner.proto``, with a Mesh of its own), a relative Mesh and ImageTexture, and a url field
(``bodyMesh``) that a world may forward by IS; and a world with two Rovers, the second giving
its own mesh."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scene_sim_ros.images import encode_png
from support.file_server import FileServer

CUBE_OBJ = ''.join(f'v {x} {y} {z}\n' for x in (-.1, .1) for y in (-.1, .1) for z in (-.1, .1)) + \
    'f 1 2 4\nf 1 4 3\nf 5 7 8\nf 5 8 6\nf 1 5 6\nf 1 6 2\nf 3 4 8\nf 3 8 7\nf 1 3 7\nf 1 7 5\n' \
    'f 2 6 8\nf 2 8 4\n'
TETRA_STL = """solid t
facet normal 0 0 1
 outer loop
  vertex 0 0 0
  vertex 0.05 0 0
  vertex 0 0.05 0
 endloop
endfacet
facet normal 0 0 1
 outer loop
  vertex 0 0 0
  vertex 0 0.05 0
  vertex 0 0 0.05
 endloop
endfacet
endsolid t
"""

ROVER = """#VRML_SIM R2023b utf8
# template language: javascript
EXTERNPROTO "Wheel.proto"
EXTERNPROTO "{url}/parts/protos/Scanner.proto"
PROTO Rover [
  field SFVec3f translation 0 0 0
  field SFString name "rover"
  field SFFloat wheelRadius 0.05
  field MFString bodyMesh "../meshes/body.obj"
  field SFString controller "<none>"
]
{
  %< const radius = fields.wheelRadius.value * 2; >%
  Robot {
    translation IS translation
    name IS name
    controller IS controller
    children [
      Shape {
        appearance PBRAppearance { baseColorMap ImageTexture { url "textures/skin.png" } }
        geometry Mesh { url IS bodyMesh }
      }
      Wheel { radius %<= radius >% }
      Scanner { }
    ]
    boundingObject Mesh { url "../meshes/body.obj" }
    physics Physics { mass 1 }
  }
}
"""
WHEEL = """#VRML_SIM R2023b utf8
PROTO Wheel [ field SFFloat radius 0.04 ]
{
  HingeJoint {
    jointParameters HingeJointParameters { axis 0 1 0 }
    device [ RotationalMotor { name "wheel motor" } ]
    endPoint Solid {
      name "wheel"
      children [ Shape { geometry DEF W Cylinder { radius IS radius height 0.02 } } ]
      boundingObject USE W
      physics Physics { mass 0.1 }
    }
  }
}
"""
SCANNER = """#VRML_SIM R2023b utf8
PROTO Scanner [ ]
{
  Lidar {
    name "scanner"
    horizontalResolution 64
    fieldOfView 3.14
    numberOfLayers 1
    maxRange 5
    children [ Shape { geometry Mesh { url "../meshes/scanner.stl" } } ]
  }
}
"""
WORLD = """#VRML_SIM R2023b utf8
EXTERNPROTO "{url}/lib/protos/Rover.proto"
WorldInfo {{ basicTimeStep 16 }}
Rover {{ name "r1" controller "<extern>" }}
Rover {{ name "r2" translation 1 0 0 bodyMesh "../meshes/mine.obj" }}
"""


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding='utf-8')
    return path



def serve_rover_tree(root: Path) -> FileServer:
    """The tree under ``root``, served (stop it when done)."""
    served = FileServer(root)
    write(root / 'lib/protos/Rover.proto', ROVER.replace('{url}', served.url))
    write(root / 'lib/protos/Wheel.proto', WHEEL)
    write(root / 'lib/protos/textures/skin.png', encode_png(np.full((4, 4, 3), 200, np.uint8)))
    write(root / 'lib/meshes/body.obj', CUBE_OBJ)
    write(root / 'parts/protos/Scanner.proto', SCANNER)
    write(root / 'parts/meshes/scanner.stl', TETRA_STL)
    return served


def write_rover_world(project: Path, url: str) -> Path:
    """``project/worlds/rover.wbt`` naming Rover by URL, and the mesh the second Rover gives."""
    write(project / 'meshes/mine.obj', CUBE_OBJ.replace('.1', '.3'))
    return write(project / 'worlds/rover.wbt', WORLD.format(url=url))
