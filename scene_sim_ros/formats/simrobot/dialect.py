"""Which SimRobot a scene file is written for: its grammar and its servo law.

Neither the extension nor the grammar alone tells (B-Human's CR2025 ``.ros2`` files are written
for SimRobotCore2-on-MuJoCo and its HEAD ``.ros3`` files are byte for byte the Core2 grammar), so
the decision is taken from evidence in the elements and attributes of the scene and of
everything it includes (see /docs of the project and SimRobot's history):

Grammar (``grammar``: 'core2' or 'core3'):
  'core3' (SimRobot >= 3316d64, PBR) when a ``Surface`` has ``albedo``/``alpha``/``metallic``/
  ``roughness``, a ``Material`` has ``friction``/``rollingFriction`` attributes or a light has
  ``intensity``; else 'core2' (``diffuseColor`` surfaces, ``Friction`` child elements ...).

Servo law (``core``: 2 = SimRobotCore2 on ODE, velocity servo; 3 = MuJoCo torque PD), first
rule that applies:
  1. the new grammar -> 3;
  2. attributes only the MuJoCo-era parser knows: ServoMotor ``delay``,
     ``velocityLowPassFactor`` -> 3;
  3. attributes only the ODE-era parser knows (the MuJoCo parser dropped them): Scene ``ERP``,
     ``CFM``, ``contactSoftERP``, ``contactSoftCFM``, ``slip1``, ``slip2``; Deflection
     ``stopERP``, ``stopCFM``; ServoMotor ``fudgeFactor``, ``isNaoMotor``,
     ``minFeedbackForce``, ``maxFeedbackForce``, ``maxPositionDiff``, ``maxForceGrowth``;
     Axis ``cfm``; ``QuickSolver``; Body ``collideWithParent`` -> 2;
  4. the gains: ServoMotors with a damping gain ``d`` > 0 and a torque limit ``maxForce`` <= 10
     (the MuJoCo-era NAO: p 40, d 0.5..2, maxForce 3..5; ODE-era files give no ``d``) -> 3;
  5. otherwise 2 (today's behaviour for files without evidence).

``load(..., simrobot_core=2|3|'auto')`` overrides the law; the decision and its reasons are
``Scene.metadata['simrobot_dialect']`` (shown by ``inspect``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from ...scene import Entity, Scene, ServoMotor, VelocityMotor
from ...scene.motors import TORQUE_LAW
from .reader import Document, Node

NEW_SURFACE = ('albedo', 'alpha', 'metallic', 'roughness')
OLD_SURFACE = ('diffuseColor', 'ambientColor', 'specularColor', 'emissionColor', 'shininess',
               'diffuseTexture')
MUJOCO_SERVO = ('delay', 'velocityLowPassFactor')
ODE_ATTRIBUTES = {
    'Scene': ('ERP', 'CFM', 'contactSoftERP', 'contactSoftCFM', 'slip1', 'slip2'),
    'Deflection': ('stopERP', 'stopCFM'),
    'ServoMotor': ('fudgeFactor', 'isNaoMotor', 'minFeedbackForce', 'maxFeedbackForce',
                   'maxPositionDiff', 'maxForceGrowth'),
    'Axis': ('cfm',),
    'Body': ('collideWithParent',),
}
LIGHTS = ('Light', 'DirLight', 'PointLight', 'SpotLight')
CORE_CHOICES = ('auto', '2', '3')


def _walk(nodes: Iterable[Node]) -> Iterator[Node]:
    seen: set[int] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(node.children)


def _where(node: Node) -> str:
    return f'{node.file}:{node.line}'


def _number(text: str) -> float | None:
    try:
        return float(''.join(ch for ch in text if ch in '0123456789.-+eE') or 'x')
    except ValueError:
        return None


def detect(document: Document) -> dict:
    """The grammar and servo law ``document`` targets, with the evidence (first hit each)."""
    new_grammar: list[str] = []
    old_grammar: list[str] = []
    mujoco: list[str] = []
    ode: list[str] = []
    nao_motor: list[str] = []
    removed: list[tuple[str, int, str]] = []  # Core2 grammar the new grammar dropped
    damped = plain = 0
    damped_example = ''
    nodes = [*document.scenes, *document.definitions.values(), *document.top_level]
    for node in _walk(nodes):
        tag, attrs = node.tag, node.attrs
        if tag == 'Surface':
            new_grammar += [f'Surface {a} at {_where(node)}' for a in NEW_SURFACE if a in attrs]
            old_grammar += [f'Surface {a} at {_where(node)}' for a in OLD_SURFACE if a in attrs]
            removed += [(node.file, node.line, f'<Surface> attribute "{a}"')
                        for a in OLD_SURFACE if a in attrs]
        elif tag == 'Material':
            new_grammar += [f'Material {a} attribute at {_where(node)}'
                            for a in ('friction', 'rollingFriction') if a in attrs]
        elif tag in ('Friction', 'RollingFriction', 'PT2Motor'):
            old_grammar.append(f'<{tag}> at {_where(node)}')
            removed.append((node.file, node.line, f'<{tag}>'))
        elif tag in LIGHTS and 'intensity' in attrs:
            new_grammar.append(f'{tag} intensity at {_where(node)}')
        elif tag == 'QuickSolver':
            ode.append(f'<QuickSolver> at {_where(node)}')
        if tag == 'Axis' and 'cfm' in attrs:
            removed.append((node.file, node.line, '<Axis> attribute "cfm"'))
        if tag in ODE_ATTRIBUTES:
            ode += [f'{tag} {a} at {_where(node)}' for a in ODE_ATTRIBUTES[tag] if a in attrs]
        if tag == 'ServoMotor' and attrs.get('isNaoMotor', '').strip().lower() == 'true':
            nao_motor.append(_where(node))
        if tag == 'ServoMotor':
            mujoco += [f'ServoMotor {a} at {_where(node)}' for a in MUJOCO_SERVO if a in attrs]
            d = _number(attrs.get('d', '0')) or 0.0
            force = _number(attrs.get('maxForce', '0'))
            if d > 0.0 and force is not None and force <= 10.0:
                damped += 1
                damped_example = damped_example or f'p={attrs.get("p")} d={attrs.get("d")} ' \
                    f'maxForce={attrs.get("maxForce")} at {_where(node)}'
            else:
                plain += 1
    grammar = 'core3' if new_grammar else 'core2'
    reasons: list[str] = []
    if new_grammar:
        reasons.append(f'SimRobot HEAD grammar ({new_grammar[0]}'
                       + (f' and {len(new_grammar) - 1} more' if len(new_grammar) > 1 else '')
                       + ')')
        if old_grammar:
            reasons.append(f'also Core2 grammar elements ({old_grammar[0]})')
        core = 3
    elif mujoco:
        reasons.append(f'MuJoCo-era attribute ({mujoco[0]})')
        core = 3
        if ode:
            reasons.append(f'ignored ODE-era attribute ({ode[0]})')
    elif ode:
        reasons.append(f'ODE-era attribute ({ode[0]}'
                       + (f' and {len(ode) - 1} more' if len(ode) > 1 else '') + ')')
        core = 2
    elif damped and not plain:
        reasons.append(f'no ODE-era attribute; {damped} ServoMotors with damping d and '
                       f'maxForce <= 10 as the MuJoCo-era NAO ({damped_example})')
        core = 3
    else:
        reasons.append('no evidence for the MuJoCo-era servo law; SimRobotCore2 (ODE) assumed')
        core = 2
    return {'grammar': grammar, 'core': core, 'servo_law': 'torque' if core == 3 else 'velocity',
            'reasons': reasons, 'overridden': False, 'nao_motor': nao_motor,
            'removed': removed if grammar == 'core3' else []}


def grammar_errors(decision: dict) -> list[tuple[str, int, str]]:
    """(file, line, message) for each Core2-only construct in a file written in SimRobot's new
    grammar, whose parser no longer knows them (SimRobot >= 3316d64: the Core2 Surface colours,
    Friction/RollingFriction elements, PT2Motor and Axis cfm are gone)."""
    evidence = decision['reasons'][0] if decision['reasons'] else 'the new grammar'
    return [(file, line, f"{what} is not part of SimRobot's current grammar, which this file "
                         f'uses ({evidence}); use Surface albedo/alpha, Material friction '
                         'attributes and ServoMotor/VelocityMotor instead')
            for file, line, what in decision.get('removed', [])]


def parse_choice(value: object) -> str:
    """'auto', '2' or '3' from ``simrobot_core`` (2, 3, '2', '3', 'core3', 'auto', None)."""
    text = 'auto' if value is None else str(value).strip().lower()
    text = text.removeprefix('core').removeprefix('simrobotcore')
    if text not in CORE_CHOICES:
        raise ValueError(f'simrobot_core must be 2, 3 or auto, not {value!r}')
    return text


def decide(document: Document, choice: object = 'auto') -> dict:
    """:func:`detect`, then the override ``choice`` (2, 3 or 'auto')."""
    found = detect(document)
    wanted = parse_choice(choice)
    if wanted != 'auto' and int(wanted) != found['core']:
        found['reasons'].append(f'overridden by simrobot_core={wanted} (detected '
                                f'{found["core"]})')
        found['core'] = int(wanted)
        found['servo_law'] = 'torque' if found['core'] == 3 else 'velocity'
        found['overridden'] = True
    elif wanted != 'auto':
        found['reasons'].append(f'confirmed by simrobot_core={wanted}')
    return found


def describe(decision: dict) -> str:
    law = ('SimRobotCore3 torque PD (MuJoCo)' if decision['core'] == 3
           else 'SimRobotCore2 velocity servo (ODE)')
    return (f'{decision["grammar"]} grammar, {law}: ' + '; '.join(decision['reasons']))


def apply_core(entity: Entity, core: int) -> Entity:
    """``entity`` with its ServoMotor/VelocityMotor laws set for ``core`` (3: torque)."""
    if core != 3:
        return entity
    joints = []
    changed = False
    for joint in entity.joints:
        motor = joint.motor
        if isinstance(motor, (ServoMotor, VelocityMotor)) and motor.control != TORQUE_LAW:
            joint = replace(joint, motor=replace(motor, control=TORQUE_LAW))
            changed = True
        joints.append(joint)
    return replace(entity, joints=tuple(joints)) if changed else entity


def apply_to_scene(scene: Scene, decision: dict) -> Scene:
    metadata = dict(scene.metadata)
    metadata['simrobot_dialect'] = decision
    metadata['dialect'] = describe(decision)
    entities = tuple(apply_core(e, decision['core']) for e in scene.entities)
    warnings = scene.warnings
    if decision.get('nao_motor') and decision['core'] == 2:
        where = decision['nao_motor'][0]
        warnings += (f'{where}: ServoMotor isNaoMotor="true" (SimRobotCore2 2024-25: buffered '
                     'set-point, velocity feed-forward, force control) is approximated by the '
                     f'classic velocity servo ({len(decision["nao_motor"])} motors)',)
    return replace(scene, entities=entities, metadata=metadata, warnings=warnings)
