"""The ``scene-sim-ros`` command line: :mod:`.main` parses it and runs the scene commands,
:mod:`.client_commands` the commands that talk to a running simulation (their ROS 2 clients in
:mod:`.client`), :mod:`.interface_list` what ``run`` would offer for a scene. It sits on top of
every other layer (``ros``, ``batch``, ``formats``); nothing imports it.
"""

from scene_sim_ros.cli.main import main

__all__ = ['main']
