"""The ``scene-sim-ros`` commands that talk to a running simulation (ros2cli's jobs for machines
without ros2cli): ``list``, ``echo``, ``hz``, ``send``, ``snapshot``, the supervisor commands
(``pause``, ``play``, ``step``, ``reset``, ``state``, ``entities``, ``spawn``, ``delete``,
``set-pose``), ``param get|set|list``, ``record`` and ``bag info``.

This module only builds their argument parsers and dispatches; rclpy is imported when one of
them runs (:mod:`.client`, :mod:`.client.tools`). Exit status: 0 done; 2 a user error (bad
value, unknown name, a request the simulation refused), one line on stderr; 1 nothing answered.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

RAW = argparse.RawDescriptionHelpFormatter

EPILOG_LINES = """\
  scene-sim-ros list                                  # live topics and services (ros2 topic list)
  scene-sim-ros echo /rover/joint_states --once       # one message as YAML (ros2 topic echo)
  scene-sim-ros echo /clock --field clock.sec --rate 1
  scene-sim-ros hz /clock --count 200                 # receive rate (ros2 topic hz)
  scene-sim-ros send rover pan_joint=1.0 tilt_joint=0.3
  scene-sim-ros snapshot /rover/camera/image_raw camera.png
  scene-sim-ros pause; scene-sim-ros step 10; scene-sim-ros play
  scene-sim-ros state; scene-sim-ros entities; scene-sim-ros reset
  scene-sim-ros spawn ball2 scene_sim_ros/data/scenes/default.ros2#ball --pose 1 1 0.5
  scene-sim-ros set-pose rover 0 1 0.1 0 0 1.57; scene-sim-ros delete ball2
  scene-sim-ros worlds; scene-sim-ros load car; scene-sim-ros unload   # worlds (load_world)
  scene-sim-ros spawnables; scene-sim-ros bounds ball; scene-sim-ros poses
  scene-sim-ros param list; scene-sim-ros param set real_time_factor 2.0
  scene-sim-ros record run.mcap /rover/* /tf /clock  # rosbag2 MCAP (ros2 bag record -s mcap)
  scene-sim-ros bag info run.mcap                     # topics, counts, rates (ros2 bag info)
"""

COMMANDS = ('list', 'echo', 'hz', 'send', 'snapshot', 'pause', 'play', 'step', 'reset', 'state',
            'entities', 'spawn', 'delete', 'set-pose', 'worlds', 'load', 'unload', 'spawnables',
            'bounds', 'poses', 'param', 'record', 'bag')


def _namespace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--namespace', default='/', metavar='NS',
                        help="the simulation's namespace (run --namespace; default /)")


def _timeout(parser: argparse.ArgumentParser, default: float) -> None:
    parser.add_argument('--timeout', type=float, default=default, metavar='S',
                        help=f'seconds to wait for the simulation to answer (default {default:g})')


def _command(commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str, help: str,
             description: str, examples: str) -> argparse.ArgumentParser:
    return commands.add_parser(name, help=help, description=description,
                               epilog='examples:\n' + examples, formatter_class=RAW)


def add_client_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the client commands to the ``scene-sim-ros`` sub-command parsers."""
    listing = _command(commands, 'list', 'list the topics and services of the running ROS graph',
                       'List the topics and services of the running ROS graph (like ros2 topic '
                       'list / ros2 service list, for machines without ros2cli).',
                       '  scene-sim-ros list\n  scene-sim-ros list --json')
    listing.add_argument('--wait', type=float, default=2.0, help='seconds of discovery')
    listing.add_argument('--json', action='store_true', help='one JSON object')

    echo = _command(commands, 'echo', 'print the messages of a topic (ros2 topic echo)',
                    'Print the messages of a topic as YAML documents, like ros2 topic echo. '
                    "The type comes from the graph and the publishers' QoS is matched "
                    '(latched and best-effort topics work). Arrays longer than 32 items are '
                    'cut to their first 8 unless --full. Ctrl-C stops.',
                    '  scene-sim-ros echo /rover/joint_states --once\n'
                    '  scene-sim-ros echo /clock --rate 1 --field clock.sec\n'
                    '  scene-sim-ros echo /rover/robot_description --once --field data\n'
                    '  scene-sim-ros echo /rover/imu/data_raw --json --count 5')
    echo.add_argument('topic')
    echo.add_argument('--once', action='store_true', help='print one message and exit')
    echo.add_argument('--count', type=int, default=None, metavar='N',
                      help='print N messages and exit')
    echo.add_argument('--rate', type=float, default=None, metavar='HZ',
                      help='print at most HZ messages per second (wall clock)')
    echo.add_argument('--field', default=None, metavar='A.B',
                      help='print only this field (dotted; array items by index: position.0)')
    echo.add_argument('--full', action='store_true', help='print long arrays whole')
    echo.add_argument('--json', action='store_true', help='one JSON object per line')
    echo.add_argument('--timeout', type=float, default=None, metavar='S',
                      help='give up after S seconds (exit 1 if --once/--count is not met)')

    hz = _command(commands, 'hz', 'print the receive rate of a topic (ros2 topic hz)',
                  'Print the rate at which messages arrive, every second: average rate and '
                  'min/max/standard deviation of the periods over the last --window messages, '
                  'like ros2 topic hz. Ctrl-C or --count stops.',
                  '  scene-sim-ros hz /clock\n  scene-sim-ros hz /rover/joint_states --count 100 '
                  '--json')
    hz.add_argument('topic')
    hz.add_argument('--window', type=int, default=10000, metavar='N',
                    help='messages the statistics cover (default 10000)')
    hz.add_argument('--count', type=int, default=None, metavar='N',
                    help='stop after N messages and print the result')
    hz.add_argument('--json', action='store_true', help='one JSON object at the end')
    hz.add_argument('--timeout', type=float, default=None, metavar='S', help='stop after S seconds')

    send = _command(commands, 'send', 'send one joint command to a running simulation',
                    'Publish one sensor_msgs/JointState on <entity>/joint_commands. Values must '
                    'be finite numbers and joints movable joints of the live robot; afterwards '
                    "the node's rejection counter (scene_sim/rejected_commands) tells whether "
                    'the command was accepted (exit 1 if it was rejected).',
                    '  scene-sim-ros send rover pan_joint=1.0 tilt_joint=0.3\n'
                    '  scene-sim-ros send rover left_wheel_joint=5 right_wheel_joint=5 --velocity\n'
                    '  scene-sim-ros send rover pan_joint=0.5 --namespace /sim')
    send.add_argument('entity', help='robot entity (see entities)')
    send.add_argument('joints', nargs='+', metavar='JOINT=VALUE')
    kind = send.add_mutually_exclusive_group()
    kind.add_argument('--velocity', dest='kind', action='store_const', const='velocity',
                      help='velocities (rad/s, m/s) instead of positions')
    kind.add_argument('--effort', dest='kind', action='store_const', const='effort',
                      help='efforts (N*m, N) instead of positions')
    send.add_argument('--no-check', dest='check', action='store_false',
                      help='send joints the client cannot verify (the node still checks)')
    _namespace(send)
    _timeout(send, 10.0)

    snapshot = _command(commands, 'snapshot', 'save one image of a running camera as PNG',
                        'Receive one sensor_msgs/Image and write it as a PNG file; a topic '
                        'that carries no images is answered with the image topics there are.',
                        '  scene-sim-ros snapshot /rover/camera/image_raw camera.png')
    snapshot.add_argument('topic')
    snapshot.add_argument('file', type=Path)
    snapshot.add_argument('--timeout', type=float, default=15.0)

    simple = {'pause': 'pause the simulation (time stops; step works)',
              'play': 'let the simulation run again',
              'state': 'print the simulation state (playing, paused, stopped)'}
    for name, text in simple.items():
        command = _command(commands, name, text, text[0].upper() + text[1:] + ', through the '
                           f'{"get" if name == "state" else "set"}_simulation_state service.',
                           f'  scene-sim-ros {name}\n  scene-sim-ros {name} --namespace /sim')
        _namespace(command)
        _timeout(command, 10.0)
        if name == 'state':
            command.add_argument('--json', action='store_true', help='one JSON object')

    step = _command(commands, 'step', 'advance a paused simulation by N steps',
                    'Advance a paused simulation by N physics steps (step_simulation); /clock '
                    'moves by N x the step length.',
                    '  scene-sim-ros pause && scene-sim-ros step 100')
    step.add_argument('steps', type=int, metavar='N', nargs='?', default=1)
    _namespace(step)
    _timeout(step, 60.0)

    reset = _command(commands, 'reset', 'reset the simulation to its loaded state',
                     'Reset the simulation (reset_simulation). all: everything as loaded '
                     '(spawned entities removed); state: poses, velocities and joints only; '
                     'spawned: only remove spawned entities. Sim time keeps increasing.',
                     '  scene-sim-ros reset\n  scene-sim-ros reset --scope state')
    reset.add_argument('--scope', choices=('all', 'state', 'spawned'), default='all')
    _namespace(reset)
    _timeout(reset, 30.0)

    entities = _command(commands, 'entities', 'list the entities with their poses',
                        'List the entities of the simulation: category, world position and '
                        'tags (get_entities_states, get_entity_info).',
                        '  scene-sim-ros entities\n  scene-sim-ros entities --filter ^wall --json')
    entities.add_argument('--filter', default='', metavar='REGEX',
                          help='only names this regular expression matches')
    entities.add_argument('--json', action='store_true', help='one JSON list')
    _namespace(entities)
    _timeout(entities, 10.0)

    _world_commands(commands)

    spawn = _command(commands, 'spawn', 'add an entity to the running simulation',
                     'Spawn an entity (spawn_entity). SOURCE: a scene file with #ENTITY (any '
                     'format the node loads), a SimRobot <Body>/<Compound> file, a file:// URI, '
                     'or the SimRobot XML itself. --pose x y z [roll pitch yaw] in metres and '
                     'radians, in the world frame (or --frame).',
                     '  scene-sim-ros spawn ball2 scene_sim_ros/data/scenes/default.ros2#ball '
                     '--pose 1 0 0.5\n'
                     '  scene-sim-ros spawn rover2 scene_sim_ros/data/scenes/default.ros2#rover '
                     '--pose 0 2 0 0 0 3.14')
    spawn.add_argument('name', help="the new entity's name (a ROS name token)")
    spawn.add_argument('source', help='FILE#ENTITY, FILE, file:// URI or XML text')
    spawn.add_argument('--pose', nargs='+', default=None, metavar='V',
                       help='x y z [roll pitch yaw]')
    spawn.add_argument('--frame', default='', help='reference frame of --pose (default world)')
    spawn.add_argument('--allow-renaming', action='store_true',
                       help='take NAME_2, NAME_3, ... if NAME is taken')
    _namespace(spawn)
    _timeout(spawn, 30.0)

    delete = _command(commands, 'delete', 'remove an entity from the running simulation',
                      'Remove an entity, its topics and its frames (delete_entity).',
                      '  scene-sim-ros delete ball')
    delete.add_argument('name')
    _namespace(delete)
    _timeout(delete, 30.0)

    set_pose = _command(commands, 'set-pose', 'teleport an entity',
                        "Move an entity's root to a pose (set_entity_state): x y z [roll pitch "
                        'yaw], metres and radians, in the world frame (or --frame).',
                        '  scene-sim-ros set-pose ball 1 2 0.5\n'
                        '  scene-sim-ros set-pose rover 0 0 0.1 0 0 1.57')
    set_pose.add_argument('name')
    set_pose.add_argument('pose', nargs='+', metavar='V', help='x y z [roll pitch yaw]')
    set_pose.add_argument('--frame', default='', help='reference frame (default world)')
    _namespace(set_pose)
    _timeout(set_pose, 10.0)

    param = _command(commands, 'param', "get, set or list the simulation node's parameters",
                     "The node's parameters (ros2 param get|set|list). set parses VALUE like "
                     'ros2 param set: true/false, integers, floats, strings, [a, b] arrays.',
                     '  scene-sim-ros param list\n  scene-sim-ros param get real_time_factor\n'
                     '  scene-sim-ros param set real_time_factor 0.5\n'
                     '  scene-sim-ros param set paused true')
    actions = param.add_subparsers(dest='param_command', metavar='get|set|list', required=True)
    get = actions.add_parser('get', help='print one parameter')
    get.add_argument('name')
    get.add_argument('--json', action='store_true', help='one JSON object')
    put = actions.add_parser('set', help='set one parameter')
    put.add_argument('name')
    put.add_argument('value')
    lst = actions.add_parser('list', help='print the parameter names')
    lst.add_argument('--json', action='store_true', help='one JSON list')
    for sub in (get, put, lst):
        _namespace(sub)
        sub.add_argument('--node', default='scene_sim', help='node name (default scene_sim)')
        _timeout(sub, 10.0)

    rec = _command(commands, 'record', 'record the topics of a running simulation (rosbag2 MCAP)',
                   'Record what the running simulation node publishes into a rosbag2 MCAP file '
                   '(what ros2 bag record -s mcap writes; ros2 bag, Foxglove and rosbags open '
                   'it), stamped with its /clock, until Ctrl-C. TOPIC arguments are globs '
                   '(/rover/*); none: every topic. In the simulation process itself: run '
                   '--record FILE.mcap.',
                   '  scene-sim-ros record run.mcap\n'
                   "  scene-sim-ros record cams.mcap '*image_raw' /tf /tf_static /clock "
                   '--duration 10')
    rec.add_argument('file', metavar='FILE.mcap')
    rec.add_argument('topics', nargs='*', metavar='TOPIC', help='topic globs (default: all)')
    rec.add_argument('--duration', type=float, default=None, metavar='S',
                     help='stop after S seconds (wall clock)')
    rec.add_argument('--max-size-mb', type=float, default=0, metavar='MB',
                     help='stop once the file is this big')
    rec.add_argument('--node', default='scene_sim', help='node name (default scene_sim)')
    _namespace(rec)
    _timeout(rec, 10.0)

    bag = _command(commands, 'bag', 'inspect a recording (ros2 bag info), repair a cut one',
                   'info: topics, types, message counts, rates and duration of an MCAP recording '
                   '(also one cut short by a kill or a full disk: read up to where it stops). '
                   'recover: rewrite such a file with its index, summary and rosbag2 metadata, '
                   'so that ros2 bag and rosbags open it (like mcap recover).',
                   '  scene-sim-ros bag info run.mcap\n  scene-sim-ros bag info run.mcap --json\n'
                   '  scene-sim-ros bag recover run.mcap')
    bag_actions = bag.add_subparsers(dest='bag_command', metavar='info|recover', required=True)
    info = bag_actions.add_parser('info', help='summarise a recording')
    info.add_argument('file', metavar='FILE')
    info.add_argument('--json', action='store_true', help='one JSON object')
    recover = bag_actions.add_parser('recover', help='make a cut recording complete')
    recover.add_argument('file', metavar='FILE')
    recover.add_argument('-o', '--output', default=None, metavar='OUT.mcap',
                         help='write here (default: replace FILE once the new file is whole)')


def _world_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    worlds = _command(commands, 'worlds', 'list the worlds load can load',
                      'The worlds of the simulation (get_available_worlds): the examples, the '
                      'default scene and the scene files of the worlds.paths folders, with '
                      'their tags (format, robot:NAME, sensor:KIND, example/default/folder).',
                      '  scene-sim-ros worlds\n  scene-sim-ros worlds --tag webots --json')
    worlds.add_argument('--tag', action='append', default=[], help='only worlds with this tag '
                        '(repeat: any of them)')
    poses = _command(commands, 'poses', 'list the named poses',
                     'Named poses (get_named_poses): where each entity starts, and the '
                     'named_poses file of the node.', '  scene-sim-ros poses --tag spawn')
    poses.add_argument('--tag', action='append', default=[], help='only poses with this tag')
    load = _command(commands, 'load', 'replace the world',
                    'Load a world (load_world): a name from `worlds`, a scene file of the '
                    'allowed folders or its URI. Sim time goes on; play/pause is kept.',
                    '  scene-sim-ros load car\n  scene-sim-ros load default')
    load.add_argument('world', help='world name, scene file or URI')
    unload = _command(commands, 'unload', 'leave the simulation without a world',
                      'Unload the world (unload_world): no entities, paused, state "no world".',
                      '  scene-sim-ros unload')
    spawnables = _command(commands, 'spawnables', 'list what spawn takes by URI',
                          'The entities of every world as spawn URIs (get_spawnables).',
                          '  scene-sim-ros spawnables')
    bounds = _command(commands, 'bounds', "an entity's bounding box",
                      "An entity's axis-aligned box in its own frame (get_entity_bounds).",
                      '  scene-sim-ros bounds ball')
    bounds.add_argument('name')
    for parser in (worlds, poses, spawnables, bounds):
        parser.add_argument('--json', action='store_true', help='JSON')
    for parser in (worlds, poses, load, unload, spawnables, bounds):
        _namespace(parser)
        _timeout(parser, 30.0)


def run_client_command(args: argparse.Namespace) -> int:
    """Run one client command; user errors -> one line on stderr and 2, no answer -> 1."""
    from scene_sim_ros.cli.client.session import Unreachable, UserError
    try:
        return _dispatch(args)
    except (UserError, Unreachable) as err:
        print(f'error: {err}', file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        return 0


def _dispatch(a: argparse.Namespace) -> int:  # noqa: C901 (one line per command)
    from scene_sim_ros.cli.client import param_tools, send, topic_tools
    from scene_sim_ros.cli.client import supervisor_tools as sv
    ns = a.namespace if hasattr(a, 'namespace') else '/'
    if a.command == 'list':
        from scene_sim_ros.cli.client.tools import list_graph
        return list_graph(a.wait, as_json=a.json)
    if a.command == 'snapshot':
        from scene_sim_ros.cli.client.tools import save_snapshot
        return save_snapshot(a.topic, a.file, a.timeout)
    if a.command == 'echo':
        return topic_tools.echo(a.topic, once=a.once, count=a.count, rate=a.rate, field=a.field,
                                full=a.full, as_json=a.json, timeout=a.timeout)
    if a.command == 'hz':
        return topic_tools.hz(a.topic, window=a.window, count=a.count, as_json=a.json,
                              timeout=a.timeout)
    if a.command == 'send':
        return send.send(a.entity, a.joints, a.kind or 'position', ns, a.timeout, a.check)
    if a.command == 'pause':
        return sv.pause(ns, a.timeout)
    if a.command == 'play':
        return sv.play(ns, a.timeout)
    if a.command == 'state':
        return sv.state(ns, a.json, a.timeout)
    if a.command == 'step':
        return sv.step(a.steps, ns, a.timeout)
    if a.command == 'reset':
        return sv.reset(a.scope, ns, a.timeout)
    if a.command == 'entities':
        return sv.entities(ns, a.filter, a.json, a.timeout)
    if a.command == 'spawn':
        return sv.spawn(a.name, a.source, a.pose, frame=a.frame, allow_renaming=a.allow_renaming,
                        namespace=ns, timeout=a.timeout)
    if a.command == 'delete':
        return sv.delete(a.name, ns, a.timeout)
    if a.command == 'set-pose':
        return sv.set_pose(a.name, a.pose, frame=a.frame, namespace=ns, timeout=a.timeout)
    if a.command in ('worlds', 'load', 'unload', 'spawnables', 'bounds', 'poses'):
        return _world_dispatch(a, ns)
    if a.command in ('record', 'bag'):
        from scene_sim_ros.cli.client import bag_tools
        if a.command == 'bag' and a.bag_command == 'recover':
            from scene_sim_ros.cli.client.bag_recover import bag_recover
            return bag_recover(a.file, a.output)
        if a.command == 'bag':
            return bag_tools.bag_info(a.file, as_json=a.json)
        return bag_tools.record(a.file, a.topics, namespace=ns, node_name=a.node,
                                duration=a.duration, max_size_mb=a.max_size_mb, wait=a.timeout)
    if a.param_command == 'list':
        return param_tools.list_parameters(ns, a.node, a.json, a.timeout)
    if a.param_command == 'get':
        return param_tools.get_parameter(a.name, ns, a.node, a.json, a.timeout)
    return param_tools.set_parameter(a.name, a.value, ns, a.node, a.timeout)


def _world_dispatch(a: argparse.Namespace, ns: str) -> int:
    from scene_sim_ros.cli.client import world_tools as wt
    if a.command == 'worlds':
        return wt.worlds(a.tag, ns, a.json, a.timeout)
    if a.command == 'load':
        return wt.load(a.world, ns, a.timeout)
    if a.command == 'unload':
        return wt.unload(ns, a.timeout)
    if a.command == 'spawnables':
        return wt.spawnables(ns, a.json, a.timeout)
    if a.command == 'bounds':
        return wt.bounds(a.name, ns, a.json, a.timeout)
    return wt.poses(a.tag, ns, a.json, a.timeout)
