"""ament_python package definition for scene_sim_ros.

Every install route gives the same layout under its prefix (a colcon install space, a venv, a
``pip install --prefix``): the ament index marker, ``share/scene_sim_ros/{launch,config,
package.xml}``, console scripts in ``bin/`` and ``lib/scene_sim_ros/sim_node`` (a forwarder to
``bin/sim_node``, where ``ros2 run`` and launch_ros look). Console scripts stay in ``bin/`` on
purpose: a wheel cannot put them anywhere else, and one layout for colcon, wheels and the
development venv means one thing to test. ``dev.sh`` installs the data files into its venv with
``setup.py install_data``, since editable installs skip them.
"""

import os
import re
from glob import glob

from setuptools import find_packages, setup

PACKAGE = 'scene_sim_ros'
HERE = os.path.dirname(os.path.abspath(__file__))


def _version() -> str:
    with open(os.path.join(HERE, 'package.xml'), encoding='utf-8') as f:
        match = re.search(r'<version>\s*([^<\s]+)\s*</version>', f.read())
    return match.group(1) if match else '0.0.0'


def _tree(source: str, destination: str) -> list[tuple[str, list[str]]]:
    """data_files entries that install every file under ``source``, keeping sub-folders."""
    entries = []
    for folder, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not d.startswith(('.', '__pycache__')))
        files = sorted(os.path.join(folder, f) for f in files if not f.startswith('.'))
        if files:
            entries.append((os.path.join(destination, os.path.relpath(folder, source)), files))
    return entries


def _package_data() -> list[str]:
    """Every file under ``scene_sim_ros/data`` (scenes, meshes, ...), relative to the package."""
    root = os.path.join(HERE, PACKAGE)
    found = []
    for folder, dirs, files in os.walk(os.path.join(root, 'data')):
        dirs[:] = [d for d in dirs if d != '__pycache__']
        found += [os.path.relpath(os.path.join(folder, f), root) for f in files]
    if os.path.exists(os.path.join(root, 'py.typed')):
        found.append('py.typed')
    return sorted(found)


# setup.py runs from the package root under colcon and pip alike; keep paths relative.
data_files = [
    ('share/ament_index/resource_index/packages', [f'resource/{PACKAGE}']),
    (f'share/{PACKAGE}', ['package.xml']),
    (f'share/{PACKAGE}/launch', sorted(glob('launch/*.launch.py'))),
    (f'share/{PACKAGE}/config', sorted(p for p in glob('config/*') if os.path.isfile(p))),
]
data_files.append((f'lib/{PACKAGE}', ['resource/sim_node']))

# What the package needs at run time besides ROS 2 (rclpy and the message packages come from the
# ROS wheels or a distribution: package.xml). The suite runs with requirements/constraints*.txt's
# pins; lower bounds of what rosdep installs from apt are Ubuntu 24.04's (Jazzy's and Kilted's
# platform), of the rest the pinned versions; upper bounds where a major release may break.
INSTALL_REQUIRES = [
    'pybullet>=3.2.7,<4',
    # the second physics engine (--engine mujoco): SimRobot Core3's own, 3.3.5 as SimRobot bundles
    'mujoco>=3.3.5,<3.4',
    'lxml>=5.2,<7',
    'numpy>=1.26,<3',
    'pyyaml>=6.0.1',
    # Webots procedural PROTO templates: JavaScript (QuickJS, as Webots) and Lua 5.2
    'quickjs>=1.19.4,<2',
    'lupa>=2.8,<3',
    # Webots worlds: remote PROTOs/meshes (httpx), the user cache (platformdirs), Mesh files
    # (trimesh; pycollada for .dae)
    'httpx>=0.26,<1',
    'platformdirs>=4.2',
    'trimesh>=5.2,<6',
    'pycollada>=0.9.3',
    # Recording (rosbag2 MCAP: mcap writes, rosbags has the message definitions) and live view
    # (foxglove-sdk serves the Foxglove WebSocket protocol; 0.x changes its API between minors)
    'mcap>=1.6,<2',
    'rosbags>=0.11,<0.12',
    'foxglove-sdk>=0.30.3,<0.31',
    # gl cameras (OpenGL 3.3 through EGL) and their far-mesh levels of detail; textures
    'moderngl>=5.13,<6',
    'fast-simplification>=0.2',
    'pillow>=10.2',
]

setup(
    name=PACKAGE,
    version=_version(),
    packages=find_packages(include=[PACKAGE, f'{PACKAGE}.*'], exclude=['test', 'test.*']),
    package_data={PACKAGE: _package_data()},
    data_files=[(dest, files) for dest, files in data_files if files],
    python_requires='>=3.11',   # the ROS 2 wheels: 3.11-3.13; Jazzy and Kilted distributions: 3.12
    install_requires=INSTALL_REQUIRES,
    zip_safe=False,
    maintainer='scene_sim_ros developers',
    maintainer_email='scene-sim-ros@example.com',
    description='Robot scene files (SimRobot, Webots, Simox, RaiSim) in PyBullet, bridged to ROS 2',
    license='MIT',
    tests_require=['pytest'],
    # `scene-sim-ros batch --ray` (requirements/ray.txt pins the version the tests use)
    extras_require={'ray': ['ray>=2.60,<3']},
    entry_points={
        'console_scripts': [
            'scene-sim-ros = scene_sim_ros.cli.main:main',
            'sim_node = scene_sim_ros.ros.runtime.node:main',
        ],
    },
)
