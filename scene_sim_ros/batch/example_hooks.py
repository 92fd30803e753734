"""Hooks of the example spec (``scene_sim_ros/data/batch/example.yaml``): a hook is any
``module:function`` taking ``(sim, run)``; ``run`` is a :class:`~.worker.RunContext`."""

from __future__ import annotations

from typing import Any

from scene_sim_ros.sim.simulator import Simulator

STEER_PERIOD_S = 1.0


def wander(sim: Simulator, run: Any) -> None:
    """Drive the default scene's rover at ``wheel_speed`` rad/s, steering by a random amount
    from the run's seeded generator every second (so each seed takes another path)."""
    if 'rover' not in sim.entity_names():
        return
    period = max(1, round(STEER_PERIOD_S / sim.step_length))
    if (sim.steps - 1) % period:
        return
    speed = float(run.params.get('wheel_speed', 2.0))
    steer = float(run.rng.uniform(-0.5, 0.5)) * speed
    sim.command('rover', 'left_wheel_joint', velocity=speed - steer)
    sim.command('rover', 'right_wheel_joint', velocity=speed + steer)


def rover_position(sim: Simulator, run: Any) -> dict[str, float] | None:
    """At the end: where the rover got to (recorded under ``hook`` and in summary.csv)."""
    if 'rover' not in sim.entity_names():
        return None
    x, y, _ = sim.get_pose('rover')[0]
    return {'rover_x': x, 'rover_y': y}
