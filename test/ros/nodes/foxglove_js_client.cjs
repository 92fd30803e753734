// A viewer written with Foxglove's own client library (@foxglove/ws-protocol, run with node):
// what Lichtblick and Foxglove do against the live view. Prints one JSON object of what it saw.
//
//   NODE_PATH=<dir>/node_modules node foxglove_js_client.cjs PORT TWIST_CDR_HEX URI...
//
// 1. connects (subprotocol foxglove.sdk.v1) and waits for the channels and services;
// 2. Teleop: advertises geometry_msgs/Twist (ROS 1 style name) on /rover/cmd_vel and sends the
//    given Twist at 10 Hz for 8 s while subscribed to /rover/odom (first and last kept);
// 3. calls /get_simulation_state with an empty CDR request;
// 4. gets every parameter, sets real_time_factor (allowed) and seed (read-only);
// 5. fetches each URI.
'use strict';
const { FoxgloveClient } = require('@foxglove/ws-protocol');
const WebSocket = require('ws');

const [port, twistHex, ...uris] = process.argv.slice(2);
const ws = new WebSocket(`ws://127.0.0.1:${port}`, ['foxglove.sdk.v1']);
const client = new FoxgloveClient({ ws });
const seen = { channels: {}, services: {}, statuses: [], parameters: {}, assets: {}, odom: [] };
const hex = (view) => Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('hex');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const waitFor = async (test, ms) => {
  for (const end = Date.now() + ms; !test() && Date.now() < end;) await sleep(20);
  if (!test()) throw new Error(`timed out: ${test}`);
};

client.on('serverInfo', (info) => { seen.serverInfo = info; });
client.on('advertise', (channels) => channels.forEach((c) => { seen.channels[c.topic] = c; }));
client.on('advertiseServices', (services) => services.forEach((s) => { seen.services[s.name] = s; }));
client.on('status', (status) => seen.statuses.push(status.message));
client.on('parameterValues', (event) => { seen.parameters[event.id] = event.parameters; });
client.on('fetchAssetResponse', (response) => { seen.assets[uris[response.requestId]] = response; });
client.on('serviceCallResponse', (response) => { seen.serviceResponse = hex(response.data); });
let odomSubscription = -1;
client.on('message', (event) => {
  if (event.subscriptionId === odomSubscription) seen.odom.push(hex(event.data));
});
client.on('error', (error) => { seen.error = String(error); });

(async () => {
  await waitFor(() => seen.channels['/rover/odom'] && seen.channels['/rover/cmd_vel']
                && seen.services['/get_simulation_state'], 20000);
  odomSubscription = client.subscribe(seen.channels['/rover/odom'].id);
  const teleop = client.advertise({ topic: '/rover/cmd_vel', encoding: 'cdr',
                                    schemaName: 'geometry_msgs/Twist' });
  const twist = Buffer.from(twistHex, 'hex');
  for (let i = 0; i < 80; i++) {
    client.sendMessage(teleop, new Uint8Array(twist));
    await sleep(100);
  }
  client.unadvertise(teleop);

  client.sendServiceCallRequest({ serviceId: seen.services['/get_simulation_state'].id, callId: 1,
                                  encoding: 'cdr', data: new DataView(new Uint8Array([0, 1, 0, 0, 0]).buffer) });
  await waitFor(() => seen.serviceResponse !== undefined, 10000);

  client.getParameters([], 'all');
  client.setParameters([{ name: '/scene_sim.real_time_factor', value: 0.5 }], 'rtf');
  client.setParameters([{ name: '/scene_sim.seed', value: 7 }], 'seed');
  await waitFor(() => ['all', 'rtf', 'seed'].every((id) => seen.parameters[id]), 10000);

  for (let i = 0; i < uris.length; i++) {
    client.fetchAsset(uris[i], i);
    await waitFor(() => seen.assets[uris[i]] !== undefined, 10000);
  }
  const assets = {};
  for (const [uri, response] of Object.entries(seen.assets)) {
    assets[uri] = { status: response.status, error: response.error ?? '',
                    size: response.data ? response.data.byteLength : 0 };
  }
  seen.assets = assets;
  seen.odom = [seen.odom[0], seen.odom[seen.odom.length - 1]];
  client.close();
  // exit once written: a pipe takes 64 KiB at a time, and exit() would cut the rest off
  process.stdout.write(JSON.stringify(seen) + '\n', () => process.exit(0));
})().catch((error) => {
  process.stdout.write(JSON.stringify({ ...seen, error: String(error) }) + '\n',
                       () => process.exit(1));
});
