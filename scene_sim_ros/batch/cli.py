"""``scene-sim-ros batch SPEC.yaml``: the command line of :func:`~.driver.run_batch`."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable

EXIT_FAILED_RUNS = 1
EXIT_INTERRUPTED = 130


def _at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f'expected an integer >= {minimum}, got {text!r}')
        return value
    return parse


def add_batch_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    batch = commands.add_parser(
        'batch', help='run many simulations: scenes x seeds x parameter sets (no ROS)',
        description='Run every scene x engine x parameter set x seed of a spec for its duration\n'
                    'without ROS, on local worker processes or a Ray cluster, and write one folder\n'
                    'per run plus summary.csv. Runs finished earlier (same scene content, engine,\n'
                    'seed, parameters) are skipped; failed ones are retried. Exit status: 0 all runs\n'
                    'finished, 1 some failed, 2 a bad spec, 130 interrupted (Ctrl-C keeps what\n'
                    'finished).',
        epilog='examples:\n'
               '  scene-sim-ros batch spec.yaml --workers 2\n'
               '  scene-sim-ros batch spec.yaml --ray auto   # the running cluster, else a local '
               'one\n'
               '  scene-sim-ros batch spec.yaml --ray ray://head:10001   # needs ray[client]\n'
               'an example spec: scene_sim_ros/data/batch/example.yaml (README, "Many '
               'simulations at once")',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    batch.add_argument('spec', help='the batch spec (YAML)')
    batch.add_argument('--workers', type=_at_least(1), default=None, metavar='N',
                       help='runs at a time (default: the cores here; with --ray: the '
                            "cluster's CPUs)")
    batch.add_argument('--ray', nargs='?', const='auto', default=None, metavar='ADDRESS',
                       help="run on Ray: 'auto' (default) joins the running cluster or starts a "
                            'local one; or an address (needs scene_sim_ros[ray])')
    batch.add_argument('--retries', type=_at_least(0), default=None, metavar='N',
                       help="attempts after a failure (default: the spec's retries, else 1)")
    batch.add_argument('--output', default=None, metavar='DIR',
                       help="results folder (default: the spec's output)")
    batch.add_argument('--quiet', action='store_true', help='no progress line')


def cmd_batch(args: argparse.Namespace) -> int:
    from scene_sim_ros.batch.driver import run_batch
    from scene_sim_ros.batch.spec import load_spec
    spec = load_spec(args.spec, output=args.output)
    # SIGTERM stops like Ctrl-C, and Ctrl-C works also where SIGINT came ignored (a background
    # job of a script)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.default_int_handler)
    report = run_batch(spec, workers=args.workers, ray=args.ray, retries=args.retries,
                       progress=not args.quiet)
    print(f'{report.done}/{report.total} runs finished ({report.skipped} skipped), '
          f'{report.total - report.done} without results; summary: {report.summary}',
          file=sys.stderr)
    if report.interrupted:
        return EXIT_INTERRUPTED
    return 0 if report.ok else EXIT_FAILED_RUNS
