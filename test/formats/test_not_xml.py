"""An ``.xml`` (or URDF) file that is not XML says so: ``file:line: not well-formed XML: ...``."""

from __future__ import annotations

import re

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import load_scene


@pytest.mark.parametrize('name, text, line', [
    ('notes.xml', 'just some notes\nnot XML at all\n', 1),
    ('empty.xml', '', 1),
    ('world.xml', '<raisim version="1.0">\n<objects>\n<sphere name="a">\n</objects>\n</raisim>\n', 4),
    ('scene.xml', '<Simulation>\n<Scene name="s">\n</Simulation>\n', 3),
    ('robot.urdf', '<robot name="r">\n<link name="a">\n</robot>\n', 3),
])
def test_not_well_formed_xml_is_reported_with_its_line(write_file, name, text, line) -> None:
    path = write_file(name, text) if text else write_file(name, '')
    with pytest.raises(SceneLoadError) as err:
        load_scene(path)
    assert re.match(rf'^{re.escape(str(path))}:{line}: not well-formed XML: \S', str(err.value)), \
        str(err.value)
