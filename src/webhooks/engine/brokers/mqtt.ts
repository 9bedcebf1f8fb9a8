import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { type BrokerClient, type BrokerConnect, type BrokerMessage, tlsOptions, within } from './types.js';

// MQTT 5: QoS 1 to the topic the URL names, the headers as user properties;
// success is the PUBACK (a reason code of 0x80 or more fails the attempt).

export async function mqttClient(to: BrokerConnect): Promise<BrokerClient> {
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
  // Listened to for the client's whole life: a socket error after a refused handshake is a reason, never a crash.
  let broken = false;
  let lastError = '';
  client.on('error', (error) => {
    broken = true;
    lastError = error.message;
  });
  client.on('close', () => (broken = true));
  const connected = new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('close', () => reject(new Error(lastError || 'the MQTT broker closed the connection')));
  });
  await within(connected, timeoutMs, `no connection to the MQTT broker within ${timeoutMs} ms`).catch((error) => {
    client.end(true);
    throw error;
  });
  const topic = target.params.topic;
  return {
    get broken() {
      return broken || !client.connected;
    },
    async publish(message: BrokerMessage, ms: number): Promise<string> {
      const packet = await within(
        client.publishAsync(topic, message.body, {
          qos: 1,
          properties: { userProperties: message.headers, contentType: 'application/json' },
        }),
        ms,
        `no PUBACK within ${ms} ms`,
      );
      const code = (packet as { reasonCode?: number } | undefined)?.reasonCode ?? 0;
      if (code >= 0x80) throw new Error(`the broker refused the message (reason code 0x${code.toString(16)})`);
      return `PUBACK for topic "${topic}"${code ? ` (reason code 0x${code.toString(16)})` : ''}`;
    },
    async close() {
      broken = true;
      await client.endAsync(true).catch(() => undefined);
    },
  };
}
