"""The ``simulate_steps`` action (simulation_interfaces/action/SimulateSteps): steps a paused
simulation one step at a time, with feedback after each, and can be cancelled between steps."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Result

from scene_sim_ros.ros.action_clock import action_node
from scene_sim_ros.ros.supervisor.logic import SupervisorError

if TYPE_CHECKING:
    from scene_sim_ros.ros.supervisor.services import Supervisor


class SimulateStepsServer:
    def __init__(self, supervisor: Supervisor):
        self.supervisor = supervisor
        self.server = ActionServer(
            action_node(supervisor.node.ros_node), SimulateSteps, 'simulate_steps',
            execute_callback=self.execute,
            goal_callback=lambda goal: GoalResponse.ACCEPT,
            cancel_callback=lambda goal_handle: CancelResponse.ACCEPT,
            callback_group=supervisor.callback_group)

    async def execute(self, goal_handle: Any) -> Any:
        total = int(goal_handle.request.steps)
        result = SimulateSteps.Result()
        feedback = SimulateSteps.Feedback()
        done = 0
        try:
            if total < 1:
                raise SupervisorError(Result.RESULT_OPERATION_FAILED, 'steps must be at least 1')
            while done < total:
                if goal_handle.is_cancel_requested:
                    goal_handle.canceled()
                    result.result.result = Result.RESULT_OPERATION_FAILED
                    result.result.error_message = f'cancelled after {done} of {total} steps'
                    return result
                await self.supervisor.step(1)
                done += 1
                feedback.completed_steps, feedback.remaining_steps = done, total - done
                goal_handle.publish_feedback(feedback)
        except SupervisorError as err:
            goal_handle.abort()
            result.result.result = err.code
            result.result.error_message = (str(err) if not done
                                           else f'{err} (after {done} of {total} steps)')
            return result
        goal_handle.succeed()
        result.result.result = Result.RESULT_OK
        return result

    def destroy(self) -> None:
        self.server.destroy()
