import express, { type Request, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  availableInventory,
  DEMO_ACCOUNTS,
  demoAccount,
  PRICES,
  type NumberType,
  type SimAccount,
  type SimAvailable,
} from './inventory.js';
import { OutboundCalls, simOutcome } from './outbound-calls.js';

// The telco simulator: the subset of the provider's REST API that Switchboard
// uses, on a loopback port, with the provider's failure cases and texts.
// Started in-process when TELCO_BASE_URL is unset, and by the tests.

const TYPE_PATH: Record<string, NumberType> = { Local: 'local', Mobile: 'mobile', TollFree: 'tollfree' };

export class TelcoSimulator {
  readonly accounts = new Map<string, SimAccount>();
  available: SimAvailable[] = availableInventory();
  private server?: Server;
  /** Messages sent through the simulator, newest last. */
  readonly messages: Array<{
    sid: string;
    account: string;
    from: string;
    to: string;
    body: string;
    statusCallback: string;
  }> = [];
  /** Outbound calls placed through the simulator, and how they play out (outbound-calls.ts). */
  readonly outbound = new OutboundCalls();
  /** Test switch: the next purchase goes through at the provider, but its answer is lost (a 500). */
  loseNextPurchaseAnswer = false;
  url = '';

  constructor() {
    DEMO_ACCOUNTS.forEach(({ key, balance }, i) => {
      const account = demoAccount(key, balance, i);
      this.accounts.set(account.sid, account);
    });
  }

  /** Adds an account (tests make their own). */
  addAccount(account: Partial<SimAccount> & { sid: string; authToken: string }): SimAccount {
    const full: SimAccount = { balance: 0, incoming: [], services: [], ...account };
    this.accounts.set(full.sid, full);
    return full;
  }

  async start(port = 0): Promise<string> {
    this.server = createServer(this.app());
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private app() {
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.use(express.json());
    const fail = (res: Response, status: number, code: number, message: string) =>
      res.status(status).json({ code, message, more_info: `https://telco.example/docs/errors/${code}`, status });

    // Every call is under an account and needs its credentials (HTTP Basic).
    const account = (req: Request, res: Response): SimAccount | undefined => {
      const [user, pass] = Buffer.from((req.header('authorization') ?? '').replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':');
      const found = this.accounts.get(user);
      if (!found || found.authToken !== pass || (req.params.sid && req.params.sid !== user)) {
        fail(res, 401, 20003, 'Authenticate');
        return undefined;
      }
      return found;
    };

    app.get('/2010-04-01/Accounts/:sid/Balance.json', (req, res) => {
      const acc = account(req, res);
      if (acc) res.json({ account_sid: acc.sid, balance: acc.balance.toFixed(2), currency: 'USD' });
    });

    app.get('/2010-04-01/Accounts/:sid/AvailablePhoneNumbers/US/:type.json', (req, res) => {
      const acc = account(req, res);
      if (!acc) return;
      const type = TYPE_PATH[req.params.type];
      if (!type) return fail(res, 404, 20404, `The requested resource ${req.path} was not found`);
      const area = String(req.query.AreaCode ?? '');
      const contains = String(req.query.Contains ?? '').replace(/\*/g, '');
      const rows = this.available.filter(
        (n) =>
          n.type === type &&
          (!area || n.phoneNumber.startsWith(`+1${area}`)) &&
          (!contains || n.phoneNumber.includes(contains)),
      );
      res.json({
        available_phone_numbers: rows.slice(0, 30).map((n) => ({
          phone_number: n.phoneNumber,
          friendly_name: n.friendlyName,
          region: n.region,
          iso_country: 'US',
          capabilities: { voice: true, SMS: type !== 'tollfree', MMS: type === 'local' },
          price: PRICES[type],
        })),
      });
    });

    app.get('/2010-04-01/Accounts/:sid/IncomingPhoneNumbers.json', (req, res) => {
      const acc = account(req, res);
      if (acc)
        res.json({
          incoming_phone_numbers: acc.incoming.map((n) => ({
            sid: n.sid,
            phone_number: n.phoneNumber,
            friendly_name: n.friendlyName,
            type: n.type,
          })),
        });
    });

    app.post('/2010-04-01/Accounts/:sid/IncomingPhoneNumbers.json', (req, res) => {
      const acc = account(req, res);
      if (!acc) return;
      const wanted = String(req.body?.PhoneNumber ?? '');
      const index = this.available.findIndex((n) => n.phoneNumber === wanted);
      if (index < 0) return fail(res, 400, 21422, 'The requested phone number is no longer available.');
      const number = this.available[index];
      const price = Number(PRICES[number.type]);
      if (acc.balance < price) return fail(res, 400, 21215, 'Insufficient funds to complete this purchase.');
      acc.balance = Math.round((acc.balance - price) * 100) / 100;
      this.available.splice(index, 1);
      const sid = `PN${randomBytes(16).toString('hex')}`;
      acc.incoming.push({ sid, phoneNumber: number.phoneNumber, friendlyName: number.friendlyName, type: number.type });
      if (this.loseNextPurchaseAnswer) {
        this.loseNextPurchaseAnswer = false;
        return res.status(500).send('upstream connection reset');
      }
      res.status(201).json({
        sid,
        phone_number: number.phoneNumber,
        friendly_name: number.friendlyName,
        type: number.type,
        price: PRICES[number.type],
        account_balance: acc.balance.toFixed(2),
      });
    });

    // Messages: accepted and queued; their fate is reported to StatusCallback (the scenarios post it).
    app.post('/2010-04-01/Accounts/:sid/Messages.json', (req, res) => {
      const acc = account(req, res);
      if (!acc) return;
      const [from, to, body] = [String(req.body?.From ?? ''), String(req.body?.To ?? ''), String(req.body?.Body ?? '')];
      if (!/^\+[1-9]\d{1,14}$/.test(to))
        return fail(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
      if (!/^\+[1-9]\d{1,14}$/.test(from))
        return fail(res, 400, 21212, `The 'From' number ${from} is not a valid phone number.`);
      if (body.length === 0 || body.length > 1600)
        return fail(res, 400, 21617, 'The message body must be 1 to 1600 characters.');
      const sid = `SM${randomBytes(16).toString('hex')}`;
      this.messages.push({
        sid,
        account: acc.sid,
        from,
        to,
        body,
        statusCallback: String(req.body?.StatusCallback ?? ''),
      });
      res.status(201).json({ sid, status: 'queued', from, to, body });
    });

    // Outbound calls: placed, then played out by the number dialed (outbound-calls.ts).
    app.post('/2010-04-01/Accounts/:sid/Calls.json', (req, res) => {
      const acc = account(req, res);
      if (!acc) return;
      const [from, to] = [String(req.body?.From ?? ''), String(req.body?.To ?? '')];
      if (!/^\+[1-9]\d{1,14}$/.test(to))
        return fail(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
      if (!/^\+[1-9]\d{1,14}$/.test(from))
        return fail(res, 400, 21212, `The 'From' number ${from} is not a valid phone number.`);
      if (simOutcome(to) === 'refused') return fail(res, 400, 13224, `The number ${to} cannot be dialed.`);
      const timeout = Number(req.body?.Timeout ?? 30);
      const call = this.outbound.place(acc.sid, acc.authToken, {
        from,
        to,
        statusCallback: String(req.body?.StatusCallback ?? ''),
        machineDetection: req.body?.MachineDetection === 'Enable',
        twiml: String(req.body?.Twiml ?? ''),
        timeout: Number.isInteger(timeout) && timeout >= 5 && timeout <= 600 ? timeout : 30,
      });
      res.status(201).json({ sid: call.sid, status: 'queued', from, to });
    });
    // Calls to a number since a time (StartTime>=, ISO 8601), newest first: how a dial whose answer was lost is found.
    app.get('/2010-04-01/Accounts/:sid/Calls.json', (req, res) => {
      const acc = account(req, res);
      if (!acc) return;
      const to = String(req.query.To ?? '');
      const since = Date.parse(String(req.query['StartTime>='] ?? '')) || 0;
      const calls = this.outbound.calls
        .filter((c) => c.account === acc.sid && (!to || c.to === to) && c.placedAt >= since)
        .reverse()
        .map((c) => ({
          sid: c.sid,
          from: c.from,
          to: c.to,
          status: c.status,
          start_time: new Date(c.placedAt).toISOString(),
        }));
      res.json({ calls });
    });

    // One call as the provider has it now: how a call whose status callbacks were lost is settled.
    app.get('/2010-04-01/Accounts/:sid/Calls/:call.json', (req, res) => {
      const acc = account(req, res);
      if (!acc) return;
      const call = this.outbound.calls.find((c) => c.account === acc.sid && c.sid === req.params.call);
      if (!call) return fail(res, 404, 20404, `The requested resource /Calls/${req.params.call} was not found`);
      res.json({
        sid: call.sid,
        from: call.from,
        to: call.to,
        direction: 'outbound-api',
        status: call.status,
        answered_by: call.answeredBy ?? null,
        duration: call.duration ?? null,
        start_time: new Date(call.placedAt).toISOString(),
      });
    });

    // Messaging: services, their A2P campaigns, their webhook settings.
    const service = (req: Request, res: Response) => {
      const acc = account(req, res);
      if (!acc) return undefined;
      const found = acc.services.find((s) => s.sid === req.params.service);
      if (!found) fail(res, 404, 20404, `The requested resource /Services/${req.params.service} was not found`);
      return found;
    };
    app.get('/v1/Services', (req, res) => {
      const acc = account(req, res);
      if (acc)
        res.json({
          services: acc.services.map((s) => ({
            sid: s.sid,
            friendly_name: s.friendlyName,
            inbound_request_url: s.inboundRequestUrl,
            status_callback: s.statusCallback,
          })),
        });
    });
    app.get('/v1/Services/:service/Compliance/Usa2p', (req, res) => {
      const found = service(req, res);
      if (found)
        res.json({
          compliance: found.campaigns.map((c) => ({
            sid: c.sid,
            campaign_status: c.status,
            us_app_to_person_usecase: c.useCase,
            description: c.description,
            messaging_service_sid: found.sid,
          })),
        });
    });
    app.post('/v1/Services/:service', (req, res) => {
      const found = service(req, res);
      if (!found) return;
      if (req.body?.InboundRequestUrl !== undefined) found.inboundRequestUrl = String(req.body.InboundRequestUrl);
      if (req.body?.StatusCallback !== undefined) found.statusCallback = String(req.body.StatusCallback);
      res.json({
        sid: found.sid,
        friendly_name: found.friendlyName,
        inbound_request_url: found.inboundRequestUrl,
        status_callback: found.statusCallback,
      });
    });
    app.use((req, res) => fail(res, 404, 20404, `The requested resource ${req.path} was not found`));
    return app;
  }
}
