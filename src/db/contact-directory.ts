import type { Watcher } from './config-cache.js';

// The callers an inbound call's decision names, in memory (docs/adr/0095-call-facts-in-memory.md): a company's
// contacts by phone number, loaded a page at a time off the call path at its first call, then kept current by the
// `call_path_changes` notifications its contacts' triggers send (migration call_path_facts). A number told changed
// is read again at its next call; a statement that changed many of a company's contacts drops its directory, loaded
// again at its next call. Until a company's directory is loaded, while the channel is not listened to, and for a
// company whose contacts would take more than the budget, each call reads its caller.

/** A caller as a decision request names it. */
export interface CallerContact {
  id: number;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
}

/** How a company's contacts are read (wired by the caller, through its request context). */
export interface DirectoryReads {
  /** The company's contact with this number, null without one. */
  one(): Promise<CallerContact | null>;
  /** The company's contacts after `afterId` in id order, at most `limit`. */
  page(afterId: number, limit: number): Promise<Array<CallerContact & { phoneNumber: string }>>;
}

interface Directory {
  readonly byNumber: Map<string, CallerContact>;
  ready: boolean;
  /** Numbers told changed since the load began, each with how many times: read again at their next call. */
  readonly stale: Map<string, number>;
}

const PAGE = 5000;
/** Numbers told changed and not read again that a directory keeps before it is dropped (and loaded again). */
const STALE_MAX = 10_000;
const TOLD_ONE = /^c(\d+):(\+\d{1,15})$/;
const TOLD_MANY = /^C(\d+)$/;

export class ContactDirectory implements Watcher {
  private readonly companies = new Map<number, Directory>();
  /** Companies whose contacts would take more than the budget: their callers are read per call. */
  private readonly tooLarge = new Set<number>();
  private held = 0;
  private listening = false;

  /** `budget`: contacts held in all, across companies. */
  constructor(private readonly budget = 200_000) {}

  /** The company's contact with `number` (E.164), null without one: from memory when its directory is current. */
  async find(companyId: number, number: string, reads: DirectoryReads): Promise<CallerContact | null> {
    const directory = this.companies.get(companyId);
    if (directory?.ready && !directory.stale.has(number)) return directory.byNumber.get(number) ?? null;
    if (!directory && this.listening && !this.tooLarge.has(companyId)) void this.load(companyId, reads);
    const told = directory?.stale.get(number);
    const found = await reads.one();
    // Kept unless the number was told changed again while it was read (then it is read again next time), or a
    // page of the load, read before it, may still come and put an older row.
    if (directory?.ready && this.companies.get(companyId) === directory && directory.stale.get(number) === told) {
      directory.stale.delete(number);
      this.put(directory, number, found);
    }
    return found;
  }

  get size(): number {
    return this.held;
  }

  told(payload: string): void {
    if (payload === 'all') return this.dropAll();
    const one = TOLD_ONE.exec(payload);
    if (one) {
      const directory = this.companies.get(Number(one[1]));
      if (!directory) return;
      directory.stale.set(one[2], (directory.stale.get(one[2]) ?? 0) + 1);
      if (directory.stale.size > STALE_MAX) this.drop(Number(one[1]));
      return;
    }
    const many = TOLD_MANY.exec(payload);
    if (many) {
      this.drop(Number(many[1]));
      this.tooLarge.delete(Number(many[1]));
    }
  }

  reset(listening: boolean): void {
    this.listening = listening;
    this.dropAll();
  }

  private dropAll(): void {
    this.companies.clear();
    this.tooLarge.clear();
    this.held = 0;
  }

  /** Loads a company's directory a page at a time; abandoned when dropped meanwhile or over the budget. */
  private async load(companyId: number, reads: DirectoryReads): Promise<void> {
    const directory: Directory = { byNumber: new Map(), ready: false, stale: new Map() };
    this.companies.set(companyId, directory);
    const current = () => this.companies.get(companyId) === directory;
    try {
      let afterId = 0;
      for (;;) {
        const rows = await reads.page(afterId, PAGE);
        if (!current()) return;
        if (this.held + rows.length > this.budget) {
          this.drop(companyId);
          this.tooLarge.add(companyId);
          return;
        }
        for (const { phoneNumber, ...contact } of rows) this.put(directory, phoneNumber, contact);
        if (rows.length < PAGE) break;
        afterId = rows[rows.length - 1].id;
      }
      directory.ready = true;
    } catch {
      // The database away: read per call until the next call loads it again.
      if (current()) this.drop(companyId);
    }
  }

  private put(directory: Directory, number: string, contact: CallerContact | null): void {
    const had = directory.byNumber.has(number);
    if (contact) directory.byNumber.set(number, contact);
    else directory.byNumber.delete(number);
    this.held += (contact ? 1 : 0) - (had ? 1 : 0);
  }

  private drop(companyId: number): void {
    const directory = this.companies.get(companyId);
    if (!directory) return;
    this.held -= directory.byNumber.size;
    this.companies.delete(companyId);
  }
}
