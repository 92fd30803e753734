// A point cloud as Foxglove's and Lichtblick's 3D panel gets it over the live view, with
// Foxglove's own libraries (run with node): @foxglove/ws-protocol for the connection,
// @foxglove/rosmsg (parse, ros2) and @foxglove/rosmsg2-serialization (MessageReader) to decode
// a `cdr` channel from its `ros2msg` schema, as their players do. Prints one JSON object.
//
//   NODE_PATH=<dir>/node_modules node foxglove_js_cloud.cjs PORT CLOUD_TOPIC
//
// 1. connects (subprotocol foxglove.sdk.v1), waits for CLOUD_TOPIC, /tf and /tf_static;
// 2. subscribes to all three, decodes /tf and /tf_static (every child frame kept) and the
//    third cloud message (its raw bytes kept, as hex, for the test to decode with rclpy);
// 3. reads the cloud's x, y, z the way a viewer does: each point at point_step, each field at
//    its offset, as FLOAT32 little-endian unless is_bigendian, and sums what it read; where
//    there is an `rgb` field, its packed colour too (bytes b, g, r of the float32's four).
'use strict';
const { FoxgloveClient } = require('@foxglove/ws-protocol');
const { parse } = require('@foxglove/rosmsg');
const { MessageReader } = require('@foxglove/rosmsg2-serialization');
const WebSocket = require('ws');

const [port, cloudTopic] = process.argv.slice(2);
const ws = new WebSocket(`ws://127.0.0.1:${port}`, ['foxglove.sdk.v1']);
const client = new FoxgloveClient({ ws });
const seen = { channels: {}, frames: [], clouds: 0 };
const readers = {};  // subscription id -> [topic, MessageReader]
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const waitFor = async (test, ms) => {
  for (const end = Date.now() + ms; !test() && Date.now() < end;) await sleep(20);
  if (!test()) throw new Error(`timed out: ${test}`);
};
const FLOAT32 = 7;  // sensor_msgs/PointField

function readerOf(channel) {
  if (channel.encoding !== 'cdr' || channel.schemaEncoding !== 'ros2msg') {
    throw new Error(`${channel.topic}: ${channel.encoding} / ${channel.schemaEncoding}`);
  }
  return new MessageReader(parse(channel.schema, { ros2: true }));
}

function readPoints(cloud) {
  const fields = Object.fromEntries(cloud.fields.map((f) => [f.name, f]));
  const view = new DataView(cloud.data.buffer, cloud.data.byteOffset, cloud.data.byteLength);
  const sums = [0, 0, 0];
  const colours = [0, 0, 0];
  let finite = 0;
  for (let i = 0; i < cloud.width * cloud.height; i++) {
    const base = Math.floor(i / cloud.width) * cloud.row_step + (i % cloud.width) * cloud.point_step;
    const xyz = ['x', 'y', 'z'].map((name) => {
      if (fields[name].datatype !== FLOAT32) throw new Error(`${name} is not FLOAT32`);
      return view.getFloat32(base + fields[name].offset, !cloud.is_bigendian);
    });
    if (xyz.every(Number.isFinite)) {
      finite += 1;
      xyz.forEach((v, k) => { sums[k] += v; });
      if (fields.rgb) [2, 1, 0].forEach((byte, k) => {
        colours[k] += view.getUint8(base + fields.rgb.offset + byte);
      });
    }
  }
  return { finite, sums, colours };
}

client.on('advertise', (channels) => channels.forEach((c) => { seen.channels[c.topic] = c; }));
client.on('error', (error) => { seen.error = String(error); });
client.on('message', (event) => {
  const [topic, reader] = readers[event.subscriptionId];
  const bytes = new Uint8Array(event.data.buffer, event.data.byteOffset, event.data.byteLength);
  const msg = reader.readMessage(bytes);
  if (topic !== cloudTopic) {
    msg.transforms.forEach((t) => seen.frames.push([t.header.frame_id, t.child_frame_id]));
    return;
  }
  seen.clouds += 1;
  if (seen.clouds !== 3) return;
  seen.cloud = {
    frame_id: msg.header.frame_id, stamp: [msg.header.stamp.sec, msg.header.stamp.nanosec],
    width: msg.width, height: msg.height, point_step: msg.point_step, row_step: msg.row_step,
    is_bigendian: msg.is_bigendian, is_dense: msg.is_dense,
    fields: msg.fields.map((f) => [f.name, f.offset, f.datatype, f.count]),
    ...readPoints(msg),
    hex: Buffer.from(bytes).toString('hex'),
  };
});

(async () => {
  const topics = [cloudTopic, '/tf', '/tf_static'];
  await waitFor(() => topics.every((t) => seen.channels[t]), 30000);
  for (const topic of topics) {
    readers[client.subscribe(seen.channels[topic].id)] = [topic, readerOf(seen.channels[topic])];
  }
  await waitFor(() => seen.cloud !== undefined, 60000);
  client.close();
  seen.channels = Object.keys(seen.channels).length;
  // exit once written: a pipe takes 64 KiB at a time, and exit() would cut the rest off
  process.stdout.write(JSON.stringify(seen) + '\n', () => process.exit(0));
})().catch((error) => {
  seen.channels = Object.keys(seen.channels).length;
  process.stdout.write(JSON.stringify({ ...seen, error: String(error) }) + '\n',
                       () => process.exit(1));
});
