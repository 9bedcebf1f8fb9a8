import type { RequestContext } from '../context/request-context.js';
import { NumberPurchase } from '../entities/number-purchase.entity.js';
import { PhoneNumber } from '../entities/phone-number.entity.js';
import { TelcoAccount } from '../entities/telco-account.entity.js';
import { type Listed, listed } from './common.js';

// Numbers bought under a purchase token: the one module that knows number_purchases. A purchase's own statements
// commit on their own (`committed`), before and after the provider is called, so they outlive a rollback of the
// operation: statements written by hand, for what the unit of work cannot say (a conditional upsert, committed
// apart from the transaction it is called in). What a bought number becomes is written through the entities, in
// the operation's unit of work.

type PurchaseField =
  | 'jti'
  | 'companyId'
  | 'phoneNo'
  | 'status'
  | 'providerSid'
  | 'friendlyName'
  | 'phoneType'
  | 'accountBalance';
/** The purchase as a statement returns it. */
export type Purchase = Listed<NumberPurchase, PurchaseField>;

const OWN = { committed: true } as const;
const COLUMNS = 'jti, company_id, phone_no, status, provider_sid, friendly_name, phone_type, account_balance';

export const numberPurchaseRepository = {
  /** Spends the token: a pending purchase, unless the token was spent already (false); a released one is taken again. */
  async reserve(ctx: RequestContext, jti: string, phoneNo: string): Promise<boolean> {
    const reserved = await ctx.sql(
      `INSERT INTO number_purchases (jti, company_id, phone_no, status, created_at, updated_at) VALUES ($1, $2, $3, 'pending', now(), now())
       ON CONFLICT (jti) DO UPDATE SET status = 'pending', updated_at = now() WHERE number_purchases.status = 'released'
       RETURNING jti`,
      [jti, await ctx.companyId(), phoneNo],
      OWN,
    );
    return reserved.length > 0;
  },

  /** Gives the token back (`pendingOnly`: only while the purchase is still pending). */
  async release(ctx: RequestContext, jti: string, pendingOnly = false): Promise<void> {
    await ctx.sql(
      `UPDATE number_purchases SET status = 'released', updated_at = now() WHERE jti = $1${pendingOnly ? " AND status = 'pending'" : ''}`,
      [jti],
      OWN,
    );
  },

  /** What the provider answered: the purchase bought, committed before it is recorded. */
  async bought(
    ctx: RequestContext,
    jti: string,
    number: { sid: string; friendlyName: string; type: string; accountBalance: string | null },
  ): Promise<Purchase> {
    const rows = await ctx.sql<Record<string, unknown>>(
      `UPDATE number_purchases SET status = 'bought', provider_sid = $1, friendly_name = $2, phone_type = $3, account_balance = $4, updated_at = now()
       WHERE jti = $5 RETURNING ${COLUMNS}`,
      [number.sid, number.friendlyName, number.type, number.accountBalance, jti],
      OWN,
    );
    return listed<NumberPurchase, PurchaseField>(ctx, NumberPurchase, rows)[0];
  },

  /** Purchases a failure left open: bought but not recorded for 30 s, or pending for longer than `pendingSeconds`. */
  async open(ctx: RequestContext, pendingSeconds: number): Promise<Purchase[]> {
    const rows = await ctx.sql<Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM number_purchases
       WHERE (status = 'bought' AND updated_at < now() - interval '30 seconds')
          OR (status = 'pending' AND updated_at < now() - make_interval(secs => $1))
       ORDER BY created_at LIMIT 100`,
      [pendingSeconds],
    );
    return listed<NumberPurchase, PurchaseField>(ctx, NumberPurchase, rows);
  },

  /** Records the bought number (once: a number recorded already is left as it is), the balance, and the purchase completed, in the unit of work. */
  async record(ctx: RequestContext, purchase: Purchase): Promise<void> {
    const company = purchase.companyId;
    await ctx.em.upsert(
      PhoneNumber,
      {
        company,
        phoneNo: purchase.phoneNo,
        providerSid: purchase.providerSid,
        phoneType: purchase.phoneType ?? 'local',
        phoneTitle: purchase.friendlyName ?? purchase.phoneNo,
        createdAt: new Date(),
        updatedAt: new Date(),
      },
      { onConflictFields: ['phoneNo'], onConflictAction: 'ignore' },
    );
    if (purchase.accountBalance !== null && Number.isFinite(Number(purchase.accountBalance))) {
      await ctx.em.nativeUpdate(
        TelcoAccount,
        { company },
        { balance: Number(purchase.accountBalance).toFixed(2), updatedAt: new Date() },
      );
    }
    await ctx.em.nativeUpdate(NumberPurchase, { jti: purchase.jti }, { status: 'completed', updatedAt: new Date() });
  },
};
