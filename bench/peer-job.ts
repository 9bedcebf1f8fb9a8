/** A job of the bench's peer (bench/peer-worker.ts): one delivery, its payload carried in the job. */
export interface PeerJob {
  deliveryId: string;
  event: string;
  url: string;
  secret: string;
  payload: string;
}

export const PEER_TASK = 'deliver_webhook';

/**
 * The SQL that adds peer jobs as the peer's API would, in its writing
 * transaction with one call: `$1` is a JSON array of PeerJob.
 */
export const ADD_PEER_JOBS = `SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
  SELECT ROW('${PEER_TASK}', j, NULL, NULL, NULL, NULL, NULL, NULL)::graphile_worker.job_spec
  FROM json_array_elements($1::json) j))`;
