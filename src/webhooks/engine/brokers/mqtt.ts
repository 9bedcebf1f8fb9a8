import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { type BrokerClient, type BrokerConnect, type BrokerMessage, tlsOptions, within } from './types.js';

// MQTT 5: QoS 1 to the topic the URL names, the headers as user properties;
// success is the PUBACK (a reason code of 0x80 or more fails the attempt).
//
// One publish in flight per connection, over a few connections per
// destination (docs/adr/0072-mqtt-one-publish-per-connection.md): a broker
// that leaves Nagle's algorithm on (Mosquitto's default) holds a PUBACK while
// the one before it on the connection is unacknowledged, and the client's
// kernel acknowledges it only with its next packet or after its delayed-ACK
// timer (up to 40 ms). A connection's next PUBLISH carries that ACK.

/** Connections per destination at most; beyond it publishes share the least busy one. */
export const MQTT_CONNECTIONS_MAX = 16;

interface Connection {
  client: MqttClient;
  inFlight: number;
  broken: boolean;
}

async function connectOne(to: BrokerConnect): Promise<Connection> {
  const { target, address, timeoutMs } = to;
  const client: MqttClient = mqtt.connect({
    host: address,
    port: target.port,
    protocol: target.tls ? 'mqtts' : 'mqtt',
    protocolVersion: 5,
    clientId: `switchboard-${randomBytes(6).toString('hex')}`,
    ...(target.username ? { username: target.username, password: target.password } : {}),
    ...(target.tls ? tlsOptions(to) : {}),
    connectTimeout: timeoutMs,
    reconnectPeriod: 0,
  });
  const connection: Connection = { client, inFlight: 0, broken: false };
  // Listened to for the client's whole life: a socket error after a refused handshake is a reason, never a crash.
  let lastError = '';
  client.on('error', (error) => {
    connection.broken = true;
    lastError = error.message;
  });
  client.on('close', () => (connection.broken = true));
  const connected = new Promise<void>((resolve, reject) => {
    client.once('connect', () => {
      // Nagle's algorithm off on our side too, as for every other client of ours.
      (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
      resolve();
    });
    client.once('close', () => reject(new Error(lastError || 'the MQTT broker closed the connection')));
  });
  await within(connected, timeoutMs, `no connection to the MQTT broker within ${timeoutMs} ms`).catch((error) => {
    client.end(true);
    throw error;
  });
  return connection;
}

export async function mqttClient(to: BrokerConnect): Promise<BrokerClient> {
  const connections: Connection[] = [await connectOne(to)];
  let opening = 0;
  let closed = false;
  const topic = to.target.params.topic;

  /** An idle connection, a new one while under the limit, or the least busy: taken (in flight) as it is picked. */
  async function take(): Promise<Connection> {
    for (let i = connections.length - 1; i >= 0; i--) {
      if (!connections[i].broken && connections[i].client.connected) continue;
      const [gone] = connections.splice(i, 1);
      gone.client.end(true);
    }
    const taken = (connection: Connection) => (connection.inFlight++, connection);
    const idle = connections.find((c) => c.inFlight === 0);
    if (idle) return taken(idle);
    if (connections.length === 0 || connections.length + opening < MQTT_CONNECTIONS_MAX) {
      opening++;
      try {
        const made = await connectOne(to);
        if (closed) {
          made.client.end(true);
          throw new Error('the connection to the MQTT broker was closed');
        }
        connections.push(made);
        return taken(made);
      } finally {
        opening--;
      }
    }
    return taken(connections.reduce((least, c) => (c.inFlight < least.inFlight ? c : least)));
  }

  return {
    get broken() {
      return closed || connections.every((c) => c.broken || !c.client.connected);
    },
    async publish(message: BrokerMessage, ms: number): Promise<string> {
      const connection = await take();
      try {
        const packet = await within(
          connection.client.publishAsync(topic, message.body, {
            qos: 1,
            properties: { userProperties: message.headers, contentType: 'application/json' },
          }),
          ms,
          `no PUBACK within ${ms} ms`,
        );
        const code = (packet as { reasonCode?: number } | undefined)?.reasonCode ?? 0;
        if (code >= 0x80) throw new Error(`the broker refused the message (reason code 0x${code.toString(16)})`);
        return `PUBACK for topic "${topic}"${code ? ` (reason code 0x${code.toString(16)})` : ''}`;
      } finally {
        connection.inFlight--;
      }
    },
    async close() {
      closed = true;
      await Promise.all(connections.splice(0).map((c) => c.client.endAsync(true).catch(() => undefined)));
    },
  };
}
