"""What the MuJoCo builder makes of what scenes contain: Core3's collision groups for any
number of robots, RaiSim's AND rule for explicit groups and masks, shapes MuJoCo refuses (left
out, one warning per kind naming every case), tiny meshes, names MuJoCo would refuse."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import (
    Box,
    Capsule,
    Collision,
    Cylinder,
    Entity,
    Heightfield,
    Inertial,
    Joint,
    Link,
    MaterialPair,
    Mesh,
    Plane,
    Pose,
    Sphere,
)
from scene_sim_ros.scene.inertia import box_inertia, sphere_inertia
from scene_sim_ros.sim.engines import create_simulator

from .conftest import ball, crate, ground, scene_of

SIZE = 0.2  # m, the boxes of the two-link robots
REST = 0.01  # m: a body resting on another is within this of its resting height (tolerance)


def box_link(name: str, offset=(0.0, 0.0, 0.0), size: float = SIZE, mass: float = 1.0) -> Link:
    return Link(name, Inertial(mass, offset, box_inertia(mass, (size,) * 3)),
                collisions=(Collision(Box((size,) * 3), Pose(offset)),))


def crossed(name: str, position, **kwargs) -> Entity:
    """Three links: a base box and two arms hinged about the vertical on it, overlapping each
    other (siblings, not parent and child) beside the hinge axis: if the arms collided they
    would push each other apart along x, turning about their hinges."""
    base = box_link('base')
    arms = [box_link(f'arm{k}', offset=(0.05 - 0.1 * k, 0.1, SIZE), size=0.15, mass=0.1)
            for k in (0, 1)]
    joints = tuple(Joint(f'hinge{k}', 'revolute', 'base', f'arm{k}') for k in (0, 1))
    return Entity(name, 'robot', (base, *arms), joints, pose=Pose(tuple(position)), **kwargs)


def two_link(name: str, position) -> Entity:
    """A robot of two boxes side by side (a fixed joint): a robot of more than one body."""
    link = box_link('body')
    side = box_link('side')
    joint = Joint('weld', 'fixed', 'body', 'side', Pose((SIZE, 0.0, 0.0)))
    return Entity(name, 'robot', (link, side), (joint,), pose=Pose(tuple(position)))


def height(sim, name: str) -> float:
    return sim.get_pose(name)[0][2]


def test_more_than_30_robots_each_collide_with_every_other():
    """Core3 gives every movable root its own group and asserts group < 32 (Body.cpp,
    Geometry.cpp); the 31st robot here lands on the 1st instead of passing through it (the
    group it would share when the 30 groups are reused)."""
    robots = [two_link(f'r{k}', (3.0 * k, 0.0, SIZE / 2)) for k in range(30)]
    dropped = two_link('r30', (0.0, 0.0, 1.5 * SIZE + 0.05))
    with create_simulator(scene_of(ground(), *robots, dropped), 'mujoco') as sim:
        sim.step(1000)
        assert height(sim, 'r0') == pytest.approx(SIZE / 2, abs=REST)
        assert height(sim, 'r30') == pytest.approx(1.5 * SIZE, abs=REST)
        assert sim.warnings == []


@pytest.mark.parametrize('overflow', [False, True], ids=['own group', 'beyond 30 groups'])
def test_a_robots_links_never_touch_each_other(overflow):
    """Core3: a robot's geoms are ~its own group; beyond 30 groups, its body pairs are excluded
    instead. The overlapping arms do not push each other about their hinges (no gravity: the
    hinges then feel no other torque)."""
    fillers = [two_link(f'r{k}', (3.0 * k, 5.0, SIZE / 2)) for k in range(30 * overflow)]
    robot = crossed('x', (0, 0, SIZE / 2))
    with create_simulator(scene_of(*fillers, robot, gravity=(0.0, 0.0, 0.0)), 'mujoco') as sim:
        sim.step(500)
        angles = [state[0] for state in sim.joint_states('x').values()]
    assert angles == [0.0, 0.0]


def test_explicit_groups_and_masks_follow_raisims_and_rule():
    """RaiSim: "collision logic is an AND operation; both mask and group pairs must be
    compatible" (raisim2Lib WorldConfigurationFile.rst; group 1, mask -1 by default). The ball
    (group 4, mask 1) passes through the crate (group 2) onto the ground (group 1 by default),
    which MuJoCo's OR of contype and conaffinity alone would not let it."""
    table = crate('table', size=(0.4, 0.4, 0.2), position=(0.0, 0.0, 0.1))
    table = Entity(**{**_fields(table), 'collision_group': 2, 'collision_mask': -1})
    dropped = ball('drop', radius=0.05, position=(0.0, 0.0, 0.5))
    dropped = Entity(**{**_fields(dropped), 'collision_group': 4, 'collision_mask': 1})
    with create_simulator(scene_of(ground(), table, dropped), 'mujoco') as sim:
        sim.step(1000)
        assert height(sim, 'table') == pytest.approx(0.1, abs=REST)
        assert height(sim, 'drop') == pytest.approx(0.05, abs=REST)


def test_explicit_groups_keep_an_entitys_links_apart_without_self_collision():
    """As the PyBullet engine: an entity with a group and mask but no self-collision (a RaiSim
    articulated system: laikago.xml, collisionGroup 1, mask -1) does not touch itself."""
    robot = crossed('x', (0, 0, SIZE / 2), collision_group=1, collision_mask=-1)
    with create_simulator(scene_of(robot, gravity=(0.0, 0.0, 0.0)), 'mujoco') as sim:
        sim.step(500)
        angles = [state[0] for state in sim.joint_states('x').values()]
    assert angles == [0.0, 0.0]


def test_spawn_and_delete_keep_the_excluded_pairs_of_the_world():
    """Excluded pairs between two entities go with either: deleting one recompiles, and
    spawning it again excludes the pair again."""
    table = Entity(**{**_fields(crate('table', position=(0.0, 0.0, 0.1))),
                      'collision_group': 2, 'collision_mask': -1})
    dropped = Entity(**{**_fields(ball('drop', position=(0.0, 0.0, 0.5))),
                        'collision_group': 4, 'collision_mask': 1})
    with create_simulator(scene_of(ground(), table, dropped), 'mujoco') as sim:
        sim.remove_entity('table')
        sim.step(10)
        sim.add_entity(table)
        sim.remove_entity('drop')
        sim.add_entity(dropped)
        sim.step(1000)
        assert height(sim, 'drop') == pytest.approx(0.05, abs=REST)


def _fields(entity: Entity) -> dict:
    return {name: getattr(entity, name) for name in entity.__dataclass_fields__}


def _on(name: str, shape, position=(0.0, 0.0, 1.0), kind='object') -> Entity:
    mass = 1.0
    link = Link(name, Inertial(mass, (0, 0, 0), sphere_inertia(mass, 0.1)),
                collisions=(Collision(shape),))
    return Entity(name, kind, (link,), pose=Pose(position), fixed_base=kind == 'static')


def tetrahedron(size: float, name: str = 'tet') -> Mesh:
    vertices = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float) * size
    return Mesh(vertices, np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]), name=name)


def test_shapes_mujoco_refuses_are_left_out_with_one_warning_per_kind():
    """A size that is not positive (MuJoCo: "size 0 must be positive"), a plane on a moving
    body ("plane only allowed in static bodies"), a flat mesh and one whose surface is below
    MuJoCo's 1e-15 m^2: the rest of the world builds and steps; one warning per kind names
    every case."""
    flat = Mesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float),
                np.array([[0, 1, 2], [1, 3, 2]]), name='sheet')
    refused = [_on('box', Box((0.0, 0.1, 0.1)), (0, 0, 1)),
               _on('sphere', Sphere(0.0), (1, 0, 1)),
               _on('cylinder', Cylinder(0.1, -0.2), (2, 0, 1)),
               _on('plane', Plane(), (3, 0, 1)),
               _on('flat', flat, (4, 0, 1)), _on('flat2', flat, (5, 0, 1)),
               _on('speck', tetrahedron(1e-8, 'speck'), (6, 0, 1)),
               _on('field', Heightfield(np.zeros((3, 3)), 0.0, 1.0, digest='f'), kind='static')]
    kept = _on('kept', Sphere(0.1), (7, 0, 1))
    with create_simulator(scene_of(ground(), *refused, kept), 'mujoco') as sim:
        sim.step(1000)
        assert height(sim, 'kept') == pytest.approx(0.1, abs=REST)
        assert height(sim, 'box') < -1.0  # nothing to collide with: it falls
        warnings = list(sim.warnings)
    assert len(warnings) == 4, warnings
    size, plane, flat_meshes, tiny = warnings
    assert 'size is not positive' in size and 'box/box box (0, 0.1, 0.1)' in size
    assert 'sphere/sphere sphere (0)' in size and 'cylinder/cylinder cylinder (0.1, -0.2)' in size
    assert 'field/field heightfield (0, 1)' in size
    assert 'planes on moving bodies' in plane and plane.endswith(': plane/plane')
    assert 'flat meshes' in flat_meshes and flat_meshes.endswith(': flat/flat sheet')
    assert 'surface below' in tiny and tiny.endswith(': speck/speck speck')


def test_a_capsule_of_no_length_is_a_sphere():
    with create_simulator(scene_of(ground(), _on('pill', Capsule(0.1, 0.0))), 'mujoco') as sim:
        sim.step(1000)
        assert height(sim, 'pill') == pytest.approx(0.1, abs=REST)
        assert sim.warnings == []


def test_a_mesh_of_micrometres_builds():
    """MuJoCo refuses a mesh of volume below 1e-15 m^3 ("mesh volume is too small") unless its
    inertia is a shell; the builder takes no inertia from geoms, so every mesh is one."""
    speck = _on('speck', tetrahedron(2e-6), kind='static')
    with create_simulator(scene_of(ground(), speck, ball()), 'mujoco') as sim:
        sim.step(10)
    assert sim.warnings == ['static meshes collide as their convex hulls in the mujoco engine: '
                            'speck']


def test_warnings_stay_one_per_kind_across_a_reset():
    refused = [_on(f'b{k}', Box((0.0, 0.1, 0.1)), (k, 0, 1)) for k in range(8)]
    with create_simulator(scene_of(ground(), *refused), 'mujoco') as sim:
        first = list(sim.warnings)
        sim.reset('all')
        assert sim.warnings == first
    (warning,) = first
    assert warning.endswith('b5/b5 box (0, 0.1, 0.1) and 2 more')


def test_names_that_join_to_another_entitys_are_a_clear_error():
    """Bodies are named entity/link: entity 'a/b' link 'c' and entity 'a' link 'b/c' would both
    be 'a/b/c', which MuJoCo refuses."""
    first = Entity('a/b', 'object', (box_link('c'),), pose=Pose((0, 0, 1)))
    second = Entity('a', 'object', (box_link('b/c'),), pose=Pose((1, 0, 1)))
    with pytest.raises(SimulationError, match="name 'a/b/c' is taken"):
        create_simulator(scene_of(ground(), first, second), 'mujoco')


def test_pairs_of_materials_no_link_uses_give_no_friction_warning():
    """A RaiSim world lists pairs for materials none of its objects use (height_map.xml:
    'omav', 'rubber'): they cannot be wrong in the world, so nothing is said of them."""
    pairs = (MaterialPair('ice', 'rubber', friction=0.05),
             MaterialPair('steel', 'steel', friction=0.3))
    with create_simulator(scene_of(ground('steel'), ball(material='steel'),
                                   material_pairs=pairs), 'mujoco') as sim:
        assert sim.warnings == []
        assert math.isfinite(height(sim, 'ball'))
