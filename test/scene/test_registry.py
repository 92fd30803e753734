from pathlib import Path

import pytest

from scene_sim_ros.errors import SceneLoadError, UnsupportedFormatError
from scene_sim_ros.formats import format_of, load_scene


@pytest.mark.parametrize(('name', 'text', 'expected'), [
    ('a.ros2', '', 'simrobot'), ('a.RSI3', '', 'simrobot'), ('w.wbt', '', 'webots'),
    ('r.urdf', '', 'urdf'),
    ('s.xml', '<?xml version="1.0"?>\n<!-- x -->\n<Simulation/>', 'simrobot'),
    ('s.xml', '\n\n<?xml version="1.0"?><raisim version="1.0"/>', 'raisim'),
    ('s.xml', "<robot name='r' RootNode='a'><RobotNode name='a'/></robot>", 'simox'),
    ('s.xml', '<Scene name="x"><Robot/></Scene>', 'simox'),
    ('s.xml', '<robot name="r"><link name="base"/></robot>', 'urdf'),
    ('o.xml', "<ManipulationObject name='cup'><File>cup.iv</File></ManipulationObject>", 'simox'),
    ('o.xml', '<Obstacle name="table"/>', 'simox'),
])
def test_format_of_picks_loader_by_extension_or_root_element(tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text)
    assert format_of(path) == expected


def test_unknown_extension_lists_supported_ones(tmp_path):
    path = tmp_path / 'scene.sdf'
    path.write_text('<sdf/>')
    with pytest.raises(UnsupportedFormatError, match=r"scene.sdf: unsupported .*'.sdf'.*\.ros2"):
        format_of(path)


def test_2d_scenes_are_rejected_with_a_reason(tmp_path):
    path = tmp_path / 'Soccer.ros2d'
    path.write_text('<Simulation/>')
    with pytest.raises(UnsupportedFormatError, match='2-D'):
        load_scene(path)


def test_missing_file_is_a_scene_error_naming_it():
    with pytest.raises(SceneLoadError, match='nope.ros2: no such file'):
        load_scene(Path('nope.ros2'))
