"""Child process for the smoke tests: a toy simulator behind simulation_interfaces.

Serves get_simulator_features, get_simulation_state and step_simulation, and the action
simulate_steps. Its clock is a step counter; stepping is allowed only while paused, as the
standard says. Prints READY once everything is advertised; stops on SIGINT.
"""

import rclpy
from rclpy.action import ActionServer
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
from simulation_interfaces.srv import GetSimulationState, GetSimulatorFeatures, StepSimulation


class ToySimulator(Node):
    def __init__(self) -> None:
        super().__init__('smoke_toy_simulator')
        self.steps_done = 0
        self.state = SimulationState.STATE_PAUSED
        self.create_service(GetSimulatorFeatures, 'get_simulator_features', self.features)
        self.create_service(GetSimulationState, 'get_simulation_state', self.get_state)
        self.create_service(StepSimulation, 'step_simulation', self.step)
        self.action = ActionServer(self, SimulateSteps, 'simulate_steps', self.simulate_steps)

    def features(self, request, response):
        response.features.features = [
            SimulatorFeatures.SIMULATION_STATE_GETTING,
            SimulatorFeatures.STEP_SIMULATION_SINGLE,
            SimulatorFeatures.STEP_SIMULATION_MULTIPLE,
            SimulatorFeatures.STEP_SIMULATION_ACTION,
        ]
        response.features.spawn_formats = ['urdf']
        response.features.custom_info = 'toy simulator of the smoke tests'
        return response

    def get_state(self, request, response):
        response.state.state = self.state
        response.result.result = Result.RESULT_OK
        return response

    def step(self, request, response):
        self.steps_done += request.steps
        response.result.result = Result.RESULT_OK
        response.result.error_message = f'now at step {self.steps_done}'
        return response

    def simulate_steps(self, goal_handle):
        result = SimulateSteps.Result()
        total = goal_handle.request.steps
        for done in range(1, total + 1):
            self.steps_done += 1
            feedback = SimulateSteps.Feedback(completed_steps=done, remaining_steps=total - done)
            goal_handle.publish_feedback(feedback)
        goal_handle.succeed()
        result.result.result = Result.RESULT_OK
        result.result.error_message = f'now at step {self.steps_done}'
        return result


def main() -> None:
    rclpy.init()
    node = ToySimulator()
    print('READY', flush=True)
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.action.destroy()
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == '__main__':
    main()
