"""The validation rules held against the origin simulators (docs/limits.md has the table).

An inertia whose principal moments break the triangle inequality is what CAD exports produce;
RaiSim, Webots (ODE's ``dMassCheck``: mass > 0 and a positive definite inertia, nothing more)
and Bullet load it, MuJoCo refuses it unless ``balanceinertia``, which "sets all three diagonal
elements to their average value". Here it loads, repaired as ``balanceinertia`` does, with one
warning naming file:line, the link and the moments; ``strict`` refuses it. An inertia that is
not positive definite is refused, as ODE refuses it.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import load_scene
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation

CAD_URDF = """\
<?xml version="1.0"?>
<robot name="quadruped_camera">
  <link name="trunk">
    <inertial><mass value="2"/><inertia ixx="0.02" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.4 0.2 0.1"/></geometry></collision>
  </link>
  <joint name="mount" type="fixed"><parent link="trunk"/><child link="camera_link"/>
    <origin xyz="0.2 0 0.05"/></joint>
  <link name="camera_link">
    <inertial><mass value="0.05"/>
      <inertia ixx="1e-05" iyy="1e-05" izz="4e-05" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.02 0.05 0.02"/></geometry></collision>
  </link>
</robot>
"""
"""A camera link as CAD exports write it: 1e-5 + 1e-5 < 4e-5."""

CAD_WEBOTS = """\
#VRML_SIM R2023b utf8
Robot {
  name "humanoid"
  children [
    Solid {
      name "head"
      translation 0 0 0.3
      children [ Shape { geometry Box { size 0.1 0.1 0.1 } } ]
      boundingObject Box { size 0.1 0.1 0.1 }
      physics Physics { mass 0.5 inertiaMatrix [ 0.001 0.001 0.005  0 0 0 ] }
    }
  ]
  boundingObject Box { size 0.2 0.2 0.2 }
  physics Physics { mass 2 }
}
"""


@pytest.fixture
def cad_files(tmp_path):
    (tmp_path / 'quadruped.urdf').write_text(CAD_URDF)
    (tmp_path / 'humanoid.wbt').write_text(CAD_WEBOTS)
    return tmp_path


@pytest.mark.parametrize('name, link, moments, line', [
    ('quadruped.urdf', 'camera_link', (1e-05, 1e-05, 4e-05), 9),
    ('humanoid.wbt', 'head', (0.001, 0.001, 0.005), 6)])
def test_an_impossible_inertia_loads_balanced_as_mujoco_does_with_one_warning(
        cad_files, name, link, moments, line):
    scene = load_scene(cad_files / name)
    repairs = [w for w in scene.warnings if 'triangle inequality' in w]
    assert len(repairs) == 1, scene.warnings
    assert re.match(rf'{re.escape(str(cad_files / name))}:{line}: link {link!r}', repairs[0])
    assert ', '.join(f'{m:g}' for m in moments) in repairs[0]
    inertia = next(lk.inertial.inertia for e in scene.entities for lk in e.links if lk.name == link)
    mean = sum(moments) / 3
    assert inertia == pytest.approx((mean, 0, 0, mean, 0, mean), rel=1e-9)


@pytest.mark.parametrize('name', ['quadruped.urdf', 'humanoid.wbt'])
def test_strict_refuses_the_impossible_inertia(cad_files, name):
    with pytest.raises(SceneLoadError, match=r':\d+: link .* triangle inequality'):
        load_scene(cad_files / name, strict=True)


def test_the_balanced_robot_steps_in_pybullet(cad_files):
    sim = Simulation(load_scene(cad_files / 'quadruped.urdf'))
    sim.step(100)
    position, _ = sim.get_pose('quadruped_camera')
    assert all(abs(v) < 10 for v in position)


def test_an_inertia_that_is_not_positive_definite_is_refused_as_ode_refuses_it(tmp_path):
    urdf = tmp_path / 'negative.urdf'
    urdf.write_text(textwrap.dedent("""\
        <?xml version="1.0"?>
        <robot name="r"><link name="l">
          <inertial><mass value="1"/><inertia ixx="-0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
        </link></robot>"""))
    with pytest.raises(SceneLoadError, match='negative principal moment .* ODE'):
        load_scene(urdf)


LINK = ('<link name="{name}"><inertial><mass value="{mass}"/><inertia ixx="0.01" iyy="0.01" '
        'izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>')


def _urdf(tmp_path, body: str):
    path = tmp_path / 'r.urdf'
    path.write_text(f'<?xml version="1.0"?><robot name="r">{body}</robot>')
    return path


@pytest.mark.parametrize('body, error, origin', [
    (LINK.format(name='a', mass=-1), 'masses must not be negative',
     "ODE's dMassCheck (Webots): 'mass must be > 0'"),
    (LINK.format(name='a', mass='nan'), 'not a finite number',
     'a NaN mass is NaN poses in every engine'),
    (LINK.format(name='a', mass=1) + LINK.format(name='b', mass=1) + LINK.format(name='c', mass=1)
     + '<joint name="j1" type="fixed"><parent link="a"/><child link="c"/></joint>'
     + '<joint name="j2" type="fixed"><parent link="b"/><child link="c"/></joint>',
     'exactly one root link', "urdfdom refuses it too: 'Two root links found'"),
    (LINK.format(name='a', mass=1) + LINK.format(name='b', mass=1)
     + '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 0"/>'
     + '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>',
     'axis', 'a zero axis has no direction: URDF readers normalise only a non-zero one'),
])
def test_what_the_origins_refuse_is_refused(tmp_path, body, error, origin):
    """Each refusal is one the origin makes too (``origin``; docs/limits.md's table)."""
    with pytest.raises(SceneLoadError, match=error):
        load_scene(_urdf(tmp_path, body))


def test_a_zero_time_step_is_refused_as_no_origin_steps_by_zero(tmp_path):
    world = tmp_path / 'w.wbt'
    world.write_text('#VRML_SIM R2023b utf8\nWorldInfo { basicTimeStep 0 }\n')
    with pytest.raises(SceneLoadError, match='time step'):
        load_scene(world)
