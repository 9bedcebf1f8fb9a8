import { appointmentsBench } from './appointments.bench.js';
import { benchApp, benchDatabase } from './harness.js';
import { rolesBench } from './roles.bench.js';
import { webhooksBench } from './webhooks.bench.js';

// `npm run bench` runs every scenario, one after the other, each on its own fresh
// database; `npm run bench -- webhooks` (or roles, appointments) runs the ones named.

const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);

const stopDatabase = await benchDatabase();
for (const [name, run] of [['roles', rolesBench], ['appointments', appointmentsBench]] as const) {
  if (!wanted(name)) continue;
  process.stdout.write(`\n== ${name}\n`);
  const app = await benchApp();
  try {
    await run(app);
  } finally {
    await app.close();
  }
}
if (wanted('webhooks')) {
  process.stdout.write('\n== webhooks\n');
  await webhooksBench();
}
await stopDatabase();
