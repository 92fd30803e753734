"""Open Inventor / VRML mesh subset."""

from __future__ import annotations

import numpy as np
import pytest

from scene_sim_ros.formats.simox.meshes import MeshError, MeshReader


def test_meshes_inventor_units_transform_and_face_set(write_file):
    path = write_file('a.iv', """
        #Inventor V2.1 ascii
        Separator {
          Units { units MILLIMETERS }
          Translation { translation 100 0 0 }
          RotationXYZ { axis Z angle 1.5707963267948966 }
          Coordinate3 { point [ 0 0 0, 10 0 0, 10 20 0, 0 20 0 ] }
          FaceSet { numVertices [ 4 ] }
        }
        Separator { SoUnits { units METERS } Cube { width 2 height 2 depth 2 } }
        """)
    data = MeshReader().read(path)
    quad = data.mesh.vertices[:4]
    # x' = -y, y' = x, then +100 mm, everything in metres
    np.testing.assert_allclose(quad, [[0.1, 0, 0], [0.1, 0.01, 0], [0.08, 0.01, 0], [0.08, 0, 0]],
                               atol=1e-12)
    assert len(data.mesh.triangles) == 2 + 12
    low, high = data.bounds
    np.testing.assert_allclose(low, [-1, -1, -1])
    np.testing.assert_allclose(high, [1, 1, 1])


def test_meshes_vrml2_transform_shape_and_inventor_file_include(write_file):
    write_file('part.wrl', """
        #VRML V2.0 utf8
        Transform {
          translation 0 0 1000
          scale 2 2 2
          children [
            Shape {
              appearance Appearance { material Material { diffuseColor 1 0 0 } }
              geometry IndexedFaceSet {
                coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0 ] }
                coordIndex [ 0, 1, 2, -1 ]
              }
            }
          ]
        }
        """)
    path = write_file('outer.iv', """
        #Inventor V2.1 ascii
        Separator {
          Units { units MILLIMETERS }
          File { name "part.wrl" }
        }
        """)
    data = MeshReader().read(path)
    np.testing.assert_allclose(data.mesh.vertices, [[0, 0, 1], [0.002, 0, 1], [0, 0.002, 1]])
    assert data.color == (1.0, 0.0, 0.0, 1.0)


def test_meshes_matrix_transform_def_use_and_switch(write_file):
    path = write_file('m.wrl', """
        #VRML V1.0 ascii
        Separator {
          Switch { DEF Tri Separator {
              Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0 ] }
              IndexedFaceSet { coordIndex [ 0, 1, 2, -1 ] } } }
          Separator {
            MatrixTransform { matrix 1 0 0 0  0 1 0 0  0 0 1 0  5 6 7 1 }
            USE Tri
          }
        }
        """)
    data = MeshReader().read(path)
    np.testing.assert_allclose(data.mesh.vertices, [[5, 6, 7], [6, 6, 7], [5, 7, 7]])


def test_meshes_cached_per_file_and_errors(write_file, tmp_path):
    path = write_file('a.iv', '#Inventor V2.1 ascii\nSeparator { Sphere { radius 0.5 } }\n')
    reader = MeshReader()
    assert reader.read(path) is reader.read(path)
    with pytest.raises(MeshError):
        reader.read(tmp_path / 'missing.iv')
    with pytest.raises(MeshError, match='not an ASCII'):
        reader.read(write_file('b.iv', 'solid x\nendsolid\n'))
    with pytest.raises(MeshError, match='no triangles'):
        reader.read(write_file('c.iv', '#Inventor V2.1 ascii\nSeparator { }\n'))


# Mutants the fuzzer found escaping as raw exceptions (issue 43): each is now a MeshError, which
# the Simox loader turns into a warning and a stand-in sphere.
@pytest.mark.parametrize('body, error', [
    ('IndexedFaceSet { coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 ] } coordIndex [ 0, 1, 2, -1 ] }',
     'no triangles'),
    ('RotationXYZ { axis Z angle 1e999 } Cube { }', 'not finite'),
    ('Rotation { rotation 0 0 1 1e999 } Cube { }', 'not finite'),
    ('File { name "a\0b.iv" }', 'not a path'),
])
def test_malformed_nodes_are_mesh_errors_not_escapes(write_file, body, error):
    path = write_file('bad.iv', f'#Inventor V2.1 ascii\nSeparator {{ {body} }}\n')
    with pytest.raises(MeshError, match=error):
        MeshReader().read(path)
