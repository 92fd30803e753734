"""Run every benchmark and write one report: ``bench/results/latest.md`` and ``latest.json``.

Each benchmark is a script in this folder that prints a Markdown table and, as its last line, one
JSON object (medians of >= 5 runs, min/max, ratios measured inside the run). This driver runs
them one after another in fresh processes, records the machine, and assembles the report.

    ./dev.sh bench                 # everything (about 8-13 minutes on 2 cores)
    ./dev.sh bench --only memory   # one benchmark
    ./dev.sh bench --quick         # fewer runs, for a smoke check
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / 'results'

# (name, script, arguments, title) in the order of the report
BENCHMARKS = (
    ('load', 'simrobot_load.py', [], 'Scene load time (Game.ros2, 14 NAOs)'),
    ('physics', 'physics_rtf.py', [], 'Physics-only real-time factor (no ROS)'),
    ('node', 'node_rtf.py', ['--warmup', '11'],
     'ROS node real-time factor and overhead over physics only'),
    ('node_raw', 'node_rtf.py', ['--warmup', '11', '--raw', '--no-cameras'],
     'ROS node overhead, consumer taking serialized messages (no Python deserialization)'),
    ('node_events', 'node_rtf.py', ['--warmup', '11', '--raw', '--events', '--no-cameras'],
     "ROS node overhead, consumer taking serialized messages with rclpy's EventsExecutor"),
    ('node_mujoco', 'node_rtf.py', ['--warmup', '11', '--raw', '--events', '--no-cameras',
                                    '--engine', 'mujoco'],
     'ROS node overhead on the MuJoCo engine (serialized messages, EventsExecutor)'),
    ('camera', 'camera_pipeline.py', [], 'Camera pipeline vs bare PyBullet rendering'),
    ('gl', 'gl_cameras.py', [], 'GL renderer vs TinyRenderer on Game.ros2'),
    ('clouds', 'point_clouds.py', [], 'Point clouds: cost per published cloud against its reading'),
    ('vision', 'vision_round.py', [], 'Vision at game scale: where a round of 28 NAO frames goes'),
    ('vision_rtf', 'vision_rtf.py', [],
     'Vision at game scale: RTF with all 28 cameras at 30 Hz, no ROS (the GPU figure: '
     'results/gpu-h200-vision.md)'),
    ('node_vision', 'node_rtf.py', ['--robot', 'all', '--clock-only', '--raw', '--events'],
     'Vision at game scale: the node with all 28 cameras subscribed from another process'),
    ('delivery', 'ros_delivery.py', [], 'Command latency and camera frames delivered to another process'),
    ('memory', 'memory.py', [], 'Peak memory'),
    ('spawn', 'spawn_clock.py', [], 'Spawning a 5 MB scene into the running node: /clock stall'),
    ('batch', 'batch_throughput.py', [], 'Batch throughput: --workers 2 vs 1, --ray auto bit for bit'),
)


def machine_info() -> dict[str, object]:
    info: dict[str, object] = {
        'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
        'python': platform.python_version(),
        'platform': platform.platform(),
        'cpus': os.cpu_count(),
    }
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith('model name'):
                info['cpu'] = line.split(':', 1)[1].strip()
                break
        meminfo = Path('/proc/meminfo').read_text().split()
        info['memory_gb'] = round(int(meminfo[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    try:
        import pybullet
        info['pybullet'] = pybullet.__version__ if hasattr(pybullet, '__version__') else 'present'
    except ImportError:
        pass
    return info


def run_one(script: str, arguments: list[str], quick: bool) -> tuple[str, dict | None, float]:
    command = [sys.executable, str(HERE / script), *arguments]
    if quick:
        command += ['--runs', '2']
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=HERE.parent)
    elapsed = time.perf_counter() - started
    lines = done.stdout.strip().splitlines()
    result = None
    if lines:
        try:
            result = json.loads(lines[-1])
            lines = lines[:-1]
        except json.JSONDecodeError:
            pass
    if done.returncode != 0:
        lines.append(f'**failed (exit {done.returncode})**')
        lines += ['```', *done.stderr.strip().splitlines()[-15:], '```']
    return '\n'.join(lines), result, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--only', action='append', choices=[b[0] for b in BENCHMARKS])
    parser.add_argument('--quick', action='store_true', help='2 runs each instead of 5')
    args = parser.parse_args()
    selected = [b for b in BENCHMARKS if not args.only or b[0] in args.only]
    info = machine_info()
    report = ['# scene_sim_ros benchmarks', '',
              f"{info['date']} on {info.get('cpu', 'unknown CPU')}, {info['cpus']} cores, "
              f"{info.get('memory_gb', '?')} GB, Python {info['python']}. "
              'Medians of >= 5 runs unless stated; ratios are measured inside one run.', '']
    results: dict[str, object] = {'machine': info}
    failed = False
    for name, script, arguments, title in selected:
        if not (HERE / script).exists():
            report += [f'## {title}', '', f'_not available: {script} is missing_', '']
            continue
        print(f'bench: {name} ...', flush=True)
        table, result, elapsed = run_one(script, arguments, args.quick)
        failed |= '**failed' in table
        report += [f'## {title}', '', table, '', f'_{script}, {elapsed:.0f} s_', '']
        results[name] = result
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / 'latest.md').write_text('\n'.join(report))
    (RESULTS / 'latest.json').write_text(json.dumps(results, indent=2))
    print('\n'.join(report))
    print(f'bench: wrote {RESULTS / "latest.md"} and latest.json')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
