import { appointmentsBench } from './appointments.bench.js';
import { benchApp, benchDatabase } from './harness.js';
import { rolesBench } from './roles.bench.js';

// `npm run bench`: every scenario, one after the other, each on its own fresh database.

const stopDatabase = await benchDatabase();
for (const [name, run] of [['roles', rolesBench], ['appointments', appointmentsBench]] as const) {
  process.stdout.write(`\n== ${name}\n`);
  const app = await benchApp();
  try {
    await run(app);
  } finally {
    await app.close();
  }
}
await stopDatabase();
