"""Per-entity bridging: an entity's topics (:mod:`.entity_bridge`, the sensor adapters in
:mod:`.adapters`), TF (:mod:`.tf`), joint commands (:mod:`.commands`), the trajectory action
(:mod:`.trajectory_action`), mobile bases and their odometry (:mod:`.mobile_base`), and the topic
names (:mod:`.names`, usable without a node; the sensors' topics are what their adapters declare)."""
