"""SimRobot scenes (``.ros2``/``.rsi2``; ``.ros3``/``.rsi3`` use the same grammar).

Supported: the complete 3-D grammar of SimRobotCore2 in both versions (``Light`` of the ODE era
and ``DirLight``/``PointLight``/``SpotLight``, ``TorusGeometry``, ``CapsuleMass``,
``CylinderMass`` of later ones), ``<Include href>`` (relative to the including file, cycles are
errors), ``ref`` and ``Set``/``$placeholders`` with SimRobot's scoping (see :mod:`.expand`),
units in values (``mm cm dm m km``, ``degree radian``, ``g kg``, ``g*mm^2 kg*m^2``, ``s``,
``degree/s radian/s``, ``mm/s m/s km/h ...``, ``mm/s^2 m/s^2``, ``N``), colours ``#rgb #rgba
#rrggbb #rrggbbaa`` (short forms as in CSS: ``#f00`` is red), ``rgb()``/``rgba()`` with 0-255 or
percentages (``rgba()`` may omit alpha). The grammar is the table in :mod:`.elements`.
``parameters`` passed to :func:`load` act as ``Set`` values around the ``Scene`` (a file's own
``Set`` wins).

Mapping to the scene model:

- Each ``Body`` of the ``Scene`` that is not behind a joint (also inside compounds) is one
  entity at its world pose: kind 'robot' if its tree has a movable joint or a sensor, else
  'object'. Each top-level ``Compound`` of the ``Scene`` is a 'static' entity (fixed base) whose
  root link holds the geometry, appearances and sensors of it and of its nested compounds; a
  ``Hinge``/``Slider`` inside it makes it a fixed-base articulated 'robot'. Compounds with
  nothing in them (e.g. B-Human's team and robot groups) make no entity; their names are listed
  in ``Scene.metadata['empty_compounds']``. Entity names are the element names, made unique
  with ``_2``, ``_3``...; unnamed ones are called ``body``/``compound``.
- Bodies become links (SimRobot names, made unique in the entity); ``Hinge`` -> 'revolute',
  ``Slider`` -> 'prismatic'. The joint origin is the hinge pose composed with the child body's
  pose (see :mod:`.builder` for a body placed off the axis); the axis is given in the child link
  frame. ``Deflection`` min/max -> limits (a lower limit above the upper one is clamped, as
  SimRobot does), ``init`` -> ``initial_position`` (SimRobot starts the body rotated/shifted by it
  about the axis). ``ServoMotor``/``VelocityMotor``/``PT2Motor`` -> :mod:`scene.motors` in SI.
  The parent and child links of a joint do not collide unless ``collideWithParent="true"``.
- Masses are combined per link with the parallel-axis theorem; an ``InertiaMatrixMass`` tensor
  is taken about its centre of mass (x, y, z), as SimRobotCore3 does. Box: depth = x,
  width = y, height = z. Capsule ``height`` is the whole length including the caps.
- Geometries (nested ones flattened with composed poses) -> ``Collision`` named by the geometry
  (placeholders resolved), with the name of its ``Material`` (inherited by nested geometries).
  ``Material``/``Friction``/``RollingFriction`` -> ``Scene.material_pairs``.
- Appearances (nested ones flattened) -> ``Visual`` with the ``Surface`` diffuse colour and
  texture (relative to the file that names it). ``ComplexAppearance`` -> ``geometry.Mesh``;
  quads are split into triangles; with ``Normals`` the index lists alternate vertex and normal
  indices. A definition's mesh is built once and the same ``Mesh`` object is shared by all
  instances (and by later loads of the unchanged file).
- Sensors (pose relative to their link; names from the file, else the element name):
  Camera, DepthImageSensor (perspective/spherical), ObjectSegmentedImageSensor,
  SingleDistanceSensor, ApproxDistanceSensor, Accelerometer, Gyroscope, CollisionSensor (its
  geometries become named collisions of the link, listed by the sensor), UserInput.
- Lights -> ``Scene.lights`` (a ``Light``/``DirLight`` shines from x, y, z; spot cutoffs are
  stored as angles in radians). Scene attributes: stepLength, gravity, color (background),
  ERP, CFM, bodyCollisions; controller, contactSoft*, slip*, QuickSolver and unknown attributes
  go to ``Scene.metadata``.

Errors (missing include, unknown ref, unknown unit, missing required attribute, unresolved
placeholder, include cycle, bad XML) are collected and raised as one ``SceneLoadError`` whose
message starts with ``file:line:``. Names no SimRobot grammar knows are errors with the closest known
name (see :mod:`.expand`); known elements and attributes out of place are warnings
(``Scene.warnings``), errors with ``strict=True``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ...errors import SceneLoadError
from ...scene import Entity, Scene
from ...scene.transforms import IDENTITY
from . import dialect
from .builder import SceneBuilder
from .expand import Expander
from .reader import Diagnostics, Document, collect, parse_file, parse_xml_text
from .values import Scope

__all__ = ['load', 'load_entity_fragment']


def _root_scope(parameters: Mapping[str, str] | None) -> Scope | None:
    if not parameters:
        return None
    scope = Scope()
    scope.values.update({str(k): str(v) for k, v in parameters.items()})
    return scope


def load(path: str | Path, *, parameters: Mapping[str, str] | None = None,
         strict: bool = False, simrobot_core: object = 'auto') -> Scene:
    """Load a SimRobot scene file into a :class:`Scene`.

    ``simrobot_core`` (2, 3 or 'auto') chooses the servo law: 'auto' decides from the file's
    evidence (see :mod:`.dialect`); the decision is ``Scene.metadata['simrobot_dialect']``.
    """
    try:
        choice = dialect.parse_choice(simrobot_core)
    except ValueError as err:
        raise SceneLoadError(str(err), path) from None
    path = Path(path)
    diag = Diagnostics(strict)
    root = parse_file(path, diag)
    diag.raise_if_errors()
    assert root is not None
    document = Document(files=[str(path)])
    collect(root, diag, document, stack=(str(path),))
    for node in document.top_level:
        if node.tag != 'Scene' and 'name' not in node.attrs:
            diag.error(f'missing required attribute "name" of top-level <{node.tag}>',
                       node.file, node.line)
    if not document.scenes:
        diag.error('no <Scene> element (after includes)', path, root.line)
    for extra in document.scenes[1:]:
        diag.error('a second <Scene> element', extra.file, extra.line)
    diag.raise_if_errors()
    expander = Expander(document, diag)
    expander.check_top_level()
    scene_inst = expander.expand(document.scenes[0], _root_scope(parameters))
    if scene_inst is None:
        diag.raise_if_errors()
    assert scene_inst is not None
    scene = SceneBuilder(diag).build_scene(scene_inst, path)  # finds more errors to report
    diag.raise_if_errors()
    decision = dialect.decide(document, choice)
    for file, line, message in dialect.grammar_errors(decision):
        diag.error(message, file, line)
    diag.raise_if_errors()
    scene = dialect.apply_to_scene(scene, decision)
    if diag.warnings:
        scene = _with_warnings(scene, diag.warnings)
    return scene


def _with_warnings(scene: Scene, warnings: list[str]) -> Scene:
    from dataclasses import replace
    return replace(scene, warnings=tuple(warnings))


def load_entity_fragment(xml_text: str, *, name: str | None = None,
                         base_dir: Path | None = None, source: str = '<fragment>') -> Entity:
    """One entity from SimRobot XML text (the supervisor's spawn service).

    The text is a ``<Body>`` or ``<Compound>``, or a ``<Simulation>`` holding exactly one of them
    plus the definitions it references (``Surface``, ``Material``, ``Include``, ...; includes
    resolve against ``base_dir``). ``name`` overrides the element's name. Errors raise
    ``SceneLoadError`` with ``source:line``.
    """
    diag = Diagnostics()
    root = parse_xml_text(xml_text, source, diag)
    diag.raise_if_errors()
    assert root is not None
    document = Document()
    if root.tag in ('Body', 'Compound'):
        candidates = [root]
    elif root.tag == 'Simulation':
        collect(root, diag, document, stack=(source,), base_dir=base_dir)
        candidates = [n for n in document.top_level if n.tag in ('Body', 'Compound')]
    else:
        raise SceneLoadError(f'expected <Body>, <Compound> or <Simulation>, found <{root.tag}>',
                             source, root.line)
    diag.raise_if_errors()
    if len(candidates) != 1:
        raise SceneLoadError(f'a fragment must hold exactly one <Body> or <Compound>, found '
                             f'{len(candidates)}', source, root.line)
    node = candidates[0]
    instance = Expander(document, diag).expand(node, None)
    if instance is None:
        diag.raise_if_errors()
    assert instance is not None
    builder = SceneBuilder(diag)
    entity_name = name or instance.string('name') or node.tag.lower()
    if node.tag == 'Body':
        entity = builder.body_entity(instance, IDENTITY, entity_name)
    else:
        parts = builder.compound_entity(instance, IDENTITY, entity_name)
        entity = parts.freeze('robot' if parts.joints else 'static', True, True)
    diag.raise_if_errors()
    return entity

