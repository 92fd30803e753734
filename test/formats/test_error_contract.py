"""The error contract: any input loads or raises SceneLoadError (``file:line: message``). One test
per exception class the mutation fuzzer saw escaping (test/formats/test_fuzz.py) before the fix:
UnicodeDecodeError, OSError, ValueError, OverflowError, RecursionError, pybullet.error, NaN
poses, hangs."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import load_scene
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation

WriteFile = Callable[[str, str], Path]
INERTIAL = ('<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" '
            'iyz="0"/></inertial>')


def error_of(path: Path) -> str:
    with pytest.raises(SceneLoadError) as info:
        load_scene(path)
    return str(info.value)


def write_bytes(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# -- UnicodeDecodeError (URDF, RaiSim) -----------------------------------------------------------

def test_invalid_utf8_in_urdf_names_line_column_and_byte(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, 'r.urdf', b'<robot name="r">\n  <link name="a\xff"/>\n</robot>')
    assert error_of(path) == (f'{path}:2: invalid utf-8 byte(s) 0xff at column 16 (byte offset '
                              '32); save the file as utf-8 or declare its encoding')


def test_invalid_utf8_in_raisim_world(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, 'w.xml', b'<?xml version="1.0"?>\n<raisim version="1.0">'
                       b'<!-- \xe9t\xe9 --></raisim>')
    assert error_of(path).startswith(f'{path}:2: invalid utf-8 byte(s) 0xe9 at column 28')


def test_declared_encoding_is_used(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, 'r.urdf', b'<?xml version="1.0" encoding="ISO-8859-1"?>\n'
                       b'<robot name="caf\xe9"><link name="a"/></robot>')
    assert load_scene(path).entities[0].name == 'caf\u00e9'


# -- OSError ---------------------------------------------------------------------------------------

def test_xml_of_unknown_root_with_bad_bytes(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, 's.xml', b'<?xml version="1.0" encoding="utf-8"?>\n'
                       b'<sensor_set>\xff</sensor_set>')
    assert error_of(path).startswith(f'{path}:2: not well-formed XML')


def test_over_long_path(tmp_path: Path) -> None:
    path = tmp_path / ('a' * 5000 + '.urdf')
    assert 'cannot read file: File name too long' in error_of(path)


def test_over_long_mesh_name_is_a_missing_mesh(write_file: WriteFile) -> None:
    path = write_file('r.urdf', f'<robot name="r"><link name="a"><visual><geometry><mesh '
                      f'filename="{"m" * 5000}.stl"/></geometry></visual></link></robot>')
    assert 'not found; shape dropped' in load_scene(path).warnings[0]


# -- ValueError / OverflowError (transforms, Simox numbers) ----------------------------------------

def test_simox_limit_that_is_not_a_number(write_file: WriteFile) -> None:
    path = write_file('r.xml', """<Robot Type='A' RootNode='a'><RobotNode name='a'>
        <Joint type='revolute'><Axis x='1' y='0' z='0'/><Limits lo='-@0' hi='1' units='radian'/>
        </Joint></RobotNode></Robot>""")
    assert error_of(path) == f"{path}:2: <limits> attribute lo='-@0' is not a number"


def test_simox_camera_of_infinite_width(write_file: WriteFile) -> None:
    path = write_file('r.xml', """<Robot Type='A' RootNode='a'><RobotNode name='a'>
        <Sensor type='camera' name='c' width='inf'/></RobotNode></Robot>""")
    assert error_of(path).endswith(":2: <sensor> attribute width='inf' is not a finite number")


def test_urdf_nan_angle(write_file: WriteFile) -> None:
    path = write_file('r.urdf', '<robot name="r"><link name="a"/><link name="b"/>\n<joint '
                      'name="j" type="fixed"><parent link="a"/><child link="b"/>'
                      '<origin rpy="nan 0 0"/></joint></robot>')
    assert error_of(path) == f'{path}:2: rpy="nan 0 0" holds a number that is not finite'


def test_simox_invalid_element_name(write_file: WriteFile) -> None:
    path = write_file('r.xml', "<Robot Type='A' RootNode='a'>\n<rol:package: x='1'/>"
                      "<RobotNode name='a'/></Robot>")
    assert error_of(path) == f'{path}:2: invalid name in <rol:package:>'


def test_collision_group_beyond_32_bits(write_file: WriteFile) -> None:
    path = write_file('w.xml', '<raisim version="1.0"><objects><sphere name="s" mass="1" '
                      'collision_group="99999999999"><dim radius="0.1"/></sphere></objects>'
                      '</raisim>')
    assert "entity 's' collision_group 99999999999 does not fit in 32 bits" in error_of(path)


# -- RecursionError -----------------------------------------------------------------------------

def test_webots_nesting_beyond_the_stack(write_file: WriteFile) -> None:
    path = write_file('deep.wbt', '#VRML_SIM R2023b utf8\n' + 'Group { children [ ' * 5000)
    assert error_of(path) == f'{path}: elements nest too deeply to read'


# -- pybullet.error in the build ----------------------------------------------------------------

def test_empty_collision_mesh_is_a_scene_error_of_the_build(write_file: WriteFile) -> None:
    mesh = write_file('empty.obj', '')
    path = write_file('r.urdf', '<robot name="r"><link name="a"><collision><geometry><mesh '
                      f'filename="empty.obj"/></geometry></collision>{INERTIAL}</link></robot>')
    with pytest.raises(SceneLoadError, match=f'cannot create a collision shape from {mesh}'):
        Simulation(load_scene(path))


def test_link_of_more_collision_shapes_than_pybullet_takes(write_file: WriteFile) -> None:
    """PyBullet keeps 16 shapes per link; a flag for a 17th crashed the process (segfault)."""
    spheres = ''.join(f'<collision><origin xyz="0 0 {i}"/><geometry><sphere radius="0.1"/>'
                      '</geometry></collision>' for i in range(20))
    path = write_file('r.urdf', f'<robot name="r"><link name="a">{spheres}{INERTIAL}</link>'
                      '</robot>')
    with Simulation(load_scene(path)) as sim:
        sim.step(2)
        assert "link 'a' of 'r' has 20 collision shapes (a torus is 16); PyBullet takes 16 per " \
            'link, the other 4 are left out' in sim.warnings


# -- NaN poses: non-finite or absurd settings refused at load -----------------------------------

def test_nan_time_step(write_file: WriteFile) -> None:
    path = write_file('w.xml', '<raisim version="1.0"><timeStep value="nan"/></raisim>')
    assert error_of(path) == f'{path}:1: value="nan" is not a finite number'


def test_webots_infinite_number(write_file: WriteFile) -> None:
    path = write_file('w.wbt', '#VRML_SIM R2023b utf8\nWorldInfo {\n basicTimeStep 1e999 }\n')
    assert error_of(path) == f'{path}:3: number 1e999 is not finite'


def test_negative_mass(write_file: WriteFile) -> None:
    path = write_file('r.urdf', '<robot name="r"><link name="a"><inertial><mass value="-2"/>'
                      '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
                      '</link></robot>')
    assert "link 'a' has mass -2 kg; masses must not be negative" in error_of(path)


# -- hangs ----------------------------------------------------------------------------------------

@pytest.mark.timeout(120)  # computed as an integer it never ended: the hang is the failure
def test_huge_power_in_raisim_math_fails_at_once(write_file: WriteFile) -> None:
    path = write_file('w.xml', '<raisim version="1.0"><objects><sphere name="s" '
                      'mass="{((9**1000)**1000)**1000}"><dim radius="0.1"/></sphere></objects>'
                      '</raisim>')
    assert error_of(path).endswith('mass: cannot evaluate {((9**1000)**1000)**1000}: the result '
                                   'is too large')  # not OverflowError's "(34, 'Numerical ...')"


def test_unclosed_webots_template(write_file: WriteFile) -> None:
    body = 'Solid { name "%<" }\n' * 1000
    path = write_file('t.wbt', '#VRML_SIM R2023b utf8\n' + body + 'Solid { %< \n')
    assert error_of(path) == f'{path}:1002: template block %< is never closed'


def test_impossible_inertia_that_stalled_pybullet_loads_balanced(write_file: WriteFile) -> None:
    """RaiSim loads it; balanced as MuJoCo's balanceinertia does (test_validate_origin.py), the
    body steps at once; strict refuses it."""
    path = write_file('w.xml', '<raisim version="1.0"><objects><sphere name="s" mass="1">'
                      '<dim radius="0.1"/><inertia xx="1e9" xy="0" xz="0" yy="0.1" yz="0" '
                      'zz="0.1"/></sphere></objects></raisim>')
    scene = load_scene(path)
    assert [w for w in scene.warnings if "link 's' of 's'" in w and 'triangle' in w]
    with Simulation(scene) as sim:
        sim.step(10)
        assert all(math.isfinite(v) for v in sim.get_pose('s')[0])
    with pytest.raises(SceneLoadError, match='triangle inequality'):
        load_scene(path, strict=True)


def test_overflowing_joint_axis_that_gave_nan_poses(write_file: WriteFile) -> None:
    """Its length squared overflowed (a zero 'unit' axis, then NaN poses); scaled before it is
    normalised, it is the x axis, as URDF readers normalise any non-zero axis."""
    path = write_file('r.urdf', f'<robot name="r"><link name="a">{INERTIAL}</link><link name="b">'
                      f'{INERTIAL}</link><joint name="j" type="revolute"><parent link="a"/>'
                      '<child link="b"/><axis xyz="1e308 0 1"/><limit lower="-1" upper="1" '
                      'effort="1" velocity="1"/></joint></robot>')
    scene = load_scene(path)
    assert scene.entities[0].joints[0].axis == pytest.approx((1.0, 0.0, 0.0))
    with Simulation(scene) as sim:
        sim.step(10)
        poses = sim.link_poses('r').values()
        assert all(math.isfinite(v) for pose in poses for v in (*pose.position,
                                                                  *pose.orientation))


def test_link_with_two_parents_is_a_load_error(write_file: WriteFile) -> None:
    joints = ''.join(f'<joint name="{name}" type="fixed"><parent link="{parent}"/>'
                     '<child link="c"/></joint>' for name, parent in (('j1', 'a'), ('j2', 'b')))
    path = write_file('r.urdf', '<robot name="r"><link name="a"/><link name="b"/>'
                      f'<link name="c"/><joint name="jb" type="fixed"><parent link="a"/>'
                      f'<child link="b"/></joint>{joints}</robot>')
    message = error_of(path)
    assert "link 'c' has more than one parent (joints " in message
    assert "'j1'" in message and "'j2'" in message


def test_simox_node_loop_through_the_root_that_hung(write_file: WriteFile) -> None:
    path = write_file('r.xml', """<Robot Type='A' RootNode='a'>
        <RobotNode name='a'><Child name='b'/></RobotNode>
        <RobotNode name='b'><Child name='a'/></RobotNode></Robot>""")
    assert error_of(path) == (f"{path}:3: root node 'a' cannot be a child (of 'b'): the nodes "
                              'form a loop')


def test_raisim_include_name_too_long_for_the_file_system(write_file: WriteFile) -> None:
    path = write_file('w.xml', f'<raisim version="1.0"><include value="{"x" * 5000}.xml"/>'
                      '</raisim>')
    assert error_of(path).endswith('.xml not found')


def test_webots_joint_axis_too_large_to_normalise(write_file: WriteFile) -> None:
    path = write_file('w.wbt', '#VRML_SIM R2023b utf8\nRobot { children [ HingeJoint {\n'
                      'jointParameters HingeJointParameters { axis 1e308 0 1 }\n'
                      'endPoint Solid { } } ] }\n')
    assert error_of(path) == f'{path}:2: HingeJoint: the joint axis is zero or too large'


def test_webots_sphere_too_large_for_its_volume(write_file: WriteFile) -> None:
    path = write_file('w.wbt', '#VRML_SIM R2023b utf8\nSolid { boundingObject Sphere { '
                      'radius 1e200 } physics Physics { density 1000 } }\n')
    assert error_of(path).endswith("link 'solid' inertial mass is inf, not a finite number")


def test_raisim_array_beyond_a_machine_integer(write_file: WriteFile) -> None:
    path = write_file('w.xml', '<raisim version="1.0"><objects><array idx="@@i" start="0" '
                      'end="99999999999999999999999" increment="1"><sphere name="s@@i" '
                      'mass="1"><dim radius="0.1"/></sphere></array></objects></raisim>')
    assert 'over the limit max_elements' in error_of(path)


def test_zero_quaternion_is_refused_before_the_build() -> None:
    from scene_sim_ros.formats.validate import validate
    from scene_sim_ros.scene import Entity, Link, Scene
    from scene_sim_ros.scene.transforms import Pose
    entity = Entity('e', 'object', (Link('a'),), pose=Pose((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0)))
    with pytest.raises(SceneLoadError, match=r"m.xml: entity 'e' pose orientation .* is not a "
                                             'rotation'):
        validate(Scene('s', (entity,), source=Path('m.xml')))


def test_webots_rotation_axis_whose_square_underflows(write_file: WriteFile) -> None:
    """A rotation axis of 1e-320: its length squared is 0 (ValueError escaped); Webots
    normalises any non-zero axis, so it is a rotation about x."""
    path = write_file('w.wbt', '#VRML_SIM R2023b utf8\nSolid { rotation 1e-320 0 0 -1.5708 '
                      'children [ Shape { geometry Box { size 1 1 1 } } ] }\n')
    orientation = load_scene(path).entities[0].pose.orientation
    assert orientation == pytest.approx((-math.sin(0.7854), 0.0, 0.0, math.cos(0.7854)))


def test_many_movable_bodies_at_one_position_are_refused(write_file: WriteFile) -> None:
    """A RaiSim <array> whose <state> a mutation lost: 81 boxes at the origin took PyBullet over
    2 minutes for one step. Up to 16 may share a position (the first step stays under 0.4 s)."""
    def world(count: int) -> str:
        return ('<raisim version="1.0"><objects><array idx="@@i" start="0" end="'
                f'{count}" increment="1"><box name="b@@i" mass="1"><dim x="1" y="1" z="1"/>'
                '</box></array></objects></raisim>')
    assert len(load_scene(write_file('ok.xml', world(16))).entities) == 16
    path = write_file('w.xml', world(40))
    assert error_of(path) == (f"{path}: 40 movable entities ('b0', 'b1', 'b2', 'b3', ...) start "
                              'at the same position (0.0, 0.0, 0.0), inside each other; PyBullet '
                              'takes minutes to push that many apart: give them distinct '
                              'positions')
