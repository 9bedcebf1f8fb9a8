import type { PurposeTokens } from '../auth/purpose-tokens.js';
import type { Config } from '../config/config.js';
import { PhoneStatus } from '../kernel/vocabulary.js';
import type { CompanyScope, RequestContext } from '../context/request-context.js';
import { authRepository } from '../repositories/auth.repository.js';
import type { RateLimiter } from './rate-limiter.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { ProviderUnavailableError, UnprocessableError, ValidationError } from '../kernel/errors.js';
import { TelcoError, TelcoUnavailableError, type TelcoClient, type TelcoCredentials } from '../telco/client.js';
import type { NumberType } from '../telco/inventory.js';
import { agentInstruction } from '../telco/instructions.js';
import type { ConfigCache } from '../db/config-cache.js';
import { type CallStatusChanged, readCallStatus } from '../telco/callback-commands.js';
import { Rules } from '../kernel/validation.js';
import { BOUNDS } from '../kernel/bounds.js';
import type { TelcoAccount } from '../entities/telco-account.entity.js';
import { telcoRepository } from '../repositories/telco.repository.js';

// The company's provider account and everything bought or imported through it.

export const TOKEN_TTL_SECONDS = 15 * 60;

export interface AvailableNumber {
  phoneNumber: string;
  friendlyName: string;
  region: string;
  phoneType: NumberType;
  price: string;
  purchaseToken: string;
}

export interface ImportableNumber {
  phoneNumber: string;
  friendlyName: string;
  phoneType: NumberType;
  providerSid: string;
  importToken: string;
}

/** A messaging (10DLC) campaign of the provider account, as the import list shows it. */
export interface ImportableCampaign {
  messagingServiceSid: string;
  name: string;
  campaignSid: string | null;
  status: string;
  useCase: string;
}

export interface ActionResult {
  success: boolean;
  message: string;
}

/** A campaign's call as the dialer places it. */
export interface CampaignDial {
  from: string;
  to: string;
  statusCallback: string;
  ringSeconds: number;
  /** The campaign's agent takes the call, told these variables. */
  agentId: number | null;
  variables: Record<string, string>;
}

/** Runs a provider call; its refusals become 422 with the provider's text, silence 502. */
export async function provider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof TelcoError) throw new UnprocessableError(error.message);
    if (error instanceof TelcoUnavailableError)
      throw new ProviderUnavailableError('The telco provider did not answer. Try again later.');
    throw error;
  }
}

/** Changes of the provider credentials a company may make per hour (each one calls the provider). */
export const ACCOUNT_CHANGES_PER_HOUR = 10;
const ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;

export class TelcoService {
  constructor(
    private readonly client: TelcoClient,
    private readonly box: SecretBox,
    private readonly tokens: PurposeTokens,
    private readonly limiter: RateLimiter,
    private readonly config: Pick<Config, 'publicUrl'>,
    private readonly cache: ConfigCache,
  ) {}

  /** The company's account at the provider (its token sealed, never answered), or null. */
  account(ctx: RequestContext): Promise<TelcoAccount | null> {
    return telcoRepository.account(ctx);
  }

  /** Verifies the credentials with the provider, then stores them sealed with the balance it reports. */
  async setAccount(ctx: RequestContext, accountSid: string, authToken: string): Promise<TelcoAccount> {
    await ctx.requireOwner();
    const rules = new Rules()
      .required('accountSid', accountSid)
      .required('authToken', authToken)
      .maxChars('authToken', authToken, BOUNDS.telco.authToken.maxLength);
    if (!rules.has('accountSid') && !ACCOUNT_SID.test(accountSid))
      rules.add('accountSid', 'The account sid field must be AC followed by 32 hexadecimal digits.');
    if (!rules.has('authToken') && !/^[\x21-\x7e]+$/.test(authToken))
      rules.add('authToken', 'The auth token field must be printable characters without spaces.');
    rules.check();
    const company = await ctx.companyId();
    await this.limiter.hit(`telco-account:${company}`, { max: ACCOUNT_CHANGES_PER_HOUR, windowSeconds: 3600 });
    const balance = await provider(() => this.client.balance({ accountSid, authToken }));
    if (!Number.isFinite(balance))
      throw new ProviderUnavailableError('The telco provider reported a balance that is not a number.');
    // Callbacks are checked against the new token at once here (the other processes hear of it from the trigger).
    ctx.afterCommit(() => this.cache.forget('all'));
    return telcoRepository.saveAccount(ctx, {
      accountSid,
      authTokenSealed: this.box.seal(authToken),
      balance: balance.toFixed(2),
    });
  }

  async available(
    ctx: RequestContext,
    search: { areaCode?: string | null; contains?: string | null; phoneType?: string | null },
  ): Promise<AvailableNumber[]> {
    const rules = new Rules().oneOf('phoneType', search.phoneType, ['local', 'mobile', 'tollfree']);
    if (search.areaCode && !/^\d{3}$/.test(search.areaCode))
      rules.add('areaCode', 'The area code field must be 3 digits.');
    if (search.contains && !/^[0-9*]{1,10}$/.test(search.contains))
      rules.add('contains', 'The contains field must be up to 10 digits.');
    rules.check();
    const { creds } = await this.credentials(ctx);
    const type = (search.phoneType ?? 'local') as NumberType;
    const numbers = await provider(() =>
      this.client.available(creds, type, search.areaCode ?? undefined, search.contains ?? undefined),
    );
    const cid = await ctx.companyId();
    return numbers.map((n) => ({
      phoneNumber: n.phoneNumber,
      friendlyName: n.friendlyName,
      region: n.region,
      phoneType: n.type,
      price: n.price,
      purchaseToken: this.tokens.sign(
        'purchase',
        { cid, num: n.phoneNumber, typ: n.type, price: n.price },
        TOKEN_TTL_SECONDS,
      ),
    }));
  }

  /** Numbers on the provider account that this company has not imported. */
  async importable(ctx: RequestContext): Promise<ImportableNumber[]> {
    const { creds } = await this.credentials(ctx, 'Telco credentials must be set first.');
    const incoming = await provider(() => this.client.incoming(creds));
    const cid = await ctx.companyId();
    const known = await telcoRepository.numbersTaken(
      ctx,
      incoming.map((n) => n.phoneNumber),
    );
    return incoming
      .filter((n) => !known.has(n.phoneNumber))
      .map((n) => ({
        phoneNumber: n.phoneNumber,
        friendlyName: n.friendlyName,
        phoneType: n.type,
        providerSid: n.sid,
        importToken: this.tokens.sign(
          'import',
          { cid, sid: n.sid, num: n.phoneNumber, typ: n.type },
          TOKEN_TTL_SECONDS,
        ),
      }));
  }

  async importNumber(ctx: RequestContext, token: string): Promise<ActionResult> {
    new Rules().required('importToken', token).check();
    const { creds } = await this.credentials(ctx, 'Telco credentials must be set first.');
    const claims = this.tokens.verify('import', token, await ctx.companyId());
    if (!claims) throw ValidationError.field('importToken', 'The import token is invalid or has expired.');
    if ((await telcoRepository.numbersTaken(ctx, [String(claims.num)])).size > 0) {
      throw new UnprocessableError('This number has already been imported.');
    }
    const incoming = await provider(() => this.client.incoming(creds));
    const number = incoming.find((n) => n.sid === claims.sid);
    if (!number) throw new UnprocessableError('The number is no longer on the telco account.');
    await telcoRepository.addNumber(ctx, {
      phoneNo: number.phoneNumber,
      providerSid: number.sid,
      phoneType: number.type,
      phoneTitle: number.friendlyName,
      status: PhoneStatus.Verified,
    });
    return { success: true, message: 'Number imported successfully.' };
  }

  /** A2P campaigns of the account's messaging services that are not imported yet. */
  async importableCampaigns(ctx: RequestContext): Promise<ImportableCampaign[]> {
    const { creds } = await this.credentials(ctx, 'Telco credentials must be set first.');
    const services = await provider(() => this.client.services(creds));
    const imported = await telcoRepository.importedServices(ctx);
    const rows: ImportableCampaign[] = [];
    for (const service of services.filter((s) => !imported.has(s.sid))) {
      const [campaign] = await provider(() => this.client.campaigns(creds, service.sid));
      rows.push({
        messagingServiceSid: service.sid,
        name: service.friendlyName,
        campaignSid: campaign?.sid ?? null,
        status: campaign?.status ?? 'NO_CAMPAIGN',
        useCase: campaign?.useCase ?? '',
      });
    }
    return rows;
  }

  /** Imports a messaging service's A2P campaign and points the service's webhooks at this service. */
  async importCampaign(ctx: RequestContext, serviceSid: string): Promise<ActionResult> {
    new Rules()
      .required('messagingServiceSid', serviceSid)
      .maxChars('messagingServiceSid', serviceSid, BOUNDS.telco.messagingServiceSid.maxLength)
      .check();
    const { creds } = await this.credentials(ctx, 'Telco credentials must be set first.');
    if ((await telcoRepository.importedServices(ctx)).has(serviceSid)) {
      throw new UnprocessableError('This messaging campaign has already been imported.');
    }
    const campaigns = await provider(() => this.client.campaigns(creds, serviceSid));
    if (campaigns.length === 0) throw new UnprocessableError('The messaging service has no A2P campaign.');
    const services = await provider(() => this.client.services(creds));
    const service = services.find((s) => s.sid === serviceSid);
    await provider(() =>
      this.client.setServiceWebhooks(
        creds,
        serviceSid,
        `${this.config.publicUrl}/api/telco/sms/inbound`,
        `${this.config.publicUrl}/api/telco/sms/status`,
      ),
    );
    await telcoRepository.addCampaign(ctx, {
      messagingServiceSid: serviceSid,
      campaignSid: campaigns[0].sid,
      name: service?.friendlyName ?? serviceSid,
      status: campaigns[0].status,
      useCase: campaigns[0].useCase,
    });
    return { success: true, message: 'Messaging campaign imported successfully.' };
  }

  /** Sends an SMS through the company's provider account; status callbacks come to this service. */
  async sendMessage(
    ctx: RequestContext,
    from: string,
    to: string,
    body: string,
  ): Promise<{ sid: string; status: string }> {
    const { creds } = await this.credentials(ctx);
    return provider(() =>
      this.client.sendMessage(creds, {
        from,
        to,
        body,
        statusCallback: `${this.config.publicUrl}/api/telco/sms/status`,
      }),
    );
  }

  /**
   * The company's way to place a campaign's call, its credentials read now (so the call itself is one request, sent
   * when its moment comes), with machine detection (a voicemail is an outcome of its own).
   */
  async dialer(ctx: RequestContext): Promise<(call: CampaignDial) => Promise<{ sid: string }>> {
    const { creds } = await this.credentials(ctx);
    return (call) =>
      provider(() =>
        this.client.dial(creds, {
          from: call.from,
          to: call.to,
          statusCallback: call.statusCallback,
          timeoutSeconds: call.ringSeconds,
          machineDetection: true,
          // What the call does once answered: the campaign's agent, told the lead's variables.
          twiml: agentInstruction(call.agentId, call.variables),
        }),
      );
  }

  /**
   * A campaign call as the provider has it now, read as its status callback would have told it: how an end whose
   * callbacks were lost is found.
   */
  async callReport(ctx: RequestContext, sid: string): Promise<CallStatusChanged> {
    const { creds } = await this.credentials(ctx);
    const call = await provider(() => this.client.callBySid(creds, sid));
    const params: Record<string, string> = { CallSid: sid, Direction: 'outbound-api' };
    for (const [name, field] of [
      ['From', 'from'],
      ['To', 'to'],
      ['CallStatus', 'status'],
      ['CallDuration', 'duration'],
      ['AnsweredBy', 'answered_by'],
    ])
      if (typeof call[field] === 'string') params[name] = call[field];
    return readCallStatus(params);
  }

  /** The account's calls to a number since a time, newest first. */
  async callsTo(ctx: RequestContext, to: string, since: Date): Promise<Array<{ sid: string; status: string }>> {
    const { creds } = await this.credentials(ctx);
    return provider(() => this.client.callsTo(creds, to, since));
  }

  /**
   * Whose callback this is: the company whose provider account has this sid
   * (when several share one, the company that owns `number`), with the auth
   * token that signs its callbacks. Read across companies: a maintenance context.
   */
  async callbackAccount(
    ctx: RequestContext,
    accountSid: string,
    number: string | undefined,
  ): Promise<{ companyId: number; authToken: string; scope?: CompanyScope } | undefined> {
    if (!ACCOUNT_SID.test(accountSid)) return undefined;
    // Kept in memory, its token opened and its company's scope read, until an account, a number or the company
    // changes (db/config-cache.ts).
    return this.cache.get(`account:${accountSid}:${number ?? ''}`, async () => {
      const account = await telcoRepository.accountOfCallback(ctx, accountSid, number ?? '');
      const authToken = account ? this.box.open(account.authTokenSealed) : undefined;
      if (!account || !authToken) return undefined;
      const companyId = account.company.id;
      return { companyId, value: { companyId, authToken, scope: await authRepository.companyScope(ctx, companyId) } };
    });
  }

  /** The company's provider account and its opened credentials; 422 with `missing` when there are none or no balance yet. */
  async credentials(
    ctx: RequestContext,
    missing = 'Telco credentials must be set first.',
  ): Promise<{ account: TelcoAccount; creds: TelcoCredentials }> {
    const account = await this.account(ctx);
    const authToken = account ? this.box.open(account.authTokenSealed) : undefined;
    if (!account || !authToken || account.balance === null) throw new UnprocessableError(missing);
    return { account, creds: { accountSid: account.accountSid, authToken } };
  }
}
