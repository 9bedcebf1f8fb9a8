import type { RequestContext } from '../../context/request-context.js';
import { dbDate } from '../../db/reads.js';
import type { DisabledReason } from '../../kernel/vocabulary.js';
import type { StoredHeader } from './headers.js';

// A webhook's row (docs/design.md §5): its SQL, its row and the record the
// configuration and the consumer tools work with. The engine's statements
// read and change the columns they own themselves (webhooks/engine/).

/** A webhook as its row holds it, the secrets sealed; hits and the last hit from its counters. */
export interface Webhook {
  id: number;
  companyId: number;
  title: string;
  /** As shown: a broker URL's password as ***. */
  url: string;
  /** The whole URL, sealed, when it carries a password. */
  urlSealed: string | null;
  method: string;
  listSelection: string;
  formData: string[];
  events: string[];
  headers: StoredHeader[];
  filters: Record<string, unknown>;
  active: boolean;
  disabledReason: DisabledReason | null;
  hits: number;
  lastHit: Date | null;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  /** Set when the webhook signs with Ed25519 (v1a): its key sealed, and its public key. */
  signingKeySealed: string | null;
  publicKey: string | null;
  previousSigningKeySealed: string | null;
  previousPublicKey: string | null;
  concurrency: number | null;
  rateLimit: number | null;
  pausedUntil: Date | null;
  /** `subject`: deliveries about one subject are attempted one at a time, in order; `none`: as they come. */
  ordering: string;
  /** OAuth2 client credentials and client TLS, sealed (credentials.ts). */
  credentialsSealed: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface WebhookRow {
  id: number;
  company_id: number;
  title: string;
  url: string;
  url_sealed: string | null;
  method: string;
  list_selection: string;
  form_data: string[];
  events: string[];
  headers: StoredHeader[];
  filters: Record<string, unknown>;
  active: boolean;
  disabled_reason: DisabledReason | null;
  hits: number;
  last_hit: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  signing_key_sealed: string | null;
  public_key: string | null;
  previous_signing_key_sealed: string | null;
  previous_public_key: string | null;
  concurrency: number | null;
  rate_limit: number | null;
  paused_until: string | null;
  ordering: string;
  credentials_sealed: string | null;
  created_at: string;
  updated_at: string;
}

/** The columns of a webhook (`w`) with its counters (`c`). */
export const WEBHOOK_SELECT = `w.id, w.company_id, w.title, w.url, w.url_sealed, w.method, w.list_selection, w.form_data, w.events,
  w.headers, w.filters, w.active, w.disabled_reason, coalesce(c.hits, 0)::int AS hits, c.last_hit, w.secret_sealed,
  w.previous_secret_sealed, w.previous_secret_expires_at, w.signing_key_sealed, w.public_key,
  w.previous_signing_key_sealed, w.previous_public_key, w.concurrency, w.rate_limit, w.paused_until, w.ordering,
  w.credentials_sealed, w.created_at,
  w.updated_at`;
export const WEBHOOK_FROM = 'webhooks w LEFT JOIN webhook_counters c ON c.webhook_id = w.id';

export const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  companyId: row.company_id,
  title: row.title,
  url: row.url,
  urlSealed: row.url_sealed,
  method: row.method,
  listSelection: row.list_selection,
  formData: row.form_data,
  events: row.events,
  headers: row.headers,
  filters: row.filters,
  active: row.active,
  disabledReason: row.disabled_reason,
  hits: row.hits,
  lastHit: dbDate(row.last_hit),
  secretSealed: row.secret_sealed,
  previousSecretSealed: row.previous_secret_sealed,
  previousSecretExpiresAt: dbDate(row.previous_secret_expires_at),
  signingKeySealed: row.signing_key_sealed,
  publicKey: row.public_key,
  previousSigningKeySealed: row.previous_signing_key_sealed,
  previousPublicKey: row.previous_public_key,
  concurrency: row.concurrency,
  rateLimit: row.rate_limit,
  pausedUntil: dbDate(row.paused_until),
  ordering: row.ordering,
  credentialsSealed: row.credentials_sealed,
  createdAt: dbDate(row.created_at),
  updatedAt: dbDate(row.updated_at),
});

/** The company's webhook with this id, or undefined. */
export async function webhookOf(ctx: RequestContext, id: number, companyId: number): Promise<Webhook | undefined> {
  const [row] = await ctx.sql<WebhookRow>(
    `SELECT ${WEBHOOK_SELECT} FROM ${WEBHOOK_FROM} WHERE w.id = $1 AND w.company_id = $2`,
    [id, companyId],
  );
  return row && toWebhook(row);
}

/** The webhooks of a page (`where` and `params` ours: `w` the webhook), newest first, and their total. */
export async function webhookPage(
  ctx: RequestContext,
  where: string,
  params: unknown[],
  window: { perPage: number; offset: number },
): Promise<{ rows: Webhook[]; total: number }> {
  const n = params.length;
  const rows = await ctx.sql<WebhookRow & { total_rows: number }>(
    `SELECT ${WEBHOOK_SELECT}, count(*) OVER ()::int AS total_rows FROM ${WEBHOOK_FROM} WHERE ${where}
     ORDER BY w.created_at DESC, w.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, window.perPage, window.offset],
  );
  const total =
    rows[0]?.total_rows ??
    (window.offset > 0
      ? (await ctx.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks w WHERE ${where}`, params))[0].n
      : 0);
  return { rows: rows.map(toWebhook), total };
}
