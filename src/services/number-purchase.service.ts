import type { PurposeTokens } from '../auth/purpose-tokens.js';
import type { Config } from '../config/config.js';
import type { ContextFactory, RequestContext } from '../context/request-context.js';
import { ProviderUnavailableError, UnprocessableError, ValidationError } from '../kernel/errors.js';
import { TELCO_PROVIDER, TelcoError, TelcoUnavailableError, type TelcoClient } from '../telco/client.js';
import { Rules } from '../kernel/validation.js';
import type { ActionResult, TelcoService } from './telco.service.js';

/** The purchase row's statements commit on their own: they must outlive a rollback of the operation. */
const OWN = { committed: true } as const;

// Buying a number through the company's provider account, safe against a
// crash or a provider that does not answer: the purchase row is committed
// before the provider is called, and a periodic job settles what a failure
// left open.

interface PurchaseRow {
  jti: string;
  company_id: number;
  phone_no: string;
  status: 'pending' | 'bought' | 'completed' | 'released';
  provider_sid: string | null;
  friendly_name: string | null;
  phone_type: string | null;
  account_balance: string | null;
}

export class NumberPurchaseService {
  constructor(
    private readonly telco: TelcoService,
    private readonly client: TelcoClient,
    private readonly tokens: PurposeTokens,
    private readonly config: Pick<Config, 'telcoTimeoutMs'>,
  ) {}

  /**
   * Buys a number found by `available`. The purchase is recorded as pending
   * (and the token spent) before the provider is called, committed on its
   * own, so whatever fails afterwards the number ends recorded or released,
   * never charged and lost: a refusal releases the token; no answer leaves
   * the purchase pending for the reconciler, which asks the provider.
   */
  async purchase(ctx: RequestContext, providerName: string, token: string): Promise<ActionResult> {
    new Rules()
      .required('provider', providerName)
      .oneOf('provider', providerName, [TELCO_PROVIDER])
      .required('phoneNo', token)
      .check();
    const { creds } = await this.telco.credentials(ctx, 'Telco credentials and balance must be set before purchasing.');
    const company = await ctx.companyId();
    const claims = this.tokens.verify('purchase', token, company);
    if (!claims) throw ValidationError.field('phoneNo', 'The purchase token is invalid or has expired.');
    const reserved = await ctx.sql(
      `INSERT INTO number_purchases (jti, company_id, phone_no, status, created_at, updated_at) VALUES ($1, $2, $3, 'pending', now(), now())
       ON CONFLICT (jti) DO UPDATE SET status = 'pending', updated_at = now() WHERE number_purchases.status = 'released'
       RETURNING jti`,
      [claims.jti, company, claims.num],
      OWN,
    );
    if (reserved.length === 0) throw new UnprocessableError('This purchase token has already been used.');
    let bought;
    try {
      bought = await this.client.buy(creds, claims.num as string);
    } catch (error) {
      if (error instanceof TelcoError) {
        // The provider said no: nothing was bought, the token may be tried again.
        await ctx.sql(
          `UPDATE number_purchases SET status = 'released', updated_at = now() WHERE jti = $1`,
          [claims.jti],
          OWN,
        );
        throw new UnprocessableError(error.message);
      }
      if (error instanceof TelcoUnavailableError) {
        throw new ProviderUnavailableError(
          'The telco provider did not answer; the purchase is being checked with the provider. Do not buy the number again.',
        );
      }
      throw error;
    }
    const [row] = await ctx.sql<PurchaseRow>(
      `UPDATE number_purchases SET status = 'bought', provider_sid = $1, friendly_name = $2, phone_type = $3, account_balance = $4, updated_at = now()
       WHERE jti = $5 RETURNING *`,
      [bought.sid, bought.friendlyName, bought.type, bought.accountBalance, claims.jti],
      OWN,
    );
    await this.recordPurchase(ctx, row);
    return { success: true, message: 'Number purchased successfully.' };
  }

  /**
   * Settles purchases a failure left open: bought but not recorded (recorded
   * now), or pending with no answer for longer than the provider timeout (the
   * provider's numbers tell whether it went through). A periodic job.
   */
  async reconcilePurchases(contexts: ContextFactory): Promise<number> {
    const maintenance = contexts.forMaintenance('reconcile-purchases');
    const open = await maintenance.sql<PurchaseRow>(
      `SELECT * FROM number_purchases
       WHERE (status = 'bought' AND updated_at < now() - interval '30 seconds')
          OR (status = 'pending' AND updated_at < now() - make_interval(secs => $1))
       ORDER BY created_at LIMIT 100`,
      // Younger purchases may still be in flight: pending ones within the provider timeout, bought ones being recorded.
      [(this.config.telcoTimeoutMs + 1000) / 1000],
    );
    let settled = 0;
    for (const row of open) {
      const ctx = contexts.forSystem(row.company_id, 'reconcile-purchases');
      try {
        if (row.status === 'pending') {
          const found = await this.findAtProvider(ctx, row.phone_no);
          if (!found) {
            await ctx.sql(
              `UPDATE number_purchases SET status = 'released', updated_at = now() WHERE jti = $1 AND status = 'pending'`,
              [row.jti],
              OWN,
            );
            settled++;
            continue;
          }
          Object.assign(row, {
            provider_sid: found.number.sid,
            friendly_name: found.number.friendlyName,
            phone_type: found.number.type,
            account_balance: found.balance,
          });
        }
        await ctx.unitOfWork((uow) => this.recordPurchase(uow, row));
        settled++;
      } catch {
        // The provider is still unreachable, or the write failed again: the next run retries.
      }
    }
    return settled;
  }

  /** The number on the company's provider account, with the balance after its purchase; undefined when the provider has no such number. */
  private async findAtProvider(ctx: RequestContext, phoneNo: string) {
    const { creds } = await this.telco.credentials(ctx);
    const number = (await this.client.incoming(creds)).find((n) => n.phoneNumber === phoneNo);
    return number && { number, balance: String(await this.client.balance(creds)) };
  }

  /** Records a bought number in the operation's unit of work, and marks its purchase completed there too. */
  private async recordPurchase(ctx: RequestContext, row: PurchaseRow): Promise<void> {
    const now = new Date();
    await ctx.sql(
      `INSERT INTO phone_numbers (company_id, phone_no, provider_sid, phone_type, phone_title, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (phone_no) DO NOTHING`,
      [
        row.company_id,
        row.phone_no,
        row.provider_sid,
        row.phone_type ?? 'local',
        row.friendly_name ?? row.phone_no,
        now,
      ],
    );
    if (row.account_balance !== null && Number.isFinite(Number(row.account_balance))) {
      await ctx.sql('UPDATE telco_accounts SET balance = $1, updated_at = now() WHERE company_id = $2', [
        Number(row.account_balance).toFixed(2),
        row.company_id,
      ]);
    }
    await ctx.sql(`UPDATE number_purchases SET status = 'completed', updated_at = now() WHERE jti = $1`, [row.jti]);
  }
}
