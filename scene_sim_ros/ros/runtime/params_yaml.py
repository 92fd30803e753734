"""``config/params.yaml``, written from the option table (:mod:`scene_sim_ros.ros.options`) and
the publish rates of :data:`.parameters.PUBLISH_RATES`:

    python -m scene_sim_ros.ros.runtime.params_yaml > config/params.yaml

Every parameter of the table appears: with its default, or as a comment (with its default or an
example value) where the table says so. The file is laid out in :data:`SECTIONS`; each option
names its section, comment and end-of-line note (:class:`.options.InParamsYaml`). A test holds
the committed file to this text.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from scene_sim_ros.ros.options import InParamsYaml, Option, Value, node_options
from scene_sim_ros.ros.runtime.parameters import PUBLISH_RATES

WIDTH = 98
"""Longest comment line."""

BASE_INDENT = 4
"""The parameters' indentation under ``/**: ros__parameters:``."""

HEADER = """\
# Default parameters of the scene_sim_ros simulation node (node name: scene_sim).
# Use with:  scene-sim-ros run SCENE --params-file params.yaml
#       or:  ros2 launch scene_sim_ros sim.launch.py params_file:=params.yaml
# Every value below is the built-in default; `ros2 param describe /scene_sim <name>` explains it.
# The lines commented out are the other parameters, with their default or an example value:
# uncomment one to set it.
# Generated from the option table (scene_sim_ros/ros/options.py); do not edit, run
#   python -m scene_sim_ros.ros.runtime.params_yaml > config/params.yaml
/**:
  ros__parameters:
"""


@dataclass(frozen=True)
class Section:
    """A part of the file: ``before`` its options, ``after`` them. Comment text: each line is a
    paragraph, wrapped; a line that starts with two spaces is kept as it is (an example)."""
    before: str = ''
    after: str = ''


SECTIONS = {
    'scene': Section(
        'Scene file (.ros2/.rsi2/.ros3, .wbt, Simox or RaiSim .xml, .urdf). Empty: the bundled '
        'default scene. Template values for RaiSim @@NAME placeholders go in scene_parameters as '
        '"NAME=VALUE" strings; strict turns unknown scene elements into errors.'),
    'running': Section(),
    'rates': Section(
        'Publish rates in Hz of *sim* time; 0 publishes after every physics step. Cameras, depth, '
        'segmentation and range sensors are only rendered / cast while someone subscribes.'),
    'frames': Section(
        'Frames: world_frame is the root of /tf; with frame_prefix_entities every frame of an '
        'entity is "<entity>/<link>" (robot1/Head, robot1/CameraTop_optical_frame).'),
    'instances': Section(
        'Several simulations on one ROS domain (docs/install.md): isolate keeps /clock, /tf and '
        '/tf_static in the node namespace and prefixes every frame id with the namespace '
        '(scene-sim-ros run --namespace sim_a --isolate, sim_a/world); frame_prefix sets the '
        'prefix instead.'),
    'controllers': Section(
        'ros2_control-style forward controllers of every robot: <entity>/<name>/commands '
        '(std_msgs/Float64MultiArray, one value per joint). The interface (position, velocity or '
        "effort) follows the name's prefix unless controllers.<entity>.<name>.interface sets it; "
        'the joints are all movable joints in scene order unless '
        'controllers.<entity>.<name>.joints lists them, e.g.\n'
        '  controllers:\n'
        '    robot1:\n'
        '      position_controller:\n'
        '        joints: [HeadYaw, HeadPitch]'),
    'sensors': Section(
        'Per-sensor overrides, keyed by entity and sensor name as in the scene (characters other '
        "than letters, digits and '_' become '_'): rate in Hz (< 0: the type's rate above) and "
        'the topic base (empty: <entity>/<sensor>), e.g.\n'
        '  sensors:\n'
        '    robot1:\n'
        '      CameraTop:\n'
        '        rate: 10.0\n'
        '        topic: robot1/front_camera'),
    'mobile_bases': Section(
        'Mobile bases (Nav2). Every free-moving robot gets nav_msgs/Odometry on <entity>/odom '
        '(header.frame_id <entity>/odom, child_frame_id the base link, pose in odom, twist in the '
        'base frame, covariances filled) and TF world -> <entity>/odom -> <entity>/<root link> '
        '(REP-105: one parent per frame; when another node publishes a parent of <entity>/odom, '
        "e.g. AMCL's map -> odom, the node stops publishing world -> odom). Ground truth by "
        'default (world -> odom is then the identity); the noise and drift below make it wander '
        'like wheel odometry, seeded by `seed`.',
        'Per robot (keyed like `sensors`), all optional:\n'
        '  mobile_bases:\n'
        '    rover:\n'
        '      base_frame: ""          # link odometry reports; empty: base_footprint if the robot\n'
        '                              # has one, else the root link\n'
        '      drive: auto             # auto: a differential drive when the scene has two coaxial\n'
        '                              # velocity-driven wheels; diff_drive, holonomic (the body\n'
        '                              # follows the planar twist, vx vy wz) or none\n'
        '      left_wheel_joint: ""    # diff drive joints (empty: found in the scene)\n'
        '      right_wheel_joint: ""\n'
        '      wheel_separation: 0.0   # m (0: from the wheel positions)\n'
        "      wheel_radius: 0.0       # m (0: from the wheel's collision cylinder or sphere)\n"
        '      publish_tf: true        # odom -> base on /tf (default: odometry.publish_tf)'),
    'worlds': Section(
        'Worlds (get_available_worlds, load_world; docs/supervisor.md): folders of scene files '
        'offered beside the examples and the default scene, searched recursively; a load_world '
        "uri must lie inside one of them (or the package's own data), e.g."),
    'supervisor': Section(
        "Entities that get the supervisor's <entity>/center_of_mass and <entity>/contacts topics "
        '(default none; the supervisor services and ~/ topics work for every entity), e.g.'),
    'record': Section(
        'Recording (scene-sim-ros run --record FILE.mcap): a rosbag2 MCAP file of every published '
        'topic (or of the record.topics globs, e.g. ["/rover/*", "/tf", "/clock"]), stamped with '
        'sim time; record.max_size_mb ends the recording once the file is that big (0: no '
        'limit).'),
    'foxglove': Section(
        'Live view (scene-sim-ros run --foxglove [PORT]; docs/recording-and-live-view.md): the '
        'port of the Foxglove WebSocket server (0: off; --foxglove alone uses 8765) and the '
        'address it listens on (0.0.0.0: every interface).'),
}
"""The sections of the file, in order (an option's :attr:`.InParamsYaml.section` is a key)."""

_PLAIN = re.compile(r'[A-Za-z_/][A-Za-z0-9_./-]*')
_YAML_WORDS = {'true', 'false', 'yes', 'no', 'on', 'off', 'null', 'y', 'n'}


def yaml_value(value: Value) -> str:
    """``value`` in YAML flow style, as PyYAML and the ROS parameter parser read it back."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return text if '.' in text or 'inf' in text or 'nan' in text else text.replace('e', '.0e')
    if isinstance(value, tuple):
        return '[' + ', '.join(yaml_value(v) for v in value) + ']'
    if _PLAIN.fullmatch(value) and value.lower() not in _YAML_WORDS:
        return value
    return json.dumps(value)


def comment_lines(text: str, indent: int) -> list[str]:
    """``text`` (see :class:`Section`) as comment lines at ``indent``."""
    lines = []
    for paragraph in text.splitlines():
        if paragraph.startswith('  '):
            lines.append(' ' * indent + '# ' + paragraph)
        elif paragraph:
            lines += textwrap.wrap(paragraph, WIDTH, initial_indent=' ' * indent + '# ',
                                   subsequent_indent=' ' * indent + '# ', break_on_hyphens=False,
                                   break_long_words=False)
    return lines


@dataclass(frozen=True)
class _Line:
    depth: int
    text: str
    note: str = ''
    commented_from: int | None = None
    """The depth at which the comment-out began (None: a real line)."""

    def start(self) -> str:
        if self.commented_from is None:
            return ' ' * (BASE_INDENT + 2 * self.depth) + self.text
        return ' ' * (BASE_INDENT + 2 * self.commented_from) + '#   ' + \
            '  ' * (self.depth - self.commented_from) + self.text

    def render(self, note_column: int) -> str:
        return f'{self.start().ljust(note_column)}# {self.note}' if self.note else self.start()


def _entry(option: Option) -> InParamsYaml:
    assert option.params_yaml is not None
    return option.params_yaml


def _mapping_lines(options: Sequence[Option], depth: int, commented_from: int | None,
                   first_commented: bool = False) -> list[_Line | str]:
    """The lines of the options (all under one mapping at ``depth``), comments as strings; an
    option's comment goes above the first line it opens (``first_commented``: done above)."""
    lines: list[_Line | str] = []
    seen: set[str] = set()
    for key, grouped in groupby(options, key=lambda o: o.name.split('.')[depth]):
        group = list(grouped)
        if key in seen:
            raise ValueError(f'the options under {key!r} are not next to each other in the table')
        seen.add(key)
        live = any(not _entry(o).commented_out for o in group)
        inner = commented_from if commented_from is not None or live else depth
        comment = _entry(group[0]).comment
        if comment and not (first_commented and group[0] is options[0]):
            lines += comment_lines(comment, BASE_INDENT + 2 * (depth if inner is None else inner))
        if len(group) == 1 and len(group[0].name.split('.')) == depth + 1:
            yaml = _entry(group[0])
            shown = yaml.example if yaml.commented_out and yaml.example is not None \
                else group[0].default
            lines.append(_Line(depth, f'{key}: {yaml_value(shown)}', yaml.note, inner))
        else:
            lines.append(_Line(depth, f'{key}:', '', inner))
            lines += _mapping_lines(group, depth + 1, inner, first_commented=True)
    return lines


def _render(lines: Sequence[_Line | str]) -> list[str]:
    """Notes line up within each run of lines that have one."""
    noted = [len(line.start()) for line in lines if isinstance(line, _Line) and line.note]
    column = max(noted, default=0) + 2
    return [line if isinstance(line, str) else line.render(column) for line in lines]


def section_lines(section: Section, options: Sequence[Option]) -> list[str]:
    lines = comment_lines(section.before, BASE_INDENT)
    mapping = _mapping_lines(options, 0, None)
    runs = groupby(mapping, key=lambda line: isinstance(line, _Line) and line.depth)
    for _, run in runs:
        lines += _render(list(run))
    return lines + comment_lines(section.after, BASE_INDENT)


def params_yaml(options: Sequence[Option]) -> str:
    """The text of ``config/params.yaml`` for ``options`` (the parameters among them)."""
    shown = [o for o in options if o.is_parameter and o.params_yaml is not None]
    unknown = sorted({_entry(o).section for o in shown} - set(SECTIONS))
    if unknown:
        raise ValueError(f'no params.yaml section {unknown}')
    parts = [section_lines(section, [o for o in shown if _entry(o).section == key])
             for key, section in SECTIONS.items()]
    return HEADER + '\n\n'.join('\n'.join(part) for part in parts) + '\n'


def main() -> int:
    sys.stdout.write(params_yaml(node_options(PUBLISH_RATES)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
