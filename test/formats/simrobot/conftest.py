"""Helpers for the SimRobot loader tests: a scene around a few lines of XML."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from scene_sim_ros.formats.simrobot import load
from scene_sim_ros.scene import Scene


@pytest.fixture
def scene_of(write_file: Callable[[str, str], Path]) -> Callable[..., Scene]:
    """``scene_of(scene_body, definitions='')``: load a ``.ros2`` whose ``<Scene>`` holds
    ``scene_body`` and whose ``<Simulation>`` also holds ``definitions``."""

    def make(scene_body: str, definitions: str = '', name: str = 'test.ros2',
             scene_attributes: str = '', **kwargs: object) -> Scene:
        text = (f'<Simulation>\n{textwrap.dedent(definitions)}\n'
                f'<Scene name="Test"{scene_attributes}>\n{textwrap.dedent(scene_body)}\n'
                '</Scene>\n</Simulation>\n')
        return load(write_file(name, text), **kwargs)

    return make
