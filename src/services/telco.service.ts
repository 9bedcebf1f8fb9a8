import type { PurposeTokens } from '../auth/purpose-tokens.js';
import type { Config } from '../config/config.js';
import { PhoneStatus } from '../kernel/vocabulary.js';
import type { RequestContext } from '../context/request-context.js';
import type { RateLimiter } from './rate-limiter.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { ProviderUnavailableError, UnprocessableError, ValidationError } from '../kernel/errors.js';
import { TelcoError, TelcoUnavailableError, type TelcoClient, type TelcoCredentials } from '../telco/client.js';
import type { NumberType } from '../telco/inventory.js';
import { Rules } from '../kernel/validation.js';
import { BOUNDS } from '../kernel/bounds.js';

// The company's provider account and everything bought or imported through it.

export const TOKEN_TTL_SECONDS = 15 * 60;

export interface AvailableRow {
  phoneNumber: string;
  friendlyName: string;
  region: string;
  phoneType: NumberType;
  price: string;
  purchaseToken: string;
}

export interface ImportableRow {
  phoneNumber: string;
  friendlyName: string;
  phoneType: NumberType;
  providerSid: string;
  importToken: string;
}

/** A messaging (10DLC) campaign of the provider account, as the import list shows it. */
export interface MessagingCampaignRow {
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

/** The company's account at the provider, as its row holds it (the token sealed, never answered). */
export interface TelcoAccount {
  companyId: number;
  accountSid: string;
  authTokenSealed: string;
  /** The balance the provider last reported (USD, PostgreSQL's numeric as text). */
  balance: string | null;
}

interface TelcoAccountRow {
  company_id: number;
  account_sid: string;
  auth_token_sealed: string;
  balance: string | null;
}

const toAccount = (row: TelcoAccountRow): TelcoAccount => ({
  companyId: row.company_id,
  accountSid: row.account_sid,
  authTokenSealed: row.auth_token_sealed,
  balance: row.balance,
});

export class TelcoService {
  constructor(
    private readonly client: TelcoClient,
    private readonly box: SecretBox,
    private readonly tokens: PurposeTokens,
    private readonly limiter: RateLimiter,
    private readonly config: Pick<Config, 'publicUrl'>,
  ) {}

  async account(ctx: RequestContext): Promise<TelcoAccount | null> {
    const [row] = await ctx.sql<TelcoAccountRow>(
      'SELECT company_id, account_sid, auth_token_sealed, balance::text FROM telco_accounts WHERE company_id = $1',
      [await ctx.companyId()],
    );
    return row ? toAccount(row) : null;
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
    const now = new Date();
    const [row] = await ctx.sql<TelcoAccountRow>(
      `INSERT INTO telco_accounts (company_id, account_sid, auth_token_sealed, balance, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (company_id) DO UPDATE SET account_sid = excluded.account_sid,
         auth_token_sealed = excluded.auth_token_sealed, balance = excluded.balance, updated_at = excluded.updated_at
       RETURNING company_id, account_sid, auth_token_sealed, balance::text`,
      [company, accountSid, this.box.seal(authToken), balance.toFixed(2), now],
    );
    return toAccount(row);
  }

  async available(
    ctx: RequestContext,
    search: { areaCode?: string | null; contains?: string | null; phoneType?: string | null },
  ): Promise<AvailableRow[]> {
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
  async importable(ctx: RequestContext): Promise<ImportableRow[]> {
    const { creds } = await this.credentials(ctx, 'Telco credentials must be set first.');
    const incoming = await provider(() => this.client.incoming(creds));
    const cid = await ctx.companyId();
    const known = new Set(
      (
        await ctx.sql<{ phone_no: string }>('SELECT phone_no FROM phone_numbers WHERE phone_no = ANY($1::text[])', [
          incoming.map((n) => n.phoneNumber),
        ])
      ).map((n) => n.phone_no),
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
    const { account, creds } = await this.credentials(ctx, 'Telco credentials must be set first.');
    const claims = this.tokens.verify('import', token, await ctx.companyId());
    if (!claims) throw ValidationError.field('importToken', 'The import token is invalid or has expired.');
    const [taken] = await ctx.sql('SELECT 1 FROM phone_numbers WHERE phone_no = $1', [claims.num]);
    if (taken) {
      throw new UnprocessableError('This number has already been imported.');
    }
    const incoming = await provider(() => this.client.incoming(creds));
    const number = incoming.find((n) => n.sid === claims.sid);
    if (!number) throw new UnprocessableError('The number is no longer on the telco account.');
    const now = new Date();
    await ctx.sql(
      `INSERT INTO phone_numbers (company_id, phone_no, provider_sid, phone_type, phone_title, status, created_at,
         updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [account.companyId, number.phoneNumber, number.sid, number.type, number.friendlyName, PhoneStatus.Verified, now],
    );
    return { success: true, message: 'Number imported successfully.' };
  }

  /** A2P campaigns of the account's messaging services that are not imported yet. */
  async importableCampaigns(ctx: RequestContext): Promise<MessagingCampaignRow[]> {
    const { creds } = await this.credentials(ctx, 'Telco credentials must be set first.');
    const services = await provider(() => this.client.services(creds));
    const imported = new Set(
      (
        await ctx.sql<{ messaging_service_sid: string }>(
          'SELECT messaging_service_sid FROM messaging_campaigns WHERE company_id = $1',
          [await ctx.companyId()],
        )
      ).map((c) => c.messaging_service_sid),
    );
    const rows: MessagingCampaignRow[] = [];
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
    const { account, creds } = await this.credentials(ctx, 'Telco credentials must be set first.');
    const [imported] = await ctx.sql(
      'SELECT 1 FROM messaging_campaigns WHERE company_id = $1 AND messaging_service_sid = $2',
      [account.companyId, serviceSid],
    );
    if (imported) {
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
    const now = new Date();
    await ctx.sql(
      `INSERT INTO messaging_campaigns (company_id, messaging_service_sid, campaign_sid, name, status, use_case,
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [
        account.companyId,
        serviceSid,
        campaigns[0].sid,
        service?.friendlyName ?? serviceSid,
        campaigns[0].status,
        campaigns[0].useCase,
        now,
      ],
    );
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
   * Whose callback this is: the company whose provider account has this sid
   * (when several share one, the company that owns `number`), with the auth
   * token that signs its callbacks. Read across companies: a maintenance context.
   */
  async callbackAccount(
    ctx: RequestContext,
    accountSid: string,
    number: string | undefined,
  ): Promise<{ companyId: number; authToken: string } | undefined> {
    if (!ACCOUNT_SID.test(accountSid)) return undefined;
    const rows = await ctx.sql<{ company_id: number; auth_token_sealed: string; owns: boolean }>(
      `SELECT t.company_id, t.auth_token_sealed, EXISTS (SELECT 1 FROM phone_numbers p WHERE p.company_id = t.company_id AND p.phone_no = $1) AS owns
       FROM telco_accounts t WHERE t.account_sid = $2 ORDER BY 3 DESC, t.company_id LIMIT 1`,
      [number ?? '', accountSid],
    );
    const authToken = rows[0] ? this.box.open(rows[0].auth_token_sealed) : undefined;
    return rows[0] && authToken ? { companyId: rows[0].company_id, authToken } : undefined;
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
