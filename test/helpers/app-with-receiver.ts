import { after, before } from 'node:test';
import { startTestApp, type TestApp } from './app.js';
import { Receiver } from './receiver.js';

export interface AppWithReceiver {
  app: TestApp;
  /** A token of Acme's owner. */
  owner: string;
  receiver: Receiver;
}

/** For the file it is called in: an app of its own, Acme's owner signed in and a receiver on loopback, closed after. */
export function appWithReceiver(env: Record<string, string> = {}): AppWithReceiver {
  const parts = {} as AppWithReceiver;
  before(async () => {
    parts.app = await startTestApp(env);
    parts.owner = await parts.app.login('owner@acme.test');
    parts.receiver = await new Receiver().start();
  });
  after(async () => {
    await parts.receiver?.close();
    await parts.app?.close();
  });
  return parts;
}
