"""The RaiSim worlds and sensor sets of ../shared/corpus/raisim, checked for what those files hold
(model level, no PyBullet). Skipped whole without the corpus; what holds for any world, height map
text file or sensor set is in ``test_raisim_examples.py`` and runs on the files that ship."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from formats.raisim.corpus_files import LAIKAGO_QPOS, TEMPLATE_PARAMETERS
from lxml import etree

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import load_scene
from scene_sim_ros.formats.raisim import load_sensor_set
from scene_sim_ros.scene import (
    Accelerometer,
    Box,
    Camera,
    Capsule,
    Cylinder,
    DepthCamera,
    Gyroscope,
    Heightfield,
    Plane,
    ServoMotor,
    Sphere,
)
from support.corpus import CORPUS, skip_module_without

skip_module_without(CORPUS / 'raisim')


def test_corpus_templated_world_names_missing_parameters(corpus_dir: Path) -> None:
    path = corpus_dir / 'raisim/raisim2Lib/rsc/xmlScripts/templatedWorld/templatedWorld.xml'
    used = set()
    for file in path.parent.glob('*.xml'):
        used |= set(re.findall(r'@@([A-Za-z_]\w*)', file.read_text()))
    used -= {'idx'}  # the loop variable
    assert used <= set(TEMPLATE_PARAMETERS) | {'object_spawn_height'}
    with pytest.raises(SceneLoadError) as caught:
        load_scene(path)
    for name in ('floor_height', 'sphere_count', 'laikago_start_x'):
        assert name in str(caught.value)
    assert 'terrain.xml:3' in str(caught.value)


def test_corpus_templated_world_uses_the_parameters(corpus_dir: Path) -> None:
    path = corpus_dir / 'raisim/raisim2Lib/rsc/xmlScripts/templatedWorld/templatedWorld.xml'
    scene = load_scene(path, parameters={**TEMPLATE_PARAMETERS, 'floor_height': '0.2',
                                         'spawn_box': 'false'})
    assert scene.entity('floor').pose.position[2] == 0.2
    assert scene.entity('laikago0').pose.position == (-3.0, 0.0, 0.48)
    spheres = [n for n in scene.entity_names() if n.startswith('sphere_array_')]
    assert len(spheres) == 10 and not any(n.startswith('box') for n in scene.entity_names())


def test_corpus_laikago_starts_at_qpos_on_a_moving_treadmill(corpus_dir: Path) -> None:
    path = corpus_dir / 'raisim/raisim2Lib/rsc/laikago.xml'
    scene = load_scene(path)
    assert scene.step_length == 0.002
    robot = scene.entity('laikago0')
    assert robot.kind == 'robot' and not robot.fixed_base
    assert robot.pose.position == (0.0, 0.0, 0.48)
    assert robot.pose.orientation == (0.0, 0.0, 0.0, 1.0)
    assert [j.initial_position for j in robot.movable_joints] == LAIKAGO_QPOS
    assert all(isinstance(j.motor, ServoMotor) for j in robot.movable_joints)
    assert robot.joint('FR_thigh_joint').motor.max_force == 55.0
    assert robot.urdf is not None and 'laikago_description' in robot.urdf
    assert (robot.collision_group, robot.collision_mask) == (1, -1)
    treadmill = scene.entity('treadmill')
    assert treadmill.kinematic and treadmill.linear_velocity == (2.0, 0.0, 0.0)
    assert treadmill.root.collisions[0].shape == Box((10.0, 2.0, 0.05))
    # visual meshes are missing from the corpus: warnings, collision shapes intact
    urdf = etree.parse(str(path.parent / 'laikago/laikago.urdf'))
    assert sum(len(link.collisions) for link in robot.links) == len(urdf.findall('.//collision'))
    mesh_visuals = len(urdf.findall('.//visual/geometry/mesh'))
    assert mesh_visuals > 0
    visuals = sum(len(link.visuals) for link in robot.links)
    assert visuals == len(urdf.findall('.//visual')) - mesh_visuals
    mesh_warnings = [w for w in scene.warnings if 'visual mesh file' in w]
    assert len(mesh_warnings) == mesh_visuals


def test_corpus_single_bodies_gives_every_primitive(corpus_dir: Path) -> None:
    scene = load_scene(corpus_dir / 'raisim/raisim2Lib/rsc/xmlScripts/objects/SingleBodies.xml')
    kinds = {type(c.shape) for e in scene.entities for link in e.links for c in link.collisions}
    assert {Sphere, Box, Capsule, Cylinder, Plane} <= kinds
    compound = scene.entity('compound')
    assert [type(c.shape) for c in compound.root.collisions] == [Sphere, Capsule, Box, Cylinder]
    assert compound.root.inertial.mass == 10.0 and compound.pose.position == (0.0, 0.0, 10.0)
    assert scene.entity('capsule').root.collisions[0].shape == Capsule(0.5, 1.0)
    assert scene.entity('sphere_array_79').root.collisions[0].shape.radius == pytest.approx(0.579)
    assert scene.entity('sphere_array_79').pose.position[2] == pytest.approx(79.1)
    assert len([n for n in scene.entity_names() if n.startswith('box')]) == 81
    assert any('monkey.obj not found' in w for w in scene.warnings)  # not in the corpus


def test_corpus_height_map_text_file_matches_the_file(corpus_dir: Path) -> None:
    folder = corpus_dir / 'raisim/raisim2Lib/rsc/xmlScripts/heightMaps'
    numbers = [float(v) for v in (folder / 'heightMapExample.txt').read_text().split()]
    from_text = load_scene(folder / 'heightMapUsingTxt.xml').entity('terrain')
    inline = load_scene(folder / 'heightMapUsingRawValues.xml').entity('terrain')
    field = from_text.root.collisions[0].shape
    assert isinstance(field, Heightfield)
    assert field.heights.ravel().tolist() == numbers[4:]
    assert field == inline.root.collisions[0].shape


def test_corpus_materials(corpus_dir: Path) -> None:
    scene = load_scene(corpus_dir / 'raisim/raisim2Lib/rsc/xmlScripts/material/material.xml')
    pairs = {(p.material_a, p.material_b): p.restitution for p in scene.material_pairs}
    assert pairs == {('steel', 'steel'): 0.95, ('steel', 'rubber'): 0.15, ('steel', 'copper'): 0.65}
    assert scene.entity('sphere_rubber').root.collisions[0].material == 'rubber'


def test_corpus_sensor_sets(corpus_dir: Path) -> None:
    folder = corpus_dir / 'raisim/raisim2Lib/rsc/anymal/sensors'
    realsense = load_sensor_set(folder / 'realsense435i.xml', link='head')
    color, aligned, depth = realsense.sensors
    assert isinstance(color, Camera) and (color.width, color.height) == (640, 360)
    assert color.fov_x == 1.204 and color.name == 'head_color' and color.link == 'head'
    assert color.pose.position == (-0.0043, 0.0325, 0.0)
    assert isinstance(depth, DepthCamera) and (depth.min_range, depth.max_range) == (0.1, 10.0)
    assert realsense.link.inertial.mass == 0.072
    assert any('d435.STL' in w for w in realsense.warnings)  # mesh not in the corpus
    lidar, *imu = load_sensor_set(folder / 'ouster1-64.xml', link='lidar_link').sensors
    assert isinstance(lidar, DepthCamera) and lidar.projection == 'spherical'
    assert (lidar.width, lidar.height) == (512, 64)
    assert lidar.fov_y == pytest.approx(0.907571 + 0.122173)
    assert {type(s) for s in imu} >= {Accelerometer, Gyroscope}
    for path in folder.glob('*.xml'):
        assert load_sensor_set(path, link='x').sensors
