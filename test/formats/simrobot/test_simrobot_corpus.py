"""Real SimRobot scenes of B-Human and SimRobot itself (``../shared/corpus/simrobot``), checked
for what those particular files hold. Skipped whole without the corpus; what every SimRobot scene
must satisfy is in ``test_simrobot_examples.py`` and runs on the shipped scenes too."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.scene import Scene, geometry, motors, sensors
from support.corpus import CORPUS as CORPUS_ROOT
from support.corpus import missing, skip_module_without

CORPUS = CORPUS_ROOT / 'simrobot'
skip_module_without(CORPUS)
GAME = 'BHumanCodeRelease/Config/Scenes/Game.ros2'
NAO = 'BHumanCodeRelease/Config/Scenes/Includes/NaoV6H25.rsi2'
ROBOTS = [f'robot{i}' for i in (*range(1, 8), *range(21, 28))]


@pytest.fixture(scope='module')
def simrobot_corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(missing(CORPUS))
    return CORPUS


@pytest.fixture(scope='module')
def game(simrobot_corpus: Path) -> Scene:
    return load_scene(simrobot_corpus / GAME)


def test_game_has_fourteen_naos(game: Scene) -> None:
    robots = [e for e in game.entities if e.kind == 'robot']
    assert [e.name for e in robots] == ROBOTS
    assert {e.name for e in game.entities} >= {'ball', 'field', 'referee'}
    assert game.step_length == pytest.approx(0.012)
    assert game.background == pytest.approx((0.65, 0.65, 0.70, 1.0))
    assert game.lights[0].kind == 'point' and game.lights[0].position == pytest.approx((0, 0, 9))


@pytest.mark.parametrize('name', ROBOTS)
def test_game_nao_joints_and_sensors(game: Scene, name: str) -> None:
    nao = game.entity(name)
    revolute = [j for j in nao.joints if j.type == 'revolute']
    assert len(nao.joints) == len(revolute) == 24
    assert all(isinstance(j.motor, motors.ServoMotor) and j.limits is not None for j in revolute)
    head_yaw = nao.joint('HeadYaw')
    assert head_yaw.limits == pytest.approx((math.radians(-119.5), math.radians(119.5)))
    assert head_yaw.motor.max_velocity == pytest.approx(math.radians(474))
    assert nao.joint('LShoulderPitch').initial_position == pytest.approx(math.pi / 2)
    cameras = sorted((s.width, s.height) for s in nao.sensors if isinstance(s, sensors.Camera))
    assert cameras == [(320, 240), (640, 480)]
    assert sum(isinstance(s, sensors.Accelerometer) for s in nao.sensors) == 1
    assert sum(isinstance(s, sensors.Gyroscope) for s in nao.sensors) == 1
    assert nao.self_collision is False  # SimRobot never collides bodies of one robot
    top = nao.sensor('CameraTop')
    assert top.link == 'Head' and top.pose.position == pytest.approx((0.05871, 0, 0.06364))


def test_game_nao_mass_matches_the_inertia_matrix_masses(game: Scene,
                                                         simrobot_corpus: Path) -> None:
    text = (simrobot_corpus / NAO).read_text()
    start = text.index('<Body name="Nao">')
    end = text.index('\n  </Body>', start)  # the Nao definition ends at the first top-level </Body>
    grams = [float(v) for v in re.findall(r'<InertiaMatrixMass value="([\d.]+)g"',
                                          text[start:end])]
    assert len(grams) >= 20
    assert game.entity('robot1').mass == pytest.approx(sum(grams) / 1000.0, rel=0.01)


def test_game_team_colour_placeholders_resolve_per_robot(game: Scene) -> None:
    # the jersey appearance uses <Surface ref="nao-$TeamColor"/>; 7vs7.rsi2 sets TeamColor
    expected = {'robot1': (0.8, 0.0, 1.0, 1.0), 'robot2': (0.0, 0.0, 0.0, 1.0),
                'robot21': (0.0, 0.6, 0.8, 1.0), 'robot22': (1.0, 0.0, 0.0, 1.0)}
    for name, colour in expected.items():
        jersey = [v for v in game.entity(name).root.visuals if v.name == 'naoTorsoV6_jersey']
        assert len(jersey) == 1
        assert jersey[0].color == pytest.approx(colour), name


def test_game_meshes_are_shared_between_instances(game: Scene) -> None:
    def meshes(name: str) -> list[geometry.Mesh]:
        return [v.shape for link in game.entity(name).links for v in link.visuals
                if isinstance(v.shape, geometry.Mesh)]

    first, second = meshes('robot1'), meshes('robot27')
    assert len(first) > 50 and len(first) == len(second)
    assert all(a is b for a, b in zip(first, second))
    assert all(len(m.triangles) > 0 for m in first)


def test_game_ball_friction_with_the_carpet(game: Scene) -> None:
    pairs = {(p.material_a, p.material_b): p for p in game.material_pairs}
    pair = pairs[('ballPlastic', 'fieldCarpet')]
    assert (pair.friction, pair.rolling_friction) == (0.3, 0.3)
    assert game.entity('ball').root.collisions[0].material == 'ballPlastic'
    assert game.entity('ball').kind == 'object'


def test_factory(simrobot_corpus: Path) -> None:
    scene = load_scene(simrobot_corpus / 'SimRobot/Scenes/Factory.ros2')
    assert (scene.erp, scene.cfm) == (0.2, 0.0001)
    machine = scene.entity('Machine')
    assert machine.kind == 'robot' and machine.fixed_base
    slider = machine.joint('sliderJoint')
    assert slider.type == 'prismatic' and isinstance(slider.motor, motors.ServoMotor)
    assert slider.axis == pytest.approx((0, 1, 0)) and slider.limits == pytest.approx((0.01, 10.4))
    door = machine.joint('trapDoor1Hinge')
    assert door.limits == pytest.approx((-math.pi / 2, math.radians(1)))
    assert isinstance(machine.sensor('trapDoor1Sensor'), sensors.CollisionSensor)
    assert machine.link('trapDoor1').collisions[0].material == 'Wood'
    pole = scene.entity('Pole')
    assert pole.kind == 'static'
    distances = [s for s in pole.sensors if isinstance(s, sensors.SingleDistanceSensor)]
    assert len(distances) == 3 and distances[0].max_range == pytest.approx(0.6)
    pair = scene.material_pairs[0]
    assert (pair.material_a, pair.material_b, pair.friction) == ('Stone', 'Wood', 1.0)


def test_simple_vehicle(simrobot_corpus: Path) -> None:
    scene = load_scene(simrobot_corpus / 'SimRobot/Scenes/SimpleVehicle.ros2')
    car = scene.entity('car')
    assert car.kind == 'robot' and not car.fixed_base
    wheel_motors = [j.motor for j in car.joints]
    assert len(wheel_motors) == 4
    assert all(isinstance(m, motors.VelocityMotor) and m.max_velocity == 3.0 for m in wheel_motors)
    laser = car.sensor('LaserRangeFinder')
    assert isinstance(laser, sensors.DepthCamera) and laser.projection == 'spherical'
    assert (laser.width, laser.height) == (100, 1)
    assert laser.fov_x == pytest.approx(math.radians(120))
    assert (laser.min_range, laser.max_range) == pytest.approx((0.03, 3.0))


def test_nao_2018_approx_distance_sensors(simrobot_corpus: Path) -> None:
    scene = load_scene(simrobot_corpus / 'BHumanCodeRelease@2018/Config/Scenes/BH.ros2')
    nao = next(e for e in scene.entities if e.kind == 'robot')
    sonars = [s for s in nao.sensors if isinstance(s, sensors.ApproxDistanceSensor)]
    assert len(sonars) >= 2
    assert all(s.max_range == pytest.approx(1.4) for s in sonars)
