"""Scene model entities as MuJoCo bodies, through MjSpec, the way SimRobot Core3 builds them.

Reference: ``Src/SimRobotCore3/Simulation/`` of bhuman/SimRobot (Simulation.cpp: options;
Body.cpp: one collision group per root body, static compounds in group 0;
Geometries/Geometry.cpp: ``contype = 1 << group``, ``conaffinity = ~contype``, condim 3, a
material's friction, else 1; Motors/ServoMotor.cpp: ``armature = damping = 0.01`` on servoed
joints, no friction loss).

- **Options**: Euler, Newton, 50 iterations, tolerance 1e-6, the scene's step and gravity.
- **Bodies**: one per model link, its frame the link frame (joint origin in the parent), mass
  and principal inertia as :func:`~scene_sim_ros.sim.link_layout.principal_inertia` gives them
  (inertia is never inferred from geoms). A movable entity's root gets a free joint, a
  kinematic one is a mocap body, a fixed one is welded to the world.
- **Joints**: hinge, slide and ball; limits become ranges, except under a Core2 (ODE) servo,
  which keeps its joint in range itself (as the PyBullet engine); a joint's damping and friction
  (friction loss) as the format gives them.
- **Collision groups** (Core3): static entities share group 0, every movable entity has its own
  (1..30, reused cyclically beyond 30 with a warning); with ``Scene.body_collisions`` false all
  movable entities share group 1, so they collide with the static world only. An entity with
  ``self_collision`` collides with its own links (parent/child pairs excepted); explicit
  ``collision_group``/``collision_mask`` become contype/conaffinity.
- **Friction**: MuJoCo combines two geoms' friction by priority, then by the maximum, not the
  product the PyBullet engine fits (:mod:`.contact_materials` chooses priorities and values);
  condim 3. A material's rolling friction (a deceleration, as in SimRobot) is a torque the
  engine applies (:mod:`.rolling`, coefficients in :attr:`SpecBuilder.rolling_geoms`): MuJoCo's
  own (condim 6) shares its pyramidal cone with the sliding friction, and a ball rolled with
  9 % less deceleration than the scene gives, slipping at 0.12 m/s.
- **Shapes**: box, sphere, cylinder, capsule, plane, mesh (MuJoCo collides its convex hull),
  mesh files (.obj/.stl by MuJoCo, others through trimesh), tori as convex ring segments,
  height fields as MuJoCo height fields. Visual shapes are not built: the project's renderer
  draws the model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import mujoco
import numpy as np

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
from scene_sim_ros.sim.materials import fit_materials, link_material, rolling_coefficient
from scene_sim_ros.sim.meshes import torus_segments
from scene_sim_ros.sim.motors import MotorBank
from scene_sim_ros.sim.torque_servos import ARMATURE, DAMPING, is_torque_controlled

SOLVER_ITERATIONS = 50  # SimRobotCore3 Simulation.cpp
SOLVER_TOLERANCE = 1e-6
MAX_GROUP = 30  # collision group bits 1..30 (contype is a signed 32-bit int)
MUJOCO_MESH_SUFFIXES = ('.obj', '.stl')
JOINT_TYPES = {'revolute': mujoco.mjtJoint.mjJNT_HINGE, 'continuous': mujoco.mjtJoint.mjJNT_HINGE,
               'prismatic': mujoco.mjtJoint.mjJNT_SLIDE, 'ball': mujoco.mjtJoint.mjJNT_BALL}


def wxyz(orientation: Sequence[float]) -> list[float]:
    """MuJoCo's quaternion order from the model's (x, y, z, w)."""
    x, y, z, w = orientation
    return [w, x, y, z]


def new_spec(scene: Scene) -> mujoco.MjSpec:
    """An empty world with SimRobotCore3's options."""
    spec = mujoco.MjSpec()
    spec.modelname = 'scene_sim_ros'
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    spec.compiler.degree = False  # ranges in radians
    spec.compiler.balanceinertia = True
    spec.compiler.boundmass = MIN_MASS
    spec.compiler.boundinertia = MIN_PRINCIPAL_INERTIA
    option = spec.option
    option.timestep = float(scene.step_length)
    option.gravity = list(scene.gravity)
    option.integrator = mujoco.mjtIntegrator.mjINT_EULER
    option.solver = mujoco.mjtSolver.mjSOL_NEWTON
    option.iterations = SOLVER_ITERATIONS
    option.tolerance = SOLVER_TOLERANCE
    return spec


@dataclass
class SpecBuilder:
    """Adds entities to one MjSpec (``spec``); meshes are shared by content."""

    scene: Scene
    spec: mujoco.MjSpec
    warnings: list[str]
    friction: dict[str, GeomFriction] = field(default_factory=dict)
    rolling: dict[str, float] = field(default_factory=dict)
    rolling_geoms: dict[str, float] = field(default_factory=dict)  # geom -> rolling.py's mu_r
    _meshes: dict[tuple[str, tuple[float, ...]], str] = field(default_factory=dict)
    _hfields: dict[str, str] = field(default_factory=dict)
    _next_group: int = 1

    def __post_init__(self) -> None:
        self.friction = material_frictions(self.scene, self.warnings)
        self.rolling = material_rolling(self.scene)
        if any(contact.restitution > 0.0 for contact in fit_materials(self.scene).values()):
            self._warn('restitution (bounce) is not modelled by the mujoco engine: '
                       'contacts are inelastic')

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    # -- entities --------------------------------------------------------------------------
    def add(self, entity: Entity, number: int, step_length: float) -> MjEntity:
        order, parent_joint = link_order(entity)
        fixed = entity.fixed_base or entity.kind == 'static'
        contype, conaffinity = self._collision_bits(entity, fixed and not entity.kinematic)
        sensor_geoms: dict[str, list[str]] = {}
        sensor_of: dict[int, list[str]] = {}
        for helper in sensor_links(entity, self.warnings):
            for collision in helper.collisions:
                sensor_of[id(collision)] = helper.sensors
        bodies: dict[str, mujoco.MjsBody] = {}
        for i, link in enumerate(order):
            joint = parent_joint.get(link.name)
            parent = self.spec.worldbody if joint is None else bodies[joint.parent]
            pose = entity.pose if joint is None else joint.origin
            body = parent.add_body(name=f'{entity.name}/{link.name}', pos=list(pose.position),
                                   quat=wxyz(pose.orientation))
            bodies[link.name] = body
            moving = i > 0 or not (fixed or entity.kinematic)
            self._set_inertia(body, link, movable=moving)
            if joint is None:
                if entity.kinematic:
                    body.mocap = True
                elif not fixed:
                    body.add_freejoint(name=f'{entity.name}/$root')
            else:
                self._add_joint(body, entity, joint)
            for k, collision in enumerate(link.collisions):
                names = self._add_geoms(body, collision, f'{entity.name}/{link.name}/{k}',
                                        link, contype, conaffinity, entity)
                for sensor in sensor_of.get(id(collision), []):
                    sensor_geoms.setdefault(sensor, []).extend(names)
        self._exclude(entity, bodies)
        index = {link.name: i - 1 for i, link in enumerate(order)}
        movable = tuple(j for j in entity.joints if j.movable and j.child in index)
        return MjEntity(
            entity=entity, number=number, link_index=index,
            link_names={i: name for name, i in index.items()},
            body_names=[f'{entity.name}/{link.name}' for link in order],
            movable_joints=movable, motors=MotorBank(movable, step_length), fixed=fixed,
            kinematic=entity.kinematic, sensor_geoms=sensor_geoms,
            kinematic_pose=entity.pose if entity.kinematic else None,
            kinematic_velocity=(entity.linear_velocity, entity.angular_velocity))

    def _collision_bits(self, entity: Entity, static: bool) -> tuple[int, int]:
        group, mask = entity.collision_group, entity.collision_mask
        if group is not None or mask is not None:
            return (1 if group is None else group), (-1 if mask is None else mask)
        if static:
            bit = 0
        elif not self.scene.body_collisions:
            bit = 1
        else:
            bit = self._next_group
            self._next_group = self._next_group % MAX_GROUP + 1
            if self._next_group == 1:
                self._warn(f'more than {MAX_GROUP} movable entities: MuJoCo has {MAX_GROUP} '
                           'collision groups here; entities sharing one do not collide')
        contype = 1 << bit
        return contype, (-1 if entity.self_collision else ~contype)

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
        added = body.add_joint(name=f'{entity.name}/{joint.name}', type=kind,
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

    def _exclude(self, entity: Entity, bodies: dict[str, mujoco.MjsBody]) -> None:
        for a, b in entity.disabled_collisions:
            if a in bodies and b in bodies and entity.self_collision:
                self.spec.add_exclude(bodyname1=bodies[a].name, bodyname2=bodies[b].name)

    # -- shapes ----------------------------------------------------------------------------
    def _add_geoms(self, body: mujoco.MjsBody, collision: Collision, name: str, link: Link,
                   contype: int, conaffinity: int, entity: Entity) -> list[str]:
        material = link_material(link)
        contact = self.friction.get(material,
                                    GeomFriction(self.scene.contact_defaults.friction, 0))
        rolling = self.rolling.get(material, 0.0)
        roll = rolling_coefficient(link, rolling, self._gravity) if rolling > 0.0 else 0.0
        names = []
        for k, (kind, size, pose, asset) in enumerate(self._parts(collision.shape, entity)):
            geom = body.add_geom(name=f'{name}.{k}', type=kind, size=size,
                                 pos=list((collision.pose * pose).position),
                                 quat=wxyz((collision.pose * pose).orientation))
            if asset:
                if kind == mujoco.mjtGeom.mjGEOM_HFIELD:
                    geom.hfieldname = asset
                else:
                    geom.meshname = asset
            geom.contype, geom.conaffinity = contype, conaffinity
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

    def _parts(self, shape: Shape, entity: Entity
               ) -> list[tuple[mujoco.mjtGeom, list[float], Pose, str]]:
        """(geom type, size, pose in the collision frame, mesh or height field name)."""
        geom = mujoco.mjtGeom
        if isinstance(shape, Box):
            return [(geom.mjGEOM_BOX, [s / 2.0 for s in shape.size], Pose(), '')]
        if isinstance(shape, Sphere):
            return [(geom.mjGEOM_SPHERE, [shape.radius, 0.0, 0.0], Pose(), '')]
        if isinstance(shape, Cylinder):
            return [(geom.mjGEOM_CYLINDER, [shape.radius, shape.length / 2.0, 0.0], Pose(), '')]
        if isinstance(shape, Capsule):
            return [(geom.mjGEOM_CAPSULE, [shape.radius, shape.length / 2.0, 0.0], Pose(), '')]
        if isinstance(shape, Plane):
            return [(geom.mjGEOM_PLANE, [0.0, 0.0, 1.0], Pose(), '')]
        if isinstance(shape, Torus):
            pieces = [self._mesh_part(piece, (1.0, 1.0, 1.0)) for piece in torus_segments(shape)]
            return [piece for piece in pieces if piece is not None]
        if isinstance(shape, Mesh):
            part = self._mesh_part(shape, (1.0, 1.0, 1.0))
            if part is not None and (entity.fixed_base or entity.kind == 'static'):
                self._warn(f'entity {entity.name!r}: a static mesh collides as its convex hull '
                           'in the mujoco engine')
            return [] if part is None else [part]
        if isinstance(shape, MeshFile):
            part = self._mesh_file_part(shape)
            return [] if part is None else [part]
        if isinstance(shape, Heightfield):
            return [self._heightfield_part(shape)]
        self._warn(f'shape {type(shape).__name__} is not built by the mujoco engine')
        return []

    def _mesh_part(self, mesh: Mesh, scale: tuple[float, ...]
                   ) -> tuple[mujoco.mjtGeom, list[float], Pose, str] | None:
        vertices = np.asarray(mesh.vertices, dtype=np.float64) * np.asarray(scale)
        if len(vertices) < 4 or np.linalg.matrix_rank(vertices - vertices.mean(0), tol=1e-9) < 3:
            self._warn(f'mesh {mesh.name or mesh.digest[:8]!r} is flat: MuJoCo collides a mesh '
                       'as its convex hull, which has no volume; shape skipped')
            return None
        key = (mesh.digest, tuple(scale))
        if key not in self._meshes:
            name = f'mesh{len(self._meshes)}'
            self.spec.add_mesh(name=name, uservert=vertices.ravel().tolist(),
                               userface=np.asarray(mesh.triangles).ravel().tolist())
            self._meshes[key] = name
        return mujoco.mjtGeom.mjGEOM_MESH, [0.0, 0.0, 0.0], Pose(), self._meshes[key]

    def _mesh_file_part(self, shape: MeshFile
                        ) -> tuple[mujoco.mjtGeom, list[float], Pose, str] | None:
        try:
            import trimesh
            loaded = trimesh.load(str(shape.path), force='mesh')
        except Exception as error:  # any reader's error: the shape is left out, said once
            self._warn(f'{shape.path}: mesh not readable ({error}); shape skipped')
            return None
        vertices, faces = loaded.vertices, loaded.faces  # type: ignore[attr-defined]
        mesh = Mesh(np.asarray(vertices), np.asarray(faces), name=shape.path.name)
        return self._mesh_part(mesh, tuple(shape.scale))

    def _heightfield_part(self, field: Heightfield
                          ) -> tuple[mujoco.mjtGeom, list[float], Pose, str]:
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

