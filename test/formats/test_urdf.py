"""URDF robots: links, joints, meshes, the world link, default motors, RaiSim sensor sets."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import load_scene, urdf
from scene_sim_ros.formats.raisim import load as load_raisim
from scene_sim_ros.scene import Box, Camera, Cylinder, MeshFile, ServoMotor, Sphere
from support.corpus import CORPUS
from support.examples import shipped, shipped_ids

WriteFile = Callable[[str, str], Path]

ARM = """
<robot name="arm">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base">
    <inertial><origin xyz="0 0 0.1" rpy="0 0 1.5707963267948966"/><mass value="2"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="3"/></inertial>
    <collision><origin xyz="0 0 0.05"/><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
    <visual><geometry><cylinder radius="0.1" length="0.1"/></geometry>
      <material name="red"/></visual>
  </link>
  <link name="upper"><inertial><mass value="1"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <visual><geometry><mesh filename="package://arm_description/meshes/upper.stl" scale="0.001 0.001 0.001"/></geometry></visual>
    <collision><geometry><mesh filename="meshes/missing.stl"/></geometry></collision>
  </link>
  <link name="slider"/>
  <link name="wheel"/>
  <link name="tool"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.2" rpy="0 0 1.5707963267948966"/><axis xyz="0 2 0"/>
    <limit lower="-1" upper="1" effort="30" velocity="2"/>
    <dynamics damping="0.5" friction="0.1"/>
  </joint>
  <joint name="slide" type="prismatic">
    <parent link="upper"/><child link="slider"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.3" effort="0" velocity="0"/>
  </joint>
  <joint name="spin" type="continuous">
    <parent link="base"/><child link="wheel"/><axis xyz="1 0 0"/>
  </joint>
  <joint name="weld" type="fixed"><parent link="slider"/><child link="tool"/></joint>
  <transmission name="t"/>
</robot>
"""


@pytest.fixture
def arm(write_file: WriteFile) -> Path:
    write_file('arm_description/meshes/upper.stl', 'solid x\nendsolid x\n')
    return write_file('arm_description/urdf/arm.urdf', ARM)


def test_urdf_links_depth_first_and_joint_types(arm: Path) -> None:
    scene = load_scene(arm)
    robot = scene.entity('arm')
    assert scene.format == 'urdf' and robot.kind == 'robot' and not robot.fixed_base
    assert [link.name for link in robot.links] == ['base', 'upper', 'slider', 'tool', 'wheel']
    assert [(j.name, j.type) for j in robot.joints] == [
        ('shoulder', 'revolute'), ('slide', 'prismatic'), ('weld', 'fixed'), ('spin', 'revolute')]
    shoulder = robot.joint('shoulder')
    assert shoulder.axis == (0.0, 1.0, 0.0)
    assert shoulder.limits == (-1.0, 1.0)
    assert shoulder.origin.position == (0.0, 0.0, 0.2)
    assert shoulder.origin.orientation == pytest.approx((0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)))
    assert (shoulder.damping, shoulder.friction) == (0.5, 0.1)
    assert robot.joint('spin').limits is None
    assert robot.urdf == arm.read_text()


def test_urdf_inertia_rotated_into_link_axes(arm: Path) -> None:
    base = load_scene(arm).entity('arm').link('base')
    assert base.inertial.mass == 2.0 and base.inertial.com == (0.0, 0.0, 0.1)
    ixx, ixy, ixz, iyy, iyz, izz = base.inertial.inertia
    assert (ixx, iyy, izz) == pytest.approx((2.0, 1.0, 3.0))  # 90 degrees about z swaps x and y
    assert (ixy, ixz, iyz) == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)


def test_urdf_shapes_colors_and_meshes(arm: Path) -> None:
    scene = load_scene(arm)
    robot = scene.entity('arm')
    base = robot.link('base')
    assert base.collisions[0].shape == Box((0.2, 0.2, 0.1))
    assert base.collisions[0].pose.position == (0.0, 0.0, 0.05)
    assert base.visuals[0].shape == Cylinder(0.1, 0.1) and base.visuals[0].color == (1, 0, 0, 1)
    upper = robot.link('upper')
    mesh = upper.visuals[0].shape
    assert isinstance(mesh, MeshFile) and mesh.path == (arm.parent.parent / 'meshes/upper.stl').resolve()
    assert mesh.scale == (0.001, 0.001, 0.001)
    assert upper.collisions == ()  # missing mesh: dropped with a warning
    assert any('missing.stl' in w and 'arm.urdf:' in w for w in scene.warnings)


def test_urdf_default_servo_motors(arm: Path) -> None:
    robot = load_scene(arm).entity('arm')
    shoulder, slide, spin = (robot.joint(n).motor for n in ('shoulder', 'slide', 'spin'))
    assert shoulder == ServoMotor(max_velocity=2.0, max_force=30.0, p=urdf.DEFAULT_SERVO_P,
                                  d=urdf.DEFAULT_SERVO_D)
    # effort/velocity 0 are placeholders: the documented defaults apply
    assert (slide.max_force, slide.max_velocity) == (urdf.DEFAULT_MAX_EFFORT,
                                                     urdf.DEFAULT_MAX_VELOCITY)
    assert isinstance(spin, ServoMotor) and robot.joint('weld').motor is None


@pytest.mark.parametrize(('joint_type', 'fixed_base'), [('fixed', True), ('floating', False)])
def test_urdf_world_link_sets_the_base(write_file: WriteFile, joint_type: str,
                                       fixed_base: bool) -> None:
    path = write_file('w.urdf', f"""
        <robot name="r">
          <link name="world"/>
          <link name="body"><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
          <joint name="anchor" type="{joint_type}"><parent link="world"/><child link="body"/>
            <origin xyz="1 2 3"/></joint>
        </robot>""")
    robot = load_scene(path).entity('r')
    assert [link.name for link in robot.links] == ['body']
    assert robot.fixed_base is fixed_base
    assert robot.pose.position == (1.0, 2.0, 3.0)
    assert robot.root.collisions[0].shape == Sphere(0.1)


def test_urdf_errors_carry_file_and_line(write_file: WriteFile) -> None:
    path = write_file('bad.urdf', """
        <robot name="r">
          <link name="a"/>
          <joint name="j" type="revolute"><parent link="a"/><child link="nowhere"/></joint>
        </robot>""")
    with pytest.raises(SceneLoadError, match=r'bad\.urdf:3: .*nowhere'):
        load_scene(path)


def test_urdf_tolerates_a_late_xml_declaration(write_file: WriteFile) -> None:
    path = write_file('late.urdf', '<!-- header -->\n<?xml version="1.0" ?>\n<robot name="r"><link name="a"/></robot>')
    assert load_scene(path).entity('r').kind == 'object'


def test_urdf_sensor_set_attached_through_raisim(write_file: WriteFile) -> None:
    write_file('robot/sensors/cam.xml', """
        <sensor_set name="cam">
          <origin xyz="0.1 0 0"/>
          <link><inertial><mass value="0.5"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
            <sensor name="color" type="rgb" update_rate="30">
              <origin xyz="0 0 0.05"/>
              <camera horizontal_fov="1.5"><image width="64" height="48"/><clip near="0.1" far="20"/></camera>
            </sensor>
          </link>
        </sensor_set>""")
    write_file('robot/urdf/r.urdf', """
        <robot name="r">
          <link name="body"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
          <link name="camera_mount" sensor="cam.xml"/>
          <joint name="mount" type="fixed"><parent link="body"/><child link="camera_mount"/></joint>
        </robot>""")
    world = write_file('world.xml', """
        <raisim><objects><articulated_system name="bot" urdf_path="[THIS_DIR]/robot/urdf/r.urdf"/>
        </objects></raisim>""")
    scene = load_raisim(world)
    robot = scene.entity('bot')
    (camera,) = robot.sensors
    assert isinstance(camera, Camera) and camera.name == 'camera_mount_color'
    assert camera.link == 'camera_mount' and camera.pose.position == pytest.approx((0.1, 0.0, 0.05))
    assert camera.fov_y == pytest.approx(2 * math.atan(math.tan(0.75) * 48 / 64))
    assert robot.link('camera_mount').inertial.mass == 0.5
    assert scene.metadata['sensor_update_rates'] == {'bot/camera_mount_color': 30.0}


LAIKAGO = CORPUS / 'raisim/raisim2Lib/rsc/laikago/laikago.urdf'
# the URDF that ships always, the corpus's laikago where present
URDF_FILES = shipped('urdf') + [LAIKAGO] * LAIKAGO.is_file()


@pytest.mark.parametrize('path', URDF_FILES, ids=shipped_ids(URDF_FILES, CORPUS))
def test_urdf_corpus_laikago(path: Path) -> None:
    """A plain URDF file is one robot with the file's links, movable joints and total mass."""
    root = ET.parse(path).getroot()
    scene = load_scene(path)
    robot = scene.entity(root.get('name'))
    assert robot.kind == 'robot'
    assert len(robot.links) == len(root.findall('link'))
    assert [j.name for j in robot.movable_joints] == [
        j.get('name') for j in root.findall('joint') if j.get('type') != 'fixed']
    assert robot.mass == pytest.approx(sum(float(m.get('value'))
                                           for m in root.findall('link/inertial/mass')))
    if path == LAIKAGO:
        assert len(robot.movable_joints) == 12 and len(robot.links) == 21
        assert robot.mass == pytest.approx(25.433)
