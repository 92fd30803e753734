"""``python -m scene_sim_ros.cli``: the ``scene-sim-ros`` command."""

import sys

from scene_sim_ros.cli.main import main

sys.exit(main())
