"""Scene model entities as MuJoCo bodies, through MjSpec, the way SimRobot Core3 builds them.

Reference: ``Src/SimRobotCore3/Simulation/`` of bhuman/SimRobot (Simulation.cpp: options;
Body.cpp: one collision group per root body, static compounds in group 0;
Geometries/Geometry.cpp: ``contype = 1 << group``, ``conaffinity = ~contype``, condim 3, a
material's friction, else 1; Motors/ServoMotor.cpp: ``armature = damping = 0.01`` on servoed
joints, no friction loss).

- **Options**: Euler, Newton, 50 iterations, tolerance 1e-6, the scene's gravity, its step (split
  where :func:`.simulation.physics_substeps` says); Core3's pyramidal friction cone for SimRobot
  scenes, elliptic cones with harder friction for the other formats, whose origins hold a body
  at rest below its friction angle.
- **Bodies**: one per model link, its frame the link frame (joint origin in the parent), mass
  and principal inertia as :func:`~scene_sim_ros.sim.link_layout.principal_inertia` gives them
  (inertia is never inferred from geoms). A movable entity's root gets a free joint, a
  kinematic one is a mocap body, a fixed one is welded to the world. Bodies and joints are
  named ``entity/link`` and ``entity/joint``; a name taken twice (MuJoCo refuses it) is a
  :class:`~scene_sim_ros.errors.SimulationError`.
- **Joints**: hinge, slide and ball; limits become ranges, except under a Core2 (ODE) servo,
  which keeps its joint in range itself (as the PyBullet engine); a joint's damping and friction
  (friction loss) as the format gives them.
- **Collision groups**: Core3's, for any number of entities (:mod:`.collision_filters`).
- **Friction**: MuJoCo combines two geoms' friction by priority, then by the maximum, not the
  product the PyBullet engine fits (:mod:`.contact_materials` chooses priorities and values);
  condim 3. A material's rolling friction (a deceleration, as in SimRobot) is a torque the
  engine applies (:mod:`.rolling`, coefficients in :attr:`SpecBuilder.rolling_geoms`): MuJoCo's
  own (condim 6) shares its pyramidal cone with the sliding friction, and a ball rolled with
  9 % less deceleration than the scene gives, slipping at 0.12 m/s.
- **Shapes**: box, sphere, cylinder, capsule, plane, mesh (MuJoCo collides its convex hull),
  mesh files (.obj/.stl by MuJoCo, others through trimesh), tori as convex ring segments,
  height fields as MuJoCo height fields. Visual shapes are not built: the project's renderer
  draws the model. What MuJoCo cannot build is left out, with one warning per kind naming every
  case: a shape with a size that is not positive, a plane on a moving body (MuJoCo refuses it;
  Webots' Plane "can only be used in static objects", Webots reference plane.md, and ODE's
  plane is not placeable either), a flat mesh (its convex hull has no volume) or one whose
  surface is below MuJoCo's 1e-15 m^2. A mesh's inertia is computed as a shell, which MuJoCo
  needs for meshes under about 10 um, as the builder takes no inertia from geoms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import mujoco
import numpy as np

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Collision, Entity, Joint, Link, Pose, Scene, ServoMotor
from scene_sim_ros.scene.geometry import (
    Box,
    Capsule,
    Cylinder,
    Heightfield,
    Mesh,
    MeshFile,
    Plane,
    Shape,
    Sphere,
    Torus,
)
from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity
from scene_sim_ros.sim.engines.mujoco.collision_filters import Bits, CollisionFilters
from scene_sim_ros.sim.engines.mujoco.contact_materials import (
    GeomFriction,
    material_frictions,
    material_rolling,
)
from scene_sim_ros.sim.link_layout import (
    MIN_MASS,
    MIN_PRINCIPAL_INERTIA,
    link_order,
    principal_inertia,
    sensor_links,
)
from scene_sim_ros.sim.materials import link_material, rolling_coefficient
from scene_sim_ros.sim.meshes import torus_segments
from scene_sim_ros.sim.motors import MotorBank
from scene_sim_ros.sim.torque_servos import ARMATURE, DAMPING, is_torque_controlled

SOLVER_ITERATIONS = 50  # SimRobotCore3 Simulation.cpp
SOLVER_TOLERANCE = 1e-6
HARD_FRICTION_IMPRATIO = 10.0
"""MuJoCo's friction-to-normal impedance ratio (elliptic cones) for scenes of origins whose
friction holds at rest (see :func:`new_spec`)."""
MUJOCO_MESH_SUFFIXES = ('.obj', '.stl')
MIN_MESH_AREA = 1e-14  # m^2: MuJoCo refuses a mesh whose surface is below mjMINVAL (1e-15)
LISTED = 6  # cases a warning names before it counts the rest
JOINT_TYPES = {'revolute': mujoco.mjtJoint.mjJNT_HINGE, 'continuous': mujoco.mjtJoint.mjJNT_HINGE,
               'prismatic': mujoco.mjtJoint.mjJNT_SLIDE, 'ball': mujoco.mjtJoint.mjJNT_BALL}


def wxyz(orientation: Sequence[float]) -> list[float]:
    """MuJoCo's quaternion order from the model's (x, y, z, w)."""
    x, y, z, w = orientation
    return [w, x, y, z]


def new_spec(scene: Scene, timestep: float) -> mujoco.MjSpec:
    """An empty world with SimRobotCore3's options."""
    spec = mujoco.MjSpec()
    spec.modelname = 'scene_sim_ros'
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    spec.compiler.degree = False  # ranges in radians
    spec.compiler.balanceinertia = True
    spec.compiler.boundmass = MIN_MASS
    spec.compiler.boundinertia = MIN_PRINCIPAL_INERTIA
    option = spec.option
    option.timestep = timestep
    option.gravity = list(scene.gravity)
    option.integrator = mujoco.mjtIntegrator.mjINT_EULER
    option.solver = mujoco.mjtSolver.mjSOL_NEWTON
    option.iterations = SOLVER_ITERATIONS
    option.tolerance = SOLVER_TOLERANCE
    if scene.format != 'simrobot':
        # Webots (ODE), RaiSim and Simox (Bullet) hold a body below its friction angle; with
        # Core3's pyramidal cone MuJoCo's soft friction lets it creep (Webots' accelerometer.wbt:
        # MyBot, wheels held, slid 0.22 m down its 0.4 rad slope in 18 s and fell off at 30 s;
        # PyBullet 0.1 mm). Elliptic cones with harder friction keep it there (7 mm in 18 s).
        option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
        option.impratio = HARD_FRICTION_IMPRATIO
    return spec


def listing(items: Sequence[str]) -> str:
    """``items`` joined, the first :data:`LISTED` of them and a count of the others."""
    shown = ', '.join(items[:LISTED])
    return shown if len(items) <= LISTED else f'{shown} and {len(items) - LISTED} more'


@dataclass(frozen=True)
class Where:
    """The link a shape belongs to, for warnings and the rules that depend on it."""

    entity: Entity
    link: Link
    moves: bool  # a joint moves the link's body (MuJoCo: not a static body)

    def __str__(self) -> str:
        return f'{self.entity.name}/{self.link.name}'


Part = tuple[mujoco.mjtGeom, list[float], Pose, str]  # geom type, size, pose, mesh/hfield name

# kinds of shapes MuJoCo cannot build -> the warning naming them ({} lists them)
LEFT_OUT = {
    'size': 'shapes whose size is not positive are left out in the mujoco engine (MuJoCo '
            'refuses them): {}',
    'plane': 'planes on moving bodies are left out in the mujoco engine (MuJoCo takes planes on '
             "static bodies only, as Webots' Plane and ODE's plane): {}",
    'flat': 'flat meshes are left out in the mujoco engine (MuJoCo collides a mesh as its '
            'convex hull, which has no volume here): {}',
    'tiny': 'meshes smaller than MuJoCo builds (surface below 1e-14 m^2) are left out in the '
            'mujoco engine: {}',
    'unreadable': 'mesh files that could not be read are left out in the mujoco engine: {}',
    'hull': 'static meshes collide as their convex hulls in the mujoco engine: {}',
}


@dataclass
class SpecBuilder:
    """Adds entities to one MjSpec (``spec``); meshes are shared by content."""

    scene: Scene
    spec: mujoco.MjSpec
    warnings: list[str]
    friction: dict[str, GeomFriction] = field(default_factory=dict)
    rolling: dict[str, float] = field(default_factory=dict)
    rolling_geoms: dict[str, float] = field(default_factory=dict)  # geom -> rolling.py's mu_r
    _meshes: dict[tuple[str, tuple[float, ...]], str | None] = field(default_factory=dict)
    _hfields: dict[str, str] = field(default_factory=dict)
    _listed: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.filters = CollisionFilters(self.spec, self.scene.body_collisions)
        self.friction = material_frictions(self.scene, self.warnings)
        self.rolling = material_rolling(self.scene)

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def _left_out(self, kind: str, case: str) -> None:
        """Name ``case`` in the one warning of ``kind`` (:data:`LEFT_OUT`), which it updates."""
        cases = self._listed.setdefault(kind, [])
        if case in cases:
            return
        before = LEFT_OUT[kind].format(listing(cases)) if cases else None
        cases.append(case)
        after = LEFT_OUT[kind].format(listing(cases))
        if before is not None and before in self.warnings:
            at = self.warnings.index(before)
            if after in self.warnings:  # a rebuild (reset) meets the cases again
                del self.warnings[at]
            else:
                self.warnings[at] = after
        else:
            self._warn(after)

    # -- entities --------------------------------------------------------------------------
    def add(self, entity: Entity, number: int, step_length: float) -> MjEntity:
        order, parent_joint = link_order(entity)
        fixed = entity.fixed_base or entity.kind == 'static'
        static = fixed and not entity.kinematic
        bits = self.filters.bits(entity, static, len(order))
        sensor_geoms: dict[str, list[str]] = {}
        sensor_of: dict[int, list[str]] = {}
        for helper in sensor_links(entity, self.warnings):
            for collision in helper.collisions:
                sensor_of[id(collision)] = helper.sensors
        bodies: dict[str, mujoco.MjsBody] = {}
        moves: dict[str, bool] = {}
        for i, link in enumerate(order):
            joint = parent_joint.get(link.name)
            parent = self.spec.worldbody if joint is None else bodies[joint.parent]
            pose = entity.pose if joint is None else joint.origin
            body = parent.add_body(name=self._free_name('body', entity, link.name),
                                   pos=list(pose.position), quat=wxyz(pose.orientation))
            bodies[link.name] = body
            moves[link.name] = not (fixed or entity.kinematic) if joint is None else \
                moves[joint.parent] or joint.type in JOINT_TYPES
            self._set_inertia(body, link, movable=i > 0 or not (fixed or entity.kinematic))
            if joint is None:
                if entity.kinematic:
                    body.mocap = True
                elif not fixed:
                    body.add_freejoint(name=self._free_name('joint', entity, '$root'))
            else:
                self._add_joint(body, entity, joint)
            where = Where(entity, link, moves[link.name])
            for k, collision in enumerate(link.collisions):
                names = self._add_geoms(body, collision, f'{body.name}/{k}', where, bits)
                for sensor in sensor_of.get(id(collision), []):
                    sensor_geoms.setdefault(sensor, []).extend(names)
        self.filters.exclude(entity, static, bits, {n: b.name for n, b in bodies.items()},
                             {j.child: j.parent for j in parent_joint.values()})
        index = {link.name: i - 1 for i, link in enumerate(order)}
        movable = tuple(j for j in entity.joints if j.movable and j.child in index)
        return MjEntity(
            entity=entity, number=number, link_index=index,
            link_names={i: name for name, i in index.items()},
            body_names=[bodies[link.name].name for link in order],
            movable_joints=movable, motors=MotorBank(movable, step_length), fixed=fixed,
            kinematic=entity.kinematic, sensor_geoms=sensor_geoms,
            kinematic_pose=entity.pose if entity.kinematic else None,
            kinematic_velocity=(entity.linear_velocity, entity.angular_velocity))

    def remove(self, name: str) -> None:
        """Forget entity ``name``'s collision rules (the caller deletes its bodies)."""
        self.filters.remove(name)

    def _free_name(self, kind: str, entity: Entity, name: str) -> str:
        """``entity/name``, which no other body (or joint) of the world may have: MuJoCo refuses
        a repeated name, and names with '/' can join to another entity's."""
        full = f'{entity.name}/{name}'
        taken = self.spec.body(full) if kind == 'body' else self.spec.joint(full)
        if taken is not None:
            raise SimulationError(f'entity {entity.name!r}: the MuJoCo {kind} name {full!r} '
                                  'is taken (a repeated name, or names with "/" that join to '
                                  "another's); the mujoco engine needs unique entity/link and "
                                  'entity/joint names')
        return full

    def _set_inertia(self, body: mujoco.MjsBody, link: Link, movable: bool) -> None:
        mass, frame, moments = principal_inertia(link, movable=movable)
        body.mass = mass
        body.ipos = list(frame.position)
        body.iquat = wxyz(frame.orientation)
        body.inertia = list(moments)
        body.explicitinertial = True

    def _add_joint(self, body: mujoco.MjsBody, entity: Entity, joint: Joint) -> None:
        kind = JOINT_TYPES.get(joint.type)
        if kind is None:
            return  # fixed: the body is welded to its parent
        added = body.add_joint(name=self._free_name('joint', entity, joint.name), type=kind,
                               axis=list(joint.axis))
        if joint.type == 'ball':
            return
        if is_torque_controlled(joint):  # SimRobotCore3 ServoMotor::act
            added.armature, added.damping, added.frictionloss = ARMATURE, DAMPING, 0.0
        else:
            added.damping, added.frictionloss = joint.damping, joint.friction
        core2_servo = isinstance(joint.motor, ServoMotor) and not is_torque_controlled(joint)
        if joint.limits is not None and not core2_servo:
            added.range = list(joint.limits)
            added.limited = mujoco.mjtLimited.mjLIMITED_TRUE
        else:
            added.limited = mujoco.mjtLimited.mjLIMITED_FALSE

    # -- shapes ----------------------------------------------------------------------------
    def _add_geoms(self, body: mujoco.MjsBody, collision: Collision, name: str, where: Where,
                   bits: Bits) -> list[str]:
        material = link_material(where.link)
        contact = self.friction.get(material,
                                    GeomFriction(self.scene.contact_defaults.friction, 0))
        rolling = self.rolling.get(material, 0.0)
        roll = rolling_coefficient(where.link, rolling, self._gravity) if rolling > 0.0 else 0.0
        names = []
        for k, (kind, size, pose, asset) in enumerate(self._parts(collision.shape, where)):
            geom = body.add_geom(name=f'{name}.{k}', type=kind, size=size,
                                 pos=list((collision.pose * pose).position),
                                 quat=wxyz((collision.pose * pose).orientation))
            if asset:
                if kind == mujoco.mjtGeom.mjGEOM_HFIELD:
                    geom.hfieldname = asset
                else:
                    geom.meshname = asset
            geom.contype, geom.conaffinity = bits.contype, bits.conaffinity
            geom.condim = 3
            geom.friction = [contact.friction, 0.0, 0.0]
            geom.priority = contact.priority
            if roll > 0.0:
                self.rolling_geoms[geom.name] = roll
            names.append(geom.name)
        return names

    @property
    def _gravity(self) -> float:
        return math.sqrt(sum(g * g for g in self.scene.gravity))

    def _parts(self, shape: Shape, where: Where) -> list[Part]:
        """The geoms of ``shape`` (none where MuJoCo cannot build it, said in a warning)."""
        geom = mujoco.mjtGeom
        sizes = _sizes(shape)
        if sizes is not None and min(sizes) <= 0.0:
            self._left_out('size', f'{where} {shape.kind} {_shown(sizes)}')
            return []
        if isinstance(shape, Box):
            return [(geom.mjGEOM_BOX, [s / 2.0 for s in shape.size], Pose(), '')]
        if isinstance(shape, Sphere):
            return [(geom.mjGEOM_SPHERE, [shape.radius, 0.0, 0.0], Pose(), '')]
        if isinstance(shape, Cylinder):
            return [(geom.mjGEOM_CYLINDER, [shape.radius, shape.length / 2.0, 0.0], Pose(), '')]
        if isinstance(shape, Capsule) and shape.length <= 0.0:  # a capsule of no length
            return [(geom.mjGEOM_SPHERE, [shape.radius, 0.0, 0.0], Pose(), '')]
        if isinstance(shape, Capsule):
            return [(geom.mjGEOM_CAPSULE, [shape.radius, shape.length / 2.0, 0.0], Pose(), '')]
        if isinstance(shape, Plane):
            if where.moves:
                self._left_out('plane', str(where))
                return []
            return [(geom.mjGEOM_PLANE, [0.0, 0.0, 1.0], Pose(), '')]
        if isinstance(shape, Torus):
            pieces = [self._mesh_part(piece, (1.0, 1.0, 1.0), where)
                      for piece in torus_segments(shape)]
            return [piece for piece in pieces if piece is not None]
        if isinstance(shape, Mesh):
            part = self._mesh_part(shape, (1.0, 1.0, 1.0), where)
            if part is not None and not where.moves:
                self._left_out('hull', where.entity.name)
            return [] if part is None else [part]
        if isinstance(shape, MeshFile):
            part = self._mesh_file_part(shape, where)
            return [] if part is None else [part]
        if isinstance(shape, Heightfield):
            return [self._heightfield_part(shape)]
        self._warn(f'shape {type(shape).__name__} is not built by the mujoco engine')
        return []

    def _mesh_part(self, mesh: Mesh, scale: tuple[float, ...], where: Where) -> Part | None:
        key = (mesh.digest, tuple(scale))
        if key not in self._meshes:
            self._meshes[key] = self._add_mesh(mesh, scale, where)
        name = self._meshes[key]
        if name is None:
            return None
        return mujoco.mjtGeom.mjGEOM_MESH, [0.0, 0.0, 0.0], Pose(), name

    def _add_mesh(self, mesh: Mesh, scale: tuple[float, ...], where: Where) -> str | None:
        """The name of ``mesh`` added as a MuJoCo mesh, None where MuJoCo cannot build it."""
        vertices = np.asarray(mesh.vertices, dtype=np.float64) * np.asarray(scale)
        triangles = np.asarray(mesh.triangles, dtype=np.int64).reshape(-1, 3)
        label = f'{where} {mesh.name or mesh.digest[:8]}'
        if len(vertices) < 4 or np.linalg.matrix_rank(vertices - vertices.mean(0), tol=1e-9) < 3:
            self._left_out('flat', label)
            return None
        if _surface(vertices, triangles) < MIN_MESH_AREA:
            self._left_out('tiny', label)
            return None
        name = f'mesh{len(self._meshes)}'
        added = self.spec.add_mesh(name=name, uservert=vertices.ravel().tolist(),
                                   userface=triangles.ravel().tolist())
        added.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL  # volume: see module doc
        return name

    def _mesh_file_part(self, shape: MeshFile, where: Where) -> Part | None:
        try:
            import trimesh
            loaded = trimesh.load(str(shape.path), force='mesh')
        except Exception as error:  # any reader's error: the shape is left out, said once
            self._left_out('unreadable', f'{shape.path} ({error})')
            return None
        vertices, faces = loaded.vertices, loaded.faces  # type: ignore[attr-defined]
        mesh = Mesh(np.asarray(vertices), np.asarray(faces), name=shape.path.name)
        return self._mesh_part(mesh, tuple(shape.scale), where)

    def _heightfield_part(self, field: Heightfield) -> Part:
        heights = np.asarray(field.heights, dtype=np.float64)
        low, high = float(heights.min()), float(heights.max())
        span = max(high - low, 1e-6)
        if field.digest not in self._hfields:
            name = f'hfield{len(self._hfields)}'
            rows, columns = heights.shape
            self.spec.add_hfield(name=name, nrow=rows, ncol=columns,
                                 size=[field.size_x / 2.0, field.size_y / 2.0, span, 0.1 * span],
                                 userdata=((heights - low) / span).ravel().tolist())
            self._hfields[field.digest] = name
        return (mujoco.mjtGeom.mjGEOM_HFIELD, [0.0, 0.0, 0.0], Pose((0.0, 0.0, low)),
                self._hfields[field.digest])


def _sizes(shape: Shape) -> tuple[float, ...] | None:
    """The dimensions of a primitive or height field, which MuJoCo needs positive."""
    if isinstance(shape, Box):
        return tuple(shape.size)
    if isinstance(shape, Sphere):
        return (shape.radius,)
    if isinstance(shape, Cylinder):
        return shape.radius, shape.length
    if isinstance(shape, Capsule):
        return (shape.radius,)  # one of no length is a sphere
    if isinstance(shape, Heightfield):
        return shape.size_x, shape.size_y
    return None


def _shown(sizes: Sequence[float]) -> str:
    return '(' + ', '.join(f'{s:g}' for s in sizes) + ')'


def _surface(vertices: np.ndarray, triangles: np.ndarray) -> float:
    """The total area of the triangles (m^2)."""
    corners = vertices[triangles]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    return float(np.linalg.norm(normals, axis=1).sum() / 2.0)
