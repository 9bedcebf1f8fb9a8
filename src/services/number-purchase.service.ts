import type { PurposeTokens } from '../auth/purpose-tokens.js';
import type { Config } from '../config/config.js';
import type { ContextFactory, RequestContext } from '../context/request-context.js';
import { ProviderUnavailableError, UnprocessableError, ValidationError } from '../kernel/errors.js';
import { TELCO_PROVIDER, TelcoError, TelcoUnavailableError, type TelcoClient } from '../telco/client.js';
import { Rules } from '../kernel/validation.js';
import type { ActionResult, TelcoService } from './telco.service.js';
import { numberPurchaseRepository } from '../repositories/number-purchase.repository.js';

// Buying a number through the company's provider account, safe against a
// crash or a provider that does not answer: the purchase row is committed
// before the provider is called, and a periodic job settles what a failure
// left open.

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
    if (!(await numberPurchaseRepository.reserve(ctx, String(claims.jti), String(claims.num))))
      throw new UnprocessableError('This purchase token has already been used.');
    let bought;
    try {
      bought = await this.client.buy(creds, claims.num as string);
    } catch (error) {
      if (error instanceof TelcoError) {
        // The provider said no: nothing was bought, the token may be tried again.
        await numberPurchaseRepository.release(ctx, String(claims.jti));
        throw new UnprocessableError(error.message);
      }
      if (error instanceof TelcoUnavailableError) {
        throw new ProviderUnavailableError(
          'The telco provider did not answer; the purchase is being checked with the provider. Do not buy the number again.',
        );
      }
      throw error;
    }
    const purchase = await numberPurchaseRepository.bought(ctx, String(claims.jti), bought);
    await numberPurchaseRepository.record(ctx, purchase);
    return { success: true, message: 'Number purchased successfully.' };
  }

  /**
   * Settles purchases a failure left open: bought but not recorded (recorded
   * now), or pending with no answer for longer than the provider timeout (the
   * provider's numbers tell whether it went through). A periodic job.
   */
  async reconcilePurchases(contexts: ContextFactory): Promise<number> {
    const maintenance = contexts.forMaintenance('reconcile-purchases');
    // Younger purchases may still be in flight: pending ones within the provider timeout, bought ones being recorded.
    const open = await numberPurchaseRepository.open(maintenance, (this.config.telcoTimeoutMs + 1000) / 1000);
    let settled = 0;
    for (const purchase of open) {
      const ctx = contexts.forSystem(purchase.companyId, 'reconcile-purchases');
      try {
        if (purchase.status === 'pending') {
          const found = await this.findAtProvider(ctx, purchase.phoneNo);
          if (!found) {
            await numberPurchaseRepository.release(ctx, purchase.jti, true);
            settled++;
            continue;
          }
          Object.assign(purchase, {
            providerSid: found.number.sid,
            friendlyName: found.number.friendlyName,
            phoneType: found.number.type,
            accountBalance: found.balance,
          });
        }
        await ctx.unitOfWork((uow) => numberPurchaseRepository.record(uow, purchase));
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
}
