"""The supervisor's plain-Python parts (no ROS): frames, reset scopes, names, spawn resources,
and the simulator-layer guarantee its reset relies on (bit-identical to a fresh load)."""

from __future__ import annotations

import math
import textwrap

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.ros.supervisor import logic
from scene_sim_ros.ros.supervisor.logic import State
from scene_sim_ros.scene import Pose
from scene_sim_ros.scene.transforms import quat_from_axis_angle

BALL = textwrap.dedent("""
    <Body name="ball">
      <Translation z="0.3"/>
      <SphereGeometry radius="0.1"/>
      <SphereMass value="1kg" radius="0.1"/>
    </Body>""")


def test_relative_state_of_a_spinning_frame_round_trips():
    reference = State(Pose((1.0, 2.0, 0.0), quat_from_axis_angle((0, 0, 1), math.pi / 2)),
                      (0.5, 0.0, 0.0), (0.0, 0.0, 2.0))
    state = State(Pose((1.0, 3.0, 1.0), quat_from_axis_angle((1, 0, 0), 0.3)),
                  (0.0, 0.0, 1.0), (0.1, 0.2, 0.3))
    relative = logic.relative_state(state, reference)
    # one metre along world +y is along +x of a frame turned by 90 degrees about z
    assert relative.pose.position == pytest.approx((1.0, 0.0, 1.0))
    # v - v_ref - w_ref x r = (0, 0, 1) - (0.5, 0, 0) - (-2, 0, 0) = (1.5, 0, 1) in the world;
    # world +x is -y of the turned frame
    assert relative.linear == pytest.approx((0.0, -1.5, 1.0))
    assert relative.angular == pytest.approx((0.2, -0.1, -1.7))
    back = logic.world_state(relative, reference)
    assert back.pose.is_close(state.pose, 1e-12, 1e-12)
    assert back.linear == pytest.approx(state.linear)
    assert back.angular == pytest.approx(state.angular)


def test_checked_pose_normalises_and_rejects_nonsense():
    pose = logic.checked_pose((1, 2, 3), (0, 0, 0, 2))
    assert pose.orientation == pytest.approx((0, 0, 0, 1))
    with pytest.raises(ValueError, match='zero quaternion'):
        logic.checked_pose((0, 0, 0), (0, 0, 0, 0))
    with pytest.raises(ValueError, match='non-finite'):
        logic.checked_pose((math.inf, 0, 0), (0, 0, 0, 1))


@pytest.mark.parametrize('bits, scope', [(0, 'all'), (255, 'all'), (2, 'state'),
                                         (4, 'spawned'), (6, 'all'), (3, 'state')])
def test_reset_scope_maps_the_standard_bits(bits, scope):
    assert logic.reset_scope(bits) == scope


@pytest.mark.parametrize('bits, message', [(1, 'SCOPE_TIME alone'), (8, 'unknown'),
                                           (2 | 64, 'unknown')])
def test_reset_scope_refuses_what_we_cannot_do(bits, message):
    with pytest.raises(ValueError, match=message):
        logic.reset_scope(bits)


def test_unique_name_counts_up():
    assert logic.unique_name('car', {'ball'}) == 'car'
    assert logic.unique_name('car', {'car', 'car_2'}) == 'car_3'


def test_resource_path_accepts_paths_and_file_uris_with_an_entity():
    assert logic.resource_path('/a/b.ros2') == (logic.Path('/a/b.ros2'), '')
    assert logic.resource_path('file:///a/my%20b.wbt#robot') == (logic.Path('/a/my b.wbt'),
                                                                 'robot')
    with pytest.raises(ValueError, match='scheme'):
        logic.resource_path('package://x/y.ros2')


def test_load_spawn_entity_from_text_file_and_scene(tmp_path):
    assert logic.load_spawn_entity('', BALL).name == 'ball'
    fragment = tmp_path / 'ball.ros2'
    fragment.write_text(BALL)
    assert logic.load_spawn_entity(str(fragment), '').pose.position == pytest.approx((0, 0, 0.3))
    scene = tmp_path / 'scene.ros2'
    scene.write_text(f'<Simulation><Scene name="s" stepLength="0.01">{BALL}</Scene></Simulation>')
    assert logic.load_spawn_entity(f'{scene}#ball', '').kind == 'object'
    with pytest.raises(SceneLoadError, match="no entity 'cube'"):
        logic.load_spawn_entity(f'{scene}#cube', '')
    with pytest.raises(SceneLoadError):
        logic.load_spawn_entity('', '<Body name="b"><Oops')
    (tmp_path / 'x.txt').write_text(BALL)
    with pytest.raises(ValueError, match='SimRobot fragment'):
        logic.load_spawn_entity(str(tmp_path / 'x.txt'), '')


def test_load_spawn_entity_takes_the_car_out_of_simple_vehicle(corpus_scenes):
    vehicle = corpus_scenes / 'SimpleVehicle.ros2'
    car = logic.load_spawn_entity(f'file://{vehicle}#car', '')
    assert car.kind == 'robot' and len(car.movable_joints) == 4


def test_placed_composes_the_request_with_the_descriptions_own_placement():
    entity = logic.load_spawn_entity('', BALL)
    moved = logic.placed(entity, 'ball2', Pose((1.0, 2.0, 0.0)))
    assert (moved.name, moved.pose.position) == ('ball2', pytest.approx((1.0, 2.0, 0.3)))


def test_tags_filter_any_and_all():
    assert logic.tags_match(['robot', 'spawned'], ['spawned', 'x'], match_all=False)
    assert not logic.tags_match(['robot', 'spawned'], ['spawned', 'x'], match_all=True)
    assert logic.tags_match(['robot'], [], match_all=True)


@pytest.fixture
def corpus_scenes():
    from support.corpus import CORPUS, missing
    scenes = CORPUS / 'simrobot' / 'SimRobot' / 'Scenes'
    if not scenes.is_dir():
        pytest.skip(missing(scenes))
    return scenes


# --- simulator layer: what the supervisor's reset promises ------------------------------------

def _snapshot(sim):
    return {name: (sim.get_pose(name), sim.get_velocity(name), sim.joint_states(name))
            for name in sim.entity_names()}


def test_reset_all_is_bit_identical_to_a_fresh_load_after_spawn_delete_and_teleports():
    from scene_sim_ros.formats import load_scene
    from scene_sim_ros.resources import default_scene_path
    from scene_sim_ros.sim.engines.pybullet.simulation import Simulation

    scene = load_scene(default_scene_path())
    with Simulation(scene) as used, Simulation(scene) as fresh:
        robot = next(e for e in scene.entities if e.kind == 'robot')
        free = next(e for e in scene.entities if e.kind == 'object')
        joint = robot.movable_joints[0].name
        used.step(50)
        used.command(robot.name, joint, velocity=3.0)
        used.set_pose(free.name, (1.0, 2.0, 0.5), (0, 0, 0, 1))
        used.set_joint_position(robot.name, robot.movable_joints[-1].name, 0.1)
        used.add_entity(logic.placed(logic.load_spawn_entity('', BALL), 'extra', Pose()))
        used.remove_entity(free.name)
        used.apply_force(robot.name, None, (10.0, 0, 0), duration=1.0)
        used.step(30)
        used.reset('all')
        assert used.entity_names() == fresh.entity_names()
        assert _snapshot(used) == _snapshot(fresh)  # exact equality, not approx
        used.step(100)
        fresh.step(100)
        assert _snapshot(used) == _snapshot(fresh)


def test_mesh_file_vertices_are_read_as_the_loaders_read_them(tmp_path):
    obj = tmp_path / 'tri.obj'
    obj.write_text('v 0 0 0\nv 1 0 0\nv 0 2 3\nf 1 2 3\n')
    vertices = logic.mesh_file_vertices(obj)
    assert vertices.min(axis=0).tolist() == [0, 0, 0] and vertices.max(axis=0).tolist() == [1, 2, 3]
    assert logic.mesh_file_vertices(tmp_path / 'missing.obj') is None
