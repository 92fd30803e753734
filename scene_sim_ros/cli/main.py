"""The ``scene-sim-ros`` command line.

Commands: ``inspect`` (load and summarise a scene), ``run`` (the ROS 2 node), ``urdf`` (one
entity's URDF), ``topics`` (what ``run`` would publish and subscribe); the commands that talk to a
running simulation (``list``, ``echo``, ``hz``, ``send``, ``snapshot``, ``pause``, ``play``,
``step``, ``reset``, ``state``, ``entities``, ``spawn``, ``delete``, ``set-pose``, ``param``) are
in :mod:`.client_commands`; ``batch`` (many runs without ROS) in :mod:`.batch.cli`. Scene and
usage errors print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from scene_sim_ros.batch.cli import add_batch_command, cmd_batch
from scene_sim_ros.cli.client_commands import COMMANDS as CLIENT_COMMANDS
from scene_sim_ros.cli.client_commands import EPILOG_LINES as CLIENT_EPILOG
from scene_sim_ros.cli.client_commands import add_client_commands, run_client_command
from scene_sim_ros.cli.engine_choice import add_engine_flags, engine_choice
from scene_sim_ros.errors import SceneLoadError, SceneSimError
from scene_sim_ros.ros.options import (
    add_run_flags,
    run_flag_setting,
    run_parameters,
    run_ros_arguments,
    run_values,
)

if TYPE_CHECKING:
    from scene_sim_ros.scene import Scene

EXIT_SCENE_ERROR = 2

EPILOG = """\
examples:
  scene-sim-ros run                                   # the bundled default scene, headless
  scene-sim-ros examples                              # the example scenes that ship
  scene-sim-ros run car --real-time-factor 0          # an example by name, as fast as possible
  scene-sim-ros run webots_scout.wbt --paused --namespace /sim
  scene-sim-ros inspect raisim_world --json | python3 -m json.tool
  scene-sim-ros urdf car.ros2 --entity car > car.urdf
  scene-sim-ros topics arm

while `run` is going, from another terminal (ros2cli's jobs, for machines without it):
""" + CLIENT_EPILOG


def _matching_option(name: str, value: str) -> str | None:
    """The ``run`` option that sets node parameter ``name`` to ``value``, if there is one
    (``run -p real_time_factor:=0`` is a ROS habit)."""
    line = run_flag_setting(name)
    if line is None:
        return None
    flag, action = line.run_flag_name, line.run_flag.get('action')
    if action not in ('store_true', argparse.BooleanOptionalAction):
        return f'{flag} {value}'
    if value.strip().lower() in ('false', 'no', 'off', '0'):
        return f'--no-{flag[2:]}' if action is argparse.BooleanOptionalAction else f'leaving out {flag}'
    return flag


def _version() -> str:
    """The installed distribution's version, else package.xml's (a source checkout)."""
    from importlib import metadata
    try:
        return metadata.version('scene_sim_ros')
    except metadata.PackageNotFoundError:
        import re
        xml = Path(__file__).resolve().parents[1] / 'package.xml'
        match = re.search(r'<version>\s*([^<\s]+)', xml.read_text()) if xml.exists() else None
        return match.group(1) if match else 'unknown'


def _parameters(text: Sequence[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in text:
        name, sep, value = item.partition('=')
        if not sep or not name:
            raise argparse.ArgumentTypeError(f'expected NAME=VALUE, got {item!r}')
        if name.endswith(':'):  # NAME:=VALUE: a ROS node parameter, not a scene template one
            name = name[:-1]
            option = _matching_option(name, value)
            hint = f' or {option}' if option else ''
            raise argparse.ArgumentTypeError(
                f'-p {item} is ROS syntax for a node parameter: use --ros-args -p {item}{hint} '
                '(-p/--param NAME=VALUE sets a template parameter of the scene)')
        params[name] = value
    return params


def _add_scene_args(parser: argparse.ArgumentParser, *, optional: bool = False) -> None:
    if optional:
        parser.add_argument('scene', nargs='?', help='scene file or example name (default: the '
                                                     'bundled scene)')
    else:
        parser.add_argument('scene', help='scene file (.ros2/.rsi2/.ros3, .wbt, Simox or RaiSim '
                                          '.xml, .urdf) or example name (see `examples`)')
    parser.add_argument('--param', '-p', action='append', default=[], metavar='NAME=VALUE',
                        help='a template parameter of the scene (RaiSim @@NAME); repeatable')
    parser.add_argument('--strict', action='store_true',
                        help='treat unknown elements and attributes as errors')
    parser.add_argument('--offline', action='store_true',
                        help='never download (Webots remote PROTOs, meshes, textures: only the '
                             'local files, WEBOTS_HOME and the cache)')


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='scene-sim-ros',
        description='Robot scene files (SimRobot, Webots, Simox, RaiSim) simulated in PyBullet '
                    'and bridged to ROS 2.',
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--version', action='version', version=f'%(prog)s {_version()}')
    commands = parser.add_subparsers(dest='command', metavar='COMMAND')

    inspect = commands.add_parser(
        'inspect', help='load a scene and print a summary',
        description='Load a scene and print a summary (exit 2 with file:line: message on a bad '
                    'scene).',
        epilog='examples:\n  scene-sim-ros inspect car.ros2\n'
               '  scene-sim-ros inspect raisim_world.xml --param box_count=5 --json',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_scene_args(inspect)
    inspect.add_argument('--json', action='store_true', help='print one JSON object')
    add_engine_flags(inspect)  # --engine, --params-file: which engine run would use, and why

    run = commands.add_parser(
        'run', help='run the ROS 2 node on a scene (headless by default)',
        description='Run the simulation node. Options mirror the arguments of '
                    '`ros2 launch scene_sim_ros sim.launch.py` one for one; anything after '
                    '--ros-args goes to ROS.',
        epilog='example: scene-sim-ros run car.ros2 --real-time-factor 2',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_scene_args(run, optional=True)
    add_run_flags(run)  # --namespace, --gui, ... (the option table, ros/options.py)

    urdf = commands.add_parser(
        'urdf', help="print one entity's URDF (its robot_description)",
        description="Print one entity's URDF (its robot_description); meshes are written as "
                    'files and referenced with file:// URIs.',
        epilog='example:\n  scene-sim-ros urdf car.ros2 --entity car > car.urdf',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_scene_args(urdf)
    urdf.add_argument('--entity', required=True, help='entity name (see inspect)')
    urdf.add_argument('--mesh-dir', type=Path, default=None,
                      help='where mesh files are written (default: a cache directory)')
    urdf.add_argument('--ros2-control', action='store_true',
                      help='add a <ros2_control> tag for topic_based_ros2_control: '
                           'controller_manager drives the entity through <entity>/joint_commands '
                           'and <entity>/joint_states')
    urdf.add_argument('--namespace', default='',
                      help="the node's namespace, for the topics of --ros2-control")

    topics = commands.add_parser(
        'topics', help='list what run would publish and subscribe',
        description='List the topics and services of `run` on that scene.',
        epilog='example:\n  scene-sim-ros topics webots_scout --namespace /sim',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_scene_args(topics)
    topics.add_argument('--namespace', default='', help='as for run')
    layout = commands.add_parser(
        'layout', help='write a Foxglove / Lichtblick layout for a scene',
        description='Print (or write) a Foxglove / Lichtblick layout for the scene: a 3D panel '
                    'with every robot model on its frames, and image panels for its first camera '
                    'and depth camera. Import it in the viewer (Layouts -> Import).',
        epilog='example:\n  scene-sim-ros layout webots_scout -o scout-layout.json',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_scene_args(layout)
    layout.add_argument('--output', '-o', type=Path, default=None,
                        help='write the layout here (default: print it)')
    add_client_commands(commands)  # list, echo, hz, send, snapshot, pause, ... (client_commands.py)
    add_batch_command(commands)  # batch (batch/cli.py)

    fetch = commands.add_parser(
        'fetch', help='download what Webots worlds need into the cache (to run offline later)',
        description='Load each Webots world with downloads on, filling the user cache with its '
                    'remote PROTOs, meshes and textures, and print where each came from.',
        epilog='example:\n  scene-sim-ros fetch worlds/*.wbt --param webots.cache_dir=/opt/cache',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    fetch.add_argument('worlds', nargs='+', metavar='WORLD', help='Webots world files')
    fetch.add_argument('--param', '-p', action='append', default=[], metavar='NAME=VALUE',
                       help='a scene parameter (webots.cache_dir, webots.proto_path, ...)')

    commands.add_parser(
        'examples', help='list the example scenes that ship with the package',
        description='List the example scenes that ship with the package: name, format, file and '
                    'what it holds. Every command that takes a SCENE also takes an example name '
                    '(an existing file of that name wins).',
        epilog='examples:\n  scene-sim-ros examples\n  scene-sim-ros run arm',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser


def cmd_examples(args: argparse.Namespace) -> int:
    from scene_sim_ros.resources import example_description, example_format, example_names, example_path
    rows = [(name, example_format(path), str(path), example_description(path))
            for name, path in ((n, example_path(n)) for n in example_names())]
    width = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(('name', 'format'))]
    for name, fmt, path, description in rows:
        print(f'{name:<{width[0]}}  {fmt:<{width[1]}}  {path}')
        print(f'{"":<{width[0]}}  {description}')
    return 0


def _scene_argument(value: str | None) -> str | None:
    """A SCENE argument (see :func:`.resources.resolve_scene`)."""
    from scene_sim_ros.resources import resolve_scene
    return None if value is None else resolve_scene(value)


def _scene_parameters(args: argparse.Namespace) -> dict[str, str]:
    parameters = _parameters(args.param)
    if getattr(args, 'offline', False):
        parameters['webots.download'] = 'false'
    return parameters


def _load(args: argparse.Namespace) -> Scene:
    from scene_sim_ros.formats import load_scene
    return load_scene(args.scene, parameters=_scene_parameters(args), strict=args.strict)


def cmd_inspect(args: argparse.Namespace) -> int:
    from scene_sim_ros.scene.summary import scene_summary, summary_text
    started = time.perf_counter()
    engine = engine_choice(args.engine, args.params_file)
    scene = _load(args)
    protos = scene.metadata.get('webots_protos', {})
    if args.json:
        json.dump({**scene_summary(scene), 'engine': engine.summary(),
                   **({'protos': protos} if protos else {})}, sys.stdout)
        sys.stdout.write('\n')
    else:
        print(summary_text(scene, notes=[engine.line()]))
        for name, (source, location) in sorted(protos.items()):
            print(f'  PROTO {name}: {source} ({location})')
        print(f'  loaded in {time.perf_counter() - started:.2f} s')
    return 0


def cmd_urdf(args: argparse.Namespace) -> int:
    from scene_sim_ros.sim.urdf import entity_to_urdf
    scene = _load(args)
    try:
        entity = scene.entity(args.entity)
    except KeyError:
        names = ', '.join(scene.entity_names())
        print(f'{args.scene}: no entity {args.entity!r}; entities: {names}', file=sys.stderr)
        return EXIT_SCENE_ERROR
    topics = None
    if args.ros2_control:
        from scene_sim_ros.ros.bridge.names import ros_name
        base = '/'.join(part for part in (args.namespace.strip('/'), ros_name(entity.name))
                        if part)
        topics = (f'/{base}/joint_commands', f'/{base}/joint_states')
    sys.stdout.write(entity_to_urdf(entity, mesh_dir=args.mesh_dir, ros2_control=topics))
    return 0


def cmd_topics(args: argparse.Namespace) -> int:
    from scene_sim_ros.ros.runtime.interface_list import interface_listing
    scene = _load(args)
    print(interface_listing(scene, namespace=args.namespace))
    return 0


def cmd_layout(args: argparse.Namespace) -> int:
    import json

    from scene_sim_ros.ros.outputs.viewer_layout import layout_for
    text = json.dumps(layout_for(_load(args)), indent=2) + '\n'
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text)
        print(f'wrote {args.output}')
    return 0


def cmd_run(args: argparse.Namespace, ros_args: list[str]) -> int:
    from scene_sim_ros.ros.runtime.node import run
    # Options given on the command line win over --params-file; the defaults only apply when no
    # parameters file could set them (rclpy lets overrides win over the file).
    values = run_values(args)
    parameters = run_parameters(values, params_file=args.params_file is not None)
    if args.param or args.offline:
        parameters['scene_parameters'] = [f'{k}={v}' for k, v in _scene_parameters(args).items()]
    if args.strict:
        parameters['strict'] = True
    if args.robot_state_publisher and not _start_robot_state_publishers(args):
        return EXIT_SCENE_ERROR
    if args.rviz:
        _start_rviz()
    extra = run_ros_arguments(values)  # the namespace, the parameters file
    ros = ['--ros-args', *extra, *ros_args] if (extra or ros_args) else []
    return run(args.scene, parameters=parameters, ros_args=ros)


def _start_robot_state_publishers(args: argparse.Namespace) -> bool:
    import shutil
    import subprocess
    import tempfile

    from scene_sim_ros.ros.robot_state_publishers import robot_state_publishers
    ros2 = shutil.which('ros2')
    if ros2 is None:
        print('--robot-state-publisher needs a ROS 2 distribution (ros2 run '
              'robot_state_publisher); not found on PATH', file=sys.stderr)
        return False
    for publisher in robot_state_publishers(
            args.scene, namespace=args.namespace, isolate=bool(args.isolate),
            use_sim_time=args.use_sim_time is not False, scene_parameters=_parameters(args.param)):
        with tempfile.NamedTemporaryFile('w', suffix='.urdf', delete=False) as urdf:
            urdf.write(publisher.urdf)
        subprocess.Popen([ros2, 'run', 'robot_state_publisher', 'robot_state_publisher',
                          urdf.name, '--ros-args', *publisher.ros_arguments()])
    return True


def _start_rviz() -> None:
    import shutil
    import subprocess

    from scene_sim_ros.resources import config_path
    rviz_config = config_path('scene_sim_ros.rviz')
    rviz = shutil.which('rviz2')
    if rviz is None:
        print(f'rviz2 is not installed here; on a ROS 2 machine run: rviz2 -d {rviz_config}',
              file=sys.stderr)
        return
    subprocess.Popen([rviz, '-d', str(rviz_config)])


def _show_native_crashes() -> None:
    """A crash in native code (rclpy, DDS, PyBullet) then prints where it happened on stderr
    (not where stderr is no file, e.g. captured by a caller)."""
    try:
        faulthandler.enable()
    except (AttributeError, OSError, ValueError):   # io.UnsupportedOperation is an OSError
        pass


def main(argv: Sequence[str] | None = None) -> int:
    _show_native_crashes()
    argv = list(sys.argv[1:] if argv is None else argv)
    ros_args: list[str] = []
    if '--ros-args' in argv:  # everything from --ros-args on belongs to ROS
        cut = argv.index('--ros-args')
        argv, ros_args = argv[:cut], argv[cut + 1:]
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        _parameters(getattr(args, 'param', []))  # NAME=VALUE (and not ROS's NAME:=VALUE) first
        if isinstance(getattr(args, 'scene', None), str):
            args.scene = _scene_argument(args.scene)
        if args.command == 'run':
            return cmd_run(args, ros_args)
        if args.command == 'fetch':
            from scene_sim_ros.formats.webots.fetch import fetch_worlds
            return fetch_worlds(args.worlds, _parameters(args.param), sys.stdout)
        if args.command in CLIENT_COMMANDS:
            return run_client_command(args)
        return {'inspect': cmd_inspect, 'urdf': cmd_urdf, 'topics': cmd_topics,
                'layout': cmd_layout,
                'examples': cmd_examples, 'batch': cmd_batch}[args.command](args)
    except SceneLoadError as err:
        print(str(err), file=sys.stderr)
        return EXIT_SCENE_ERROR
    except argparse.ArgumentTypeError as err:
        print(f'{parser.prog} {args.command}: error: {err}', file=sys.stderr)
        return EXIT_SCENE_ERROR
    except SceneSimError as err:
        print(f'error: {err}', file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except Exception as err:  # noqa: BLE001 - one line instead of a traceback
        if os.environ.get('SCENE_SIM_ROS_DEBUG'):
            raise
        print(f'internal error (a bug in scene-sim-ros, please report it): '
              f'{type(err).__name__}: {err}; SCENE_SIM_ROS_DEBUG=1 shows the traceback',
              file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
