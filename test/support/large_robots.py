"""Generated robots over PyBullet's per-body limits (test_large_robots, test_large_robot_tf):
URDF text of a long serial chain and of a branched humanoid."""

from __future__ import annotations

from pathlib import Path

INERTIA = '<inertia ixx="{i}" ixy="0" ixz="0" iyy="{i}" iyz="0" izz="{i}"/>'


def _link(name: str, mass: float = 0.1, size: float = 0.02, collide: bool = False) -> str:
    box = f'<geometry><box size="{size} {size} {size}"/></geometry>'
    collision = f'<collision>{box}</collision>' if collide else ''
    return (f'<link name="{name}"><inertial><mass value="{mass}"/>'
            f'{INERTIA.format(i=mass * size * size / 6)}</inertial>'
            f'<visual>{box}</visual>{collision}</link>')


def _joint(name: str, parent: str, child: str, xyz: str, axis: str = '0 1 0',
           kind: str = 'revolute') -> str:
    limit = '<limit lower="-1.5" upper="1.5" effort="100" velocity="5"/>' \
        if kind == 'revolute' else ''
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="{xyz}"/><axis xyz="{axis}"/>{limit}</joint>')


def serial_urdf(count: int) -> str:
    """A fixed-base chain of ``count`` links (and the base) hanging down along -z 5 cm apart,
    hinged about y."""
    parts = ['<robot name="snake">', _link('base', 1.0)]
    parent = 'base'
    for i in range(count):
        parts.append(_link(f'l{i}', 0.1, 0.04))
        parts.append(_joint(f'j{i}', parent, f'l{i}', '0 0 -0.05'))
        parent = f'l{i}'
    parts.append('<link name="world"/>')
    parts.append('<joint name="anchor" type="fixed"><parent link="world"/><child link="base"/>'
                 '</joint>')
    return '\n'.join(parts + ['</robot>'])


def humanoid_urdf(count: int = 150) -> str:
    """A free-floating humanoid-like tree of ``count`` links: a pelvis, a torso, a head, two
    arms with many-fingered hands and two legs, collision boxes on the big links."""
    parts = ['<robot name="humanoid">', _link('pelvis', 10.0, 0.3, collide=True)]
    links = 1

    def add(name: str, parent: str, xyz: str, mass: float = 0.5, size: float = 0.08,
            collide: bool = False, kind: str = 'revolute', axis: str = '0 1 0') -> str:
        nonlocal links
        parts.append(_link(name, mass, size, collide))
        parts.append(_joint(f'{name}_joint', parent, name, xyz, axis, kind))
        links += 1
        return name

    torso = add('torso', 'pelvis', '0 0 0.3', 8.0, 0.3, True, 'fixed')
    add('head', torso, '0 0 0.35', 2.0, 0.2, True, axis='0 0 1')
    for side, y in (('l', 0.25), ('r', -0.25)):
        shoulder = add(f'{side}_shoulder', torso, f'0 {y} 0.2')
        elbow = add(f'{side}_elbow', shoulder, '0 0 -0.25')
        wrist = add(f'{side}_wrist', elbow, '0 0 -0.25')
        for finger in range(5):
            parent = wrist
            for phalanx in range(3):
                parent = add(f'{side}_f{finger}_{phalanx}', parent,
                             f'0.01 {0.01 * (finger - 2)} -0.03', 0.02, 0.01)
    for side, y in (('l', 0.12), ('r', -0.12)):
        hip = add(f'{side}_hip', 'pelvis', f'0 {y} -0.1', 2.0, 0.1)
        knee = add(f'{side}_knee', hip, '0 0 -0.4', 2.0, 0.1)
        add(f'{side}_foot', knee, '0 0 -0.4', 1.0, 0.1, True)
    spine = torso
    while links < count:  # sensor-ish small links (a skin, as the iCub's) up the torso
        spine = add(f'skin{links}', spine, '0 0 0.001', 0.01, 0.005, kind='fixed')
    return '\n'.join(parts + ['</robot>'])


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f'{name}.urdf'
    path.write_text(f'<?xml version="1.0"?>\n{text}\n')
    return path
