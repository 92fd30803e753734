"""Wires (:class:`~scene_sim_ros.scene.Wire`) in MuJoCo: each wire is a spatial tendon between two
sites at its attachment points, so MuJoCo's solver carries the law the PyBullet engine applies
as forces (:mod:`scene_sim_ros.sim.wires`):

- **stiff**: a limited tendon. 'stretch' (a rope) may not get longer than ``length`` (range
  [0, length]), 'compression' not shorter (range [length, inf)), 'both' (a rod) neither (range
  ``length`` +- :data:`ROD_SLACK`: MuJoCo wants a range of some width). The limit is a constraint
  the solver meets in the step with the links' full (articulated) inertia, where the PyBullet
  engine estimates one row per wire with the link's own mass and a Baumgarte term. Its softness
  is :data:`SOLREF_STEPS` steps' time constant, critically damped, impedance :data:`IMPEDANCE`:
  MuJoCo's default (0.02 s, impedance 0.9-0.95) lets a rope stretch 1.7 mm under a 1 kg
  pendulum at 1 ms steps and, when a rope snaps taut between two free balls (1 m/s), pushes
  them back together at 1 % of that speed, so that the rope is slack again and shortens 9 mm a
  second (the limit is one-sided); with 2 steps and 0.99 the pendulum's rope stretches 0.008 mm
  and the balls part no more (test/sim/test_wires.py).
- **compliant**: the tendon's spring, ``stiffness`` N/m with a dead band
  (``springlength`` [lo, hi]) so that it acts only while stretched ([0, length]), compressed
  ([length, inf)) or both ([length, length]), as :func:`~scene_sim_ros.sim.wires.spring_force`.
- **custom**: a constant ``tension`` pulling the ends together: an actuator on the tendon whose
  force is its bias alone (``-tension``; no control input).
- a zero-length stiff wire (at most :data:`~scene_sim_ros.sim.wires.POINT_LENGTH`): a ``connect``
  equality between the two sites, a ball joint, as the PyBullet engine's point-to-point
  constraint.

A wire whose ends both cannot move is skipped (as in the PyBullet engine); one with an end that
does not resolve is skipped with a warning. Deleting an entity deletes its wires (they do not
come back when it is spawned again; a reset rebuilds them, as in the PyBullet engine).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import mujoco

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Wire
from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity
from scene_sim_ros.sim.wires import POINT_LENGTH

ROD_SLACK = 1e-6  # m: half the width of a rod's tendon range
SOLREF_STEPS = 2.0  # a wire constraint's time constant in steps (MuJoCo's stable minimum)
IMPEDANCE = [0.99, 0.99, 0.001, 0.5, 2.0]  # solimp: a constant 0.99 (default 0.9 to 0.95)
UNBOUNDED = 1e10  # m: the far end of a range open on one side


@dataclass
class _Built:
    """The spec elements of one wire and the entities it joins."""

    entities: tuple[str, str]
    elements: list[mujoco.MjsElement] = field(default_factory=list)


@dataclass
class MjWires:
    """The wires of one MjSpec: :meth:`build` adds them, :meth:`remove_entity` takes out the
    wires of an entity being deleted."""

    spec: mujoco.MjSpec
    step_length: float
    warnings: list[str]
    _built: list[_Built] = field(default_factory=list)

    def build(self, wires: tuple[Wire, ...], entities: dict[str, MjEntity]) -> None:
        for number, wire in enumerate(wires):
            try:
                a = _end(entities, wire.body_a)
                b = _end(entities, wire.body_b)
            except SimulationError as error:
                self._warn(f'wire {wire.name!r}: {error}; skipped')
                continue
            if not (a.movable or b.movable):
                continue
            if not all(math.isfinite(v) for v in (*wire.point_a, *wire.point_b)):
                self._warn(f'wire {wire.name!r}: attachment point not finite; skipped')
                continue
            prefix = f'$wire{number}/{wire.name}'
            built = _Built((a.entity, b.entity))
            site_a = self.spec.body(a.body).add_site(name=f'{prefix}/a', pos=list(wire.point_a))
            site_b = self.spec.body(b.body).add_site(name=f'{prefix}/b', pos=list(wire.point_b))
            if wire.kind == 'stiff' and wire.length <= POINT_LENGTH:
                built.elements.append(self._ball_joint(prefix, site_a.name, site_b.name))
            else:
                built.elements.extend(self._tendon(prefix, wire, site_a.name, site_b.name))
            built.elements.extend((site_a, site_b))  # deleted after what refers to them
            self._built.append(built)

    def remove_entity(self, name: str) -> None:
        """Delete the wires ending on entity ``name``, before its bodies are deleted (MuJoCo
        3.3.5 crashes deleting a tendon whose site went with its body)."""
        keep = []
        for built in self._built:
            if name in built.entities:
                for element in built.elements:
                    self.spec.delete(element)
            else:
                keep.append(built)
        self._built = keep

    @property
    def _solref(self) -> list[float]:
        return [SOLREF_STEPS * self.step_length, 1.0]

    def _ball_joint(self, prefix: str, site_a: str, site_b: str) -> mujoco.MjsEquality:
        return self.spec.add_equality(name=prefix, type=mujoco.mjtEq.mjEQ_CONNECT,
                                      objtype=mujoco.mjtObj.mjOBJ_SITE, name1=site_a,
                                      name2=site_b, solref=self._solref, solimp=IMPEDANCE)

    def _tendon(self, prefix: str, wire: Wire, site_a: str, site_b: str
                ) -> list[mujoco.MjsElement]:
        tendon = self.spec.add_tendon(name=prefix)
        tendon.wrap_site(site_a)
        tendon.wrap_site(site_b)
        if wire.kind == 'stiff':
            tendon.limited = mujoco.mjtLimited.mjLIMITED_TRUE
            tendon.range = _range(wire.stretch, wire.length, ROD_SLACK)
            tendon.solref_limit = self._solref
            tendon.solimp_limit = IMPEDANCE
            return [tendon]
        if wire.kind == 'compliant':
            tendon.stiffness = float(wire.stiffness or 0.0)
            tendon.springlength = _range(wire.stretch, wire.length, 0.0)
            return [tendon]
        pull = self.spec.add_actuator(name=prefix, target=prefix,
                                      trntype=mujoco.mjtTrn.mjTRN_TENDON)
        pull.gaintype = mujoco.mjtGain.mjGAIN_FIXED
        pull.gainprm[0] = 0.0
        pull.biastype = mujoco.mjtBias.mjBIAS_AFFINE
        pull.biasprm[0] = -float(wire.tension)
        return [pull, tendon]

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


def _range(stretch: str, length: float, slack: float) -> list[float]:
    """The lengths a wire resisting ``stretch`` leaves free (a rod: ``length`` +- ``slack``)."""
    if stretch == 'stretch':
        return [0.0, length]
    if stretch == 'compression':
        return [length, UNBOUNDED]
    return [max(length - slack, 0.0), length + slack]


@dataclass
class _End:
    entity: str
    body: str  # MuJoCo body name
    movable: bool


def _end(entities: dict[str, MjEntity], name: str) -> _End:
    """``"entity"`` or ``"entity/link"`` as the body a wire end is attached to."""
    if name in entities:
        built, index = entities[name], -1
    else:
        entity, _, link = name.rpartition('/')
        if entity not in entities:
            raise SimulationError(f'unknown entity {name!r}')
        built = entities[entity]
        if link not in built.link_index:
            raise SimulationError(f'entity {entity!r} has no link {link!r}')
        index = built.link_index[link]
    fixed_body = built.fixed and (index < 0 or not built.movable_joints)
    return _End(built.name, built.body_names[index + 1], not (fixed_body or built.kinematic))
