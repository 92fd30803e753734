"""The ``scene-sim-ros`` command line: :mod:`.main` parses it and runs the scene commands
(``main.main`` is the console script), :mod:`.client_commands` the commands that talk to a
running simulation (their ROS 2 clients in :mod:`.client`). It sits on top of every other layer
(``ros``, ``batch``, ``formats``); nothing imports it.
"""
