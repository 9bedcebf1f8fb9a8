import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestAuthority } from './certificates.js';
import { freePort } from './processes.js';

// Brokers over TLS of the test's own, beside the machine's plain ones: the
// machine's Redis, Mosquitto, NATS and RabbitMQ binaries started on free
// loopback ports with a server certificate of the test CA. Redis, Mosquitto
// and NATS require a client certificate of that CA (mutual TLS); RabbitMQ
// asks for none, so a client that trusts the CA is enough.

const run = promisify(execFile);

export interface TlsBrokers {
  redis: number;
  mqtt: number;
  nats: number;
  amqp: number;
  stop(): Promise<void>;
}

async function untilListening(port: number, child: ChildProcess | undefined, name: string, ms = 30_000) {
  const until = Date.now() + ms;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`${name} did not listen on ${port} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startTlsBrokers(authority: TestAuthority): Promise<TlsBrokers> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-tls-brokers-'));
  // The brokers drop to users of their own (mosquitto, rabbitmq): the files are readable by them.
  chmodSync(dir, 0o755);
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    writeFileSync(at, text, { mode: 0o644 });
    return at;
  };
  const ca = file('ca.pem', authority.ca);
  const cert = file('server.pem', authority.server.cert);
  const key = file('server.key', authority.server.key);
  const [redis, mqtt, nats, amqp, dist] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const children: ChildProcess[] = [];
  const child = (command: string, args: string[]) => {
    const started = spawn(command, args, { stdio: 'ignore' });
    children.push(started);
    return started;
  };
  const redisServer = child('redis-server', [
    ...['--port', '0', '--tls-port', String(redis), '--bind', '127.0.0.1'],
    ...['--tls-cert-file', cert, '--tls-key-file', key, '--tls-ca-cert-file', ca, '--tls-auth-clients', 'yes'],
    ...['--save', '', '--appendonly', 'no', '--dir', dir],
  ]);
  const mosquittoConf = file(
    'mosquitto.conf',
    [
      `listener ${mqtt} 127.0.0.1`,
      `cafile ${ca}`,
      `certfile ${cert}`,
      `keyfile ${key}`,
      'require_certificate true',
      'allow_anonymous true',
      '',
    ].join('\n'),
  );
  const mosquitto = child('mosquitto', ['-c', mosquittoConf]);
  const natsServer = child('nats-server', [
    ...['-a', '127.0.0.1', '-p', String(nats), '-js', '-sd', path.join(dir, 'nats')],
    ...['--tlsverify', '--tlscert', cert, '--tlskey', key, '--tlscacert', ca],
  ]);
  // RabbitMQ: a second node of the machine's installation, with its own name, ports and folders.
  const node = `sbtls${process.pid}@localhost`;
  const rabbit = path.join(dir, 'rabbitmq');
  mkdirSync(rabbit);
  const conf = file(
    'rabbitmq/rabbitmq.conf',
    [
      'listeners.tcp = none',
      `listeners.ssl.default = ${amqp}`,
      `ssl_options.cacertfile = ${ca}`,
      `ssl_options.certfile = ${cert}`,
      `ssl_options.keyfile = ${key}`,
      'ssl_options.verify = verify_none',
      '',
    ].join('\n'),
  );
  const plugins = file('rabbitmq/enabled_plugins', '[].\n');
  if (process.getuid?.() === 0) {
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'rabbitmq']).toString()));
    chownSync(rabbit, uid, gid);
  }
  const rabbitEnv = {
    ...process.env,
    RABBITMQ_NODENAME: node,
    RABBITMQ_DIST_PORT: String(dist),
    RABBITMQ_CONFIG_FILE: conf,
    RABBITMQ_MNESIA_BASE: path.join(rabbit, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(rabbit, 'log'),
    RABBITMQ_ENABLED_PLUGINS_FILE: plugins,
    RABBITMQ_PID_FILE: path.join(rabbit, 'pid'),
  };
  const stopRabbit = () => run('rabbitmqctl', ['-n', node, 'stop'], { env: rabbitEnv }).catch(() => undefined);
  const stop = async () => {
    for (const started of children) started.kill('SIGTERM');
    await stopRabbit();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run('rabbitmq-server', ['-detached'], { env: rabbitEnv });
    await untilListening(redis, redisServer, 'redis-server');
    await untilListening(mqtt, mosquitto, 'mosquitto');
    await untilListening(nats, natsServer, 'nats-server');
    await untilListening(amqp, undefined, 'rabbitmq-server', 60_000);
    await run('rabbitmqctl', ['-n', node, 'await_startup', '--timeout', '60'], { env: rabbitEnv });
  } catch (error) {
    await stop();
    throw error;
  }
  return { redis, mqtt, nats, amqp, stop };
}
