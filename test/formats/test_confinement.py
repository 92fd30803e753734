"""Path confinement (``formats/paths.py``): includes, meshes, textures, URDFs and sensor sets
resolve inside the scene's folder tree and the search paths; anything else is refused with an
error naming the path and never showing the file's content."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import load_scene
from scene_sim_ros.formats.paths import SEARCH_PATH_ENV
from scene_sim_ros.scene import MeshFile

WriteFile = Callable[[str, str], Path]
SECRET = 'TOPSECRET line of a file the scene must never show'
BOX = '<BoxGeometry width="1" height="1" depth="1"/>'


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the scenes' tree (scenes live three levels down in ``tree/``)."""
    folder = tmp_path / 'outside'
    folder.mkdir()
    for name in ('secret.rsi2', 'secret.xml', 'secret.urdf', 'secret.stl', 'secret.iv',
                 'secret.png'):
        (folder / name).write_text(SECRET + '\n')
    return folder


def scene_path(write_file: WriteFile, name: str, text: str) -> Path:
    return write_file(f'tree/a/b/{name}', text)


def refused(path: Path, named: Path) -> str:
    with pytest.raises(SceneLoadError) as info:
        load_scene(path)
    message = str(info.value)
    assert str(named) in message and 'is outside the scene' in message, message
    assert 'TOPSECRET' not in message
    return message


def test_simrobot_include_of_an_absolute_path(write_file: WriteFile, outside: Path) -> None:
    secret = outside / 'secret.rsi2'
    path = scene_path(write_file, 's.ros2', f'<Simulation><Include href="{secret}"/>'
                      f'<Scene name="s"/></Simulation>')
    assert refused(path, secret).startswith(f'{path}:1: included file')


def test_simrobot_include_climbing_out_with_dots(write_file: WriteFile, outside: Path) -> None:
    path = scene_path(write_file, 's.ros2', '<Simulation><Include href="../../../outside/'
                      'secret.rsi2"/><Scene name="s"/></Simulation>')
    refused(path, outside / 'secret.rsi2')


def test_simrobot_texture_outside(write_file: WriteFile, outside: Path) -> None:
    secret = outside / 'secret.png'
    path = scene_path(write_file, 's.ros2', f"""<Simulation><Scene name="s">
        <Compound name="c"><BoxAppearance width="1" height="1" depth="1">
        <Surface diffuseColor="#ffffff" diffuseTexture="{secret}"/></BoxAppearance>
        </Compound></Scene></Simulation>""")
    refused(path, secret)


def test_simox_child_robot_outside(write_file: WriteFile, outside: Path) -> None:
    secret = outside / 'secret.xml'
    path = scene_path(write_file, 'r.xml', f"""<Robot Type='A' RootNode='base'>
        <RobotNode name='base'><ChildFromRobot><File>{secret}</File></ChildFromRobot>
        </RobotNode></Robot>""")
    refused(path, secret)


def test_simox_mesh_outside(write_file: WriteFile, outside: Path) -> None:
    secret = outside / 'secret.iv'
    path = scene_path(write_file, 'r.xml', f"""<Robot Type='A' RootNode='base'>
        <RobotNode name='base'><Visualization><File type='Inventor'>{secret}</File>
        </Visualization></RobotNode></Robot>""")
    refused(path, secret)


def test_raisim_urdf_outside(write_file: WriteFile, outside: Path) -> None:
    secret = outside / 'secret.urdf'
    path = scene_path(write_file, 'w.xml', f'<raisim version="1.0"><objects>'
                      f'<articulated_system name="r" urdf_path="{secret}"/></objects></raisim>')
    refused(path, secret)


def test_raisim_mesh_outside(write_file: WriteFile, outside: Path) -> None:
    path = scene_path(write_file, 'w.xml', '<raisim version="1.0"><objects><mesh name="m" '
                      'mass="1" file_name="[THIS_DIR]/../../../outside/secret.stl"/>'
                      '</objects></raisim>')
    refused(path, outside / 'secret.stl')


def test_raisim_include_outside(write_file: WriteFile, outside: Path) -> None:
    secret = outside / 'secret.xml'
    path = scene_path(write_file, 'w.xml', f'<raisim version="1.0"><include value="{secret}"/>'
                      '</raisim>')
    refused(path, secret)


def test_urdf_mesh_by_file_url_outside(write_file: WriteFile, outside: Path) -> None:
    secret = outside / 'secret.stl'
    path = scene_path(write_file, 'r.urdf', '<robot name="r"><link name="a"><visual><geometry>'
                      f'<mesh filename="file://{secret}"/></geometry></visual></link></robot>')
    refused(path, secret)


def test_search_path_allows_a_folder(write_file: WriteFile, outside: Path,
                                     monkeypatch) -> None:
    (outside / 'lib.rsi2').write_text(f'<Simulation><Compound name="c">{BOX}</Compound>'
                                      '</Simulation>')
    path = scene_path(write_file, 's.ros2', f'<Simulation><Include href="{outside}/lib.rsi2"/>'
                      '<Scene name="s"><Compound ref="c"/></Scene></Simulation>')
    refused(path, outside / 'lib.rsi2')
    monkeypatch.setenv(SEARCH_PATH_ENV, str(outside))
    assert load_scene(path).entities


def test_package_url_resolves_through_the_ament_index(write_file: WriteFile, tmp_path: Path,
                                                      monkeypatch) -> None:
    prefix = tmp_path / 'install'
    (prefix / 'share/ament_index/resource_index/packages').mkdir(parents=True)
    (prefix / 'share/ament_index/resource_index/packages/my_robot').write_text('')
    mesh = prefix / 'share/my_robot/meshes/box.stl'
    mesh.parent.mkdir(parents=True)
    mesh.write_text('solid x\nendsolid x\n')
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(prefix))
    path = scene_path(write_file, 'r.urdf', '<robot name="r"><link name="a"><visual><geometry>'
                      '<mesh filename="package://my_robot/meshes/box.stl"/></geometry></visual>'
                      '</link></robot>')
    shape = load_scene(path).entities[0].links[0].visuals[0].shape
    assert isinstance(shape, MeshFile) and shape.path == mesh.resolve()
