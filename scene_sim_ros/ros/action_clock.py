"""The clock of the node's action servers: the node's (sim) time, taken when a server reads it
instead of after every physics step.

Why: rcl gives every action server a result-expiry timer on the clock it is created with, and
keeps it cancelled while no result waits to expire. A ROS-time timer is woken by the clock's
forward jumps, and rcl's jump callback (``_rcl_timer_time_jump``) triggers the timer's guard
condition whenever the timer is past due, cancelled or not. The node moves its own ROS time
after every step (:mod:`.runtime.step_loop`), so once the sim time passed rclpy's ``result_timeout``
(10 s), every step woke the executor thread, which rebuilt its wait set (about 500 entities on
Game.ros2) in Python and found nothing to do: 50 to 80 wake-ups per second fighting the physics
thread for the GIL (measured on Game.ros2: node CPU per sim second 0.67 s with them, 0.53 s
without; the bare simulation 0.38 s).

So the action servers see the node through :func:`action_node`: the same node, but
``get_clock()`` is a clock of their own, set to the node's time whenever it is asked for. rclpy
asks when it accepts a goal (the goal's stamp), so the stamps the servers publish are the node's
sim time as before. Between goals this clock stands still: a result expires at the first goal
after its ``result_timeout``, not in between (it is kept a little longer).
"""

from __future__ import annotations

from typing import Any

from rclpy.clock import Clock, ROSClock
from rclpy.node import Node

_ATTRIBUTE = '_scene_sim_action_node'


class ActionNode:
    """``node`` as an rclpy ``ActionServer`` sees it: everything is the node's except
    :meth:`get_clock`."""

    def __init__(self, node: Node):
        self._node = node
        self._source = node.get_clock()
        self._clock = ROSClock()

    def get_clock(self) -> Clock:
        """The servers' clock, set to the node's time now (ROS time where the node uses it)."""
        source, clock = self._source, self._clock
        active = isinstance(source, ROSClock) and source.ros_time_is_active
        if active != clock.ros_time_is_active:
            clock._set_ros_time_is_active(active)  # noqa: SLF001 - we are its time source
        if active:
            clock.set_ros_time_override(source.now())
        return clock

    def __getattr__(self, name: str) -> Any:
        return getattr(self._node, name)


def action_node(node: Node) -> Any:
    """The :class:`ActionNode` of ``node`` (one per node, shared by its action servers); pass it
    to ``rclpy.action.ActionServer`` in place of the node."""
    found = getattr(node, _ATTRIBUTE, None)
    if found is None:
        found = ActionNode(node)
        found.get_clock()
        setattr(node, _ATTRIBUTE, found)
    return found
