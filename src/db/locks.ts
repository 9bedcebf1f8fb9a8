// PostgreSQL advisory lock namespaces (the first key of a two-key lock; the
// second is usually a company id). One list, so no two uses collide.
export const LOCKS = {
  /** Migrations and demo seeding at start. */
  startup: 7_201,
  /** Folder sort orders of one company. */
  folderOrder: 7_202,
  /** "Untitled workflow" names of one company. */
  defaultWorkflowName: 7_203,
  /** The delivery claim of one webhook (the second key): one worker claims for an endpoint at a time. */
  deliveryClaim: 7_204,
  /**
   * Writers of one company's deliveries (the second key: the company id), held shared from reading its webhooks
   * to the commit, against the deletion of one of them, which takes it alone: no delivery is written for a
   * webhook being deleted.
   */
  webhookWriters: 7_205,
  /** A call the dialer placed (the second key: its provider id hashed): its id recorded and its end, one at a time. */
  dialedCall: 7_206,
  /** The one dialer of the deployment (services/dialer-engine.ts), held by its session. */
  dialerLeader: 7_207,
  /** The delivery log's partitions (webhooks/engine/partitions.ts): made and dropped by one process at a time. */
  deliveryLogPartitions: 7_208,
} as const;

/** Holds the advisory lock (`namespace`, `key`) until the unit of work `ctx` runs in ends. */
export async function holdLock(
  ctx: { sql(text: string, params: unknown[]): Promise<unknown[]> },
  namespace: (typeof LOCKS)[keyof typeof LOCKS],
  key: number,
): Promise<void> {
  await ctx.sql('SELECT pg_advisory_xact_lock($1, $2)', [namespace, key]);
}
