"""The example scenes that ship with the package: ``resources.example_names``/``example_path``,
``scene-sim-ros examples``, example names where a SCENE is expected, and that the README, the
docs pages it links for its former sections and ``--help`` only name scene files that ship. No corpus needed."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
from pathlib import Path

import pytest

from scene_sim_ros.cli.main import build_parser
from scene_sim_ros.errors import SceneSimError
from scene_sim_ros.formats import load_scene
from scene_sim_ros.resources import (
    DATA_DIR,
    EXAMPLES_DIR,
    example_description,
    example_format,
    example_names,
    example_path,
)
from support.processes import console_script

REPO = Path(__file__).resolve().parents[1]
FORMATS = {'simrobot', 'webots', 'simox', 'raisim'}
SCENE_FILE = re.compile(r'[\w./-]*\w\.(?:ros2|rsi2|ros3|rsi3|wbt|proto|xml|urdf)\b')


def cli(*args: object, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([console_script('scene-sim-ros'), *map(os.fspath, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def test_one_example_world_per_format_at_least() -> None:
    names = example_names()
    assert {'car', 'arm', 'webots_scout', 'simox_scene', 'simox_arm', 'raisim_world'} <= set(names)
    assert {example_format(example_path(n)) for n in names} >= FORMATS
    # helper files of the examples are not examples themselves
    assert 'raisim_rover_sensors' not in names and 'raisim_terrain' not in names
    assert all(example_path(n).parent == EXAMPLES_DIR for n in names)


@pytest.mark.parametrize('name', example_names())
def test_every_example_loads_without_warnings_and_describes_itself(name: str) -> None:
    path = example_path(name)
    scene = load_scene(path)
    assert scene.warnings == ()
    assert any(e.kind == 'robot' for e in scene.entities)
    description = example_description(path)
    assert 20 < len(description) < 140 and '\n' not in description


def test_example_path_with_or_without_extension_and_a_helpful_miss() -> None:
    assert example_path('car') == example_path('car.ros2') == EXAMPLES_DIR / 'car.ros2'
    with pytest.raises(SceneSimError) as err:
        example_path('cra')
    assert "did you mean 'car'" in str(err.value)
    assert all(name in str(err.value) for name in example_names())
    with pytest.raises(SceneSimError):
        example_path('car.wbt')          # right name, wrong extension


def test_examples_command_lists_name_format_file_and_description() -> None:
    result = cli('examples')
    assert result.returncode == 0, result.stderr
    for name in example_names():
        path = example_path(name)
        assert re.search(rf'^{re.escape(name)}\s+{example_format(path)}\s+{re.escape(str(path))}$',
                         result.stdout, re.M), name
        assert example_description(path) in result.stdout


def test_commands_take_an_example_name_and_an_existing_path_wins(tmp_path: Path) -> None:
    inspected = cli('inspect', 'car')
    assert inspected.returncode == 0, inspected.stderr
    assert "simrobot scene 'CarExample'" in inspected.stdout
    urdf = cli('urdf', 'arm.ros2', '--entity', 'arm')
    assert urdf.returncode == 0 and '<joint name="elbow_joint"' in urdf.stdout
    topics = cli('topics', 'webots_scout')
    assert topics.returncode == 0 and '/scout/lidar/scan' in topics.stdout
    # a file called like an example, in the working directory, is the file
    (tmp_path / 'car').write_text((DATA_DIR / 'scenes' / 'default.ros2').read_text())
    mine = cli('inspect', 'car', cwd=tmp_path)
    assert mine.returncode == 0, mine.stderr
    assert "'DefaultScene'" in mine.stdout


def test_unknown_example_name_lists_the_examples() -> None:
    result = cli('inspect', 'webots_scuot')
    assert result.returncode != 0 and result.stdout == ''
    assert "did you mean 'webots_scout'" in result.stderr and 'raisim_world' in result.stderr
    missing = cli('inspect', 'nowhere/scene.ros2')
    assert missing.returncode == 2 and 'no such file' in missing.stderr


def _help_texts() -> dict[str, str]:
    parser = build_parser()
    texts = {'--help': parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                texts[f'{name} --help'] = sub.format_help()
    return texts


# The docs pages that hold what the README used to (its Documentation table links them). The
# other docs pages name placeholder and corpus files on purpose (scene.ros2, big.wbt, Game.ros2).
README_PAGES = ('topics.md', 'nav2-moveit-ros2-control.md', 'formats.md',
                'recording-and-live-view.md', 'command-line.md', 'benchmarks.md', 'install.md',
                'development.md')


def _doc_pages() -> list[Path]:
    """README.md and the docs pages the reference moved to from the README."""
    return [REPO / 'README.md', *(REPO / 'docs' / name for name in README_PAGES)]


def _doc_code_blocks() -> list[tuple[str, str]]:
    """(page, body) of every code block of README.md and those docs pages."""
    found = []
    for page in _doc_pages():
        text = page.read_text(encoding='utf-8')
        blocks = re.findall(r'^```(\w*)\n(.*?)^```', text, re.S | re.M)
        # ```text blocks are recorded benchmark output, not commands to run
        found += [(str(page.relative_to(REPO)), body) for lang, body in blocks if lang != 'text']
    return found


def _ships(name: str) -> bool:
    path = Path(name)
    return ((REPO / path).is_file() and str(path).startswith('scene_sim_ros/data/')) or \
        (EXAMPLES_DIR / path.name).is_file() or (DATA_DIR / 'scenes' / path.name).is_file()


def test_docs_and_help_name_only_shipped_files() -> None:
    named: dict[str, str] = {}
    for where, text in [*_help_texts().items(), *_doc_code_blocks()]:
        for name in SCENE_FILE.findall(re.sub(r'>\s*\S+', '', text)):   # not outputs (> x.urdf)
            if name.startswith(('http', 'config/', 'package.xml')) or name in ('package.xml',):
                continue
            named.setdefault(name, where)
    assert named, 'no scene file named anywhere: the pattern is broken'
    not_shipped = {name: where for name, where in named.items() if not _ships(name)}
    assert not not_shipped, f'scene files named but not shipped: {not_shipped}'


def test_help_example_commands_use_scenes_that_resolve() -> None:
    """``run/inspect/urdf/topics NAME`` in --help examples: NAME is a file or an example."""
    for where, text in _help_texts().items():
        for command, scene in re.findall(r'scene-sim-ros (run|inspect|urdf|topics) (\S+)', text):
            if scene.startswith(('-', '[')):
                continue
            assert _ships(scene) or scene in example_names() or \
                Path(scene).stem in example_names(), (where, command, scene)
