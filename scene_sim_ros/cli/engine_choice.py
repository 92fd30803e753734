"""Which physics engine ``scene-sim-ros run`` would use, and why, for ``inspect``.

As the node resolves its parameter ``engine``: ``--engine`` wins (the command line's options win
over the parameters file), then ``engine`` in ``--params-file``, then the default (the first of
:data:`~scene_sim_ros.sim.engines.ENGINES`). A parameters file is read as rcl reads one for our
node: the ``ros__parameters`` of every top-level key that names it (``/**``, ``scene_sim``,
``/<namespace>/scene_sim``, a ``*`` in place of the name), later keys over earlier ones; the
namespace is not checked (``inspect`` has none).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scene_sim_ros.ros.options import option
from scene_sim_ros.sim.engines import ENGINES

NODE_NAME = 'scene_sim'  # ros/runtime/node.py NODE_NAME (importing it would load rclpy)
NODE_KEYS = (NODE_NAME, '*', '**')
"""Last parts of a parameters file's top-level key that name our node."""


@dataclass(frozen=True)
class EngineChoice:
    """The engine and what chose it: ``'flag'`` (``--engine``), ``'parameter'`` (``engine`` in
    the parameters file ``source``) or ``'default'``."""

    engine: str
    chosen_by: str
    source: str = ''

    def reason(self) -> str:
        if self.chosen_by == 'flag':
            return '--engine'
        if self.chosen_by == 'parameter':
            return f'parameter engine in {self.source}'
        others = ', '.join(e for e in ENGINES if e != self.engine)
        return f'the default; --engine or the parameter engine choose {others}'

    def line(self) -> str:
        return f'engine: {self.engine} ({self.reason()})'

    def summary(self) -> dict[str, str]:
        return {'name': self.engine, 'chosen_by': self.chosen_by, 'reason': self.reason()}


def add_engine_flags(parser: argparse.ArgumentParser) -> None:
    """``--engine`` as ``run`` has it (the option table's flag), and ``--params-file``."""
    line = option('engine').command_line
    assert line is not None and line.run_help is not None
    parser.add_argument(line.run_flag_name, help=f'{line.run_help}; as for run', **line.run_flag)
    parser.add_argument('--params-file', type=Path, default=None, metavar='FILE',
                        help='a ROS parameters YAML file, as for run (its engine parameter)')


def engine_choice(flag: str | None, params_file: Path | None) -> EngineChoice:
    """The engine ``run`` would use with ``--engine flag`` and ``--params-file params_file``
    (either None: not given). ArgumentTypeError for a file that cannot be read or that names an
    engine the node does not know (the node would refuse to start)."""
    if flag is not None:
        return EngineChoice(flag, 'flag')
    engine = None if params_file is None else params_file_engine(params_file)
    if engine is None:
        return EngineChoice(ENGINES[0], 'default')
    if engine not in ENGINES:
        raise argparse.ArgumentTypeError(
            f'{params_file}: engine {engine!r} is not known; engines: {", ".join(ENGINES)}')
    return EngineChoice(engine, 'parameter', str(params_file))


def params_file_engine(path: Path) -> Any:
    """The value of parameter ``engine`` for our node in the parameters file ``path`` (None:
    the file does not set it)."""
    import yaml
    try:
        document = yaml.safe_load(path.read_text(encoding='utf-8'))
    except OSError as err:
        raise argparse.ArgumentTypeError(f'{path}: cannot read: {err.strerror}') from None
    except yaml.YAMLError as err:
        raise argparse.ArgumentTypeError(f'{path}: not YAML: {err}'.splitlines()[0]) from None
    engine = None
    for key, section in (document or {}).items() if isinstance(document, dict) else ():
        if str(key).strip('/').split('/')[-1] in NODE_KEYS and isinstance(section, dict):
            parameters = section.get('ros__parameters')
            if isinstance(parameters, dict) and 'engine' in parameters:
                engine = parameters['engine']
    return engine
