import type { RequestContext } from '../context/request-context.js';
import { likePattern, type Page, type PageArgs, pageWindow } from '../db/reads.js';
import type { DoNotCallEntry } from '../entities/do-not-call-entry.entity.js';
import { BOUNDS } from '../kernel/bounds.js';
import { NotFoundError, ValidationError } from '../kernel/errors.js';
import { E164, Rules } from '../kernel/validation.js';
import type { DoNotCallSource } from '../kernel/vocabulary.js';
import type { Listed } from '../repositories/common.js';
import { type DoNotCallListed, doNotCallRepository } from '../repositories/do-not-call.repository.js';

// A company's do-not-call list (docs/dialer.md): numbers its campaigns must never dial. Added through the API or the
// page, or by the owner of the number: an SMS of a stop word to one of the company's numbers puts it on the list (and
// no SMS is sent to it any more), a start word takes that opt-out off again (as carriers handle them; an entry the
// company made itself stays).

/** The words of an opt-out and of an opt-in, as the carriers' rules for US messaging name them. */
export const STOP_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'REVOKE'];
export const START_WORDS = ['START', 'UNSTOP', 'YES', 'OPTIN'];

export interface DoNotCallRecord {
  phoneNumber: string;
  source: string;
  note: string | null;
  createdAt: Date;
}

const recordOf = (entry: Listed<DoNotCallEntry, DoNotCallListed> | DoNotCallEntry): DoNotCallRecord => ({
  phoneNumber: entry.phoneNumber,
  source: entry.source,
  note: entry.note,
  createdAt: entry.createdAt,
});

export class DoNotCallService {
  constructor(private readonly clock: () => Date = () => new Date()) {}

  async list(ctx: RequestContext, args: PageArgs & { search?: string | null }): Promise<Page<DoNotCallRecord>> {
    const window = pageWindow(args);
    const page = await doNotCallRepository.page(ctx, args.search ? likePattern(args.search) : undefined, window);
    return { ...page, records: page.records.map(recordOf) };
  }

  /** The number's entry; 404 when it is not on the list. */
  async entry(ctx: RequestContext, phoneNumber: string): Promise<DoNotCallRecord> {
    const entry = await doNotCallRepository.entry(ctx, checkedNumber(phoneNumber));
    if (!entry) throw new NotFoundError('Number on the do-not-call list');
    return recordOf(entry);
  }

  /** Adds numbers (1 to 1,000; each checked, none added when one is bad); those already listed keep their entry. */
  async add(
    ctx: RequestContext,
    input: { phoneNumbers?: string[] | null; note?: string | null },
    source: DoNotCallSource,
  ): Promise<{ added: number; alreadyListed: number }> {
    const b = BOUNDS.doNotCall;
    const numbers = input.phoneNumbers ?? [];
    const rules = new Rules().required('phoneNumbers', numbers.length > 0 ? numbers : undefined);
    if (numbers.length > b.phoneNumbers.maxItems)
      rules.add(
        'phoneNumbers',
        `The phone numbers field holds at most ${b.phoneNumbers.maxItems} numbers (got ${numbers.length}).`,
      );
    numbers.forEach((n, i) => {
      if (!E164.test(n))
        rules.add(
          `phoneNumbers.${i}`,
          `Each phone number must be E.164, such as +14155550100 (got ${JSON.stringify(n)}).`,
        );
    });
    rules.maxChars('note', input.note, b.note.maxLength);
    rules.check();
    const unique = [...new Set(numbers)];
    const added = await doNotCallRepository.add(ctx, unique, source, input.note?.trim() || null, this.clock());
    return { added, alreadyListed: unique.length - added };
  }

  /** Takes a number off the list; 404 when it is not on it. */
  async remove(ctx: RequestContext, phoneNumber: string): Promise<boolean> {
    if (!(await doNotCallRepository.remove(ctx, checkedNumber(phoneNumber))))
      throw new NotFoundError('Number on the do-not-call list');
    return true;
  }

  /** Whether the number's owner texted a stop word (and no start word since). */
  async optedOutBySms(ctx: RequestContext, phoneNumber: string): Promise<boolean> {
    return (await doNotCallRepository.entry(ctx, phoneNumber))?.source === 'sms_stop';
  }

  /** Of these numbers, the ones the dialer must not call. */
  listedOf(ctx: RequestContext, phoneNumbers: string[]): Promise<Set<string>> {
    return doNotCallRepository.listedOf(ctx, phoneNumbers);
  }

  /**
   * An SMS to one of the company's numbers: a stop word alone puts the sender on the list, a start word takes its
   * SMS opt-out off. What it did, if anything.
   */
  async smsReceived(ctx: RequestContext, from: string, body: string): Promise<'opted_out' | 'opted_in' | null> {
    const word = body
      .trim()
      .toUpperCase()
      .replace(/[.!]+$/, '');
    if (!E164.test(from)) return null;
    if (STOP_WORDS.includes(word)) {
      await doNotCallRepository.add(ctx, [from], 'sms_stop', `SMS "${body.trim().slice(0, 40)}"`, this.clock());
      return 'opted_out';
    }
    if (START_WORDS.includes(word) && (await doNotCallRepository.remove(ctx, from, 'sms_stop'))) return 'opted_in';
    return null;
  }
}

/** A number given in a path: E.164, else 422 naming it. */
function checkedNumber(phoneNumber: string): string {
  const trimmed = phoneNumber.trim();
  if (!E164.test(trimmed))
    throw ValidationError.field(
      'phoneNumber',
      `The phone number must be E.164, such as +14155550100 (got ${JSON.stringify(phoneNumber)}).`,
    );
  return trimmed;
}
