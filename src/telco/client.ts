import type { NumberType } from './inventory.js';

// Speaks the telephony provider's REST API at TELCO_BASE_URL with a
// company's account credentials. Provider refusals come back as TelcoError
// carrying the provider's own text.

export const TELCO_PROVIDER = 'telco';

export interface TelcoCredentials {
  accountSid: string;
  authToken: string;
}

export class TelcoError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: number,
  ) {
    super(message);
  }
}

/** The provider did not answer in time or could not be reached. */
export class TelcoUnavailableError extends Error {}

export interface AvailableNumber {
  phoneNumber: string;
  friendlyName: string;
  region: string;
  type: NumberType;
  price: string;
}

export interface IncomingNumber {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  type: NumberType;
}

export interface MessagingService {
  sid: string;
  friendlyName: string;
  inboundRequestUrl: string | null;
  statusCallback: string | null;
}

export interface Campaign {
  sid: string;
  status: string;
  useCase: string;
  description: string;
}

const TYPE_PATH: Record<NumberType, string> = { local: 'Local', mobile: 'Mobile', tollfree: 'TollFree' };

export class TelcoClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async balance(creds: TelcoCredentials): Promise<number> {
    const body = await this.call<{ balance: string }>(
      creds,
      'GET',
      `/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/Balance.json`,
    );
    return Number(body.balance);
  }

  async available(
    creds: TelcoCredentials,
    type: NumberType,
    areaCode?: string,
    contains?: string,
  ): Promise<AvailableNumber[]> {
    const query = new URLSearchParams();
    if (areaCode) query.set('AreaCode', areaCode);
    if (contains) query.set('Contains', contains);
    const body = await this.call<{ available_phone_numbers: Array<Record<string, string>> }>(
      creds,
      'GET',
      `/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/AvailablePhoneNumbers/US/${TYPE_PATH[type]}.json?${query}`,
    );
    return body.available_phone_numbers.map((n) => ({
      phoneNumber: n.phone_number,
      friendlyName: n.friendly_name,
      region: n.region,
      type,
      price: n.price,
    }));
  }

  async buy(
    creds: TelcoCredentials,
    phoneNumber: string,
  ): Promise<IncomingNumber & { price: string; accountBalance: string }> {
    const n = await this.call<Record<string, string>>(
      creds,
      'POST',
      `/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/IncomingPhoneNumbers.json`,
      { PhoneNumber: phoneNumber },
    );
    return {
      sid: n.sid,
      phoneNumber: n.phone_number,
      friendlyName: n.friendly_name,
      type: n.type as NumberType,
      price: n.price,
      accountBalance: n.account_balance,
    };
  }

  async incoming(creds: TelcoCredentials): Promise<IncomingNumber[]> {
    const body = await this.call<{ incoming_phone_numbers: Array<Record<string, string>> }>(
      creds,
      'GET',
      `/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/IncomingPhoneNumbers.json`,
    );
    return body.incoming_phone_numbers.map((n) => ({
      sid: n.sid,
      phoneNumber: n.phone_number,
      friendlyName: n.friendly_name,
      type: n.type as NumberType,
    }));
  }

  async services(creds: TelcoCredentials): Promise<MessagingService[]> {
    const body = await this.call<{ services: Array<Record<string, string | null>> }>(creds, 'GET', '/v1/Services');
    return body.services.map((s) => ({
      sid: s.sid!,
      friendlyName: s.friendly_name!,
      inboundRequestUrl: s.inbound_request_url,
      statusCallback: s.status_callback,
    }));
  }

  async campaigns(creds: TelcoCredentials, serviceSid: string): Promise<Campaign[]> {
    const body = await this.call<{ compliance: Array<Record<string, string>> }>(
      creds,
      'GET',
      `/v1/Services/${encodeURIComponent(serviceSid)}/Compliance/Usa2p`,
    );
    return body.compliance.map((c) => ({
      sid: c.sid,
      status: c.campaign_status,
      useCase: c.us_app_to_person_usecase,
      description: c.description,
    }));
  }

  async setServiceWebhooks(
    creds: TelcoCredentials,
    serviceSid: string,
    inboundRequestUrl: string,
    statusCallback: string,
  ): Promise<void> {
    await this.call(creds, 'POST', `/v1/Services/${encodeURIComponent(serviceSid)}`, {
      InboundRequestUrl: inboundRequestUrl,
      StatusCallback: statusCallback,
    });
  }

  /** Sends an SMS; the provider reports its fate to `statusCallback`. */
  async sendMessage(
    creds: TelcoCredentials,
    message: { from: string; to: string; body: string; statusCallback: string },
  ): Promise<{ sid: string; status: string }> {
    const m = await this.call<Record<string, string>>(
      creds,
      'POST',
      `/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/Messages.json`,
      {
        From: message.from,
        To: message.to,
        Body: message.body,
        StatusCallback: message.statusCallback,
      },
    );
    return { sid: m.sid, status: m.status };
  }

  /** Places an outbound call; its progress goes to `statusCallback`. A 5xx or no answer: TelcoUnavailableError. */
  async dial(
    creds: TelcoCredentials,
    call: {
      from: string;
      to: string;
      statusCallback: string;
      timeoutSeconds: number;
      machineDetection: boolean;
      /** The call's instruction once answered (the provider's Twiml parameter). */
      twiml: string;
    },
  ): Promise<{ sid: string }> {
    const placed = await this.call<Record<string, string>>(
      creds,
      'POST',
      `/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/Calls.json`,
      {
        From: call.from,
        To: call.to,
        StatusCallback: call.statusCallback,
        Timeout: String(call.timeoutSeconds),
        Twiml: call.twiml,
        ...(call.machineDetection ? { MachineDetection: 'Enable' } : {}),
      },
    );
    return { sid: placed.sid };
  }

  /** The account's calls to a number placed since a time, newest first: finds a dial whose answer was lost. */
  async callsTo(creds: TelcoCredentials, to: string, since: Date): Promise<Array<{ sid: string; status: string }>> {
    const query = new URLSearchParams({ To: to, 'StartTime>=': since.toISOString() });
    const body = await this.call<{ calls: Array<Record<string, string>> }>(
      creds,
      'GET',
      `/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/Calls.json?${query}`,
    );
    return body.calls.map((c) => ({ sid: c.sid, status: c.status }));
  }

  /** One call of the account as the provider has it now (its status, who answered, its seconds). */
  async callBySid(creds: TelcoCredentials, sid: string): Promise<Record<string, string | null>> {
    return this.call<Record<string, string | null>>(
      creds,
      'GET',
      `/2010-04-01/Accounts/${encodeURIComponent(creds.accountSid)}/Calls/${encodeURIComponent(sid)}.json`,
    );
  }

  private async call<T>(
    creds: TelcoCredentials,
    method: string,
    path: string,
    form?: Record<string, string>,
  ): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${creds.accountSid}:${creds.authToken}`).toString('base64')}`,
          accept: 'application/json',
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form ? new URLSearchParams(form).toString() : undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new TelcoUnavailableError(`The telco provider could not be reached: ${(error as Error).message}`);
    }
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: handled below
    }
    // A 5xx says nothing about whether the request took effect: the outcome is unknown, not a refusal.
    if (response.status >= 500) throw new TelcoUnavailableError(`The telco provider answered ${response.status}.`);
    if (!response.ok) {
      throw new TelcoError(
        typeof body.message === 'string' ? body.message : `The telco provider answered ${response.status}.`,
        response.status,
        body.code as number | undefined,
      );
    }
    return body as T;
  }
}
